package datadir

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/cluster"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// A cluster's data directory (internal/cluster/node) holds one crawl data
// directory per partition, p000, p001, ..., and the embedded NATS
// server's storage, if freshcrawl cluster ran it there.

var partitionDir = regexp.MustCompile(`^p[0-9]{3,}$`)

// Partitions returns the partition directories of a cluster's data
// directory dir, in order; none if dir is not one (it has a state of its
// own, or no partition directories).
func Partitions(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var ps []string
	for _, e := range entries {
		if e.IsDir() && partitionDir.MatchString(e.Name()) {
			ps = append(ps, e.Name())
		}
	}
	slices.Sort(ps)
	return ps
}

// PartitionStatus is one partition of a cluster as freshcrawl status
// shows it: its crawl's figures and its exchange with the others.
type PartitionStatus struct {
	Name    string `json:"partition"`
	Seen    uint64 `json:"urls_seen"`
	Held    int64  `json:"pages_held"`
	Queued  int64  `json:"urls_queued"`
	Fetches uint64 `json:"fetches"`
	WARC    int64  `json:"warc_bytes"`
	// Outbox is the outbox rows not yet sent; Sent the [URL, count]
	// entries sent, for Links links; Received the URLs received, Admitted
	// those new to the partition (store.Counter*).
	Outbox   int   `json:"outbox_rows"`
	Sent     int64 `json:"sent"`
	Links    int64 `json:"links_sent"`
	Received int64 `json:"received"`
	Admitted int64 `json:"admitted"`
}

// ClusterStatus is what a cluster's data directory holds.
type ClusterStatus struct {
	Dir        string            `json:"dir"`
	Partitions []PartitionStatus `json:"partitions"`
	Total      PartitionStatus   `json:"total"`
	// Rows is the page rows of all partitions (a row for each page a
	// partition fetched), Distinct the pages among them, and Strays the
	// rows a partition holds of pages the site hash gives another: both
	// say whether two nodes ever fetched one page (dissertation §3.4's
	// overlap, (Rows − Distinct)/Distinct), which exchange and firewall
	// mode never should.
	Rows     int64 `json:"page_rows"`
	Distinct int64 `json:"distinct_pages"`
	Strays   int64 `json:"stray_rows"`
	// Links is the links the partitions recorded (each page's distinct
	// targets), and URLHashCross how many of them would join two
	// partitions if URLs, not sites, were hashed to partitions: what an
	// exchange of every link as it is found (ch. 3's immediate transfer)
	// would send under URL hash, on this crawl's own link graph, to set
	// beside what site hash sent (Total.Sent). The URL hash here is the
	// store's (the recorded graph keeps no URLs), uniform as any other.
	Links        int64 `json:"links"`
	URLHashCross int64 `json:"url_hash_cross_links"`
}

// Overlap is (N − I)/I, N the page rows and I the distinct pages; 0
// without pages.
func (cs ClusterStatus) Overlap() float64 {
	return cluster.Counts{Downloads: cs.Rows, Unique: cs.Distinct}.Overlap()
}

// ReadClusterStatus reads every partition of the cluster's data directory
// dir, which no node may be running on (each partition's store is
// locked while one is).
func ReadClusterStatus(dir string, now time.Time) (ClusterStatus, error) {
	cs := ClusterStatus{Dir: dir, Total: PartitionStatus{Name: "total"}}
	names := Partitions(dir)
	if len(names) == 0 {
		return cs, &noCrawlError{msg: dir + " is not a cluster data directory (no partition directories p000, ...)"}
	}
	part := cluster.Partitioner{Scheme: cluster.BySite, N: len(names)}
	seen := map[store.Hash]struct{}{}
	byHash := func(h store.Hash) uint64 {
		hi, _ := bits.Mul64(binary.BigEndian.Uint64(h[:8]), uint64(len(names)))
		return hi
	}
	for i, name := range names {
		p, err := readPartition(filepath.Join(dir, name), now, func(pg store.Page) {
			cs.Rows++
			seen[store.HashURL(pg.URL)] = struct{}{}
			if part.Of(pg.URL) != i {
				cs.Strays++
			}
		}, func(page store.Hash, targets []store.Hash) {
			cs.Links += int64(len(targets))
			for _, t := range targets {
				if byHash(t) != byHash(page) {
					cs.URLHashCross++
				}
			}
		})
		if err != nil {
			return cs, fmt.Errorf("partition %s: %w", name, err)
		}
		p.Name = name
		cs.Partitions = append(cs.Partitions, p)
		t := &cs.Total
		t.Seen += p.Seen
		t.Held += p.Held
		t.Queued += p.Queued
		t.Fetches += p.Fetches
		t.WARC += p.WARC
		t.Outbox += p.Outbox
		t.Sent += p.Sent
		t.Links += p.Links
		t.Received += p.Received
		t.Admitted += p.Admitted
	}
	cs.Distinct = int64(len(seen))
	return cs, nil
}

// readPartition reads one partition's status, and calls page with each
// of its page rows (sitemaps left out) and links with each page's
// recorded links.
func readPartition(dir string, now time.Time, page func(store.Page), links func(store.Hash, []store.Hash)) (PartitionStatus, error) {
	s, err := Open(dir)
	if err != nil {
		return PartitionStatus{}, err
	}
	defer s.Close()
	st, err := statusOf(s, dir, now, func(pg store.Page) {
		if pg.Kind == store.KindPage {
			page(pg)
		}
	})
	if err == nil {
		err = s.ForEachLinks(func(p store.Hash, targets []store.Hash) error { links(p, targets); return nil })
	}
	if err != nil {
		return PartitionStatus{}, err
	}
	p := PartitionStatus{Seen: st.Seen, Held: st.Held, Queued: st.Queued, Fetches: st.Fetches, WARC: st.WARC.Bytes}
	if p.Outbox, err = s.OutboxRows(); err != nil {
		return p, err
	}
	for _, c := range []struct {
		name string
		v    *int64
	}{{store.CounterSent, &p.Sent}, {store.CounterLinks, &p.Links}, {store.CounterReceived, &p.Received}, {store.CounterAdmitted, &p.Admitted}} {
		if *c.v, err = s.Counter(c.name); err != nil {
			return p, err
		}
	}
	return p, nil
}

// WriteText prints the status as a table, a partition a line and the
// totals, with the URLs sent per page fetched (ch. 3's communication).
func (cs ClusterStatus) WriteText(w io.Writer) {
	fmt.Fprintf(w, "cluster data directory %s: %d partitions\n", cs.Dir, len(cs.Partitions))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "partition\tseen\theld\tqueued\tfetches\tWARC\tsent\tfor links\treceived\tnew\tunsent rows\t")
	for _, p := range append(slices.Clone(cs.Partitions), cs.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t\n",
			p.Name, p.Seen, p.Held, p.Queued, p.Fetches, ByteSize(p.WARC), p.Sent, p.Links, p.Received, p.Admitted, p.Outbox)
	}
	tw.Flush()
	fmt.Fprintf(w, "pages: %d rows, %d distinct, overlap %.4f, %d rows of another partition's pages\n",
		cs.Rows, cs.Distinct, cs.Overlap(), cs.Strays)
	if t := cs.Total; cs.Rows > 0 {
		r := float64(cs.Rows)
		fmt.Fprintf(w, "exchange: %.3f URLs sent a page fetched (for %.3f links to other partitions); of the %.2f links a page recorded, %.3f would cross partitions under URL hash\n",
			float64(t.Sent)/r, float64(t.Links)/r, float64(cs.Links)/r, float64(cs.URLHashCross)/r)
	}
}
