package main

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// newFlagSet returns the flag set of the command name, which prints
// nothing itself: parseArgs reports a mistake in one line, and printHelp
// answers -h.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses the arguments of the command name into fs, which takes
// no positional arguments. On -h it prints the command's help to stdout;
// on a mistake, one line to stderr. It returns false, with the exit
// status, when the command should stop there.
func parseArgs(name string, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(name, fs, stdout)
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

// The long help of each command (-h) is a text file, help/<command>.txt;
// its flags follow it.
//
//go:embed help
var helpFiles embed.FS

// printHelp prints command name's help and its flags to w.
func printHelp(name string, fs *flag.FlagSet, w io.Writer) {
	text, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("freshcrawl: no help for " + name) // TestHelp reads every command's
	}
	w.Write(text)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// logFormats are the values of -log-format.
var logFormats = []string{"text", "json"}

// newLogger returns the logger of -log-format format and -log-level level,
// writing to w.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// usageError is a mistake in what the user asked for: a flag, the config
// file, a seed. It exits with status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// The checks of a flag's value: each returns the usage error that names
// the flag -name, or nil when v is in range.

// empty checks that a text flag is not empty.
func empty(name, v string) error {
	if v == "" {
		return usagef("-%s is empty", name)
	}
	return nil
}

// negative checks that a number or duration is not below 0.
func negative[T int | int64 | float64 | time.Duration](name string, v T) error {
	if v < 0 {
		return usagef("-%s %v is negative", name, v)
	}
	return nil
}

// notPositive checks that a number or duration is above 0.
func notPositive[T int | int64 | float64 | time.Duration](name string, v T) error {
	if v <= 0 {
		return usagef("-%s %v is not positive", name, v)
	}
	return nil
}

// notOneOf checks that v is one of the choices.
func notOneOf[T ~string](name string, v T, choices []T) error {
	if !slices.Contains(choices, v) {
		return usagef("-%s %q: want one of %v", name, v, choices)
	}
	return nil
}

// plotFormat is the image format a plot file's name asks for, png or svg
// by its extension, or "" for another name.
func plotFormat(name string) string {
	switch f := strings.TrimPrefix(strings.ToLower(filepath.Ext(name)), "."); f {
	case "png", "svg":
		return f
	}
	return ""
}
