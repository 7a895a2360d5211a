package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change"
	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/dataset"
)

// estimateOptions are the estimate command's flags.
type estimateOptions struct {
	dir, bing, estimator string
	asJSON               bool
	limit                int
	decay                time.Duration
}

func estimateFlags(o *estimateOptions) *flag.FlagSet {
	fs := newFlagSet("estimate")
	fs.StringVar(&o.dir, "data", defaultDataDir, "data `directory` of a crawl to read")
	fs.StringVar(&o.bing, "bing", "", "read a history `file` in the Bing freshness dataset format instead")
	fs.StringVar(&o.estimator, "estimator", "auto", "estimator `name`, or all")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per page")
	fs.IntVar(&o.limit, "limit", 0, "stop after `n` pages (0: all)")
	fs.DurationVar(&o.decay, "decay", 0, "forget observations with this time `constant` (0: keep all)")
	return fs
}

// pageEstimator is one estimator as the command runs it: auto needs the
// page's site, the others its Stats only.
type pageEstimator struct {
	name string
	run  func(h *datadir.History) change.Estimate
}

func selectEstimators(name string) ([]pageEstimator, error) {
	auto := pageEstimator{"auto", func(h *datadir.History) change.Estimate { return h.Auto.Estimate(&h.Stats) }}
	of := func(e change.Estimator) pageEstimator {
		return pageEstimator{e.Name(), func(h *datadir.History) change.Estimate { return e.Estimate(&h.Stats) }}
	}
	switch name {
	case "auto":
		return []pageEstimator{auto}, nil
	case "all":
		out := []pageEstimator{auto}
		for _, e := range change.All() {
			out = append(out, of(e))
		}
		return out, nil
	}
	e, err := change.ByName(name)
	if err != nil {
		return nil, err
	}
	return []pageEstimator{of(e)}, nil
}

func runEstimate(args []string, stdout, stderr io.Writer) int {
	var o estimateOptions
	fs := estimateFlags(&o)
	if code, ok := parseArgs("estimate", fs, args, stdout, stderr); !ok {
		return code
	}
	if o.limit < 0 || o.decay < 0 {
		fmt.Fprintln(stderr, "freshcrawl estimate: -limit and -decay must not be negative")
		return 2
	}
	ests, err := selectEstimators(o.estimator)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl estimate: %v\n", err)
		return 2
	}
	w := bufio.NewWriterSize(stdout, 1<<16)
	p := &estimatePrinter{w: w, ests: ests, asJSON: o.asJSON}
	if !o.asJSON {
		p.header()
	}
	var status int
	if o.bing != "" {
		status = estimateBing(o, p, stderr)
	} else {
		status = estimateData(o, p, stderr)
	}
	if err := w.Flush(); err != nil && status == 0 {
		fmt.Fprintf(stderr, "freshcrawl estimate: %v\n", err)
		return 1
	}
	return status
}

// errLimit ends a read early once -limit pages are printed.
var errLimit = errors.New("limit reached")

func estimateData(o estimateOptions, p *estimatePrinter, stderr io.Writer) int {
	n := 0
	err := datadir.ReadHistories(o.dir, o.decay, func(h *datadir.History) error {
		if o.limit > 0 && n >= o.limit {
			return errLimit
		}
		n++
		return p.page(h.URL, h)
	})
	if err == nil || errors.Is(err, errLimit) {
		return 0
	}
	return readFailed("estimate", o.dir, err, stderr)
}

// maxReported is how many bad lines of a Bing file are reported one by one.
const maxReported = 10

func estimateBing(o estimateOptions, p *estimatePrinter, stderr io.Writer) int {
	in, err := dataset.OpenInput(o.bing)
	if err != nil {
		fmt.Fprintf(stderr, "freshcrawl estimate: %v\n", err)
		return 2
	}
	defer in.Close()
	r := dataset.NewBingReader(in)
	h := &datadir.History{Auto: change.Auto{Prior: change.Paper001Prior()}}
	bad, n := 0, 0
	for o.limit == 0 || n < o.limit {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, dataset.ErrBingSyntax) {
			if bad++; bad <= maxReported {
				fmt.Fprintf(stderr, "freshcrawl estimate: %s: %v (line skipped)\n", o.bing, err)
			}
			continue
		}
		if err != nil {
			fmt.Fprintf(stderr, "freshcrawl estimate: %s: %v\n", o.bing, err)
			return 1
		}
		h.Stats = change.Stats{Decay: o.decay.Seconds()}
		rec.AddTo(&h.Stats)
		n++
		if err := p.page(strconv.FormatUint(rec.URLID, 10), h); err != nil {
			fmt.Fprintf(stderr, "freshcrawl estimate: %v\n", err)
			return 1
		}
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "freshcrawl estimate: %d malformed lines of %s skipped, %d pages estimated\n", bad, o.bing, n)
		return 1
	}
	return 0
}

// estimatePrinter writes one page at a time, as a table row or JSON.
type estimatePrinter struct {
	w      *bufio.Writer
	ests   []pageEstimator
	asJSON bool
	buf    []byte
}

// jsonEstimate is one estimator's result in -json output.
type jsonEstimate struct {
	Estimator string   `json:"estimator"`
	Rate      *float64 `json:"changes_per_day"` // null when the estimator has too little data
	Lo        *float64 `json:"lo,omitempty"`
	Hi        *float64 `json:"hi,omitempty"` // absent too when unbounded
	Class     *int     `json:"class,omitempty"`
}

// jsonPage is one page in -json output.
type jsonPage struct {
	Page         string         `json:"page"`
	Observations int            `json:"observations"`
	Changes      float64        `json:"changes"`
	Estimates    []jsonEstimate `json:"estimates"`
}

func (p *estimatePrinter) header() {
	fmt.Fprintf(p.w, "%-40s %6s %7s", "page", "visits", "changes")
	for _, e := range p.ests {
		fmt.Fprintf(p.w, " %28s", e.name+" (/day)")
	}
	p.w.WriteByte('\n')
}

func (p *estimatePrinter) page(name string, h *datadir.History) error {
	if p.asJSON {
		jp := jsonPage{Page: name, Observations: h.Stats.Count(), Changes: h.Stats.Changed(), Estimates: make([]jsonEstimate, len(p.ests))}
		for i, e := range p.ests {
			jp.Estimates[i] = toJSON(e.name, e.run(h))
		}
		b, err := json.Marshal(jp)
		if err != nil {
			return err
		}
		p.w.Write(b)
		return p.w.WriteByte('\n')
	}
	b := fmt.Appendf(p.buf[:0], "%-40s %6d %7s", name, h.Stats.Count(), strconv.FormatFloat(h.Stats.Changed(), 'g', 4, 64))
	for _, e := range p.ests {
		b = append(b, ' ')
		b = appendCell(b, e.run(h))
	}
	b = append(b, '\n')
	p.buf = b
	_, err := p.w.Write(b)
	return err
}

// appendCell appends an estimate in changes per day, right-aligned in 28
// columns: "0.512 [0.31–0.84]", or "-" without an estimate.
func appendCell(b []byte, e change.Estimate) []byte {
	cell := "-"
	if e.OK {
		cell = formatRate(e.Rate * 86400)
		if !math.IsNaN(e.Lo) && !math.IsNaN(e.Hi) {
			cell += " [" + formatRate(e.Lo*86400) + "–" + formatRate(e.Hi*86400) + "]"
		}
	}
	return fmt.Appendf(b, "%28s", cell)
}

func formatRate(r float64) string {
	if math.IsInf(r, 1) {
		return "∞"
	}
	return strconv.FormatFloat(r, 'g', 3, 64)
}

func toJSON(name string, e change.Estimate) jsonEstimate {
	j := jsonEstimate{Estimator: name}
	if !e.OK {
		return j
	}
	perDay := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		v *= 86400
		return &v
	}
	j.Rate, j.Lo, j.Hi = perDay(e.Rate), perDay(e.Lo), perDay(e.Hi)
	if e.Class >= 0 {
		c := e.Class
		j.Class = &c
	}
	return j
}
