package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/freshcrawl/freshcrawl/internal/buildinfo"
)

// runVersion prints which build this binary is (buildinfo), as a line or JSON.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseArgs("version", fs, args, stdout, stderr); !ok {
		return code
	}
	v := buildinfo.Read()
	if *asJSON {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "freshcrawl version: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintln(stdout, v)
	return 0
}
