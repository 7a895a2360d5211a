package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
