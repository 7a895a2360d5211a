package capture

import (
	"log/slog"
	"path/filepath"
	"sort"

	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/warc"
)

// Repair cuts a torn last record off every WARC file in dir not yet
// checked since the run that wrote it ended, and records in st that it
// was checked. Only the file being written when a process died can be
// torn, but which one that was is not recorded, so each file is checked
// once after its run.
func Repair(dir string, st *store.Store, log *slog.Logger) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.warc.gz"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	txn := st.Begin()
	for _, path := range names {
		base := filepath.Base(path)
		key := "warc-checked/" + base
		if _, ok, err := st.Setting(key); err != nil {
			txn.Abort()
			return err
		} else if ok {
			continue
		}
		dropped, err := warc.Repair(path)
		if err != nil {
			txn.Abort()
			return err
		}
		if dropped > 0 {
			log.Warn("cut a torn record off a WARC file", "file", base, "bytes", dropped)
		}
		if err := txn.SetSetting(key, "ok"); err != nil {
			txn.Abort()
			return err
		}
	}
	return txn.Commit()
}
