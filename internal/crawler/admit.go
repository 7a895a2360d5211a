package crawler

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// This file is the step of a commit that admits what a fetch found (a
// redirect's target, links, sitemap entries, the sitemaps robots.txt
// names) into the frontier: in the crawl's scope, within the trap limits
// and the per-host URL limit, each URL queued once on its host. The links
// admitted are also the page's edges in the recorded link graph.

// discovered is a URL found in a page, a sitemap or a redirect.
type discovered struct {
	url     string
	kind    uint8
	hops    uint8
	checked bool // admissible already said yes
	known   bool // a link its page had before: not sent to its owner again
}

// inScope reports whether a canonical URL is to be followed.
func (c *Crawler) inScope(u string) bool {
	switch c.cfg.Scope {
	case ScopeAny:
		return true
	case ScopeHost:
		return c.scopeHosts[urlx.Host(u)]
	default:
		return c.scopeSites[urlx.SiteKey(urlx.Host(u))]
	}
}

// stageSitemaps queues the sitemaps a robots.txt named.
func (c *Crawler) stageSitemaps(txn *store.Txn, sitemaps []string, enq map[string]int) error {
	if len(sitemaps) == 0 {
		return nil
	}
	items := make([]discovered, 0, len(sitemaps))
	for _, s := range sitemaps {
		if u, err := urlx.Canonical(s); err == nil {
			items = append(items, discovered{url: u, kind: store.KindSitemap})
		}
	}
	_, err := c.enqueue(txn, items, enq, "")
	return err
}

// stageFound queues what the page led to: its redirect target, links,
// sitemap entries and child sitemaps. It returns how many were new.
func (c *Crawler) stageFound(txn *store.Txn, pr *pageResult, enq map[string]int) (int, error) {
	var found []discovered
	if resp := pr.resp; resp != nil && resp.Location != "" && resp.Status >= 300 && resp.Status < 400 {
		if int(pr.item.Hops) >= c.cfg.MaxRedirects {
			c.log.Info("redirect chain too long", "url", pr.item.URL, "hops", pr.item.Hops)
		} else if u, err := urlx.Canonical(resp.Location); err == nil {
			found = append(found, discovered{url: u, kind: pr.item.Kind, hops: pr.item.Hops + 1})
		}
	}
	found = c.admitLinks(pr, found)
	if err := c.stageLinks(txn, pr); err != nil {
		return 0, err
	}
	site := ""
	if len(pr.entries) > 0 || len(pr.children) > 0 {
		site = urlx.SiteKey(urlx.Host(pr.item.URL))
	}
	for _, e := range pr.entries {
		found = append(found, discovered{url: e.Loc, kind: store.KindPage})
		if !e.LastMod.IsZero() && urlx.SiteKey(urlx.Host(e.Loc)) == site {
			if err := txn.SetLastMod(e.Loc, e.LastMod, pr.resp.Started); err != nil {
				return 0, err
			}
		}
	}
	for _, e := range pr.children {
		found = append(found, discovered{url: e.Loc, kind: store.KindSitemap})
	}
	return c.enqueue(txn, found, enq, site)
}

// admitLinks appends to found the page's links that count, in scope and
// within the trap limits, and keeps them as the page's edges (pr.edges);
// under topic ordering it notes which name the topic (pr.named).
func (c *Crawler) admitLinks(pr *pageResult, found []discovered) []discovered {
	var edges []string
	for _, l := range pr.links {
		if l.Nofollow && !c.cfg.FollowNofollow {
			continue
		}
		if !c.admissible(l.URL, "") {
			continue
		}
		_, known := slices.BinarySearchFunc(pr.before, store.HashURL(l.URL), store.Hash.Compare)
		found = append(found, discovered{url: l.URL, kind: store.KindPage, checked: true, known: known})
		edges = append(edges, l.URL)
		if c.cfg.Ordering == rank.OrderTopic {
			pr.named = append(pr.named, strings.Contains(strings.ToLower(l.Anchor), c.cfg.Topic) ||
				strings.Contains(l.URL, c.cfg.Topic))
		}
	}
	pr.edges = edges
	return found
}

// stageLinks keeps the link graph in step with a page's answer: a page
// with new content has its edges replaced (none if it links nowhere, or
// is not HTML); a page gone or moved (4xx, 3xx) has them removed; the
// same content again, a 304 or a failure leaves them as they were.
func (c *Crawler) stageLinks(txn *store.Txn, pr *pageResult) error {
	resp := pr.resp
	if resp == nil || pr.item.Kind != store.KindPage {
		return nil
	}
	switch s := resp.Status; {
	case s >= 200 && s < 300:
		if !pr.read {
			return nil
		}
		return txn.SetLinks(pr.item.URL, pr.edges)
	case s >= 300 && s < 500 && s != http.StatusNotModified && s != http.StatusTooManyRequests:
		if pr.known {
			return txn.DeleteLinks(pr.item.URL)
		}
	}
	return nil
}

// enqueue queues the URLs that are in scope and within the trap limits,
// grouped by host, and returns how many were new. With site set, only URLs
// of that site are taken (a sitemap speaks only for its own site).
func (c *Crawler) enqueue(txn *store.Txn, found []discovered, enq map[string]int, site string) (int, error) {
	byHost := map[string][]store.Item{}
	var order, foreign []string
	for _, d := range found {
		host := urlx.Authority(d.url)
		if host == "" || !d.checked && !c.admissible(d.url, site) {
			continue
		}
		if c.cfg.Owns != nil && !c.cfg.Owns(d.url) {
			if c.cfg.Outbox != nil && !d.known && c.cfg.Outbox(d.url) {
				foreign = append(foreign, d.url)
			}
			continue
		}
		if _, ok := byHost[host]; !ok {
			order = append(order, host)
		}
		byHost[host] = append(byHost[host], store.Item{URL: d.url, Kind: d.kind, Hops: d.hops})
	}
	if err := txn.AddOutbox(foreign); err != nil {
		return 0, err
	}
	total := 0
	for _, host := range order {
		queued, dropped, err := txn.Enqueue(host, byHost[host], uint64(c.cfg.MaxURLsPerHost))
		if err != nil {
			return 0, err
		}
		if dropped > 0 {
			c.stats.trapped.Add(int64(dropped))
			if !c.cm.urlLimited[host] {
				// Once per host and run: from now on every new URL of the
				// host is dropped.
				c.cm.urlLimited[host] = true
				c.log.Warn("host URL limit reached", "host", host, "limit", c.cfg.MaxURLsPerHost)
			}
			c.log.Debug("host URL limit reached", "host", host, "dropped", dropped)
		}
		enq[host] += queued
		total += queued
		c.stats.discovered.Add(int64(queued))
	}
	return total, nil
}

// admissible reports whether a found URL may be queued: it has a host, is
// in the crawl's scope (and, with site set, of that site) and within the
// trap limits. It counts the refusals.
func (c *Crawler) admissible(u, site string) bool {
	if urlx.Authority(u) == "" {
		return false
	}
	if site != "" && urlx.SiteKey(urlx.Host(u)) != site || !c.inScope(u) {
		c.stats.outOfScope.Add(1)
		return false
	}
	if err := c.cfg.Limits.Check(u); err != nil {
		c.stats.trapped.Add(1)
		c.log.Debug("URL refused", "url", u, "err", err)
		return false
	}
	return true
}

// Admit queues and counts (store.CounterReceived) the canonical urls another
// partition found for this one, in a transaction of its own, and returns how
// many were new. counts[i], if given, is how many links to urls[i] that
// partition's pages gained: added to the URL's count (store.InlinksCounter),
// whose total the ranking adds to its own links. It waits out a commit in
// progress (release.go's views).
func (c *Crawler) Admit(urls []string, counts []uint32) (int, error) {
	found := make([]discovered, 0, len(urls))
	var ups []rank.Update
	for i, u := range urls {
		if cu, err := urlx.Canonical(u); err != nil || cu != u {
			continue
		}
		found = append(found, discovered{url: u, kind: store.KindPage})
		if i < len(counts) && counts[i] > 0 {
			ups = append(ups, rank.Update{URL: u, Inlinks: int64(counts[i])})
		}
	}
	c.admitMu.Lock() // also keeps the counters' totals, read below, this Admit's
	defer c.admitMu.Unlock()
	txn := c.store.Begin()
	for _, u := range ups {
		txn.Add(store.InlinksCounter(u.URL), u.Inlinks)
	}
	enq := map[string]int{}
	n, err := c.enqueue(txn, found, enq, "")
	if err != nil {
		txn.Abort()
		return 0, fmt.Errorf("crawl: admit: %w", err)
	}
	txn.Add(store.CounterReceived, int64(len(urls)))
	txn.Add(store.CounterAdmitted, int64(n))
	if err := txn.Commit(); err != nil {
		return 0, fmt.Errorf("crawl: admit: %w", err)
	}
	for i := range ups {
		if ups[i].Inlinks, err = c.store.Counter(store.InlinksCounter(ups[i].URL)); err != nil {
			return n, fmt.Errorf("crawl: admit: %w", err)
		}
	}
	if c.ranker != nil { // totals: the ranking may have loaded them already
		c.ranker.Observe(ups)
	}
	s := c.sched
	s.mu.Lock()
	c.noteFound(enq, c.now())
	s.mu.Unlock()
	s.signal()
	return n, nil
}
