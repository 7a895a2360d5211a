package store

import (
	"fmt"
	"strings"
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
