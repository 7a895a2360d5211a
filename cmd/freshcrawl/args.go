package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// parseArgs parses the arguments of the command name into fs, which takes
// no positional arguments. On -h it prints help to stdout; on a mistake,
// one line to stderr. It returns false, with the exit status, when the
// command should stop there.
func parseArgs(name string, fs *flag.FlagSet, args []string, help func(*flag.FlagSet, io.Writer), stdout, stderr io.Writer) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			help(fs, stdout)
			return 0, false
		}
		fmt.Fprintf(stderr, "freshcrawl %s: %v (see -h)\n", name, err)
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "freshcrawl %s: unexpected arguments %q\n", name, fs.Args())
		return 2, false
	}
	return 0, true
}

// openInput opens the input file name: standard input for "-", and a name
// ending in .gz is gunzipped. The caller closes what it returns.
func openInput(name string) (io.ReadCloser, error) {
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

// readInput opens the input file name (openInput) and reads it with
// read; its errors name the file.
func readInput[T any](name string, read func(io.Reader) (T, error)) (T, error) {
	in, err := openInput(name)
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
