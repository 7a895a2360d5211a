package warc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes a WARC with a warcinfo and n responses and returns its
// bytes and the locations of the responses.
func writeTestFile(t *testing.T, n int) ([]byte, []Location) {
	t.Helper()
	w, dir := newTestWriter(t, WriterConfig{})
	var locs []Location
	for i := range n {
		body := []byte(strings.Repeat("page body, varied a little: "+string(rune('a'+i)), 40))
		loc, err := w.WriteResponse(Response{
			TargetURI:  "http://example.com/" + string(rune('a'+i)),
			HTTPHeader: httpResponse("Content-Type: text/plain"),
			Body:       body,
		})
		if err != nil {
			t.Fatal(err)
		}
		locs = append(locs, loc)
	}
	w.Close()
	return readFile(t, warcFiles(t, dir)[0]), locs
}

// repairBytes writes data to a file, repairs it and returns the result.
func repairBytes(t *testing.T, data []byte) ([]byte, int64, error) {
	t.Helper()
	path := filepath.Join(tempDir(t), "x.warc.gz")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dropped, err := Repair(path)
	return readFile(t, path), dropped, err
}

func recordIDs(t *testing.T, data []byte) []string {
	t.Helper()
	var ids []string
	for _, r := range readRecords(t, data) {
		ids = append(ids, r.Header.Get("WARC-Record-ID"))
	}
	return ids
}

// TestRepairTornTail cuts the last record's gzip member at many offsets,
// as a crash mid-write would, and checks that Repair leaves exactly the
// earlier records, readable to the end.
func TestRepairTornTail(t *testing.T) {
	data, locs := writeTestFile(t, 4)
	last := locs[len(locs)-1]
	before := data[:last.Offset]
	wantIDs := recordIDs(t, before)

	// About 50 cut points spread over the member, plus both ends.
	var cuts []int64
	step := max(last.Length/50, 1)
	for c := last.Offset; c < last.Offset+last.Length; c += step {
		cuts = append(cuts, c)
	}
	cuts = append(cuts, last.Offset+1, last.Offset+last.Length-1)
	for _, cut := range cuts {
		torn := data[:cut]
		got, dropped, err := repairBytes(t, torn)
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if dropped != cut-last.Offset || !bytes.Equal(got, before) {
			t.Fatalf("cut at %d: dropped %d bytes, left %d; want %d dropped, %d left", cut, dropped, len(got), cut-last.Offset, len(before))
		}
		if ids := recordIDs(t, got); strings.Join(ids, " ") != strings.Join(wantIDs, " ") {
			t.Fatalf("cut at %d: records %v, want %v", cut, ids, wantIDs)
		}
	}
}

func TestRepair(t *testing.T) {
	data, locs := writeTestFile(t, 3)
	last := locs[len(locs)-1]
	plain := gunzip(t, data)
	plainLast := bytes.LastIndex(plain, []byte("WARC/1.1\r\n"))
	flipped := append([]byte(nil), data...)
	flipped[locs[0].Offset+locs[0].Length/2] ^= 0x55 // inside the first response
	flippedLast := append([]byte(nil), data...)
	flippedLast[last.Offset+last.Length/2] ^= 0x55

	// A plain record whose bytes are intact but whose digest is wrong.
	badDigest := bytes.Replace(plain[plainLast:], []byte("WARC-Block-Digest: sha1:"), []byte("WARC-Block-Digest: sha1:A"), 1)
	badDigest = trimDigestTail(badDigest)

	// Damage in the warcinfo block, caught by its digest.
	plainDamaged := bytes.Replace(plain, []byte("software: freshcrawl"), []byte("software: freshcrawL"), 1)

	tests := []struct {
		name    string
		in      []byte
		want    []byte // file after Repair
		wantErr error
	}{
		{"sound gzip file", data, data, nil},
		{"sound plain file", plain, plain, nil},
		{"empty file", nil, nil, nil},
		{"plain, last record cut", plain[:len(plain)-7], plain[:plainLast], nil},
		{"plain, cut inside the end marker", plain[:len(plain)-1], plain[:plainLast], nil},
		{"plain, cut inside the header", plain[:plainLast+20], plain[:plainLast], nil},
		{"zeros after the last member (ext4 after a crash)", cat(data, make([]byte, 4096)), data, nil},
		{"garbage after the last member", cat(data, []byte("\x1f\x8b\x08garbage")), data, nil},
		{"last member damaged inside", flippedLast, data[:last.Offset], nil},
		{"plain, last record's digest wrong", cat(plain[:plainLast], badDigest), plain[:plainLast], nil},
		{"damage before good records", flipped, flipped, ErrNotTornTail},
		{"plain, damage before good records", plainDamaged, plainDamaged, ErrNotTornTail},
		{"only a torn warcinfo", data[:locs[0].Offset-3], []byte{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dropped, err := repairBytes(t, tt.in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("file has %d bytes after Repair, want %d", len(got), len(tt.want))
			}
			if wantDropped := int64(len(tt.in) - len(tt.want)); dropped != wantDropped {
				t.Errorf("dropped %d, want %d", dropped, wantDropped)
			}
			if tt.wantErr == nil {
				readRecords(t, got) // reads to the end without error
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		if _, err := Repair(filepath.Join(tempDir(t), "none.warc.gz")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("err = %v, want ErrNotExist", err)
		}
	})
}

// trimDigestTail keeps a mangled digest field valid base32 of the right
// length by dropping the last character of the value, so only the value is
// wrong.
func trimDigestTail(rec []byte) []byte {
	i := bytes.Index(rec, []byte("WARC-Block-Digest: sha1:"))
	j := i + bytes.Index(rec[i:], []byte("\r\n"))
	return cat(rec[:j-1], rec[j:])
}
