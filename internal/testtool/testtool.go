// Package testtool finds the external programs some tests drive
// (promtool, chromium): Debian packages that .ci/run installs.
package testtool

import (
	"os"
	"os/exec"
	"testing"
)

// Require returns the path of the program name. Without it the test
// skips, unless FRESHCRAWL_REQUIRE_TOOLS is set (.ci/run installs the
// programs and sets it), where it fails.
func Require(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("FRESHCRAWL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s is not installed (.ci/run installs it): %v", name, err)
		}
		t.Skipf("%s is not installed (.ci/run installs it)", name)
	}
	return path
}
