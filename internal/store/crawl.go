package store

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// The crawl's own records that more than one package reads: how many pages
// the collection holds (a counter changed in the same transactions as the
// rows) and the scope its seeds set (settings). The crawler writes them;
// readers of a data directory read them.
const (
	counterHeld     = "held"
	scopeHostPrefix = "scope/host/"
	scopeSitePrefix = "scope/site/"
)

// AddHeld adds delta to the number of pages the collection holds.
func (t *Txn) AddHeld(delta int64) { t.Add(counterHeld, delta) }

// Held returns the number of pages the collection holds.
func (s *Store) Held() (int64, error) { return s.Counter(counterHeld) }

// AddScope records a seed's host and site (its registered domain) in the
// crawl's scope, which a restarted crawl keeps.
func (t *Txn) AddScope(host, site string) error {
	if err := t.SetSetting(scopeHostPrefix+host, ""); err != nil {
		return err
	}
	return t.SetSetting(scopeSitePrefix+site, "")
}

// settingScopeMode holds the mode of the crawl's scope (the crawler's
// host, site or any).
const settingScopeMode = "scope-mode"

// KeepScopeMode returns the mode of the crawl's scope: want if given, else
// the one an earlier run recorded, else def; and records it, so that a
// restarted crawl keeps it.
func (s *Store) KeepScopeMode(want, def string) (string, error) {
	mode := want
	if mode == "" {
		stored, _, err := s.Setting(settingScopeMode)
		if err != nil {
			return "", fmt.Errorf("store: scope mode: %w", err)
		}
		mode = cmp.Or(stored, def)
	}
	txn := s.Begin()
	if err := txn.SetSetting(settingScopeMode, mode); err != nil {
		txn.Abort()
		return "", err
	}
	return mode, txn.Commit()
}

// Scope returns the hosts and the sites of the crawl's scope, each in
// order; empty, not nil, when there are none.
func (s *Store) Scope() (hosts, sites []string, err error) {
	hosts, sites = []string{}, []string{}
	err = s.Settings("scope/", func(name, _ string) error {
		if h, ok := strings.CutPrefix(name, scopeHostPrefix); ok {
			hosts = append(hosts, h)
		} else if site, ok := strings.CutPrefix(name, scopeSitePrefix); ok {
			sites = append(sites, site)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("store: scope: %w", err)
	}
	return hosts, sites, nil
}

// Run is the budget account of the crawl's latest run, which the crawler
// records with every commit, so that a reader of the data directory can
// tell how much of its budget the run spent: Requests made from Started
// to At (its last commit), at Budget requests per second (0: none), and
// MarkRequests of them by Mark, a moment between one and two RunWindows
// before At (Started while the run is younger), so that the run's last
// stretch can be told from its whole.
type Run struct {
	Started, Mark, At      time.Time
	Budget                 float64
	Requests, MarkRequests int64
}

// RunWindow is the shortest stretch the run's mark spans.
const RunWindow = time.Minute

// settingRun holds Run as its fields in order, times in Unix nanoseconds.
const settingRun = "run"

// SetRun records r as the latest run's account.
func (t *Txn) SetRun(r Run) error {
	return t.SetSetting(settingRun, fmt.Sprintf("%d %d %d %g %d %d",
		r.Started.UnixNano(), r.Mark.UnixNano(), r.At.UnixNano(), r.Budget, r.Requests, r.MarkRequests))
}

// LatestRun returns the latest run's account; false if none was recorded.
func (s *Store) LatestRun() (Run, bool, error) {
	v, ok, err := s.Setting(settingRun)
	if err != nil || !ok {
		return Run{}, false, err
	}
	var r Run
	var started, mark, at int64
	if _, err := fmt.Sscanf(v, "%d %d %d %g %d %d", &started, &mark, &at, &r.Budget, &r.Requests, &r.MarkRequests); err != nil {
		return Run{}, false, fmt.Errorf("store: setting %s %q: %w", settingRun, v, err)
	}
	r.Started, r.Mark, r.At = time.Unix(0, started), time.Unix(0, mark), time.Unix(0, at)
	return r, true, nil
}
