package main

import (
	"flag"
	"github.com/freshcrawl/freshcrawl/internal/dataset"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/refresh"
)

// writeFile writes content to name in a new temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// parseOptions parses args as the crawl command does.
func parseOptions(t *testing.T, args ...string) (crawlOptions, error) {
	t.Helper()
	var o crawlOptions
	err := parseCrawl(crawlFlags(&o), args)
	return o, err
}

// The example config sets every key but seeds-file, to the values its
// comments give.
func TestExampleConfig(t *testing.T) {
	o, err := parseOptions(t, "-config", "testdata/crawl.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := o.config(slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	want := crawler.Config{
		Seeds:          []string{"http://h0-edu.test/", "http://h1-com.test/"},
		DataDir:        filepath.Join("testdata", "crawl-data"),
		Scope:          crawler.ScopeSite,
		MaxPages:       100000,
		Budget:         10,
		Delay:          time.Second,
		MaxCrawlDelay:  time.Minute,
		Workers:        256,
		MaxURLsPerHost: 100000,
		Fetch: fetch.Config{UserAgent: fetch.DefaultUserAgent, AllowPrivate: true,
			Resolve: []fetch.ResolveRule{{Pattern: "*.test", Addr: "127.0.0.1:8080"}}},
		WARCMaxSize:  1 << 30,
		Logger:       slog.Default(),
		Policy:       refresh.Optimal,
		Ordering:     rank.OrderBreadthFirst,
		RankInterval: 5 * time.Second,
		Topic:        "computer",
		Objective:    refresh.Freshness,
		CrawlCost:    time.Hour,
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("config from the example:\n got %+v\nwant %+v", cfg, want)
	}
	if o.logLevel != slog.LevelInfo || o.logFormat != "text" || o.progress != 5*time.Second || o.runFor != 0 {
		t.Errorf("log level %v, format %q, progress %v, for %v", o.logLevel, o.logFormat, o.progress, o.runFor)
	}
	// Every key of the file format is in the example, so that it documents
	// them all.
	b, err := os.ReadFile("testdata/crawl.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range fileKeys() {
		if !strings.Contains(string(b), "\n"+key+" =") && !strings.Contains(string(b), "# "+key+" =") {
			t.Errorf("key %s is not in testdata/crawl.toml", key)
		}
	}
}

// fileKeys lists the TOML keys of dataset.CrawlConfig.
func fileKeys() []string {
	var keys []string
	rt := reflect.TypeFor[dataset.CrawlConfig]()
	for i := range rt.NumField() {
		keys = append(keys, rt.Field(i).Tag.Get("toml"))
	}
	return keys
}

// The config file's keys mirror the flags: each key but the two list
// exceptions is a flag, and each flag but -config and -cpuprofile (a tool
// for one run, not a setting of the crawl) has a key.
func TestConfigKeysMirrorFlags(t *testing.T) {
	fs := crawlFlags(&crawlOptions{})
	flagOf := map[string]string{"seeds": "seed", "seeds-file": "seeds"}
	covered := map[string]bool{"config": true, "cpuprofile": true}
	for _, key := range fileKeys() {
		name := key
		if f, ok := flagOf[key]; ok {
			name = f
		}
		if fs.Lookup(name) == nil {
			t.Errorf("config key %s has no flag -%s", key, name)
		}
		covered[name] = true
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !covered[f.Name] {
			t.Errorf("flag -%s has no config key", f.Name)
		}
	})
}

// Precedence is defaults < config file < flags given, and a list flag
// replaces the file's list.
func TestMergePrecedence(t *testing.T) {
	file := writeFile(t, "c.toml", `
seeds = ["http://a.example/", "http://b.example/"]
resolve = ["*.test=127.0.0.1:1"]
budget = 3.5
delay = "2s"
scope = "host"
allow-private = true
workers = 7
data = "d"
`)
	dir := filepath.Dir(file)
	tests := []struct {
		name  string
		args  []string
		check func(o crawlOptions) bool
	}{
		{"default without file", nil, func(o crawlOptions) bool {
			return o.budget == defaultBudget && o.delay == crawler.DefaultDelay && o.dataDir == defaultDataDir && o.scope == "" // the crawl's own, else site
		}},
		{"file over default", []string{"-config", file}, func(o crawlOptions) bool {
			return o.budget == 3.5 && o.delay == 2*time.Second && o.scope == "host" && o.allowPrivate && o.workers == 7 &&
				len(o.seeds) == 2 && len(o.resolve) == 1 && o.dataDir == filepath.Join(dir, "d")
		}},
		{"flag over file", []string{"-config", file, "-budget", "0", "-delay", "5ms", "-allow-private=false"}, func(o crawlOptions) bool {
			return o.budget == 0 && o.delay == 5*time.Millisecond && !o.allowPrivate && o.workers == 7
		}},
		{"flag before -config still wins", []string{"-workers", "9", "-config", file}, func(o crawlOptions) bool {
			return o.workers == 9 && o.budget == 3.5
		}},
		{"list flag replaces the file's list", []string{"-config", file, "-seed", "http://c.example/"}, func(o crawlOptions) bool {
			return reflect.DeepEqual([]string(o.seeds), []string{"http://c.example/"}) && len(o.resolve) == 1
		}},
		{"absolute data path kept", []string{"-config", file, "-data", "/x/y"}, func(o crawlOptions) bool {
			return o.dataDir == "/x/y"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseOptions(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(o) {
				t.Errorf("options: %+v", o)
			}
		})
	}
}

func TestReadSeeds(t *testing.T) {
	path := writeFile(t, "seeds.txt", "# the seeds\n\nhttp://a.example/\n   http://b.example/x  \n  # indented comment\nhttp://c.example/#frag\n")
	got, err := readSeeds(path)
	want := []string{"http://a.example/", "http://b.example/x", "http://c.example/#frag"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("readSeeds = %q, %v; want %q", got, err, want)
	}
}
