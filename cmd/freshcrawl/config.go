package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/dataset"
)

// mergeCrawlFile applies the config file's entries to fs, which has parsed
// the command line: an entry whose flag was given on the command line is
// skipped, so the precedence is defaults < config file < flags. A list
// (seeds, resolve) is replaced by the flag, not extended.
func mergeCrawlFile(fs *flag.FlagSet, f *dataset.CrawlConfig, path string) error {
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for _, s := range f.Settings(filepath.Dir(path)) {
		if given[s.Flag] {
			continue
		}
		for _, v := range s.Values {
			if err := fs.Set(s.Flag, v); err != nil {
				if g, ok := fs.Lookup(s.Flag).Value.(flag.Getter); ok && isDuration(g.Get()) {
					return fmt.Errorf("config %s: %s = %q: not a duration (write \"1s\", \"2m30s\", \"24h\")", path, s.Key, v)
				}
				return fmt.Errorf("config %s: %s = %q: %v", path, s.Key, v, err)
			}
		}
	}
	return nil
}

func isDuration(v any) bool {
	_, ok := v.(time.Duration)
	return ok
}
