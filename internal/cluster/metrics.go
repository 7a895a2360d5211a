package cluster

// Counts are the totals of a parallel crawl that ch. 3's metrics are
// made of (§3.4).
type Counts struct {
	Downloads int64 // N: pages downloaded by all nodes, a page fetched twice counted twice
	Unique    int64 // I: distinct pages downloaded
	Target    int64 // U: pages the crawl should download
	Exchanged int64 // URLs (or [URL, count] pairs) sent between partitions
}

// Overlap is (N − I)/I: the downloads beyond the first of each page, per
// page. It is 0 in firewall and exchange modes, where only a page's owner
// fetches it; 0 if nothing was downloaded.
func (c Counts) Overlap() float64 {
	if c.Unique == 0 {
		return 0
	}
	return float64(c.Downloads-c.Unique) / float64(c.Unique)
}

// Coverage is I/U, the share of the target downloaded; 0 if U is 0.
func (c Counts) Coverage() float64 {
	if c.Target == 0 {
		return 0
	}
	return float64(c.Unique) / float64(c.Target)
}

// Communication is the URLs exchanged per page downloaded (over N); 0 if
// nothing was downloaded.
func (c Counts) Communication() float64 {
	if c.Downloads == 0 {
		return 0
	}
	return float64(c.Exchanged) / float64(c.Downloads)
}
