package urlx

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestLimits(t *testing.T) {
	long := "http://a.example/" + strings.Repeat("x", 2048-len("http://a.example/"))
	deep := "http://a.example"
	for i := range 16 {
		deep += "/" + strconv.Itoa(i)
	}
	many := "http://a.example/?" + strings.Repeat("p=1&", 31) + "p=1"
	tests := []struct {
		name string
		l    Limits
		u    string
		want error
	}{
		{"plain", Limits{}, "http://a.example/b/c?d=1", nil},
		{"root", Limits{}, "http://a.example/", nil},
		{"at max length", Limits{}, long, nil},
		{"over max length", Limits{}, long + "x", ErrTooLong},
		{"length check off", Limits{MaxLength: -1, MaxDepth: -1, MaxRepeats: -1}, "http://a.example" + strings.Repeat("/x", 5000), nil},
		{"custom length", Limits{MaxLength: 20}, "http://a.example/abcd", ErrTooLong},
		{"at max depth", Limits{}, deep, nil},
		{"at max depth with slash", Limits{}, deep + "/", nil},
		{"over max depth", Limits{}, deep + "/e", ErrTooDeep},
		{"empty segments count", Limits{MaxDepth: 2}, "http://a.example//x", nil},
		{"empty segments over", Limits{MaxDepth: 2}, "http://a.example///x", ErrTooDeep},
		{"query does not count", Limits{MaxDepth: 1}, "http://a.example/a?b/c/d", nil},
		{"repeat twice", Limits{}, "http://a.example/a/b/a/b", nil},
		{"repeat pattern three times", Limits{}, "http://a.example/a/b/a/b/a/b", ErrRepeatSegment},
		{"repeat one segment", Limits{}, "http://a.example/x/x/x/", ErrRepeatSegment},
		{"repeat apart", Limits{}, "http://a.example/img/1/img/2/img/3.png", ErrRepeatSegment},
		{"empty segments are not repeats", Limits{}, "http://a.example/a////b", nil},
		{"repeat check off", Limits{MaxRepeats: -1}, "http://a.example/x/x/x/x", nil},
		{"repeat custom", Limits{MaxRepeats: 1}, "http://a.example/x/y/x", ErrRepeatSegment},
		{"repeat long path, map count", Limits{MaxDepth: -1, MaxLength: -1}, "http://a.example" + strings.Repeat("/s", 100), ErrRepeatSegment},
		{"at max params", Limits{}, many, nil},
		{"over max params", Limits{}, many + "&q=2", ErrTooManyParams},
		{"params check off", Limits{MaxParams: -1}, many + "&q=2", nil},
		{"one param", Limits{MaxParams: 1}, "http://a.example/?a=1", nil},
		{"two params", Limits{MaxParams: 1}, "http://a.example/?a=1&b=2", ErrTooManyParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.l.Check(tt.u)
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Check(%.60q) = %v, want %v", tt.u, err, tt.want)
			}
		})
	}
}

// TestLimitsOrder checks that a URL breaking several limits reports the
// first in the documented order.
func TestLimitsOrder(t *testing.T) {
	u := "http://a.example" + strings.Repeat("/x", 20) + "?" + strings.Repeat("a&", 40)
	if err := (Limits{}).Check(u); !errors.Is(err, ErrTooDeep) {
		t.Errorf("Check = %v, want ErrTooDeep", err)
	}
	if err := (Limits{MaxDepth: -1}).Check(u); !errors.Is(err, ErrRepeatSegment) {
		t.Errorf("Check = %v, want ErrRepeatSegment", err)
	}
	if err := (Limits{MaxDepth: -1, MaxRepeats: -1}).Check(u); !errors.Is(err, ErrTooManyParams) {
		t.Errorf("Check = %v, want ErrTooManyParams", err)
	}
}
