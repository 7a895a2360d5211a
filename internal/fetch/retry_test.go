package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	resp := func(v string) *Response {
		return &Response{Header: http.Header{"Retry-After": {v}}}
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	future := now.Add(90 * time.Second).Format(http.TimeFormat)
	tests := []struct {
		v        string
		min, max time.Duration
	}{
		{"", 0, 0},
		{"120", 120 * time.Second, 120 * time.Second},
		{" 5 ", 5 * time.Second, 5 * time.Second},
		{"-3", 0, 0},
		{"999999999", time.Hour, time.Hour},
		{future, 90 * time.Second, 90 * time.Second},
		{"Mon, 01 Jan 2001 00:00:00 GMT", 0, 0}, // in the past
		{"soon", 0, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(resp(tt.v), now, time.Hour); got < tt.min || got > tt.max {
			t.Errorf("RetryAfter(%q) = %v, want in [%v, %v]", tt.v, got, tt.min, tt.max)
		}
	}
}

func TestReason(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&url.Error{Op: "Get", URL: "http://a/", Err: errors.New("connection reset by peer")}, "connection reset by peer"},
		{&url.Error{Op: "Get", URL: "http://a/", Err: context.DeadlineExceeded}, "timeout"},
		{fmt.Errorf("fetch http://a/: %w", &url.Error{Op: "Get", URL: "http://a/", Err: context.DeadlineExceeded}), "timeout"},
		{errors.New("plain"), "plain"},
	}
	for _, tt := range tests {
		if got := Reason(tt.err); got != tt.want {
			t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
