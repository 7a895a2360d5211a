package simweb

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// Faults are the misbehaviours simweb can inject, all off by default.
// Transient faults (Slow, ServerError, TooMany, Reset) strike a request with
// the given probability. Sticky faults are properties of URLs: the share of
// pages that link to a redirect chain, a redirect loop, an oversized body
// or a gzip bomb, the share of pages served as malformed HTML or in a
// non-UTF-8 encoding, and the share of hosts with an infinite calendar.
type Faults struct {
	Slow        float64 // respond after SlowDelay
	ServerError float64 // 500, 502 or 503
	TooMany     float64 // 429 with Retry-After
	Reset       float64 // TCP reset before any response
	Redirect    float64 // link to a chain of RedirectHops redirects ending at a page
	Loop        float64 // link to a redirect loop
	Oversize    float64 // link to a body of OversizeBytes
	Bomb        float64 // link to a gzip body that inflates to BombBytes
	Trap        float64 // share of hosts with an infinite calendar URL space
	Malformed   float64 // page served as broken (but parseable) HTML
	Charset     float64 // page served in windows-1252

	SlowDelay     time.Duration
	RetryAfter    time.Duration
	RedirectHops  int
	OversizeBytes int64
	BombBytes     int64
}

// DefaultFaultSizes returns Faults with every rate zero and the sizes and
// delays used when a rate is turned on.
func DefaultFaultSizes() Faults {
	return Faults{
		SlowDelay:     2 * time.Second,
		RetryAfter:    5 * time.Second,
		RedirectHops:  4,
		OversizeBytes: 32 << 20,
		BombBytes:     1 << 30,
	}
}

// faultKeys names the rates for ParseFaults and the -faults flag.
var faultKeys = map[string]func(*Faults) *float64{
	"slow":      func(f *Faults) *float64 { return &f.Slow },
	"5xx":       func(f *Faults) *float64 { return &f.ServerError },
	"429":       func(f *Faults) *float64 { return &f.TooMany },
	"reset":     func(f *Faults) *float64 { return &f.Reset },
	"redirect":  func(f *Faults) *float64 { return &f.Redirect },
	"loop":      func(f *Faults) *float64 { return &f.Loop },
	"oversize":  func(f *Faults) *float64 { return &f.Oversize },
	"bomb":      func(f *Faults) *float64 { return &f.Bomb },
	"trap":      func(f *Faults) *float64 { return &f.Trap },
	"malformed": func(f *Faults) *float64 { return &f.Malformed },
	"charset":   func(f *Faults) *float64 { return &f.Charset },
}

// FaultKeys lists the names ParseFaults accepts, sorted.
func FaultKeys() []string {
	keys := make([]string, 0, len(faultKeys))
	for k := range faultKeys {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParseFaults sets rates on base from a list like "5xx=0.01,slow=0.02";
// "all=R" sets every rate.
func ParseFaults(spec string, base Faults) (Faults, error) {
	f := base
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return base, fmt.Errorf("fault %q: want name=rate", item)
		}
		rate, err := strconv.ParseFloat(v, 64)
		if err != nil || rate < 0 || rate > 1 {
			return base, fmt.Errorf("fault %q: rate must be a number in [0, 1]", item)
		}
		if k == "all" {
			for _, field := range faultKeys {
				*field(&f) = rate
			}
			continue
		}
		field, ok := faultKeys[k]
		if !ok {
			return base, fmt.Errorf("unknown fault %q (known: all, %s)", k, strings.Join(FaultKeys(), ", "))
		}
		*field(&f) = rate
	}
	return f, nil
}

func (f *Faults) validate() error {
	var errs []error
	for _, k := range FaultKeys() {
		if v := *faultKeys[k](f); v < 0 || v > 1 {
			errs = append(errs, fmt.Errorf("fault rate %s must be in [0, 1], got %g", k, v))
		}
	}
	if f.ServerError+f.TooMany+f.Reset > 1 {
		errs = append(errs, errors.New("fault rates 5xx, 429 and reset add to more than 1"))
	}
	if f.Redirect > 0 && f.RedirectHops < 1 {
		errs = append(errs, errors.New("redirect hops must be at least 1"))
	}
	if f.SlowDelay < 0 || f.RetryAfter < 0 || f.OversizeBytes < 0 || f.BombBytes < 0 {
		errs = append(errs, errors.New("fault sizes and delays must not be negative"))
	}
	return errors.Join(errs...)
}

// Sticky fault kinds, used as hash coordinates.
const (
	stickyRedirect = iota + 1
	stickyLoop
	stickyOversize
	stickyBomb
	stickyMalformed
	stickyCharset
)

// sticky reports whether a page slot carries a sticky fault of a kind.
func (w *Web) sticky(global int32, kind uint64, rate float64) bool {
	return rate > 0 && splitmix.Unit(splitmix.Hash3(w.cfg.Seed^tagFault, uint64(global), kind)) < rate
}

// Transient fault outcomes.
const (
	transientNone = iota
	transientReset
	transientServerError
	transientTooMany
)

// transient decides the transient faults of the n-th request to a site:
// deterministic given the order of requests to that host.
func (w *Web) transient(si int32, n uint64) (kind int, slow bool, status int) {
	f := &w.cfg.Faults
	h := splitmix.Hash3(w.cfg.Seed^tagFault, uint64(si), n)
	slow = f.Slow > 0 && splitmix.Unit(splitmix.Mix(h^0x51)) < f.Slow
	u := splitmix.Unit(h)
	switch {
	case u < f.Reset:
		return transientReset, slow, 0
	case u < f.Reset+f.ServerError:
		return transientServerError, slow, [...]int{500, 502, 503}[splitmix.Mix(h^0x77)%3]
	case u < f.Reset+f.ServerError+f.TooMany:
		return transientTooMany, slow, 429
	}
	return transientNone, slow, 0
}
