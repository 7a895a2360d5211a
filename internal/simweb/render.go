package simweb

import (
	"math"
	"strconv"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb/trap"
	"github.com/freshcrawl/freshcrawl/internal/simweb/words"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// link is a link target: a slot of a site (its URL depends on the
// generation alive when the linking page was written).
type link struct{ site, slot int32 }

// cachedLinks returns the out-links of a slot, computing them once: they
// never change, and drawing them is a quarter of the cost of a page.
func (w *Web) cachedLinks(si, slot int32) []link {
	p := &w.links[w.sites[si].first+slot]
	if ls := p.Load(); ls != nil {
		return *ls
	}
	var buf [64]link
	ls := append([]link(nil), w.outLinks(si, slot, buf[:0])...)
	p.Store(&ls)
	return ls
}

// outLinks appends the out-links of a slot. They are fixed for the slot:
// a home link, the navigation tree of its directory (links to children),
// and random links, same-site with probability IntraSite overall, chosen
// in proportion to page attractiveness.
func (w *Web) outLinks(si, slot int32, dst []link) []link {
	s := &w.sites[si]
	dst = dst[:0]
	if slot == 0 {
		for _, c := range s.clusters {
			dst = append(dst, link{si, c.start})
		}
	} else {
		dst = append(dst, link{si, 0})
		c := &s.clusters[s.clusterOf(slot)]
		l := slot - c.start
		for j := int32(1); j <= branching; j++ {
			ch := c.start + branching*l + j
			if ch >= c.end {
				break
			}
			dst = append(dst, link{si, ch})
		}
	}
	structural := len(dst)
	r := splitmix.NewStream(splitmix.Hash2(w.cfg.Seed^tagLinks, uint64(s.first)+uint64(slot)))
	d := poisson(&r, w.cfg.Links)
	random := d - structural
	if random <= 0 || s.pages == 1 && len(w.sites) == 1 {
		return dst
	}
	// Same-site probability for the random links, so that structural plus
	// random links are IntraSite same-site on average.
	q := (w.cfg.IntraSite*float64(structural+random) - float64(structural)) / float64(random)
	q = math.Max(0, math.Min(1, q))
	ci := s.clusterOf(slot)
	for k := 0; k < random; k++ {
		intra := r.Float64() < q || len(w.sites) == 1
		local := intra && ci >= 0 && r.Float64() < w.cfg.ClusterLocality
		// A page links to a target once. When attractiveness is very
		// concentrated, weighted draws keep hitting the same hubs; after
		// some collisions a local draw widens to the whole site, and a link
		// that still finds no new target is dropped.
		for try := 0; try < 48; try++ {
			t := w.randomTarget(&r, si, ci, intra, local && try < 16)
			if t.site == si && t.slot == slot || contains(dst, t) {
				continue
			}
			dst = append(dst, t)
			break
		}
	}
	return dst
}

// randomTarget draws one random link target of a page of site si in
// cluster ci, by attractiveness: in the same cluster (local), elsewhere in
// the same site (intra), or on another site, where half the links go to
// the home page.
func (w *Web) randomTarget(r *splitmix.Stream, si int32, ci int, intra, local bool) link {
	s := &w.sites[si]
	if intra {
		if local {
			c := &s.clusters[ci]
			return link{si, w.pickWeighted(s.first+c.start, s.first+c.end, r.Float64()) - s.first}
		}
		return link{si, w.pickWeighted(s.first, s.first+s.pages, r.Float64()) - s.first}
	}
	t := link{site: w.pickSite(r.Float64())}
	for try := 0; try < 8 && t.site == si; try++ {
		t.site = w.pickSite(r.Float64())
	}
	ts := &w.sites[t.site]
	if r.Float64() >= 0.5 {
		t.slot = w.pickWeighted(ts.first, ts.first+ts.pages, r.Float64()) - ts.first
	}
	return t
}

func contains(ls []link, t link) bool {
	for _, l := range ls {
		if l == t {
			return true
		}
	}
	return false
}

// page is everything needed to render one version of one page.
type page struct {
	si, slot  int32
	in        *incarnation
	version   uint32
	modified  int64 // when this version appeared; links are as of then
	malformed bool
	latin1    bool
}

// render appends the HTML of a page version. The body is a pure function of
// the seed, the page and its version: a stable part (the incarnation's
// text) and a changing part (the version line and a news paragraph), then
// the page's links as of the version's time.
func (w *Web) render(dst []byte, p page) []byte {
	dst = w.appendHead(dst, p)
	dst = w.appendText(dst, p)
	// Changing text: a news paragraph drawn from the version.
	vr := splitmix.NewStream(splitmix.Hash2(p.in.key^tagVersion, uint64(p.version)))
	dst = append(dst, "<div class=\"news\"><p>"...)
	dst = w.corpus.AppendWords(dst, vr.IntN(words.CorpusWords), 40+vr.IntN(80))
	dst = append(dst, "</p></div>\n"...)

	s := &w.sites[p.si]
	dst = append(dst, "<ul class=\"links\">\n"...)
	for _, l := range w.cachedLinks(p.si, p.slot) {
		dst = w.appendLink(dst, s, l, p.modified, p.malformed)
	}
	dst = w.appendFaultLinks(dst, s, p.slot, p.in.gen, p.modified)
	dst = append(dst, "</ul>\n"...)
	if p.malformed {
		return append(dst, "<div><b><i>bold italic</b></i>\n</body>\n"...) // mis-nested, no </html>
	}
	return append(dst, "</body>\n</html>\n"...)
}

// appendHead appends a page version's head, with the simweb meta tag that
// names the version (VersionOf reads it back), and the top of its body:
// the title as a heading and the version line.
func (w *Web) appendHead(dst []byte, p page) []byte {
	dst = append(dst, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"...)
	if p.latin1 {
		dst = append(dst, "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">\n"...)
	} else {
		dst = append(dst, "<meta charset=\"utf-8\">\n"...)
	}
	titleStart := len(dst) + len("<title>")
	dst = append(dst, "<title>"...)
	dst = w.appendTitle(dst, p.si, p.slot, p.in.key)
	title := string(dst[titleStart:])
	dst = append(dst, "</title>\n<meta name=\"simweb\" content=\"site="...)
	dst = strconv.AppendInt(dst, int64(p.si), 10)
	dst = append(dst, " slot="...)
	dst = strconv.AppendInt(dst, int64(p.slot), 10)
	dst = append(dst, " gen="...)
	dst = strconv.AppendInt(dst, int64(p.in.gen), 10)
	dst = append(dst, " version="...)
	dst = strconv.AppendUint(dst, uint64(p.version), 10)
	dst = append(dst, "\">\n</head>\n<body>\n"...)
	if p.malformed {
		dst = append(dst, "<H1>"...)
	} else {
		dst = append(dst, "<h1>"...)
	}
	dst = append(dst, title...)
	dst = append(dst, "</h1>\n<p class=\"updated\">Version "...)
	dst = strconv.AppendUint(dst, uint64(p.version), 10)
	dst = append(dst, ", updated "...)
	dst = w.simTime(p.modified).AppendFormat(dst, time.DateTime)
	return append(dst, " UTC.</p>\n"...)
}

// appendText appends the incarnation's stable text: about 1,200 words
// (≈ 10 KB pages with markup, ch. 3's average), with the topic word
// repeated a page-specific number of times so that some pages are "hot"
// for it (ch. 2: ≥ 10 occurrences).
func (w *Web) appendText(dst []byte, p page) []byte {
	r := splitmix.NewStream(p.in.key ^ tagContent)
	topic := words.Topics[w.pageTopic(p.si, p.slot, p.in.key)]
	nWords := int(math.Exp(7.0 + 0.5*gauss(&r)))
	nWords = max(50, min(nWords, 20000))
	mentions := poisson(&r, -4*math.Log(splitmix.Open(r.Uint64())))
	paras := 1 + nWords/120
	for i := 0; i < paras; i++ {
		n := nWords / paras
		k := mentions / paras
		if i < mentions%paras {
			k++
		}
		dst = append(dst, "<p>"...)
		start := r.IntN(words.CorpusWords)
		for j := 0; j <= k; j++ {
			piece := n / (k + 1)
			dst = w.corpus.AppendWords(dst, start+j*piece, piece)
			if j < k {
				dst = append(dst, ' ')
				dst = append(dst, topic...)
				dst = append(dst, ' ')
			}
		}
		if p.latin1 && i == 0 {
			for _, lw := range words.Latin[:3+r.IntN(5)] {
				dst = append(dst, ' ')
				dst = appendLatin1(dst, lw)
			}
		}
		if p.malformed && i%2 == 1 {
			dst = append(dst, " 3 < 4 & so on\n"...) // unclosed paragraph, bare < and &
		} else {
			dst = append(dst, "</p>\n"...)
		}
	}
	return dst
}

// appendLink appends one list item linking to the generation of l alive
// when the linking page was written (at t), with its title as anchor text.
func (w *Web) appendLink(dst []byte, from *site, l link, t int64, malformed bool) []byte {
	ts := &w.sites[l.site]
	gen := w.cachedGenAt(l.site, l.slot, t)
	if malformed {
		dst = append(dst, "<li><A HREF="...)
	} else {
		dst = append(dst, "<li><a href=\""...)
	}
	if ts != from {
		dst = append(dst, "http://"...)
		dst = append(dst, ts.name...)
	}
	dst = append(dst, ts.path(l.slot, gen)...)
	if malformed {
		dst = append(dst, '>')
	} else {
		dst = append(dst, "\">"...)
	}
	key := splitmix.Hash3(w.cfg.Seed, uint64(ts.first)+uint64(l.slot), uint64(gen))
	dst = w.appendTitle(dst, l.site, l.slot, key)
	if malformed {
		return append(dst, "</a>\n"...) // no </li>
	}
	return append(dst, "</a></li>\n"...)
}

// appendFaultLinks appends the links of a page that lead into sticky
// faults: redirect chains and loops, oversized bodies, gzip bombs, and the
// calendar trap from the root of a trap host.
func (w *Web) appendFaultLinks(dst []byte, s *site, slot, gen int32, t int64) []byte {
	g := s.first + slot
	f := &w.cfg.Faults
	item := func(href, text string) {
		dst = append(dst, "<li><a href=\""...)
		dst = append(dst, href...)
		dst = append(dst, "\">"...)
		dst = append(dst, text...)
		dst = append(dst, "</a></li>\n"...)
	}
	id := strconv.Itoa(int(slot))
	if w.sticky(g, stickyRedirect, f.Redirect) {
		item(trap.RedirectPath(f.RedirectHops, s.path(slot, gen)), "Moved page")
	}
	if w.sticky(g, stickyLoop, f.Loop) {
		item(trap.LoopPath(id), "Circular page")
	}
	if w.sticky(g, stickyOversize, f.Oversize) {
		item("/big/"+id+".html", "Large archive")
	}
	if w.sticky(g, stickyBomb, f.Bomb) {
		item("/bomb/"+id+".html", "Compressed report")
	}
	if slot == 0 && s.trap {
		item(trap.CalendarPath(w.simTime(max(t, 0))), "Events calendar")
	}
	return dst
}

func appendLatin1(dst []byte, s string) []byte {
	for _, r := range s {
		if r < 256 {
			dst = append(dst, byte(r))
		} else {
			dst = append(dst, '?')
		}
	}
	return dst
}

// gauss draws a standard normal variate (Box–Muller).
func gauss(r *splitmix.Stream) float64 {
	u1, u2 := splitmix.Open(r.Uint64()), r.Float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
