package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionInfo is what the binary knows of its own build.
type versionInfo struct {
	Version  string `json:"version"`            // the module's, "(devel)" from a checkout
	Revision string `json:"revision,omitempty"` // the VCS commit, if the build recorded it
	Time     string `json:"time,omitempty"`     // the commit's time, RFC 3339
	Modified bool   `json:"modified,omitempty"` // the tree had uncommitted changes
	Go       string `json:"go"`                 // the Go release it was built with
}

// buildVersion reads the build information the Go toolchain embeds.
func buildVersion() versionInfo {
	v := versionInfo{Version: "(devel)", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the version on one line: freshcrawl (devel) 1b0e35e27d91
// 2026-11-27T07:05:17Z (modified) go1.26.0.
func (v versionInfo) String() string {
	s := "freshcrawl " + v.Version
	if v.Revision != "" {
		s += " " + v.Revision[:min(len(v.Revision), 12)]
	}
	if v.Time != "" {
		s += " " + v.Time
	}
	if v.Modified {
		s += " (modified)"
	}
	return s + " " + v.Go
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseArgs("version", fs, args, stdout, stderr); !ok {
		return code
	}
	v := buildVersion()
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
