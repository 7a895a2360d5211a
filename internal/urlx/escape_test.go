package urlx

import (
	"strconv"
	"strings"
	"testing"
)

func TestAppendNormalizedEscape(t *testing.T) {
	tests := []struct {
		s, want string
		n       int
	}{
		{"%7e", "~", 3},
		{"%7Efoo", "~", 3},
		{"%41", "A", 3},
		{"%2f", "%2F", 3},
		{"%2F", "%2F", 3},
		{"%e2%82%ac", "%E2", 3},
		{"%00", "%00", 3},
		{"%ff", "%FF", 3},
		{"%", "%25", 1},
		{"%4", "%25", 1},
		{"%4g", "%25", 1},
		{"%g4", "%25", 1},
		{"%%41", "%25", 1},
		{"%+1", "%25", 1},
	}
	for _, tt := range tests {
		got, n := AppendNormalizedEscape([]byte("x"), tt.s)
		if string(got) != "x"+tt.want || n != tt.n {
			t.Errorf("AppendNormalizedEscape(x, %q) = %q, %d; want %q, %d", tt.s, got, n, "x"+tt.want, tt.n)
		}
	}
}

// TestAppendNormalizedEscapeAll checks every '%' followed by two bytes
// against strconv's hex parsing and RFC 3986 §2.3's list of unreserved
// characters.
func TestAppendNormalizedEscapeAll(t *testing.T) {
	const unreservedRFC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	for a := range 256 {
		for b := range 256 {
			s := string([]byte{'%', byte(a), byte(b)})
			want, wantN := "%25", 1
			if v, err := strconv.ParseUint(s[1:], 16, 8); err == nil {
				wantN = 3
				if c := byte(v); strings.IndexByte(unreservedRFC, c) >= 0 {
					want = string(c)
				} else {
					want = "%" + strings.ToUpper(s[1:])
				}
			}
			got, n := AppendNormalizedEscape(nil, s)
			if string(got) != want || n != wantN {
				t.Fatalf("AppendNormalizedEscape(%q) = %q, %d; want %q, %d", s, got, n, want, wantN)
			}
		}
	}
}
