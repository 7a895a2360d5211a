package dataset

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// OpenInput opens the input file name: standard input for "-", and a name
// ending in .gz is gunzipped. The caller closes what it returns.
func OpenInput(name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(name, ".gz") {
		return f, nil
	}
	zr, err := gzip.NewReader(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return gzipFile{zr, f}, nil
}

// ReadInput opens the input file name (OpenInput) and reads it with
// read; its errors name the file.
func ReadInput[T any](name string, read func(io.Reader) (T, error)) (T, error) {
	in, err := OpenInput(name)
	if err != nil {
		var zero T
		return zero, err
	}
	defer in.Close()
	v, err := read(in)
	if err != nil {
		return v, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// gzipFile closes the gzip stream and the file under it.
type gzipFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzipFile) Close() error {
	err := g.Reader.Close()
	if ferr := g.f.Close(); err == nil {
		err = ferr
	}
	return err
}
