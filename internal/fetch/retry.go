package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RetryAfter reads r's Retry-After header, in seconds or as an HTTP date
// (relative to now), capped at limit; zero if absent or unreadable.
func RetryAfter(r *Response, now time.Time, limit time.Duration) time.Duration {
	v := strings.TrimSpace(r.Header.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(min(s, int64(limit/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, limit)
		}
	}
	return 0
}

// Reason shortens a fetch error for logs and records: the innermost
// cause, and "timeout" for any deadline.
func Reason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return "timeout"
		}
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return err.Error()
}
