// Command wget regenerates wget-1.21.3.warc.gz, the fixture of
// TestReadWgetWARC: it serves three small pages on loopback (one of them
// chunked) and lets the installed wget crawl them with --warc-file.
//
//	cd internal/warc/testdata/wget && go run main.go
//
// It is in testdata so that go build ./... ignores it.
package main

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
)

func main() {
	const date = "Sat, 21 Nov 2026 12:00:00 GMT"
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Date", date)
		fmt.Fprint(w, `<html><body><a href="/plain.txt">plain</a> <a href="/chunked.txt">chunked</a></body></html>`)
	})
	mux.HandleFunc("/plain.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Date", date)
		w.Header().Set("Content-Length", "13")
		fmt.Fprint(w, "hello, world\n")
	})
	mux.HandleFunc("/chunked.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Date", date)
		for i := range 3 {
			fmt.Fprintf(w, "chunk %d\n", i)
			w.(http.Flusher).Flush() // each line becomes a chunk
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, mux)
	dir, err := os.MkdirTemp("", "wget")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command("wget", "-r", "-l", "1", "-q", "-e", "robots=off", "--no-warc-keep-log",
		"-P", dir, "--warc-file=wget-1.21.3", "http://"+ln.Addr().String()+"/")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
}
