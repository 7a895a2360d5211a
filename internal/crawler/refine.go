package crawler

import (
	"errors"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/rank"
	"github.com/freshcrawl/freshcrawl/internal/store"
	"github.com/freshcrawl/freshcrawl/internal/urlx"
)

// This file is the committer's side of the ranking module under an
// importance ordering: which page a newcomer to a full collection
// replaces (refinement, dissertation ch. 7), and what each commit tells
// the ranking. The ranking itself runs apart (ranking.go) and never holds
// a commit up.

// membership settles whether the page of o, whose new row is r, is in the
// collection under an importance ordering: a newcomer to a full
// collection takes the place of the weaker page reserved for it, if that
// one can still leave; a revisit of a page that left while it was in
// flight keeps it out.
func (c *Crawler) membership(txn *store.Txn, o *outcome, r *record) error {
	pr := o.page
	if c.ranker == nil || pr.item.Kind != store.KindPage {
		return nil
	}
	switch {
	case r.page.Held && !(pr.known && pr.prev.Held) && c.cfg.MaxPages > 0 && c.held.Load() >= int64(c.cfg.MaxPages):
		// Without a victim the newcomer was explored only: its links are
		// kept, the page is not, and it may come back when it ranks
		// higher.
		evicted := false
		if o.t.claimed {
			var err error
			if evicted, err = c.evictOne(txn); err != nil {
				return err
			}
		}
		if !evicted {
			r.page.Held, r.page.Evicted, r.page.NextDue = false, true, time.Time{}
		}
	case !pr.fromDue.IsZero() && c.cm.gone[pr.item.URL]:
		// The page left the collection while this revisit was in flight,
		// from the row it read: it stays out.
		r.page.Held, r.page.Evicted, r.page.NextDue = false, true, time.Time{}
		pr.prev.Held = false
	case r.page.Held:
		delete(c.cm.gone, pr.item.URL)
	}
	return nil
}

// evictOne stages the least important held page's leaving the
// collection, to make room for a more important newcomer. Its URL stays
// known, its row and links too; it is no longer revisited, and may come
// back if it ranks high again. Pages of this batch are passed over; a
// revisit of the page already in flight is kept out of the collection
// when it commits (committerState.gone).
func (c *Crawler) evictOne(txn *store.Txn) (bool, error) {
	for {
		u := c.ranker.Victim(c.cm.inBatch)
		if u == "" {
			return false, nil
		}
		p, err := c.store.GetPage(u)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if !p.Held || p.Kind != store.KindPage {
			continue
		}
		prev := p
		p.Held, p.Evicted, p.NextDue = false, true, time.Time{}
		if err := txn.PutPage(p, nil); err != nil {
			return false, err
		}
		if !prev.NextDue.IsZero() {
			if err := txn.Schedule(urlx.Authority(u), u, prev.NextDue, time.Time{}); err != nil {
				return false, err
			}
		}
		c.refresh.StagePlan(txn, nil, &prev, true, &p)
		txn.AddHeld(-1)
		c.held.Add(-1)
		c.stats.evicted.Add(1)
		c.cm.inBatch[u] = true
		c.cm.gone[u] = true
		c.cm.evicted = append(c.cm.evicted, u)
		c.log.Debug("page left the collection for a more important one", "url", u)
		return true, nil
	}
}

// rankUpdates appends what o changed about its page for the ranking.
func (c *Crawler) rankUpdates(us []rank.Update, o *outcome, r *record) []rank.Update {
	if c.ranker == nil {
		return us
	}
	for _, u := range o.given {
		us = append(us, rank.Update{URL: u, State: rank.Gone})
	}
	pr := o.page
	if r == nil || pr == nil || pr.item.Kind != store.KindPage {
		return us
	}
	u := rank.Update{URL: pr.item.URL, State: rank.RowState(&r.page)}
	if pr.disallowed {
		u.State = rank.Gone
	}
	if resp := pr.resp; resp != nil && resp.Status >= 200 && resp.Status < 300 && pr.read {
		u.SetLinks, u.Links, u.Named, u.Hot = true, pr.edges, pr.named, pr.topicHot
	}
	return append(us, u)
}
