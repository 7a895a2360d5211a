package reproduce

// The world of §2.5.4's similarity crawls: simweb's pages, fetched and
// read for a topic word as a crawler would.

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/extract"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// Ch2TopicResult is the similarity crawl of dissertation §2.5.4: which
// pages of the closed world are hot for the topic word, and the visit
// order of each ordering under the basic two-queue crawler (Algorithm
// 2.5.2) and with the distance rule (Algorithm 2.5.3).
type Ch2TopicResult struct {
	Word          string
	Pages, Hot    int
	Hotness       []float64 // 1 for a hot page, else 0: I(p) = IS(p), binary
	Basic, Nearby map[rank.Ordering][]uint32
}

// Ch2Topic renders every page reachable from the first site's home page
// of the web of cfg at time zero, as a virtual crawler reads a repository:
// a page is hot by rank.TopicHot, and a link names the topic if the word is
// in its anchor text or its URL. Then it crawls that world from the home
// page in breadth-first, backlink and PageRank order, with two queues,
// without and with the distance rule.
func Ch2Topic(cfg Ch2Config, word string) (*Ch2TopicResult, error) {
	web, err := simweb.New(cfg.Web, &simweb.ManualClock{})
	if err != nil {
		return nil, err
	}
	w, err := readTopicWorld(web, word)
	if err != nil {
		return nil, err
	}
	var b rank.Builder // reversed, as the crawl reads it
	b.AddNode(uint32(len(w.outs) - 1))
	for u, out := range w.outs {
		for _, v := range out {
			b.AddEdge(uint32(v), uint32(u))
		}
	}
	fwd, err := b.Build(rank.BuildOptions{})
	if err != nil {
		return nil, err
	}
	res := &Ch2TopicResult{Word: word, Pages: len(w.hot), Hotness: make([]float64, len(w.hot)),
		Basic: map[rank.Ordering][]uint32{}, Nearby: map[rank.Ordering][]uint32{}}
	for v, h := range w.hot {
		if h {
			res.Hot++
			res.Hotness[v] = 1
		}
	}
	var jobs []crawlJob
	for _, o := range []rank.Ordering{rank.OrderBreadthFirst, rank.OrderBacklink, rank.OrderPageRank} {
		jobs = append(jobs, crawlJob{o, &Topic{Hot: w.hot, Named: w.named}},
			crawlJob{o, &Topic{Hot: w.hot, Named: w.named, Distance: true}})
	}
	orders, err := runCrawls(fwd, CrawlOptions{Every: cfg.Every, Seed: cfg.Seed}, jobs)
	if err != nil {
		return nil, err
	}
	for i, j := range jobs {
		if j.topic.Distance {
			res.Nearby[j.o] = orders[i]
		} else {
			res.Basic[j.o] = orders[i]
		}
	}
	return res, nil
}

// topicWorld is the pages reachable from a start page as a crawler finds
// them, numbered in breadth-first order from the start, 0.
type topicWorld struct {
	hot   []bool   // page i is hot for the word
	outs  [][]int  // page i's out-links, each target once
	named [][]bool // named[i][j]: page i's link to outs[i][j] names the word
}

// readTopicWorld fetches the pages of web reachable from its first site's
// home page, in breadth-first order, and reads what the similarity crawl
// needs of them.
func readTopicWorld(web *simweb.Web, word string) (*topicWorld, error) {
	slotOf := map[string]int{}
	var urls []string
	web.Snapshot(0, func(u string, _ simweb.Version) {
		slotOf[u] = len(urls)
		urls = append(urls, u)
	})
	start := web.SiteHome(0)
	id := map[int]int{start: 0} // slot → page number
	queue := []int{start}       // page number → slot
	number := func(url string) (int, bool) {
		slot, ok := slotOf[url]
		if !ok {
			return 0, false
		}
		v, ok := id[slot]
		if !ok {
			v = len(queue)
			id[slot] = v
			queue = append(queue, slot)
		}
		return v, true
	}
	w := &topicWorld{}
	for i := 0; i < len(queue); i++ {
		body, links, err := readPage(web, urls[queue[i]])
		if err != nil {
			return nil, err
		}
		w.hot = append(w.hot, rank.TopicHot(body, word))
		w.addLinks(links, word, number)
	}
	return w, nil
}

// readPage fetches url from web as a crawler would and returns the body
// and, for a page served, its links.
func readPage(web *simweb.Web, url string) ([]byte, []extract.Link, error) {
	rec := httptest.NewRecorder()
	web.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	body := rec.Body.Bytes()
	if rec.Code != http.StatusOK {
		return body, nil, nil
	}
	res, err := extract.Links(bytes.NewReader(body), url, rec.Header().Get("Content-Type"), extract.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("topic world: %w", err)
	}
	return body, res.Links, nil
}

// addLinks adds the next page's out-links, to the pages of the world
// number finds, each target once and named if any of its links names the
// word in its anchor text or URL.
func (w *topicWorld) addLinks(links []extract.Link, word string, number func(url string) (int, bool)) {
	var out []int
	var named []bool
	seen := map[int]int{}
	for _, l := range links {
		v, ok := number(l.URL)
		if !ok {
			continue
		}
		isNamed := strings.Contains(l.Anchor, word) || strings.Contains(l.URL, word)
		if k, dup := seen[v]; dup {
			named[k] = named[k] || isNamed
			continue
		}
		seen[v] = len(out)
		out = append(out, v)
		named = append(named, isNamed)
	}
	w.outs = append(w.outs, out)
	w.named = append(w.named, named)
}
