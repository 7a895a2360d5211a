package store

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// ErrLocked is returned (wrapped) by Open when the store's directory is
// locked: another process, or another open Store in this one, holds it.
// Pebble allows one open DB per directory, read-only ones included, so a
// store a crawl is running on cannot be opened until the crawl stops.
var ErrLocked = errors.New("store is locked by another process or Store")

// isLocked reports whether err from pebble.Open means the directory's lock
// is held. Pebble takes an fcntl lock on LOCK in the directory (vfs
// defaultFS.Lock): another process holding it makes fcntl fail with EAGAIN
// or EACCES, returned as a bare errno, whereas failing to create the LOCK
// file is an *fs.PathError, which can carry EACCES too (a directory one may
// not write) and is not a lock conflict. fcntl locks are per process, so
// Pebble also keeps a table of the LOCK files this process holds and
// refuses a second open with an error that has no type, only its words;
// TestOpenLocked catches a Pebble upgrade that changes them.
func isLocked(err error) bool {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return false
	}
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES) ||
		strings.Contains(err.Error(), "lock held by current process")
}
