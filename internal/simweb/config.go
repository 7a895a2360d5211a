package simweb

import (
	"errors"
	"fmt"
	"time"
)

// Config describes a synthetic web. Start from DefaultConfig; New checks
// every field and says which one is wrong.
type Config struct {
	Seed         uint64 // the same seed gives the same web, byte for byte
	Hosts        int    // number of hosts (each its own site)
	PagesPerHost int    // URL slots per host, root included

	Links           float64 // mean out-links per page, structural links included (dissertation ch. 3: about 10)
	IntraSite       float64 // share of links to the same site (ch. 3 footnote: about 0.9)
	ClusterLocality float64 // share of a page's random same-site links that stay in its cluster
	WeightAlpha     float64 // Pareto shape of page attractiveness; sets the in-degree tail

	Epoch time.Time // the wall-clock date of simulated time zero (Date, Last-Modified)
	Speed float64   // simulated seconds per wall second

	ParetoShare float64 // share of sites whose pages follow a Pareto renewal process
	QDShare     float64 // share of sites whose pages are quasi-deterministic
	ParetoAlpha float64 // Pareto shape for those sites (> 1 for a finite mean)
	Churn       float64 // multiplier on the ch. 4 page death rates; 0 = no births or deaths

	Validators ValidatorMix
	Robots     RobotsMix
	Sitemaps   SitemapMix
	GzipShare  float64 // share of sites that gzip responses for clients that accept it

	Faults Faults
	Audit  AuditConfig
}

// ValidatorMix gives the shares of sites whose Last-Modified and ETag are
// honest, absent, or wrong (stamped with a deploy date unrelated to the
// content, so conditional GETs answer 304 for changed pages and 200 for
// unchanged ones). Honest takes the remainder.
type ValidatorMix struct{ Absent, Wrong float64 }

// RobotsMix gives the shares of hosts whose robots.txt answers 404 or 500,
// and of the remaining hosts that declare a Crawl-delay (1 to
// MaxCrawlDelay seconds).
type RobotsMix struct {
	NotFound, ServerError, CrawlDelay float64
	MaxCrawlDelay                     int
}

// SitemapMix gives the shares of sites with no sitemap and with wrong
// lastmod values (the rest honest), and of the sitemaps that are text
// files, with no lastmod (the others XML, half urlsets, half indexes).
type SitemapMix struct{ None, Wrong, Text float64 }

// AuditConfig sets what the politeness audit counts as a violation: two
// requests to one host less than MinDelay apart (start to start), or more
// than MaxInFlight requests to one host at once. Zero disables each check.
type AuditConfig struct {
	MinDelay    time.Duration
	MaxInFlight int
}

// DefaultConfig returns the calibrated defaults: 50 hosts of 200 pages,
// ch. 4 change rates, ch. 3 link structure, no faults.
func DefaultConfig() Config {
	return Config{
		Seed:            1,
		Hosts:           50,
		PagesPerHost:    200,
		Links:           10,
		IntraSite:       0.9,
		ClusterLocality: 0.4,
		WeightAlpha:     0.8,
		Epoch:           time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Speed:           1,
		ParetoAlpha:     1.5,
		Churn:           1,
		Validators:      ValidatorMix{Absent: 0.25, Wrong: 0.15},
		Robots:          RobotsMix{NotFound: 0.1, ServerError: 0.03, CrawlDelay: 0.2, MaxCrawlDelay: 5},
		Sitemaps:        SitemapMix{None: 0.2, Wrong: 0.2, Text: 1.0 / 3},
		GzipShare:       0.5,
		Faults:          DefaultFaultSizes(),
	}
}

func (c *Config) validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	share := func(name string, v float64) { check(v >= 0 && v <= 1, "%s must be in [0, 1], got %g", name, v) }
	pair := func(a string, va float64, b string, vb float64, both string) {
		share(a, va)
		share(b, vb)
		check(va+vb <= 1, "%s add to more than 1", both)
	}
	check(c.Hosts >= 1, "hosts must be at least 1, got %d", c.Hosts)
	check(c.PagesPerHost >= 1, "pages per host must be at least 1, got %d", c.PagesPerHost)
	check(int64(c.Hosts)*int64(c.PagesPerHost) <= 1<<28, "hosts × pages must be at most 2^28, got %d", int64(c.Hosts)*int64(c.PagesPerHost))
	check(c.Links >= 0 && c.Links <= 200, "links per page must be in [0, 200], got %g", c.Links)
	share("intra-site share", c.IntraSite)
	share("cluster locality", c.ClusterLocality)
	check(c.WeightAlpha > 0, "weight alpha must be positive, got %g", c.WeightAlpha)
	check(c.Speed > 0, "speed must be positive, got %g", c.Speed)
	pair("pareto share", c.ParetoShare, "quasi-deterministic share", c.QDShare, "pareto and quasi-deterministic shares")
	check(c.ParetoAlpha > 1, "pareto alpha must be above 1 for a finite mean, got %g", c.ParetoAlpha)
	check(c.Churn >= 0, "churn must not be negative, got %g", c.Churn)
	pair("absent-validator share", c.Validators.Absent, "wrong-validator share", c.Validators.Wrong, "validator shares")
	pair("robots 404 share", c.Robots.NotFound, "robots 500 share", c.Robots.ServerError, "robots 404 and 500 shares")
	share("crawl-delay share", c.Robots.CrawlDelay)
	check(c.Robots.MaxCrawlDelay >= 1 || c.Robots.CrawlDelay == 0, "max crawl-delay must be at least 1 second")
	pair("no-sitemap share", c.Sitemaps.None, "wrong-sitemap share", c.Sitemaps.Wrong, "sitemap shares")
	share("text-sitemap share", c.Sitemaps.Text)
	share("gzip share", c.GzipShare)
	check(c.Audit.MinDelay >= 0 && c.Audit.MaxInFlight >= 0, "audit thresholds must not be negative")
	if err := c.Faults.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
