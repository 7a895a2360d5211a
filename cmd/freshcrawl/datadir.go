package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// A data directory holds state/, the crawl's Pebble store, and warc/, its
// WARC files (crawler.Config.DataDir).

func errInUse(dir string) error {
	return fmt.Errorf("data directory %s is in use by a running crawl", dir)
}

// isLocked reports whether err from store.Open means another crawl holds
// the store. Pebble takes an fcntl lock on state/LOCK: another process
// holding it makes the lock fail with EAGAIN or EACCES (a bare errno, where
// failing to create the file would be a *fs.PathError), and this process
// holding it makes Pebble say so in words. The store has no sentinel error
// for this yet.
func isLocked(err error) bool {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return false
	}
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) ||
		strings.Contains(err.Error(), "lock held by current process")
}

// openDataDir opens the store of an existing data directory. A directory
// that is missing or holds no crawl is a usageError; one a crawl is running
// in is errInUse.
func openDataDir(dir string) (*store.Store, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, usagef("no data directory %s", dir)
	case err != nil:
		return nil, usageError{err}
	case !fi.IsDir():
		return nil, usagef("%s is not a directory", dir)
	}
	// Pebble would create a store where there is none; a data directory
	// has state/ with Pebble's OPTIONS file in it.
	state := filepath.Join(dir, "state")
	if opts, _ := filepath.Glob(filepath.Join(state, "OPTIONS-*")); len(opts) == 0 {
		return nil, usagef("%s is not a crawl data directory (no Pebble store in %s)", dir, state)
	}
	s, err := store.Open(state, store.Options{CacheSize: 8 << 20, ReadOnly: true})
	if err != nil {
		if isLocked(err) {
			return nil, errInUse(dir)
		}
		return nil, err
	}
	return s, nil
}
