package crawler

import (
	"github.com/freshcrawl/freshcrawl/internal/crawler/capture"
	"github.com/freshcrawl/freshcrawl/internal/fetch"
	"github.com/freshcrawl/freshcrawl/internal/store"
)

// Archive is where the crawler keeps what it fetched (capture.Archive).
type Archive = capture.Archive

// encodeExchange builds the WARC records of resp (capture.Encode) and
// counts them.
func (c *Crawler) encodeExchange(resp *fetch.Response, p *store.Page) (*capture.Exchange, error) {
	e, err := capture.Encode(c.archive, resp, p)
	if err != nil {
		return nil, err
	}
	c.stats.bytes.Add(int64(len(resp.Raw)))
	if e.Identical {
		c.stats.revisits.Add(1)
	}
	return e, nil
}
