package simweb

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"time"
)

// PageTruth is the ground truth about one URL at one instant.
type PageTruth struct {
	URL      string    `json:"url"`
	Alive    bool      `json:"alive"`                 // the URL serves a page at that instant
	Version  uint32    `json:"version"`               // the live version (if alive)
	Modified time.Time `json:"modified"`              // when the live version appeared
	Next     time.Time `json:"next_change,omitzero"`  // the next change (absent if never)
	Born     time.Time `json:"born"`                  // when the page at this URL was created
	Died     time.Time `json:"died,omitzero"`         // when it is removed (absent if never)
	Rate     float64   `json:"changes_per_day"`       // mean change rate
	Process  string    `json:"process"`               // the update process
	Replaced string    `json:"replaced_by,omitempty"` // the slot's live URL, if this one is dead
}

// Truth returns the ground truth about a URL at simulated time t.
func (w *Web) Truth(rawURL string, t time.Duration) (PageTruth, error) {
	if t < 0 {
		return PageTruth{}, fmt.Errorf("truth: time %v is before the epoch", t)
	}
	si, slot, gen, err := w.Lookup(rawURL)
	if err != nil {
		return PageTruth{}, fmt.Errorf("truth: %w", err)
	}
	v := w.VersionAt(si, slot, int64(t))
	p := PageTruth{URL: w.URL(si, slot, gen), Process: v.Process.String()}
	born, died := w.lifetime(si, slot, gen)
	p.Born = w.simTime(born)
	if died != math.MaxInt64 {
		p.Died = w.simTime(died)
	}
	if v.Gen != gen || int64(t) < born {
		if v.Gen != gen {
			p.Replaced = w.URL(si, slot, v.Gen)
		}
		in := w.incarnation(si, slot, gen, born, died)
		p.Rate = in.model.lambda * 86400
		return p, nil
	}
	p.Alive = true
	p.Version = v.Version
	p.Modified = w.simTime(v.Modified)
	if v.Next < v.Died {
		p.Next = w.simTime(v.Next)
	}
	p.Rate = v.Rate * 86400
	return p, nil
}

// Copy is a crawler's copy of a page: the URL and the version it fetched.
type Copy struct {
	URL     string
	Version uint32
}

// Quality is the freshness and age of a collection (dissertation §5.2:
// a copy is fresh if it equals the live page; its age is the time since
// the live page first differed from it, 0 if fresh).
type Quality struct {
	Pages     int           `json:"pages"`
	Fresh     int           `json:"fresh"`
	Freshness float64       `json:"freshness"`
	MeanAge   time.Duration `json:"mean_age_ns"`
	Unknown   int           `json:"unknown"` // copies whose URL is not a simweb page
}

// Evaluate computes the freshness and mean age at simulated time t of a
// collection of copies. A copy of a URL whose page has died is stale since
// the death.
func (w *Web) Evaluate(t time.Duration, copies []Copy) Quality {
	var q Quality
	var ageSum float64
	for _, c := range copies {
		si, slot, gen, err := w.Lookup(c.URL)
		if err != nil {
			q.Unknown++
			continue
		}
		q.Pages++
		age := w.copyAge(si, slot, gen, c.Version, int64(t))
		if age == 0 {
			q.Fresh++
		}
		ageSum += float64(age)
	}
	if q.Pages > 0 {
		q.Freshness = float64(q.Fresh) / float64(q.Pages)
		q.MeanAge = time.Duration(ageSum / float64(q.Pages))
	}
	return q
}

// copyAge returns how long a copy of version ver of generation gen of a
// slot has been stale at t (0 if it is fresh): since the change to version
// ver+1, or since the page died, whichever came first.
func (w *Web) copyAge(si, slot, gen int32, ver uint32, t int64) int64 {
	in, c := w.state(si, slot, t)
	if in.gen == gen {
		if c.idx <= ver || t < in.born {
			return 0
		}
		// Walk back from the live version: as many steps as changes missed.
		for c.idx > ver+1 {
			c.t -= in.delta(c.idx)
			c.idx--
		}
		return t - c.t
	}
	_, died := w.lifetime(si, slot, gen)
	stale := min(died, w.ChangeTime(si, slot, gen, ver+1))
	if stale > t {
		return 0
	}
	return t - stale
}

// Snapshot calls fn with the truth about every page alive at simulated
// time t, site by site and slot by slot.
func (w *Web) Snapshot(t time.Duration, fn func(url string, v Version)) {
	for si := range w.sites {
		s := &w.sites[si]
		for slot := int32(0); slot < s.pages; slot++ {
			v := w.VersionAt(int32(si), slot, int64(t))
			fn("http://"+s.name+s.path(slot, v.Gen), v)
		}
	}
}

// VersionOf reads the version a page body carries in its
// <meta name="simweb" content="... version=N"> tag, which is how a crawler's
// copies are matched against the truth. It reports false for a body without
// the tag (robots.txt, sitemaps, fault pages).
func VersionOf(body []byte) (uint32, bool) {
	const tag = `<meta name="simweb" content="`
	i := bytes.Index(body, []byte(tag))
	if i < 0 {
		return 0, false
	}
	rest := body[i+len(tag):]
	if end := bytes.IndexByte(rest, '"'); end >= 0 {
		rest = rest[:end]
	} else {
		return 0, false
	}
	j := bytes.Index(rest, []byte("version="))
	if j < 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(rest[j+len("version="):]), 10, 32)
	if err != nil {
		return 0, false
	}
	return uint32(v), true
}
