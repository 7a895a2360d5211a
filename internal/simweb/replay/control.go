package replay

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// ControlHandler serves the replay's control API, in simweb's shapes, on a
// listener of its own so that crawlers never see it:
//
//	GET  /clock                 simulated time and speed
//	GET  /hosts                 every host
//	GET  /truth?url=U[&t=T]     ground truth about one URL (T: RFC 3339 or simulated seconds since the start; default now)
//	POST /evaluate[?t=T]        body "URL<TAB>version" lines → freshness and mean age of that collection
//	GET  /audit                 politeness audit
//	POST /audit/reset?delay=D&concurrency=N   restart the audit with new thresholds
func (s *Server) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /clock", func(rw http.ResponseWriter, r *http.Request) {
		now := s.clock.Now()
		simweb.WriteJSON(rw, map[string]any{"now": unix(s.Instant(now)), "sim_seconds": now.Seconds(), "speed": s.cfg.Speed, "epoch": unix(s.from)})
	})
	mux.HandleFunc("GET /hosts", func(rw http.ResponseWriter, r *http.Request) { simweb.WriteJSON(rw, s.Hosts()) })
	mux.HandleFunc("GET /truth", func(rw http.ResponseWriter, r *http.Request) {
		t, err := s.parseTime(r.URL.Query().Get("t"))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		p, err := s.Truth(r.URL.Query().Get("url"), t)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusNotFound)
			return
		}
		simweb.WriteJSON(rw, p)
	})
	mux.HandleFunc("POST /evaluate", func(rw http.ResponseWriter, r *http.Request) {
		t, err := s.parseTime(r.URL.Query().Get("t"))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		copies, err := simweb.ReadCopies(http.MaxBytesReader(rw, r.Body, 1<<30))
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		simweb.WriteJSON(rw, s.Evaluate(t, copies))
	})
	s.audit.Routes(mux)
	return mux
}

// parseTime reads an instant as RFC 3339 or as simulated seconds since the
// start, as a clock time; empty means now.
func (s *Server) parseTime(v string) (time.Duration, error) {
	if v == "" {
		return s.clock.Now(), nil
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * 1e9), nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil || t.Unix() < s.from {
		return 0, fmt.Errorf("t: want RFC 3339 from %v on, or simulated seconds ≥ 0, got %q", unix(s.from), v)
	}
	return time.Duration(t.Unix()-s.from) * time.Second, nil
}
