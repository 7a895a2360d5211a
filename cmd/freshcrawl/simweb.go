package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

func runSimweb(args []string, stdout, stderr io.Writer) int {
	cfg := simweb.DefaultConfig()
	fs := flag.NewFlagSet("simweb", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: freshcrawl simweb [flags]

Serve a synthetic web on loopback: many virtual hosts under the .test zone on
one listener, pages that change over simulated time by processes calibrated to
Cho's 1999 measurements, robots.txt, sitemaps, validators, injected faults,
and a control API that knows the truth (which version of every page is live)
and audits politeness.

Reach a host as a proxy client (curl -x http://127.0.0.1:8080 http://h0-com.test/)
or by overriding name resolution (curl --connect-to ::127.0.0.1:8080 http://h0-com.test/).
The control API (see README) is on -control.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "random seed: the same seed gives the same web")
	fs.IntVar(&cfg.Hosts, "hosts", cfg.Hosts, "number of hosts")
	fs.IntVar(&cfg.PagesPerHost, "pages", cfg.PagesPerHost, "pages per host")
	fs.Float64Var(&cfg.Links, "links", cfg.Links, "mean out-links per page")
	fs.Float64Var(&cfg.IntraSite, "intra", cfg.IntraSite, "share of links to the same site")
	fs.Float64Var(&cfg.Speed, "speed", cfg.Speed, "simulated seconds per wall second (3600 = one hour per second)")
	epoch := fs.String("epoch", cfg.Epoch.Format(time.RFC3339), "date of simulated time zero (RFC 3339)")
	fs.Float64Var(&cfg.ParetoShare, "pareto", cfg.ParetoShare, "share of sites whose pages change by a Pareto renewal process (paper 002)")
	fs.Float64Var(&cfg.QDShare, "qd", cfg.QDShare, "share of sites whose pages change quasi-deterministically (paper 002)")
	fs.Float64Var(&cfg.ParetoAlpha, "pareto-alpha", cfg.ParetoAlpha, "Pareto shape (> 1)")
	fs.Float64Var(&cfg.Churn, "churn", cfg.Churn, "multiplier on the page death and birth rates of ch. 4 (0: pages never die)")
	fs.Float64Var(&cfg.Validators.Absent, "validators-absent", cfg.Validators.Absent, "share of sites without Last-Modified and ETag")
	fs.Float64Var(&cfg.Validators.Wrong, "validators-wrong", cfg.Validators.Wrong, "share of sites whose Last-Modified and ETag do not follow the content")
	fs.Float64Var(&cfg.Robots.NotFound, "robots-404", cfg.Robots.NotFound, "share of hosts whose robots.txt is 404")
	fs.Float64Var(&cfg.Robots.ServerError, "robots-500", cfg.Robots.ServerError, "share of hosts whose robots.txt is 500")
	fs.Float64Var(&cfg.Robots.CrawlDelay, "crawl-delay", cfg.Robots.CrawlDelay, "share of the other hosts that declare a Crawl-delay")
	fs.IntVar(&cfg.Robots.MaxCrawlDelay, "max-crawl-delay", cfg.Robots.MaxCrawlDelay, "largest Crawl-delay declared, seconds")
	fs.Float64Var(&cfg.Sitemaps.None, "sitemap-none", cfg.Sitemaps.None, "share of sites without a sitemap")
	fs.Float64Var(&cfg.Sitemaps.Wrong, "sitemap-wrong", cfg.Sitemaps.Wrong, "share of sites whose sitemap lastmod is wrong")
	fs.Float64Var(&cfg.GzipShare, "gzip", cfg.GzipShare, "share of sites that gzip responses")
	faults := fs.String("faults", "", "fault rates, e.g. 5xx=0.01,slow=0.02 (names: all, "+strings.Join(simweb.FaultKeys(), ", ")+")")
	fs.DurationVar(&cfg.Faults.SlowDelay, "slow-delay", cfg.Faults.SlowDelay, "delay of a slow response")
	fs.DurationVar(&cfg.Faults.RetryAfter, "retry-after", cfg.Faults.RetryAfter, "Retry-After of a 429")
	fs.IntVar(&cfg.Faults.RedirectHops, "redirect-hops", cfg.Faults.RedirectHops, "length of redirect chains")
	fs.Int64Var(&cfg.Faults.OversizeBytes, "oversize-bytes", cfg.Faults.OversizeBytes, "size of oversized bodies")
	fs.Int64Var(&cfg.Faults.BombBytes, "bomb-bytes", cfg.Faults.BombBytes, "inflated size of gzip bombs")
	fs.DurationVar(&cfg.Audit.MinDelay, "audit-delay", 0, "politeness audit: minimum gap between requests to a host (0: not checked)")
	fs.IntVar(&cfg.Audit.MaxInFlight, "audit-concurrency", 0, "politeness audit: most requests in flight to a host (0: not checked)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address of the web")
	control := fs.String("control", "127.0.0.1:8081", "listen address of the control API (truth, audit, clock)")
	describe := fs.Bool("describe", false, "print the web's statistics next to the figures it is calibrated to, and exit")
	sample := fs.Int("sample", 100000, "with -describe: pages sampled for the change statistics (0: all)")
	asJSON := fs.Bool("json", false, "with -describe: print JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "simweb: unexpected arguments: %v\n", fs.Args())
		return 2
	}
	var err error
	if cfg.Epoch, err = time.Parse(time.RFC3339, *epoch); err != nil {
		fmt.Fprintf(stderr, "simweb: -epoch: %v\n", err)
		return 2
	}
	if *faults != "" {
		if cfg.Faults, err = simweb.ParseFaults(*faults, cfg.Faults); err != nil {
			fmt.Fprintf(stderr, "simweb: -faults: %v\n", err)
			return 2
		}
	}
	web, err := simweb.New(cfg, nil)
	if err != nil {
		fmt.Fprintf(stderr, "simweb: %v\n", err)
		return 2
	}
	if *describe {
		st := simweb.Describe(web, *sample)
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(st)
		} else {
			st.WriteText(stdout)
		}
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return serve(ctx, web, *addr, *control, stdout, stderr)
}

// serve runs the web and its control API until ctx ends, then shuts both
// down within two seconds.
func serve(ctx context.Context, web *simweb.Web, addr, control string, stdout, stderr io.Writer) int {
	webLn, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "simweb: %v\n", err)
		return 1
	}
	ctlLn, err := net.Listen("tcp", control)
	if err != nil {
		webLn.Close()
		fmt.Fprintf(stderr, "simweb: %v\n", err)
		return 1
	}
	servers := []*http.Server{
		{Handler: web, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 90 * time.Second, MaxHeaderBytes: 64 << 10},
		{Handler: web.ControlHandler(), ReadHeaderTimeout: 10 * time.Second},
	}
	errc := make(chan error, 2)
	go func() { errc <- servers[0].Serve(webLn) }()
	go func() { errc <- servers[1].Serve(ctlLn) }()
	cfg := web.Config()
	first := web.SiteName(0)
	fmt.Fprintf(stdout, "simweb: %d hosts × %d pages (%d pages), seed %d, speed %g\n", cfg.Hosts, cfg.PagesPerHost, web.NumPages(), cfg.Seed, cfg.Speed)
	fmt.Fprintf(stdout, "simweb: web on http://%s  (hosts %s … h%d-*.%s)\n", webLn.Addr(), first, cfg.Hosts-1, simweb.Zone)
	fmt.Fprintf(stdout, "simweb: control on http://%s  (/clock /hosts /truth /snapshot /evaluate /audit /describe)\n", ctlLn.Addr())
	fmt.Fprintf(stdout, "simweb: try  curl -x http://%s http://%s/\n", webLn.Addr(), first)
	select {
	case <-ctx.Done():
	case err := <-errc:
		fmt.Fprintf(stderr, "simweb: %v\n", err)
		return 1
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, s := range servers {
		_ = s.Shutdown(shutdown)
	}
	fmt.Fprintln(stdout, "simweb: stopped")
	return 0
}
