package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Exchange carries parcels of URLs to their partitions' owners, through
// one JetStream stream:
//
//	stream   <cluster>-urls, file storage, work-queue retention
//	subject  <cluster>.urls.<partition>, one message a parcel (or a piece
//	         of one, under maxMessage bytes), with a Nats-Msg-Id of
//	         <sender's flush id>/<partition>/<piece>
//	consumer p<partition>, durable, on its partition's subject, explicit ack
//
// A message is stored before Send returns, and leaves the stream only when
// the partition's owner acknowledges it, which it does once its own store
// holds the URLs (Receive). Between the two a node may die: what it sent
// is in the stream, and what it had taken but not acknowledged is
// delivered again, to whichever node owns the partition next, after the
// ack wait. A sender that dies between sending and recording that it sent
// sends the same flush id again, and the stream drops the copy (within its
// duplicate window).
type Exchange struct {
	js      jetstream.JetStream
	cluster string
	stream  string
	ackWait time.Duration

	mu        sync.Mutex
	consumers map[int]jetstream.Consumer
}

// maxMessage bounds a message: NATS refuses payloads over 1 MB by default.
const maxMessage = 512 << 10

// ExchangeConfig configures an Exchange. Zero fields take defaults.
type ExchangeConfig struct {
	Cluster string        // default "freshcrawl"
	AckWait time.Duration // how long a taken message waits for its ack before it is delivered again; default DefaultTTL
}

// OpenExchange creates the stream if it does not exist.
func OpenExchange(ctx context.Context, js jetstream.JetStream, cfg ExchangeConfig) (*Exchange, error) {
	if cfg.Cluster == "" {
		cfg.Cluster = "freshcrawl"
	}
	if cfg.AckWait == 0 {
		cfg.AckWait = DefaultTTL
	}
	if !nameRE.MatchString(cfg.Cluster) {
		return nil, fmt.Errorf("cluster: name %q: want 1–64 letters, digits, - or _", cfg.Cluster)
	}
	x := &Exchange{js: js, cluster: cfg.Cluster, stream: cfg.Cluster + "-urls", ackWait: cfg.AckWait, consumers: map[int]jetstream.Consumer{}}
	_, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:       x.stream,
		Subjects:   []string{cfg.Cluster + ".urls.*"},
		Retention:  jetstream.WorkQueuePolicy,
		Storage:    jetstream.FileStorage,
		Duplicates: 10 * time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: URL stream: %w", err)
	}
	return x, nil
}

func (x *Exchange) subject(p int) string { return x.cluster + ".urls." + strconv.Itoa(p) }

// Send stores the parcels in the stream and returns once the server has
// acknowledged every message. id names this flush uniquely among the
// sender's flushes, across restarts (e.g. "<partition>-<sequence>").
func (x *Exchange) Send(ctx context.Context, id string, parcels []Parcel) error {
	var futures []jetstream.PubAckFuture
	for _, p := range parcels {
		for i, piece := range split(p) {
			data, err := piece.AppendBinary(nil)
			if err != nil {
				return err
			}
			msgID := id + "/" + strconv.Itoa(p.Partition) + "/" + strconv.Itoa(i)
			f, err := x.js.PublishAsync(x.subject(p.Partition), data, jetstream.WithMsgID(msgID))
			if err != nil {
				return fmt.Errorf("cluster: send to partition %d: %w", p.Partition, err)
			}
			futures = append(futures, f)
		}
	}
	for _, f := range futures {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return fmt.Errorf("cluster: send %s: %w", id, err)
		case <-ctx.Done():
			return fmt.Errorf("cluster: send %s: %w", id, ctx.Err())
		}
	}
	return nil
}

// split cuts a parcel into pieces that encode under maxMessage bytes.
func split(p Parcel) []Parcel {
	var out []Parcel
	cur, size := Parcel{Partition: p.Partition}, 16
	for _, e := range p.Entries {
		n := len(e.URL) + 2*10
		if size+n > maxMessage && len(cur.Entries) > 0 {
			out = append(out, cur)
			cur, size = Parcel{Partition: p.Partition}, 16
		}
		cur.Entries = append(cur.Entries, e)
		size += n
	}
	if len(cur.Entries) > 0 || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}

// Receive takes up to max messages waiting for partition p, without
// waiting for more, and hands each parcel to store. A message is
// acknowledged when store returns nil, and delivered again later when it
// returns an error (or the node dies first); a message that does not
// decode is acknowledged and reported, as no delivery would mend it.
// It returns the number of parcels stored.
func (x *Exchange) Receive(ctx context.Context, p, max int, store func(Parcel) error) (int, error) {
	cons, err := x.consumer(ctx, p)
	if err != nil {
		return 0, err
	}
	batch, err := cons.FetchNoWait(max)
	if err != nil {
		return 0, fmt.Errorf("cluster: receive for partition %d: %w", p, err)
	}
	stored := 0
	var errs []error
	for msg := range batch.Messages() {
		parcel, err := DecodeParcel(msg.Data())
		if err == nil && parcel.Partition != p {
			err = fmt.Errorf("%w: for partition %d on partition %d's subject", ErrParcel, parcel.Partition, p)
		}
		if err != nil {
			errs = append(errs, err, msg.Term())
			continue
		}
		if err := store(parcel); err != nil {
			errs = append(errs, err, msg.Nak())
			continue
		}
		if err := msg.DoubleAck(ctx); err != nil {
			errs = append(errs, fmt.Errorf("cluster: ack: %w", err))
			continue
		}
		stored++
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		errs = append(errs, err)
	}
	return stored, errors.Join(errs...)
}

// consumer returns partition p's durable consumer, creating it the first
// time.
func (x *Exchange) consumer(ctx context.Context, p int) (jetstream.Consumer, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c, ok := x.consumers[p]; ok {
		return c, nil
	}
	c, err := x.js.CreateOrUpdateConsumer(ctx, x.stream, jetstream.ConsumerConfig{
		Durable:       "p" + strconv.Itoa(p),
		FilterSubject: x.subject(p),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       x.ackWait,
		MaxDeliver:    -1,
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: consumer for partition %d: %w", p, err)
	}
	x.consumers[p] = c
	return c, nil
}
