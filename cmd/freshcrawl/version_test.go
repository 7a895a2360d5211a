package main

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/freshcrawl/freshcrawl/internal/buildinfo"
)

// TestVersion checks version's line and JSON against the build it runs
// in (a test binary records no commit), and the line of a build that
// recorded one.
func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != 0 || out.String() != "freshcrawl (devel) "+runtime.Version()+"\n" {
		t.Errorf("version: exit %d, %q, stderr %q", code, out.String(), errOut.String())
	}
	out.Reset()
	var v buildinfo.Info
	if code := run([]string{"version", "-json"}, &out, &errOut); code != 0 {
		t.Fatalf("version -json: exit %d, stderr %q", code, errOut.String())
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Go != runtime.Version() || v.Version == "" {
		t.Errorf("version -json: %+v, %v from %s", v, err, out.String())
	}
	built := buildinfo.Info{Version: "v0.0.0-20261127090210-1d5325b34741+dirty", Revision: "1d5325b347419d0c2b6e",
		Time: "2026-11-27T09:02:10Z", Modified: true, Go: "go1.26.8"}
	if got, want := built.String(), "freshcrawl v0.0.0-20261127090210-1d5325b34741+dirty 1d5325b34741 2026-11-27T09:02:10Z (modified) go1.26.8"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}
