package dataset

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestReadSeeds reads URLs one a line, trimmed, without comments and
// blank lines, and passes on a read error.
func TestReadSeeds(t *testing.T) {
	got, err := ReadSeeds(strings.NewReader("# seeds\nhttps://a.example/\n\n  https://b.example/x \r\n#https://c.example/\nnot a url"))
	want := []string{"https://a.example/", "https://b.example/x", "not a url"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadSeeds = %q, %v; want %q", got, err, want)
	}
	if _, err := ReadSeeds(strings.NewReader(strings.Repeat("x", 70_000))); err == nil {
		t.Error("a line over 64 KiB: no error")
	}
	broken := errors.New("broken")
	if _, err := ReadSeeds(&failingReader{broken}); !errors.Is(err, broken) {
		t.Errorf("error %v, want %v", err, broken)
	}
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }
