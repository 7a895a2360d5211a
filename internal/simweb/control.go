package simweb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ControlHandler serves simweb's own API, on a listener of its own so that
// crawlers never see it:
//
//	GET  /clock                 simulated time and speed
//	GET  /hosts                 every host and its modes
//	GET  /truth?url=U[&t=T]     ground truth about one URL (T: RFC 3339 or simulated seconds; default now)
//	GET  /snapshot[?t=T]        every live page: JSON lines {url, version, modified, next}
//	POST /evaluate[?t=T]        body "URL<TAB>version" lines → freshness and mean age of that collection
//	GET  /audit                 politeness audit
//	POST /audit/reset?delay=D&concurrency=N   restart the audit with new thresholds
//	GET  /describe[?sample=N]   the web's statistics (as -describe prints them), JSON
func (w *Web) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /clock", w.serveClock)
	mux.HandleFunc("GET /hosts", func(rw http.ResponseWriter, r *http.Request) { WriteJSON(rw, w.Hosts()) })
	mux.HandleFunc("GET /truth", w.serveTruth)
	mux.HandleFunc("GET /snapshot", w.serveSnapshot)
	mux.HandleFunc("POST /evaluate", w.serveEvaluate)
	w.audit.Routes(mux)
	mux.HandleFunc("GET /describe", func(rw http.ResponseWriter, r *http.Request) {
		sample, _ := strconv.Atoi(r.URL.Query().Get("sample"))
		if sample <= 0 {
			sample = 100000
		}
		WriteJSON(rw, Describe(w, sample))
	})
	return mux
}

// serveClock serves GET /clock.
func (w *Web) serveClock(rw http.ResponseWriter, r *http.Request) {
	now := w.clock.Now()
	WriteJSON(rw, map[string]any{"now": w.simTime(int64(now)), "sim_seconds": now.Seconds(), "speed": w.cfg.Speed, "epoch": w.cfg.Epoch})
}

// serveTruth serves GET /truth.
func (w *Web) serveTruth(rw http.ResponseWriter, r *http.Request) {
	t, err := w.parseTime(r.URL.Query().Get("t"))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	p, err := w.Truth(r.URL.Query().Get("url"), t)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusNotFound)
		return
	}
	WriteJSON(rw, p)
}

// serveSnapshot serves GET /snapshot, streaming a JSON line per live page.
func (w *Web) serveSnapshot(rw http.ResponseWriter, r *http.Request) {
	t, err := w.parseTime(r.URL.Query().Get("t"))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	rw.Header().Set("Content-Type", "application/x-ndjson")
	bw := bufio.NewWriterSize(rw, 64<<10)
	enc := json.NewEncoder(bw)
	w.Snapshot(t, func(url string, v Version) {
		_ = enc.Encode(struct {
			URL      string    `json:"url"`
			Version  uint32    `json:"version"`
			Modified time.Time `json:"modified"`
		}{url, v.Version, w.simTime(v.Modified)})
	})
	_ = bw.Flush()
}

// serveEvaluate serves POST /evaluate.
func (w *Web) serveEvaluate(rw http.ResponseWriter, r *http.Request) {
	t, err := w.parseTime(r.URL.Query().Get("t"))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	copies, err := ReadCopies(http.MaxBytesReader(rw, r.Body, 1<<30))
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	WriteJSON(rw, w.Evaluate(t, copies))
}

// ReadCopies reads a collection as "URL<TAB>version" lines, the body of
// POST /evaluate; blank lines are skipped.
func ReadCopies(body io.Reader) ([]Copy, error) {
	var copies []Copy
	sc := bufio.NewScanner(body)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		u, ver, ok := strings.Cut(text, "\t")
		n, err := strconv.ParseUint(strings.TrimSpace(ver), 10, 32)
		if !ok || err != nil {
			return nil, fmt.Errorf("line %d: want URL<TAB>version", line)
		}
		copies = append(copies, Copy{URL: u, Version: uint32(n)})
	}
	return copies, sc.Err()
}

// Routes adds GET /audit and POST /audit/reset to a control API's mux.
func (a *Audit) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /audit", func(rw http.ResponseWriter, r *http.Request) { WriteJSON(rw, a.Report()) })
	mux.HandleFunc("POST /audit/reset", a.serveReset)
}

// serveReset serves POST /audit/reset: the audit restarts, with the
// thresholds the query sets and the others as they were.
func (a *Audit) serveReset(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	cfg := a.config()
	if v := q.Get("delay"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			http.Error(rw, "delay: want a duration like 200ms", http.StatusBadRequest)
			return
		}
		cfg.MinDelay = d
	}
	if v := q.Get("concurrency"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			http.Error(rw, "concurrency: want a whole number", http.StatusBadRequest)
			return
		}
		cfg.MaxInFlight = n
	}
	a.Reset(cfg)
	WriteJSON(rw, a.Report())
}

// HostInfo describes one host for /hosts.
type HostInfo struct {
	Name       string `json:"name"`
	Domain     string `json:"domain"`
	Pages      int    `json:"pages"`
	Process    string `json:"process"`
	Validators string `json:"validators"`
	Robots     string `json:"robots"`
	CrawlDelay int    `json:"crawl_delay,omitempty"`
	Sitemap    string `json:"sitemap"`
	SitemapURL string `json:"sitemap_url,omitempty"`
	Gzip       bool   `json:"gzip"`
	Trap       bool   `json:"calendar_trap"`
}

// Hosts describes every host.
func (w *Web) Hosts() []HostInfo {
	out := make([]HostInfo, len(w.sites))
	for i := range w.sites {
		s := &w.sites[i]
		out[i] = HostInfo{
			Name: s.name, Domain: s.domain.String(), Pages: int(s.pages), Process: s.process.String(),
			Validators: s.validators.String(), Robots: s.robots.String(), CrawlDelay: s.crawlDelay,
			Sitemap: s.sitemap.String(), SitemapURL: s.sitemapURL(), Gzip: s.gzip, Trap: s.trap,
		}
	}
	return out
}

// parseTime reads an instant as RFC 3339 or as simulated seconds since the
// epoch; empty means now.
func (w *Web) parseTime(v string) (time.Duration, error) {
	if v == "" {
		return w.clock.Now(), nil
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, fmt.Errorf("t: %g is before the epoch", secs)
		}
		return time.Duration(secs * 1e9), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return 0, fmt.Errorf("t: want RFC 3339 or simulated seconds, got %q", v)
	}
	if t.Before(w.cfg.Epoch) {
		return 0, fmt.Errorf("t: %v is before the epoch %v", t, w.cfg.Epoch)
	}
	return t.Sub(w.cfg.Epoch), nil
}

// WriteJSON writes v as indented JSON, the control APIs' answer.
func WriteJSON(rw http.ResponseWriter, v any) {
	rw.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(rw)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
