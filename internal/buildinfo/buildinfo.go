// Package buildinfo says which build of freshcrawl is running: the module
// version, the commit it was built from and the Go release, as the Go
// toolchain records them in the binary.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Info is what the binary knows of its own build.
type Info struct {
	Version  string `json:"version"`            // the module's, "(devel)" from a checkout
	Revision string `json:"revision,omitempty"` // the VCS commit, if the build recorded it
	Time     string `json:"time,omitempty"`     // the commit's time, RFC 3339
	Modified bool   `json:"modified,omitempty"` // the tree had uncommitted changes
	Go       string `json:"go"`                 // the Go release it was built with
}

// Read reads the build information the Go toolchain embeds.
func Read() Info {
	v := Info{Version: "(devel)", Go: runtime.Version()}
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
func (v Info) String() string {
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
