package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// CrawlConfig is the TOML config file of freshcrawl crawl. Its keys are the
// flag names, with two exceptions: seeds is the list of seed URLs (the
// repeatable -seed flag) and seeds-file is the -seeds FILE flag. Durations
// are strings in Go's syntax ("1s", "2h30m"). A nil field was not in the
// file.
type CrawlConfig struct {
	Seeds          []string `toml:"seeds"`
	SeedsFile      *string  `toml:"seeds-file"`
	Data           *string  `toml:"data"`
	For            *string  `toml:"for"`
	Once           *bool    `toml:"once"`
	MaxPages       *int     `toml:"max-pages"`
	Budget         *float64 `toml:"budget"`
	Delay          *string  `toml:"delay"`
	MaxCrawlDelay  *string  `toml:"max-crawl-delay"`
	AllowPrivate   *bool    `toml:"allow-private"`
	Resolve        []string `toml:"resolve"`
	UserAgent      *string  `toml:"user-agent"`
	Scope          *string  `toml:"scope"`
	Revisit        *string  `toml:"revisit"`
	Policy         *string  `toml:"policy"`
	Ordering       *string  `toml:"ordering"`
	RankInterval   *string  `toml:"rank-interval"`
	Topic          *string  `toml:"topic"`
	Objective      *string  `toml:"objective"`
	Signals        *bool    `toml:"signals"`
	CrawlCost      *string  `toml:"crawl-cost"`
	MaxRevisit     *string  `toml:"max-revisit"`
	Workers        *int     `toml:"workers"`
	MaxURLsPerHost *int     `toml:"max-urls-per-host"`
	FollowNofollow *bool    `toml:"follow-nofollow"`
	WARCSize       *int64   `toml:"warc-size"`
	LogLevel       *string  `toml:"log-level"`
	LogFormat      *string  `toml:"log-format"`
	Progress       *string  `toml:"progress"`
	Listen         *string  `toml:"listen"`
	Cluster        *string  `toml:"cluster"`
	Node           *string  `toml:"node"`
	ClusterName    *string  `toml:"cluster-name"`
	Partitions     *int     `toml:"partitions"`
	ClusterMode    *string  `toml:"cluster-mode"`
	LeaseTTL       *string  `toml:"lease-ttl"`
	ExchangeEvery  *string  `toml:"exchange-every"`
	Replicate      *string  `toml:"replicate"`
	ReplicateTop   *int     `toml:"replicate-top"`
}

// ReadCrawlConfig reads and decodes a config file. Its errors are one
// line, with the file name and, where the decoder knows it, the line; an
// unknown key is an error.
func ReadCrawlConfig(path string) (*CrawlConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var f CrawlConfig
	err = toml.NewDecoder(bytes.NewReader(b)).DisallowUnknownFields().Decode(&f)
	var strict *toml.StrictMissingError
	var decode *toml.DecodeError
	switch {
	case err == nil:
		return &f, nil
	case errors.As(err, &strict):
		keys := make([]string, len(strict.Errors))
		for i, e := range strict.Errors {
			keys[i] = strconv.Quote(strings.Join(e.Key(), "."))
		}
		row, _ := strict.Errors[0].Position()
		return nil, fmt.Errorf("config %s:%d: unknown key %s (the keys are the flag names; see -h)", path, row, strings.Join(keys, ", "))
	case errors.As(err, &decode):
		row, col := decode.Position()
		return nil, fmt.Errorf("config %s:%d:%d: %s", path, row, col, decodeMessage(decode))
	default:
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
}

// goField matches the Go type names the decoder puts in its messages, which
// mean nothing to the user.
var goField = regexp.MustCompile(`into struct field \S+ of type (\S+)`)

func decodeMessage(e *toml.DecodeError) string {
	msg := strings.TrimPrefix(e.Error(), "toml: ")
	msg = goField.ReplaceAllString(msg, "into $1")
	if k := e.Key(); len(k) > 0 {
		msg = strings.Join(k, ".") + ": " + msg
	}
	return msg
}

// Setting is a config file entry as the flag it stands for: the entry's
// key, the flag's name and the values to give the flag, one per
// occurrence.
type Setting struct {
	Key, Flag string
	Values    []string
}

// Settings lists the entries present in f. Relative paths are taken
// relative to dir, the config file's directory, so a config file means the
// same wherever the command is run from.
func (f *CrawlConfig) Settings(dir string) []Setting {
	var out []Setting
	add := func(key, flag string, values ...string) {
		out = append(out, Setting{key, flag, values})
	}
	str := func(key, flag string, p *string) {
		if p != nil {
			add(key, flag, *p)
		}
	}
	path := func(key, flag string, p *string) {
		if p != nil {
			v := *p
			if v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(dir, v)
			}
			add(key, flag, v)
		}
	}
	integer := func(key string, p *int) {
		if p != nil {
			add(key, key, strconv.Itoa(*p))
		}
	}
	boolean := func(key string, p *bool) {
		if p != nil {
			add(key, key, strconv.FormatBool(*p))
		}
	}
	if f.Seeds != nil {
		add("seeds", "seed", f.Seeds...)
	}
	path("seeds-file", "seeds", f.SeedsFile)
	path("data", "data", f.Data)
	str("for", "for", f.For)
	boolean("once", f.Once)
	integer("max-pages", f.MaxPages)
	if f.Budget != nil {
		add("budget", "budget", strconv.FormatFloat(*f.Budget, 'g', -1, 64))
	}
	str("delay", "delay", f.Delay)
	str("max-crawl-delay", "max-crawl-delay", f.MaxCrawlDelay)
	boolean("allow-private", f.AllowPrivate)
	if f.Resolve != nil {
		add("resolve", "resolve", f.Resolve...)
	}
	str("user-agent", "user-agent", f.UserAgent)
	str("scope", "scope", f.Scope)
	str("revisit", "revisit", f.Revisit)
	str("policy", "policy", f.Policy)
	str("ordering", "ordering", f.Ordering)
	str("rank-interval", "rank-interval", f.RankInterval)
	str("topic", "topic", f.Topic)
	str("objective", "objective", f.Objective)
	boolean("signals", f.Signals)
	str("crawl-cost", "crawl-cost", f.CrawlCost)
	str("max-revisit", "max-revisit", f.MaxRevisit)
	integer("workers", f.Workers)
	integer("max-urls-per-host", f.MaxURLsPerHost)
	boolean("follow-nofollow", f.FollowNofollow)
	if f.WARCSize != nil {
		add("warc-size", "warc-size", strconv.FormatInt(*f.WARCSize, 10))
	}
	str("log-level", "log-level", f.LogLevel)
	str("log-format", "log-format", f.LogFormat)
	str("progress", "progress", f.Progress)
	str("listen", "listen", f.Listen)
	str("cluster", "cluster", f.Cluster)
	str("node", "node", f.Node)
	str("cluster-name", "cluster-name", f.ClusterName)
	integer("partitions", f.Partitions)
	str("cluster-mode", "cluster-mode", f.ClusterMode)
	str("lease-ttl", "lease-ttl", f.LeaseTTL)
	str("exchange-every", "exchange-every", f.ExchangeEvery)
	path("replicate", "replicate", f.Replicate)
	integer("replicate-top", f.ReplicateTop)
	return out
}
