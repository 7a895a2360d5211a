package warc

import (
	"compress/gzip"
	"os"
	"strconv"
	"testing"
	"time"
)

// rustdocPage is a real page of the rust-doc crawl (testdata/rustdoc).
func rustdocPage(b *testing.B) []byte {
	b.Helper()
	body, err := os.ReadFile("testdata/rustdoc/trait.Write.html")
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// pageExchange is the HTTP exchange of one page as the crawler's fetcher
// rebuilds it (fetch.Response.WireHeader and WireRequest) from nginx.
func pageExchange(body []byte) (respHeader, reqHeader []byte) {
	respHeader = []byte("HTTP/1.1 200 OK\r\n" +
		"Accept-Ranges: bytes\r\n" +
		"Connection: keep-alive\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n" +
		"Content-Type: text/html\r\n" +
		"Date: Fri, 27 Nov 2026 12:18:27 GMT\r\n" +
		"Etag: \"63c2f0a4-4857\"\r\n" +
		"Last-Modified: Sat, 14 Jan 2023 18:12:52 GMT\r\n" +
		"Server: nginx/1.22.1\r\n\r\n")
	reqHeader = []byte("GET /std/fmt/trait.Write.html HTTP/1.1\r\n" +
		"Host: 127.0.0.1:8080\r\n" +
		"Accept: text/html,application/xhtml+xml;q=0.9,*/*;q=0.8\r\n" +
		"Accept-Encoding: gzip\r\n" +
		"User-Agent: freshcrawl/0.1 (+https://github.com/freshcrawl/freshcrawl)\r\n\r\n")
	return respHeader, reqHeader
}

// BenchmarkEncodePage is the per-page WARC work of the crawler's workers
// (crawler.encodeExchange) for a new 200 capture of an 18 KB rustdoc page:
// the payload digest, then the response record, given that digest, and the
// request record, encoded at the crawler's gzip level (1). B/response and
// B/request are the sizes of the gzip members written.
func BenchmarkEncodePage(b *testing.B) {
	body := rustdocPage(b)
	respHeader, reqHeader := pageExchange(body)
	w, _ := newTestWriter(b, WriterConfig{Compression: gzip.BestSpeed, MaxFileSize: -1})
	defer w.Close()
	// Open the file, so that Encode compresses against its warcinfo.
	if _, err := w.WriteRequest(Request{TargetURI: "http://127.0.0.1:8080/", HTTPHeader: reqHeader}); err != nil {
		b.Fatal(err)
	}
	uri, at := "http://127.0.0.1:8080/std/fmt/trait.Write.html", time.Now()
	var respSize, reqSize int
	b.SetBytes(int64(len(respHeader) + len(body) + len(reqHeader)))
	b.ReportAllocs()
	for b.Loop() {
		reqID, respID := NewRecordID(), NewRecordID()
		digest := PayloadDigest(respHeader, body)
		resp, err := w.EncodeResponse(Response{
			ID: respID, Date: at, TargetURI: uri, IPAddress: "127.0.0.1", ConcurrentTo: reqID,
			HTTPHeader: respHeader, Body: body, PayloadDigest: digest,
		})
		if err != nil {
			b.Fatal(err)
		}
		req, err := w.EncodeRequest(Request{
			ID: reqID, Date: at, TargetURI: uri, IPAddress: "127.0.0.1", ConcurrentTo: respID,
			HTTPHeader: reqHeader,
		})
		if err != nil {
			b.Fatal(err)
		}
		respSize, reqSize = len(resp.member), len(req.member)
		// What WriteEncoded does once the members are in the file.
		w.release(resp)
		w.release(req)
	}
	b.ReportMetric(float64(respSize), "B/response")
	b.ReportMetric(float64(reqSize), "B/request")
}
