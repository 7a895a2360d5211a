package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/freshcrawl/freshcrawl/internal/datadir"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// A data directory holds state/, the crawl's Pebble store, and warc/, its
// WARC files (crawler.Config.DataDir). Only one process may have the store
// open: the commands that read it and crawl all report a store.ErrLocked
// from it as errInUse.

func errInUse(dir string) error {
	return fmt.Errorf("data directory %s is in use by a running crawl", dir)
}

// readFailed reports in one line the error of command name reading the
// data directory dir, and returns the exit status: 2 where there is no
// crawl (a mistake in -data), else 1.
func readFailed(name, dir string, err error, stderr io.Writer) int {
	code := 1
	switch {
	case errors.Is(err, datadir.ErrNoCrawl):
		code = 2
	case errors.Is(err, store.ErrLocked):
		err = errInUse(dir)
	}
	fmt.Fprintf(stderr, "freshcrawl %s: %v\n", name, err)
	return code
}
