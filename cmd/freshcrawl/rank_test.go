package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// starGraph: pages 10, 20 and 30 link to page 5, which links nowhere, and
// page 30 also links to 20. Ids are sparse, as in SNAP files.
const starGraph = "# a small graph\n10\t5\n20\t5\n30 5\n30 20\n"

func TestRankText(t *testing.T) {
	file := writeFile(t, "star.txt", starGraph)
	var out, errOut bytes.Buffer
	if code := run([]string{"rank", "-graph", file, "-top", "2"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []string{"4 nodes, 4 edges", "d = 0.9, dangling uniform", "converged"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	last := strings.Fields(lines[len(lines)-2]) // rank 1
	if last[0] != "1" || last[1] != "5" || last[4] != "3" {
		t.Errorf("top page line %q: want rank 1, node 5, 3 backlinks", lines[len(lines)-2])
	}
}

// TestRankJSON checks the JSON report against the closed form: with d =
// 0.9, the dangling page 5 spreads its rank to all four pages, so with b =
// 0.1 + 0.9·IR(5)/4: IR(10) = IR(30) = b, IR(20) = b + 0.9·b/2, IR(5) = b +
// 0.9·(b + IR(20) + b/2), and Σ IR = 4.
func TestRankJSON(t *testing.T) {
	file := writeFile(t, "star.txt.gz", gzipString(t, starGraph))
	var out, errOut bytes.Buffer
	if code := run([]string{"rank", "-graph", file, "-json", "-top", "10", "-tol", "1e-14"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var rep rankReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	// In units of b: IR(20) = 1.45, IR(5) = 1 + 0.9·(1 + 1.45 + 0.5) = 3.655,
	// Σ = 1 + 1 + 1.45 + 3.655 = 7.105 b = 4.
	b := 4 / 7.105
	want := map[uint64]float64{5: 3.655 * b, 20: 1.45 * b, 10: b, 30: b}
	if rep.Nodes != 4 || rep.Edges != 4 || len(rep.Top) != 4 || !rep.Converged {
		t.Fatalf("report %+v", rep)
	}
	sum := 0.0
	for _, p := range rep.Top {
		if math.Abs(p.IR-want[p.ID]) > 1e-9 || math.Abs(p.PageRank-p.IR/4) > 1e-12 {
			t.Errorf("node %d: IR %.12g, pagerank %.12g; want IR %.12g", p.ID, p.IR, p.PageRank, want[p.ID])
		}
		sum += p.IR
	}
	if math.Abs(sum-4) > 1e-9 {
		t.Errorf("Σ IR = %v, want 4", sum)
	}
	if rep.Top[0].ID != 5 || rep.Top[1].ID != 20 || rep.Top[2].ID != 10 || rep.Top[3].ID != 30 {
		t.Errorf("order %v, want 5, 20, then the tie 10, 30 by id", rep.Top)
	}
}

func TestRankErrors(t *testing.T) {
	bad := writeFile(t, "bad.txt", "1 2\n3 x\n")
	for _, args := range [][]string{
		{"rank"},
		{"rank", "-graph", bad},
		{"rank", "-graph", filepath.Join(t.TempDir(), "missing.txt")},
		{"rank", "-synthetic", "100"},
		{"rank", "-synthetic", "10:10", "-graph", bad},
		{"rank", "-synthetic", "10:10", "-damping", "1"},
		{"rank", "-synthetic", "10:10", "-dangling", "all"},
		{"rank", "-synthetic", "3:7"},
		{"rank", "-data", filepath.Join(t.TempDir(), "no-crawl")},
		{"rank", "-data", t.TempDir()},
	} {
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		msg := strings.TrimSpace(errOut.String())
		if code != 2 || strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "freshcrawl rank: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, msg)
		}
	}
	var out, errOut bytes.Buffer
	run([]string{"rank", "-graph", bad}, &out, &errOut)
	if !strings.Contains(errOut.String(), "bad.txt:2:") {
		t.Errorf("error %q does not give the line", errOut.String())
	}
}

// TestRankAgainstIgraph ranks one synthetic graph with freshcrawl and with
// igraph's PRPACK solver (Debian's python3-igraph, which .ci/run installs)
// and checks that the normalised vectors agree to 1e-9 of the largest.
func TestRankAgainstIgraph(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no igraph comparison")
	}
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import igraph").Run(); err != nil {
		t.Skipf("%s cannot import igraph (apt-get install python3-igraph): %v", python, err)
	}
	dir := t.TempDir()
	graph, ours := filepath.Join(dir, "g.txt"), filepath.Join(dir, "ours.tsv")
	var out, errOut bytes.Buffer
	if code := run([]string{"rank", "-synthetic", "20000:200000", "-write-graph", graph, "-out", ours, "-top", "0"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	script := `
import sys, igraph
edges = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if not l.startswith('#')]
g = igraph.Graph(n=20000, edges=edges, directed=True)
for x in g.pagerank(damping=0.9, directed=True, implementation="prpack"):
    print(repr(x))
`
	cmd := exec.Command(python, "-c", script, graph)
	cmd.Stderr = &errOut
	theirs, err := cmd.Output()
	if err != nil {
		t.Fatalf("igraph: %v: %s", err, errOut.String())
	}
	f, err := os.Open(ours)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	ig := strings.Fields(string(theirs))
	worst, top, n := 0.0, 0.0, 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		node, _ := strconv.Atoi(fields[0])
		p, _ := strconv.ParseFloat(fields[1], 64)
		q, _ := strconv.ParseFloat(ig[node], 64)
		worst, top = max(worst, math.Abs(p-q)), max(top, q)
		n++
	}
	if n != 20000 || len(ig) != 20000 {
		t.Fatalf("%d of ours, %d of igraph's", n, len(ig))
	}
	t.Logf("largest difference %.3g, largest pagerank %.3g", worst, top)
	if worst > 1e-9*top {
		t.Errorf("vectors differ by %.3g, more than 1e-9 of the largest pagerank %.3g", worst, top)
	}
}

func gzipString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}
