package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/dataset"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

type rankOptions struct {
	graph, data, synthetic, out, writeGraph, dangling string
	seed                                              uint64
	top, iterations, maxIter, workers                 int
	damping, tol                                      float64
	dedupe, asJSON                                    bool
}

func rankFlags(o *rankOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("rank", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&o.graph, "graph", "", "edge-list `file` (SNAP format) to rank")
	fs.StringVar(&o.data, "data", "", "rank the link graph of the crawl in data `directory` instead")
	fs.StringVar(&o.synthetic, "synthetic", "", "rank a synthetic web graph of `NODES:EDGES` instead, e.g. 1000000:10000000")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed of -synthetic")
	fs.StringVar(&o.writeGraph, "write-graph", "", "also write the graph to `file` in SNAP format (dense ids)")
	fs.IntVar(&o.top, "top", 20, "list the `k` pages of highest PageRank (0: none)")
	fs.StringVar(&o.out, "out", "", "write every node's id, pagerank, IR and backlinks to `file`, tab-separated, in node order")
	fs.Float64Var(&o.damping, "damping", rank.DefaultDamping, "damping factor `d`: the probability of following a link")
	fs.Float64Var(&o.tol, "tol", rank.DefaultTolerance, "stop when the normalised vector moves less than this (L1)")
	fs.IntVar(&o.maxIter, "max-iter", rank.DefaultMaxIterations, "most iterations when -tol is not reached")
	fs.IntVar(&o.iterations, "iterations", 0, "run exactly `n` iterations, whatever -tol says (0: until -tol)")
	fs.StringVar(&o.dangling, "dangling", "", "pages without out-links: uniform (link to all) or sink (pass nothing on); default uniform, sink with -data")
	fs.BoolVar(&o.dedupe, "dedupe", false, "count a link repeated in the input once")
	fs.IntVar(&o.workers, "workers", 0, "goroutines per iteration (0: one per CPU)")
	fs.BoolVar(&o.asJSON, "json", false, "print the summary and the top list as JSON")
	return fs
}

// rankReport is what the command prints, as text or JSON.
type rankReport struct {
	Graph        string     `json:"graph"`
	Nodes        int        `json:"nodes"`
	Edges        int64      `json:"edges"`
	Damping      float64    `json:"damping"`
	Dangling     string     `json:"dangling"`
	Iterations   int        `json:"iterations"`
	Delta        float64    `json:"delta"`
	Converged    bool       `json:"converged"`
	Workers      int        `json:"workers"`
	LoadSeconds  float64    `json:"load_seconds"`
	BuildSeconds float64    `json:"build_seconds"`
	RankSeconds  float64    `json:"rank_seconds"`
	PeakRSSBytes int64      `json:"peak_rss_bytes,omitempty"`
	Top          []rankedPg `json:"top"`
}

type rankedPg struct {
	Rank      int     `json:"rank"`
	ID        uint64  `json:"id"`
	URL       string  `json:"url,omitempty"`
	Held      *bool   `json:"held,omitempty"`
	PageRank  float64 `json:"pagerank"`
	IR        float64 `json:"ir"`
	Backlinks int     `json:"backlinks"`
}

func runRank(args []string, stdout, stderr io.Writer) int {
	var o rankOptions
	fs := rankFlags(&o)
	if code, ok := parseArgs("rank", fs, args, stdout, stderr); !ok {
		return code
	}
	if err := o.run(stdout); err != nil {
		fmt.Fprintf(stderr, "freshcrawl rank: %v\n", err)
		if errors.As(err, new(usageError)) {
			return 2
		}
		return 1
	}
	return 0
}

// run loads the graph, ranks it and writes what o asks for. A usageError
// is a bad flag or input; another error is the system's.
func (o *rankOptions) run(stdout io.Writer) error {
	dangling, err := o.check()
	if err != nil {
		return err
	}
	// A graph is big and lives until the end: collect less often than Go's
	// default, which would scan the edge arrays again at every doubling.
	debug.SetGCPercent(400)

	rep := rankReport{Damping: o.damping, Dangling: dangling.String()}
	start := time.Now()
	in, err := o.load()
	if err != nil {
		return err
	}
	rep.Graph = in.name
	rep.LoadSeconds = time.Since(start).Seconds()
	if o.writeGraph != "" {
		if err := writeGraphFile(o.writeGraph, in.b); err != nil {
			return fmt.Errorf("-write-graph: %w", err)
		}
	}
	g, res, err := o.rank(in, dangling, &rep)
	if err != nil {
		return err
	}
	rep.Top = in.top(g, res, o.top)
	if o.out != "" {
		if err := rank.WriteRanks(o.out, g, res, in.nodeName); err != nil {
			return fmt.Errorf("-out: %w", err)
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printRank(stdout, &rep)
	return nil
}

// check checks the flags and returns the dangling rule they ask for.
func (o *rankOptions) check() (rank.Dangling, error) {
	if n := btoi(o.graph != "") + btoi(o.data != "") + btoi(o.synthetic != ""); n != 1 {
		return 0, usagef("give one of -graph FILE, -data DIR and -synthetic NODES:EDGES (see -h)")
	}
	if o.dangling == "" {
		o.dangling = "uniform"
		if o.data != "" {
			o.dangling = "sink"
		}
	}
	dangling, err := rank.ParseDangling(o.dangling)
	if err != nil {
		return 0, usagef("-dangling: %v", err)
	}
	if !(o.damping > 0 && o.damping < 1) {
		return 0, usagef("-damping %g: must be between 0 and 1", o.damping)
	}
	if o.top < 0 || o.iterations < 0 || o.maxIter < 1 || o.workers < 0 || !(o.tol > 0) {
		return 0, usagef("-top, -iterations and -workers must not be negative, -max-iter and -tol must be positive")
	}
	return dangling, nil
}

// rankInput is the graph to rank, as loaded.
type rankInput struct {
	name  string
	b     *rank.Builder
	ids   []uint64           // the input's node ids; nil: the dense ids are the ids
	crawl *datadir.LinkGraph // a crawl's graph, whose nodes are URLs
}

// load reads or makes the graph o names.
func (o *rankOptions) load() (*rankInput, error) {
	switch {
	case o.data != "":
		crawl, err := datadir.ReadLinkGraph(o.data)
		switch {
		case errors.Is(err, datadir.ErrNoCrawl):
			return nil, usageError{err}
		case errors.Is(err, store.ErrLocked):
			return nil, errInUse(o.data)
		case err != nil:
			return nil, err
		}
		return &rankInput{name: o.data, b: &crawl.Builder, crawl: crawl}, nil
	case o.synthetic != "":
		nodes, edges, err := parseSize(o.synthetic)
		if err != nil {
			return nil, usagef("-synthetic: %v", err)
		}
		b, err := rank.Synthetic(rank.DefaultSynthetic(nodes, edges, o.seed))
		if err != nil {
			return nil, usagef("-synthetic: %v", err)
		}
		return &rankInput{name: fmt.Sprintf("synthetic %d:%d seed %d", nodes, edges, o.seed), b: b}, nil
	}
	in, err := dataset.OpenInput(o.graph)
	if err != nil {
		return nil, usageError{err}
	}
	el, err := rank.ReadEdgeList(in, o.graph)
	in.Close()
	if err != nil {
		return nil, usageError{err}
	}
	return &rankInput{name: o.graph, b: &el.Builder, ids: el.IDs}, nil
}

// rank builds in's graph and ranks it, noting the sizes and times in rep.
// in.b is dropped once built: the graph holds the links from then on.
func (o *rankOptions) rank(in *rankInput, dangling rank.Dangling, rep *rankReport) (*rank.Graph, *rank.Result, error) {
	start := time.Now()
	g, err := in.b.Build(rank.BuildOptions{Dedupe: o.dedupe})
	if err != nil {
		return nil, nil, usageError{err}
	}
	in.b = nil // the edge list is no longer needed: let the collector have it
	runtime.GC()
	rep.BuildSeconds = time.Since(start).Seconds()
	rep.Nodes, rep.Edges = g.Nodes(), g.Edges()
	rep.Workers = o.workers
	if rep.Workers == 0 {
		rep.Workers = runtime.GOMAXPROCS(0)
	}
	start = time.Now()
	res, err := rank.PageRank(g, rank.Options{
		Damping: o.damping, Tolerance: o.tol, MaxIterations: o.maxIter, Iterations: o.iterations,
		Dangling: dangling, Workers: o.workers,
	})
	if err != nil {
		return nil, nil, usageError{err}
	}
	rep.RankSeconds = time.Since(start).Seconds()
	rep.Iterations, rep.Delta, rep.Converged = res.Iterations, res.Delta, res.Converged
	rep.PeakRSSBytes = peakRSS()
	return g, res, nil
}

// id is node v's id in the input.
func (in *rankInput) id(v int) uint64 {
	if in.ids != nil {
		return in.ids[v]
	}
	return uint64(v)
}

// nodeName is node v's name in -out: its URL, or its id.
func (in *rankInput) nodeName(v int) string {
	if in.crawl != nil {
		return in.crawl.URLs[v]
	}
	return strconv.FormatUint(in.id(v), 10)
}

// top lists the k pages of highest rank.
func (in *rankInput) top(g *rank.Graph, res *rank.Result, k int) []rankedPg {
	var top []rankedPg
	n := float64(g.Nodes())
	for _, v := range rank.TopK(res.Rank, k) {
		p := rankedPg{
			Rank: len(top) + 1, ID: in.id(v), PageRank: res.Rank[v] / n, IR: res.Rank[v],
			Backlinks: g.InDegree(uint32(v)),
		}
		if in.crawl != nil {
			p.URL, p.Held = in.crawl.URLs[v], &in.crawl.Held[v]
		}
		top = append(top, p)
	}
	return top
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseSize reads NODES:EDGES.
func parseSize(s string) (int, int64, error) {
	a, b, ok := strings.Cut(s, ":")
	nodes, err1 := strconv.Atoi(a)
	edges, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q: want NODES:EDGES, e.g. 1000000:10000000", s)
	}
	return nodes, edges, nil
}

func printRank(w io.Writer, rep *rankReport) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "graph     %s: %d nodes, %d edges (read in %.2f s, built in %.2f s)\n",
		rep.Graph, rep.Nodes, rep.Edges, rep.LoadSeconds, rep.BuildSeconds)
	state := "converged"
	if !rep.Converged {
		state = "not converged"
	}
	fmt.Fprintf(bw, "pagerank  d = %g, dangling %s: %d iterations in %.2f s on %d workers (%s, last L1 step %.2g)\n",
		rep.Damping, rep.Dangling, rep.Iterations, rep.RankSeconds, rep.Workers, state, rep.Delta)
	if rep.PeakRSSBytes > 0 {
		fmt.Fprintf(bw, "memory    peak RSS %.2f GB\n", float64(rep.PeakRSSBytes)/1e9)
	}
	if len(rep.Top) == 0 {
		return
	}
	if rep.Top[0].Held != nil { // a crawl's graph: URLs
		fmt.Fprintf(bw, "\n%6s  %-12s  %-10s  %-9s  %-4s  %s\n", "rank", "pagerank", "IR", "backlinks", "held", "url")
		for _, p := range rep.Top {
			held, url := "no", p.URL
			if *p.Held {
				held = "yes"
			}
			if url == "" {
				url = "(URL no longer known)"
			}
			fmt.Fprintf(bw, "%6d  %-12.6g  %-10.4f  %-9d  %-4s  %s\n", p.Rank, p.PageRank, p.IR, p.Backlinks, held, url)
		}
		return
	}
	fmt.Fprintf(bw, "\n%6s  %-12s  %-12s  %-10s  %s\n", "rank", "node", "pagerank", "IR", "backlinks")
	for _, p := range rep.Top {
		fmt.Fprintf(bw, "%6d  %-12d  %-12.6g  %-10.4f  %d\n", p.Rank, p.ID, p.PageRank, p.IR, p.Backlinks)
	}
}

func writeGraphFile(name string, b *rank.Builder) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := rank.WriteEdgeList(f, b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// peakRSS returns the process's peak resident set size from Linux's
// /proc/self/status (VmHWM), or 0 where that is not to be had.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := strings.Fields(string(rest))
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
