package simweb

// LinkGraph calls fn for every link of the web: from and to are global page
// slots, 0 to NumPages()-1, site after site, each site's home page first
// (SiteHome). A slot's links are fixed for the life of the web (the pages
// that occupy the slot over time link to the same slots), so this is the
// graph of dissertation ch. 2's importance metrics, the closed world of a
// crawl of the whole web. Links to a page's own slot are not made.
func (w *Web) LinkGraph(fn func(from, to int)) {
	var buf [64]link
	for si := range w.sites {
		s := &w.sites[si]
		for slot := int32(0); slot < s.pages; slot++ {
			for _, l := range w.outLinks(int32(si), slot, buf[:0]) {
				fn(int(s.first+slot), int(w.sites[l.site].first+l.slot))
			}
		}
	}
}

// SiteHome returns the global slot of site i's home page.
func (w *Web) SiteHome(i int) int { return int(w.sites[i].first) }
