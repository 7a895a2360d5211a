package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotTornTail is returned by Repair when a file is damaged somewhere
// other than at its end: a complete, valid record follows the damage.
// Cutting there would lose good records, so Repair leaves such a file alone.
var ErrNotTornTail = errors.New("warc: damage is not confined to the end of the file")

// Repair makes the WARC file at path readable to the end by truncating it
// just after its last complete, valid record, and returns the number of
// bytes dropped (zero for a sound file, which is left untouched).
//
// A record is complete and valid if it parses, its block digest (and
// payload digest) verify, and, in a gzip file, the gzip member it ends
// decompresses with a correct CRC. A crash while a Writer is appending
// leaves at most one torn member at the end; that is what Repair removes,
// so a crawler calls it on its last file at start-up (DESIGN.md §4,
// "Nothing lost"). It reads the whole file.
//
// If a complete, valid record follows the first damaged one, the damage is
// not a torn tail, and Repair returns an error wrapping ErrNotTornTail
// without changing the file. I/O errors also leave the file unchanged.
func Repair(path string) (dropped int64, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("warc: repair: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("warc: repair %s: %w", path, cerr)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("warc: repair: %w", err)
	}
	size := st.Size()

	good, gzipped, err := validPrefix(io.NewSectionReader(f, 0, size))
	if err != nil {
		return 0, fmt.Errorf("warc: repair %s: %w", path, err)
	}
	if good == size {
		return 0, nil
	}
	at, found, err := findValidRecord(f, good+1, size, gzipped)
	if err != nil {
		return 0, fmt.Errorf("warc: repair %s: %w", path, err)
	}
	if found {
		return 0, fmt.Errorf("warc: repair %s: bad data at offset %d but a valid record at %d: %w", path, good, at, ErrNotTornTail)
	}
	if err := f.Truncate(good); err != nil {
		return 0, fmt.Errorf("warc: repair: %w", err)
	}
	if err := f.Sync(); err != nil {
		return 0, fmt.Errorf("warc: repair: %w", err)
	}
	return size - good, nil
}

// validPrefix reads records from r until the end or the first damaged
// record, and returns the length of the valid prefix (which is the whole
// input if nothing is damaged). Only I/O errors are returned as errors.
func validPrefix(r io.Reader) (good int64, gzipped bool, err error) {
	rd := NewReader(r)
	for {
		_, err := rd.Next()
		if err == io.EOF {
			return rd.pos(), rd.gzipped, nil
		}
		if err == nil {
			err = rd.Verify()
		}
		if err != nil && !onlyUnsupported(err) {
			if rd.src.err != nil {
				return 0, false, err
			}
			return rd.cleanEnd, rd.gzipped, nil
		}
	}
}

// onlyUnsupported reports whether Verify failed only because a digest uses
// an algorithm it does not know; such a record is not damaged.
func onlyUnsupported(err error) bool {
	return errors.Is(err, ErrUnsupportedDigest) && !errors.Is(err, ErrDigestMismatch) && !errors.Is(err, ErrFormat)
}

// findValidRecord looks for a complete, valid record starting anywhere in
// [from, size): at a gzip header in a compressed file, at "WARC/" in a
// plain one.
func findValidRecord(f *os.File, from, size int64, gzipped bool) (int64, bool, error) {
	magic := []byte("WARC/")
	if gzipped {
		magic = []byte{0x1f, 0x8b, 0x08}
	}
	buf := make([]byte, 64<<10)
	for off := from; off < size; {
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			return 0, false, err
		}
		for i := 0; ; {
			j := bytes.Index(buf[i:n], magic)
			if j < 0 {
				break
			}
			at := off + int64(i+j)
			ok, err := recordAt(f, at, size)
			if err != nil {
				return 0, false, err
			}
			if ok {
				return at, true, nil
			}
			i += j + 1
		}
		if off+int64(n) >= size {
			break
		}
		off += int64(max(n-len(magic)+1, 1))
	}
	return 0, false, nil
}

// recordAt reports whether a complete, valid record starts at offset at.
func recordAt(f *os.File, at, size int64) (bool, error) {
	rd := NewReader(io.NewSectionReader(f, at, size-at))
	_, err := rd.Next()
	if err == nil {
		if err = rd.Verify(); onlyUnsupported(err) {
			err = nil
		}
	}
	if err == nil {
		err = rd.finish()
	}
	if rd.src.err != nil {
		return false, rd.src.err
	}
	return err == nil && rd.cleanEnd > 0, nil
}
