package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/history"
	"github.com/freshcrawl/freshcrawl/internal/simweb"
)

// Options say, as the command line does, which history to serve and how:
// a file in the dataset format (File, with the keys in Drop left out), or
// a generated bursty history (Bursty, with history.ParseBursty's
// name=value items in BurstySpec changing the defaults, seeded with Seed).
type Options struct {
	File       string
	Bursty     bool
	BurstySpec string
	Drop       string // comma-separated keys
	From, To   string // YYYY-MM-DD or RFC 3339; empty: the history's first event, and never
	Group      int
	Speed      float64
	Seed       uint64
	Audit      simweb.AuditConfig
}

// Open reads or generates the history o names and returns its server,
// whose hosts are named after the file (or "bursty"). A generated history
// starts at its Start unless From says otherwise.
func Open(o Options) (*Server, error) {
	h, name, err := o.history()
	if err != nil {
		return nil, err
	}
	cfg := Config{Speed: o.Speed, Group: o.Group, Name: name, Audit: o.Audit}
	if cfg.From, err = parseDate("from", o.From); err != nil {
		return nil, err
	}
	if cfg.To, err = parseDate("to", o.To); err != nil {
		return nil, err
	}
	if cfg.From.IsZero() && o.Bursty {
		cfg.From = time.Unix(h.Pages[0].Created(), 0)
	}
	return New(h, cfg, nil)
}

// parseDate reads flag -name's date; empty is the zero time.
func parseDate(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return t, fmt.Errorf("-%s %q: want YYYY-MM-DD or RFC 3339", name, v)
	}
	return t, nil
}

// history reads or generates the history, and names its hosts.
func (o Options) history() (*history.History, string, error) {
	switch {
	case o.File != "" && o.Bursty:
		return nil, "", fmt.Errorf("-replay and -bursty: choose one")
	case o.Bursty:
		cfg := history.DefaultBursty()
		cfg.Seed = o.Seed
		cfg, err := history.ParseBursty(o.BurstySpec, cfg)
		if err != nil {
			return nil, "", fmt.Errorf("-bursty-config: %w", err)
		}
		h, err := history.Bursty(cfg)
		return h, "bursty", err
	}
	f, err := os.Open(o.File)
	if err != nil {
		return nil, "", fmt.Errorf("-replay: %w", err)
	}
	defer f.Close()
	h, err := history.Parse(f)
	if err != nil {
		return nil, "", fmt.Errorf("-replay %s: %w", o.File, err)
	}
	for _, k := range strings.Split(o.Drop, ",") {
		h.Drop(strings.TrimSpace(k))
	}
	name := strings.TrimSuffix(filepath.Base(o.File), filepath.Ext(o.File))
	return h, strings.NewReplacer(".", "-", " ", "-", ":", "-", "_", "-").Replace(name), nil
}
