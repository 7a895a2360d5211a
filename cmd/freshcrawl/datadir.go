package main

import "fmt"

// A data directory holds state/, the crawl's Pebble store, and warc/, its
// WARC files (crawler.Config.DataDir). Only one process may have the store
// open: status and crawl both report a store.ErrLocked from it as errInUse.

func errInUse(dir string) error {
	return fmt.Errorf("data directory %s is in use by a running crawl", dir)
}
