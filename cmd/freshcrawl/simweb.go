package main

import (
	"context"
	"encoding/json"
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
	"github.com/freshcrawl/freshcrawl/internal/simweb/replay"
	"github.com/freshcrawl/freshcrawl/internal/world"
)

// simwebOptions are the simweb command's flags: the web's config, and
// how to serve or describe it.
type simwebOptions struct {
	cfg                          simweb.Config
	epoch, faults, addr, control string
	describe, asJSON             bool
	sample                       int
	hist                         replay.Options
}

// simwebFlags defines the simweb command's flags on a new FlagSet bound to
// o, whose cfg holds the defaults.
func simwebFlags(o *simwebOptions) *flag.FlagSet {
	fs := newFlagSet("simweb")
	fs.Uint64Var(&o.cfg.Seed, "seed", o.cfg.Seed, "random seed: the same seed gives the same web")
	fs.IntVar(&o.cfg.Hosts, "hosts", o.cfg.Hosts, "number of hosts")
	fs.IntVar(&o.cfg.PagesPerHost, "pages", o.cfg.PagesPerHost, "pages per host")
	fs.Float64Var(&o.cfg.Links, "links", o.cfg.Links, "mean out-links per page")
	fs.Float64Var(&o.cfg.IntraSite, "intra", o.cfg.IntraSite, "share of links to the same site")
	fs.Float64Var(&o.cfg.Speed, "speed", o.cfg.Speed, "simulated seconds per wall second (3600 = one hour per second)")
	fs.StringVar(&o.epoch, "epoch", o.cfg.Epoch.Format(time.RFC3339), "date of simulated time zero (RFC 3339)")
	fs.Float64Var(&o.cfg.ParetoShare, "pareto", o.cfg.ParetoShare, "share of sites whose pages change by a Pareto renewal process (paper 002)")
	fs.Float64Var(&o.cfg.QDShare, "qd", o.cfg.QDShare, "share of sites whose pages change quasi-deterministically (paper 002)")
	fs.Float64Var(&o.cfg.ParetoAlpha, "pareto-alpha", o.cfg.ParetoAlpha, "Pareto shape (> 1)")
	fs.Float64Var(&o.cfg.Churn, "churn", o.cfg.Churn, "multiplier on the page death and birth rates of ch. 4 (0: pages never die)")
	fs.Float64Var(&o.cfg.Validators.Absent, "validators-absent", o.cfg.Validators.Absent, "share of sites without Last-Modified and ETag")
	fs.Float64Var(&o.cfg.Validators.Wrong, "validators-wrong", o.cfg.Validators.Wrong, "share of sites whose Last-Modified and ETag do not follow the content")
	fs.Float64Var(&o.cfg.Robots.NotFound, "robots-404", o.cfg.Robots.NotFound, "share of hosts whose robots.txt is 404")
	fs.Float64Var(&o.cfg.Robots.ServerError, "robots-500", o.cfg.Robots.ServerError, "share of hosts whose robots.txt is 500")
	fs.Float64Var(&o.cfg.Robots.CrawlDelay, "crawl-delay", o.cfg.Robots.CrawlDelay, "share of the other hosts that declare a Crawl-delay")
	fs.IntVar(&o.cfg.Robots.MaxCrawlDelay, "max-crawl-delay", o.cfg.Robots.MaxCrawlDelay, "largest Crawl-delay declared, seconds")
	fs.Float64Var(&o.cfg.Sitemaps.None, "sitemap-none", o.cfg.Sitemaps.None, "share of sites without a sitemap")
	fs.Float64Var(&o.cfg.Sitemaps.Wrong, "sitemap-wrong", o.cfg.Sitemaps.Wrong, "share of sites whose sitemap lastmod is wrong")
	fs.Float64Var(&o.cfg.Sitemaps.Text, "sitemap-text", o.cfg.Sitemaps.Text, "share of the sitemaps that are text files (no lastmod)")
	fs.Float64Var(&o.cfg.GzipShare, "gzip", o.cfg.GzipShare, "share of sites that gzip responses")
	fs.StringVar(&o.faults, "faults", "", "fault rates, e.g. 5xx=0.01,slow=0.02 (names: all, "+strings.Join(simweb.FaultKeys(), ", ")+")")
	fs.DurationVar(&o.cfg.Faults.SlowDelay, "slow-delay", o.cfg.Faults.SlowDelay, "delay of a slow response")
	fs.DurationVar(&o.cfg.Faults.RetryAfter, "retry-after", o.cfg.Faults.RetryAfter, "Retry-After of a 429")
	fs.IntVar(&o.cfg.Faults.RedirectHops, "redirect-hops", o.cfg.Faults.RedirectHops, "length of redirect chains")
	fs.Int64Var(&o.cfg.Faults.OversizeBytes, "oversize-bytes", o.cfg.Faults.OversizeBytes, "size of oversized bodies")
	fs.Int64Var(&o.cfg.Faults.BombBytes, "bomb-bytes", o.cfg.Faults.BombBytes, "inflated size of gzip bombs")
	fs.DurationVar(&o.cfg.Audit.MinDelay, "audit-delay", 0, "politeness audit: minimum gap between requests to a host (0: not checked)")
	fs.IntVar(&o.cfg.Audit.MaxInFlight, "audit-concurrency", 0, "politeness audit: most requests in flight to a host (0: not checked)")
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8080", "listen address of the web")
	fs.StringVar(&o.control, "control", "127.0.0.1:8081", "listen address of the control API (truth, audit, clock)")
	fs.BoolVar(&o.describe, "describe", false, "print the web's statistics next to the figures it is calibrated to, and exit")
	fs.IntVar(&o.sample, "sample", 100000, "with -describe: pages sampled for the change statistics (0: all)")
	fs.BoolVar(&o.asJSON, "json", false, "with -describe: print JSON")
	historyFlags(fs, &o.hist)
	return fs
}

func runSimweb(args []string, stdout, stderr io.Writer) int {
	o := simwebOptions{cfg: simweb.DefaultConfig()}
	fs := simwebFlags(&o)
	if code, ok := parseArgs("simweb", fs, args, stdout, stderr); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if o.hist.File != "" || o.hist.Bursty {
		o.hist.Speed, o.hist.Seed, o.hist.Audit = replaySpeed(fs, o.cfg.Speed), o.cfg.Seed, o.cfg.Audit
		s, err := replay.Open(o.hist)
		if err != nil {
			fmt.Fprintf(stderr, "simweb: %v\n", err)
			return 2
		}
		return serve(ctx, s, o.addr, o.control, func(a net.Addr) string {
			return fmt.Sprintf("simweb: replay of %d pages on %d hosts %s … %s, speed %g, from %v\nsimweb: web on http://%s",
				len(s.History().Pages), s.NumSites(), s.SiteName(0), s.SiteName(int32(s.NumSites()-1)), s.Speed(), s.Now().Format(time.DateOnly), a)
		}, stdout, stderr)
	}
	web, err := o.web()
	if err != nil {
		fmt.Fprintf(stderr, "simweb: %v\n", err)
		return 2
	}
	if o.describe {
		st := simweb.Describe(web, o.sample)
		if o.asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			_ = enc.Encode(st)
		} else {
			st.WriteText(stdout)
		}
		return 0
	}
	cfg := web.Config()
	return serve(ctx, world.PoissonWorld{Web: web}, o.addr, o.control, func(a net.Addr) string {
		return fmt.Sprintf("simweb: %d hosts × %d pages (%d pages), seed %d, speed %g\nsimweb: web on http://%s  (hosts %s … h%d-*.%s)",
			cfg.Hosts, cfg.PagesPerHost, web.NumPages(), cfg.Seed, cfg.Speed, a, web.SiteName(0), cfg.Hosts-1, simweb.Zone)
	}, stdout, stderr)
}

// web makes the web of the flags: the config with the epoch and the
// faults parsed.
func (o *simwebOptions) web() (*simweb.Web, error) {
	var err error
	if o.cfg.Epoch, err = time.Parse(time.RFC3339, o.epoch); err != nil {
		return nil, fmt.Errorf("-epoch: %w", err)
	}
	if o.faults != "" {
		if o.cfg.Faults, err = simweb.ParseFaults(o.faults, o.cfg.Faults); err != nil {
			return nil, fmt.Errorf("-faults: %w", err)
		}
	}
	return simweb.New(o.cfg, nil)
}

// serve runs the web and its control API until ctx ends, then shuts both
// down within two seconds.
func serve(ctx context.Context, web world.World, addr, control string, banner func(net.Addr) string, stdout, stderr io.Writer) int {
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
	fmt.Fprintln(stdout, banner(webLn.Addr()))
	first := web.Seeds()[0]
	endpoints := "/clock /hosts /truth /evaluate /audit"
	if _, ok := web.(world.PoissonWorld); ok {
		endpoints = "/clock /hosts /truth /snapshot /evaluate /audit /describe"
	}
	fmt.Fprintf(stdout, "simweb: control on http://%s  (%s)\n", ctlLn.Addr(), endpoints)
	fmt.Fprintf(stdout, "simweb: try  curl -x http://%s %s\n", webLn.Addr(), first)
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
