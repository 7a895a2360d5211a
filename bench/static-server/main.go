// Command static-server is the reference that bench/simweb-load.sh measures
// simweb against: net/http answering every request with one fixed HTML page
// of the size of an average simweb page, no generation, no bookkeeping. The
// ratio of the two rates is what simweb's page generation costs.
package main

import (
	"bytes"
	"flag"
	"log"
	"net/http"
	"strconv"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18082", "listen address (loopback)")
	size := flag.Int("size", 8192, "body size in bytes")
	flag.Parse()
	if !strings.HasPrefix(*addr, "127.") && !strings.HasPrefix(*addr, "localhost:") {
		log.Fatalf("static-server: %s is not a loopback address", *addr)
	}
	line := []byte("<p>The same page for every request, to measure the server alone.</p>\n")
	body := bytes.Repeat(line, *size/len(line)+1)[:*size]
	length := strconv.Itoa(len(body))
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"text/html; charset=utf-8"}
		h["Content-Length"] = []string{length}
		_, _ = w.Write(body)
	})))
}
