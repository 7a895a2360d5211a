// Command colly crawls one site with Colly, as bench/peers.sh compares it
// with freshcrawl: every <a href> on the start URL's host, robots.txt
// obeyed, Parallelism requests at a time, Delay between requests. It
// prints the pages it visited when done.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
)

func main() {
	start := flag.String("start", "", "start `URL`")
	parallel := flag.Int("parallel", 8, "requests at a time")
	delay := flag.Duration("delay", 0, "least gap between requests")
	limit := flag.Duration("for", 0, "stop after this long (0: when done)")
	flag.Parse()
	u, err := url.Parse(*start)
	if err != nil || u.Host == "" {
		fmt.Fprintln(os.Stderr, "colly: -start must be an absolute URL")
		os.Exit(2)
	}
	c := colly.NewCollector(colly.AllowedDomains(u.Hostname()), colly.Async(true))
	c.IgnoreRobotsTxt = false
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: *parallel, Delay: *delay}); err != nil {
		log.Fatal(err)
	}
	var pages atomic.Int64
	c.OnResponse(func(*colly.Response) { pages.Add(1) })
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		e.Request.Visit(e.Attr("href"))
	})
	if err := c.Visit(*start); err != nil {
		log.Fatal(err)
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	if *limit > 0 {
		select {
		case <-done:
		case <-time.After(*limit):
		}
	} else {
		<-done
	}
	fmt.Printf("colly: %d pages\n", pages.Load())
}
