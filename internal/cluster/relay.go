package cluster

import (
	"context"
	"fmt"
	"strconv"

	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Relay sends what one partition's crawl found for the others: the rows
// of its store's outbox (store.Txn.AddOutbox), gathered into a Batch, so
// that a URL found many times since the last exchange travels once with
// its count. It is the sending half of exchange mode; Exchange.Receive is
// the other.
type Relay struct {
	Store       *store.Store
	Exchange    *Exchange
	Partitioner Partitioner
	Self        int // the partition whose outbox this is
	// Rows bounds the outbox rows (one per page with such links) one
	// exchange takes; 0 means all.
	Rows int
}

// Flushed is what one Flush sent.
type Flushed struct {
	Rows    int   // outbox rows taken
	Links   int64 // links to other partitions in them
	Entries int   // distinct [URL, count] entries sent
}

// Flush sends the oldest outbox rows and drops them once the stream holds
// them. The exchange's id is the partition and the rows' sequence numbers,
// so that after a crash between the send and the drop the same rows go
// out under the same id, and the stream drops the copy; if more rows were
// committed meanwhile the id differs and the URLs arrive twice, which the
// receiver's seen set absorbs (only the counts are doubled).
func (r *Relay) Flush(ctx context.Context) (Flushed, error) {
	var f Flushed
	var b Batch
	var first, last uint64
	max := r.Rows
	if max <= 0 {
		max = int(^uint(0) >> 1)
	}
	err := r.Store.Outbox(max, func(seq uint64, urls []string) error {
		if f.Rows == 0 {
			first = seq
		}
		last = seq
		f.Rows++
		for _, u := range urls {
			p := r.Partitioner.Of(u)
			if p == r.Self {
				continue
			}
			b.Add(p, u, 1)
		}
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("cluster: relay of partition %d: %w", r.Self, err)
	}
	if f.Rows == 0 {
		return f, nil
	}
	f.Links, f.Entries = b.Links(), b.Len()
	id := "p" + strconv.Itoa(r.Self) + "-" + strconv.FormatUint(first, 10) + "-" + strconv.FormatUint(last, 10)
	if err := r.Exchange.Send(ctx, id, b.Take()); err != nil {
		return f, err
	}
	if err := r.Store.DropOutbox(last, f.Entries, f.Links); err != nil {
		return f, fmt.Errorf("cluster: relay of partition %d: %w", r.Self, err)
	}
	return f, nil
}
