package warc

import (
	"regexp"
	"testing"
)

// TestNewRecordID checks the form of WARC-Record-ID: a version 4, variant
// 1 UUID as a URN (WARC 1.1 §5.2, RFC 9562 §5.4), unique across calls.
func TestNewRecordID(t *testing.T) {
	form := regexp.MustCompile(`^<urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}>$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewRecordID()
		if !form.MatchString(id) {
			t.Fatalf("NewRecordID() = %q, not a version-4 UUID URN", id)
		}
		if seen[id] {
			t.Fatalf("NewRecordID() repeated %q", id)
		}
		seen[id] = true
	}
}

func BenchmarkNewRecordID(b *testing.B) {
	for b.Loop() {
		NewRecordID()
	}
}
