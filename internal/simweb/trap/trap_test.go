package trap

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The calendar's page for 2026-02-28 links to the days before and after
// and to a month and a year later, as dates by hand say; an unknown date
// is not found.
func TestCalendar(t *testing.T) {
	day := time.Date(2026, 2, 28, 0, 0, 0, 0, time.UTC)
	rec := httptest.NewRecorder()
	Calendar(rec, CalendarPath(day))
	body := rec.Body.String()
	for _, want := range []string{"/calendar/2026-02-27.html", "/calendar/2026-03-01.html", "/calendar/2026-03-28.html", "/calendar/2027-02-28.html"} {
		if !strings.Contains(body, `href="`+want+`"`) {
			t.Errorf("page of %s does not link to %s", day.Format(time.DateOnly), want)
		}
	}
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Length") != strconv.Itoa(len(body)) {
		t.Errorf("status %d, Content-Length %q for %d bytes", rec.Code, rec.Header().Get("Content-Length"), len(body))
	}
	rec = httptest.NewRecorder()
	Calendar(rec, "/calendar/2026-02-30.html")
	if rec.Code != http.StatusNotFound {
		t.Errorf("2026-02-30: status %d, want 404", rec.Code)
	}
}

// A chain of n redirects takes n hops to its target; the loop's two ends
// point at each other; chains of 0 or more than MaxHops are not found.
func TestRedirect(t *testing.T) {
	for _, n := range []int{1, 2, 7, MaxHops} {
		path, hops := RedirectPath(n, "/a/b.html"), 0
		for strings.HasPrefix(path, "/go/") {
			rec := httptest.NewRecorder()
			Redirect(rec, path)
			if rec.Code != http.StatusMovedPermanently {
				t.Fatalf("%s: status %d", path, rec.Code)
			}
			path = rec.Header().Get("Location")
			hops++
		}
		if hops != n || path != "/a/b.html" {
			t.Errorf("chain of %d: %d hops to %s", n, hops, path)
		}
	}
	for _, path := range []string{RedirectPath(0, "/x"), RedirectPath(MaxHops+1, "/x"), "/loop/c/1", "/loop/a/"} {
		rec := httptest.NewRecorder()
		Redirect(rec, path)
		if rec.Code != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", path, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	Redirect(rec, LoopPath("7"))
	back := httptest.NewRecorder()
	Redirect(back, rec.Header().Get("Location"))
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "/loop/b/7" || back.Header().Get("Location") != LoopPath("7") {
		t.Errorf("loop: %d to %q, back to %q", rec.Code, rec.Header().Get("Location"), back.Header().Get("Location"))
	}
}

// The oversized body has exactly the size asked for, and no length.
func TestOversize(t *testing.T) {
	const size = 1<<20 + 12345
	rec := httptest.NewRecorder()
	Oversize(rec, httptest.NewRequest(http.MethodGet, "/big/1.html", nil), size)
	if rec.Body.Len() != size || rec.Header().Get("Content-Length") != "" {
		t.Errorf("%d bytes, Content-Length %q; want %d and none", rec.Body.Len(), rec.Header().Get("Content-Length"), size)
	}
}

// The bomb inflates to exactly its size from a body hundreds of times
// smaller (1 MiB of spaces deflates to about 1 KiB), and a second request
// gets the same bytes.
func TestBomb(t *testing.T) {
	b := &Bomb{Size: 3<<20 + 5}
	var sent []int
	for range 2 {
		rec := httptest.NewRecorder()
		b.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/bomb/1.html", nil))
		sent = append(sent, rec.Body.Len())
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, zr)
		if err != nil || n != b.Size {
			t.Errorf("inflates to %d bytes (%v), want %d", n, err, b.Size)
		}
	}
	if sent[0] != sent[1] || sent[0]*500 > int(b.Size) {
		t.Errorf("sent %v bytes for %d inflated", sent, b.Size)
	}
}
