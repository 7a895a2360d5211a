package simweb

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/change/evolution"
	"github.com/freshcrawl/freshcrawl/internal/change/process"
)

// Stats are the measured statistics of a web, next to the figures it is
// calibrated to. Link statistics cover every page; change statistics cover
// up to a sample of pages (Sampled of them), taken evenly across sites.
type Stats struct {
	Hosts, Pages int
	Links        int64
	MeanOut      float64
	IntraShare   float64
	InDegree     map[string]int // quantiles p50, p90, p99, p99.9, max
	HotIB        [3]float64     // share of pages with in-degree ≥ 3, 10, 100
	HotTopic     float64        // share of sampled pages hot for "computer" (ch. 2 predicate)

	DomainSites [evolution.NumDomains]int
	Sampled     int
	// TrueBins[d][b] is the share of sampled pages of domain d whose mean
	// change interval falls in Fig. 4.2 bin b; row evolution.NumDomains is
	// all.
	TrueBins [evolution.NumDomains + 1][5]float64
	// Ch4Bins is what the ch. 4 method measures: a daily visit for 128 days,
	// average interval = days observed / changes detected.
	Ch4Bins [evolution.NumDomains + 1][5]float64
	// LifeBins: share of newly born pages living ≤ 1 week, 1 week–1 month,
	// 1–4 months, > 4 months (Fig. 4.4 bins).
	LifeBins [evolution.NumDomains + 1][4]float64
	// HalfLife: days until half the pages alive at time 0 have changed or
	// died (Fig. 4.5).
	HalfLife [evolution.NumDomains + 1]float64

	Validators [3]int
	Robots     [3]int
	CrawlDelay int
	Sitemaps   [3]int
	Processes  [3]int
	Traps      int
}

// Describe measures a web. sample bounds the pages used for the change,
// lifespan and topic statistics (0 means all).
func Describe(w *Web, sample int) Stats {
	var st Stats
	st.Hosts, st.Pages = len(w.sites), w.NumPages()
	in := make([]int32, w.NumPages())
	var intra int64
	var buf [64]link
	for si := range w.sites {
		s := &w.sites[si]
		st.DomainSites[s.domain]++
		st.Validators[s.validators]++
		st.Robots[s.robots]++
		st.Sitemaps[s.sitemap]++
		st.Processes[s.process]++
		if s.crawlDelay > 0 {
			st.CrawlDelay++
		}
		if s.trap {
			st.Traps++
		}
		for slot := int32(0); slot < s.pages; slot++ {
			for _, l := range w.outLinks(int32(si), slot, buf[:0]) {
				st.Links++
				if l.site == int32(si) {
					intra++
				}
				in[w.sites[l.site].first+l.slot]++
			}
		}
	}
	st.MeanOut = float64(st.Links) / float64(st.Pages)
	if st.Links > 0 {
		st.IntraShare = float64(intra) / float64(st.Links)
	}
	slices.Sort(in)
	q := func(p float64) int { return int(in[min(len(in)-1, int(p*float64(len(in))))]) }
	st.InDegree = map[string]int{"p50": q(0.5), "p90": q(0.9), "p99": q(0.99), "p99.9": q(0.999), "max": int(in[len(in)-1])}
	for i, g := range []int32{3, 10, 100} {
		k := sort.Search(len(in), func(j int) bool { return in[j] >= g })
		st.HotIB[i] = float64(len(in)-k) / float64(len(in))
	}
	w.describeChange(&st, sample)
	return st
}

// describeChange measures the change, lifespan and topic statistics on
// up to sample pages taken evenly across the web.
func (w *Web) describeChange(st *Stats, sample int) {
	n := w.NumPages()
	if sample <= 0 || sample > n {
		sample = n
	}
	stride := float64(n) / float64(sample)
	ct := changeTally{firstEvent: make([][]float64, evolution.NumDomains+1)}
	hot := 0
	var page []byte
	for k := 0; k < sample; k++ {
		g := int32(float64(k) * stride)
		si := int32(sort.Search(len(w.sites), func(i int) bool { return w.sites[i].first+w.sites[i].pages > g }))
		slot := g - w.sites[si].first
		v := w.VersionAt(si, slot, 0)
		inc := w.tallyPage(st, &ct, si, slot, v)
		if k < 20000 {
			page = w.render(page[:0], page0(&inc, si, slot, v))
			if isHot(page, "computer") {
				hot++
			}
		}
	}
	st.Sampled = sample
	st.HotTopic = float64(hot) / float64(min(sample, 20000))
	ct.shares(st)
}

// changeTally holds describeChange's counts per row (each domain, then
// all) until they become shares.
type changeTally struct {
	count, lifeCount [evolution.NumDomains + 1]float64
	firstEvent       [][]float64 // days to the first change or death
}

// tallyPage counts one sampled page, whose version at time 0 is v, into
// st's bins and ct, and returns its incarnation.
func (w *Web) tallyPage(st *Stats, ct *changeTally, si, slot int32, v Version) incarnation {
	s := &w.sites[si]
	rows := [2]int{int(s.domain), int(evolution.NumDomains)}
	born, died := w.lifetime(si, slot, v.Gen)
	inc := w.incarnation(si, slot, v.Gen, born, died)
	mean := time.Duration(1 / inc.model.lambda * 1e9)
	for _, row := range rows {
		ct.count[row]++
		st.TrueBins[row][evolution.BinOf(mean)]++
	}
	if b, ok := w.ch4Bin(si, slot, v.Gen, died); ok {
		for _, row := range rows {
			st.Ch4Bins[row][b]++
		}
	}
	first := float64(min(v.Next, died)) / float64(day)
	for _, row := range rows {
		ct.firstEvent[row] = append(ct.firstEvent[row], first)
	}
	// Lifespans of the next page born in this slot.
	if !s.permanent(slot) && w.cfg.Churn > 0 {
		b1, d1 := w.lifetime(si, slot, v.Gen+1)
		lb := lifeBin(time.Duration(d1 - b1))
		for _, row := range rows {
			ct.lifeCount[row]++
			st.LifeBins[row][lb]++
		}
	}
	return inc
}

// ch4Bin is the Fig. 4.2 bar the ch. 4 measurement puts a page in: daily
// visits for 128 days (as in the 1999 experiment) while the page lives,
// the mean interval being the days observed over the changes detected. ok
// is false for a page that lives less than a day of the window.
func (w *Web) ch4Bin(si, slot, gen int32, died int64) (b int, ok bool) {
	const window = 128
	end := min(int64(window*day), died)
	days := int(end / int64(day))
	detected, last := 0, int64(-1)
	for _, t := range w.ChangeTimes(si, slot, gen, 0, end) {
		dd := t / int64(day)
		if dd != last && dd < int64(days) {
			detected++
			last = dd
		}
	}
	if days < 1 {
		return 0, false
	}
	if detected == 0 {
		return 4, true
	}
	b = evolution.BinOf(time.Duration(float64(days) / float64(detected) * float64(day)))
	return min(b, 3), true // any detected change in the window is "within 4 months"
}

// lifeBin is the Fig. 4.4 bin of a lifespan: ≤ 1 week, 1 week–1 month,
// 1–4 months, > 4 months.
func lifeBin(life time.Duration) int {
	switch {
	case life <= 7*day:
		return 0
	case life <= 30*day:
		return 1
	case life <= 120*day:
		return 2
	}
	return 3
}

// shares turns st's counts into shares of each row's pages, and the first
// events into each row's median, the half-life.
func (ct *changeTally) shares(st *Stats) {
	for row := range ct.count {
		for b := range st.TrueBins[row] {
			if ct.count[row] > 0 {
				st.TrueBins[row][b] /= ct.count[row]
				st.Ch4Bins[row][b] /= ct.count[row]
			}
		}
		for b := range st.LifeBins[row] {
			if ct.lifeCount[row] > 0 {
				st.LifeBins[row][b] /= ct.lifeCount[row]
			}
		}
		if f := ct.firstEvent[row]; len(f) > 0 {
			slices.Sort(f)
			st.HalfLife[row] = f[len(f)/2]
		}
	}
}

func page0(in *incarnation, si, slot int32, v Version) page {
	return page{si: si, slot: slot, in: in, version: v.Version, modified: v.Modified}
}

// isHot is the ch. 2 topic predicate (§2.5.4, the code's form): the word in
// the title, or at least 10 times in the body.
func isHot(html []byte, word string) bool {
	s := string(html)
	if i, j := strings.Index(s, "<title>"), strings.Index(s, "</title>"); i >= 0 && j > i && strings.Contains(s[i:j], word) {
		return true
	}
	if i := strings.Index(s, "<body>"); i >= 0 {
		s = s[i:]
	}
	if i := strings.Index(s, "<ul class=\"links\">"); i >= 0 {
		s = s[:i]
	}
	return strings.Count(s, " "+word+" ") >= 10
}

// WriteText prints the statistics with the figures they are calibrated to.
func (st *Stats) WriteText(out io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	pct := func(x float64) string { return fmt.Sprintf("%5.1f%%", 100*x) }
	p("simweb: %d hosts, %d pages, %d links\n\n", st.Hosts, st.Pages, st.Links)
	p("Links                              measured   target (source)\n")
	p("  out-links per page               %8.2f   about 10 (dissertation §3.8)\n", st.MeanOut)
	p("  same-site share                  %8s   about 90%% (§3.3 footnote)\n", pct(st.IntraShare))
	p("  in-degree p50/p90/p99/p99.9/max  %d/%d/%d/%d/%d\n", st.InDegree["p50"], st.InDegree["p90"], st.InDegree["p99"], st.InDegree["p99.9"], st.InDegree["max"])
	p("  pages with in-degree >= 3        %8s   47%% (§2.5.2, G = 3)\n", pct(st.HotIB[0]))
	p("  pages with in-degree >= 10       %8s   10%% (G = 10)\n", pct(st.HotIB[1]))
	p("  pages with in-degree >= 100      %8s   0.8%% (G = 100)\n", pct(st.HotIB[2]))
	p("  pages hot for \"computer\"         %8s   not printed (§2.5.4 predicate)\n\n", pct(st.HotTopic))

	total := float64(st.Hosts)
	p("Sites per domain                   measured   Table 4.1\n")
	for d := evolution.Domain(0); d < evolution.NumDomains; d++ {
		p("  %-32s %8s   %5.1f%%\n", d, pct(float64(st.DomainSites[d])/total), 100*evolution.DomainSites[d]/270)
	}
	p("\nMean change interval (%d pages sampled; Fig. 4.2 bins)\n", st.Sampled)
	p("  %-18s", "")
	for _, b := range evolution.Bins {
		p(" %18s", b.Label)
	}
	p("\n")
	rows := []struct {
		name string
		row  int
		want [5]float64
	}{{"all (true rates)", int(evolution.NumDomains), evolution.PrintedShares}}
	for d := evolution.Domain(0); d < evolution.NumDomains; d++ {
		rows = append(rows, struct {
			name string
			row  int
			want [5]float64
		}{d.String() + " (true rates)", int(d), evolution.DomainShares[d]})
	}
	for _, r := range rows {
		p("  %-18s", r.name)
		for b := range evolution.Bins {
			p("     %s (%4.0f%%)", pct(st.TrueBins[r.row][b]), 100*r.want[b])
		}
		p("\n")
	}
	p("  %-18s", "all, ch.4 method")
	for b := range evolution.Bins {
		p("     %s (%4.0f%%)", pct(st.Ch4Bins[evolution.NumDomains][b]), 100*evolution.PrintedShares[b])
	}
	p("\n  Rows marked 'true rates' bin each page's mean change interval; in parentheses the shares\n")
	p("  simweb draws from. The 'ch.4 method' row measures as the 1999 experiment did (a visit a day\n")
	p("  for 128 days; first bar = changed at every visit); in parentheses the printed bars (23%%, 15%%)\n")
	p("  and the Table 5.7 reconstruction (16/16/30).\n\n")
	p("Page lifespans (new pages)          <=1w   1w-1m   1m-4m    >4m   printed (Fig. 4.4)\n")
	for _, r := range []int{int(evolution.NumDomains), int(evolution.Com), int(evolution.Edu), int(evolution.NetOrg), int(evolution.Gov)} {
		name := "all"
		if r < int(evolution.NumDomains) {
			name = evolution.Domain(r).String()
		}
		l := st.LifeBins[r]
		p("  %-32s %s %s %s %s\n", name, pct(l[0]), pct(l[1]), pct(l[2]), pct(l[3]))
	}
	p("  printed: 1w-1m about 19%%; > 1 month over 70%%; edu and gov > 4 months over 50%%\n\n")
	p("Days until half the pages changed or died (Fig. 4.5)\n")
	p("  all %.1f (printed about 50), com %.1f (11), edu %.1f, netorg %.1f, gov %.1f (almost 120)\n",
		st.HalfLife[evolution.NumDomains], st.HalfLife[evolution.Com], st.HalfLife[evolution.Edu], st.HalfLife[evolution.NetOrg], st.HalfLife[evolution.Gov])
	p("  (Fig. 4.2's shares imply a shorter half-life than Fig. 4.5's; simweb follows Fig. 4.2.)\n\n")
	p("Hosts: validators honest/absent/wrong %d/%d/%d; robots.txt 200/404/500 %d/%d/%d, crawl-delay %d;\n",
		st.Validators[Honest], st.Validators[Absent], st.Validators[Wrong], st.Robots[RobotsOK], st.Robots[RobotsNotFound], st.Robots[RobotsServerError], st.CrawlDelay)
	p("       sitemaps honest/none/wrong %d/%d/%d; processes poisson/pareto/qd %d/%d/%d; calendar traps %d\n",
		st.Sitemaps[SitemapHonest], st.Sitemaps[SitemapNone], st.Sitemaps[SitemapWrong], st.Processes[process.Poisson], st.Processes[process.Pareto], st.Processes[process.QuasiDeterministic], st.Traps)
}
