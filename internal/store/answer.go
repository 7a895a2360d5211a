package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// The last answer from each host and the delay the crawl kept after it,
// so that a crawl opening the store (a restart, or a cluster node taking
// over the partition from another) waits out that delay as the crawl that
// wrote it would have, robots.txt's Crawl-delay included:
//
//	r/<host>   uint64 BE8 Unix nanoseconds of the answer's end, uint64 BE8 the delay in ns

const prefixAnswer = "r/"

func answerKey(host string) []byte { return append([]byte(prefixAnswer), host...) }

// SetLastAnswer records that host's last answer ended at end, and that the
// next request must wait delay after it.
func (t *Txn) SetLastAnswer(host string, end time.Time, delay time.Duration) error {
	if err := checkHost(host); err != nil {
		return fmt.Errorf("store: last answer: %w", err)
	}
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(end.UnixNano()))
	v = binary.BigEndian.AppendUint64(v, uint64(max(delay, 0)))
	if err := t.b.Set(answerKey(host), v, nil); err != nil {
		return fmt.Errorf("store: last answer of %s: %w", host, err)
	}
	return nil
}

// ErrAnswer is wrapped by errors reading a damaged last-answer record.
var ErrAnswer = errors.New("store: damaged last-answer record")

// LastAnswers calls fn with every host's last answer and delay, in host
// order. If fn returns an error, LastAnswers stops and returns it.
func (s *Store) LastAnswers(fn func(host string, end time.Time, delay time.Duration) error) error {
	return s.scanUntil([]byte(prefixAnswer), func(k, v []byte) error {
		if len(v) != 16 {
			return fmt.Errorf("%w: %q", ErrAnswer, k)
		}
		end := time.Unix(0, int64(binary.BigEndian.Uint64(v)))
		return fn(string(k[len(prefixAnswer):]), end, time.Duration(binary.BigEndian.Uint64(v[8:])))
	})
}
