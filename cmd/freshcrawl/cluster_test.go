package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/freshcrawl/freshcrawl/internal/crawler"
)

// TestClusterFlagErrors: the mistakes of a cluster command line exit 2
// with one line, before a server or a node is started.
func TestClusterFlagErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"cluster", "-nodes", "0"}, `-nodes "0": want 1 to 64`},
		{[]string{"cluster", "-nodes"}, "flag needs an argument: -nodes"},
		{[]string{"cluster", "-cluster", "nats://127.0.0.1:1"}, "-cluster and -node are set by freshcrawl cluster itself"},
		{[]string{"cluster", "-once"}, "-once is not available in a cluster"},
		{[]string{"cluster", "-nodes=2", "-delay", "-1s"}, "-delay -1s is negative"},
		{[]string{"crawl", "-cluster", "nats://127.0.0.1:1", "-once", "-seed", "http://a.test/"}, "-once is not available with -cluster"},
		{[]string{"crawl", "-cluster", "nats://127.0.0.1:1", "-node", "a b", "-seed", "http://a.test/"}, `node name "a b"`},
		{[]string{"crawl", "-cluster", "nats://127.0.0.1:1", "-cluster-mode", "cross-over", "-seed", "http://a.test/"}, `-cluster-mode "cross-over": want exchange or firewall`},
		{[]string{"crawl", "-cluster", "nats://127.0.0.1:1", "-partitions", "0", "-seed", "http://a.test/"}, "-partitions 0: want 1 to 4096"},
		{[]string{"crawl", "-cluster", "nats://127.0.0.1:1", "-lease-ttl", "1ms", "-seed", "http://a.test/"}, "lease TTL 1ms: want at least 300ms"},
		{[]string{"demo", "-nodes", "0"}, "-nodes 0 is not positive"},
		{[]string{"crawl", "-cluster", "nats://127.0.0.1:1", "-replicate", "/nonexistent/ranks.tsv", "-seed", "http://a.test/"}, "-replicate: "},
		{[]string{"crawl", "-cluster", "nats://127.0.0.1:1", "-replicate", "x", "-replicate-top", "0", "-seed", "http://a.test/"}, "-replicate-top 0: want at least 1"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := run(tt.args, &out, &errOut)
		checkUsageError(t, code, errOut.String(), tt.want)
	}
}

// TestReplicate: -replicate takes the most linked URLs of a ranks file
// (rank -out's format), canonical, for every node to hold.
func TestReplicate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ranks.tsv")
	ranks := "# node\tpagerank\tIR\tbacklinks\n" +
		"http://A.test/x\t0.1\t1\t5\n" +
		"http://b.test/\t0.1\t1\t9\n" +
		"http://c.test/\t0.1\t1\t1\n"
	if err := os.WriteFile(path, []byte(ranks), 0o644); err != nil {
		t.Fatal(err)
	}
	o := crawlOptions{once: false}
	o.cluster = clusterOptions{url: "nats://127.0.0.1:1", mode: "exchange", every: time.Second, partitions: 4, replicate: path, top: 2}
	nc, err := o.nodeConfig(crawler.Config{DataDir: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://b.test/", "http://a.test/x"}; !slices.Equal(nc.Replicated, want) {
		t.Errorf("replicated %q, want %q", nc.Replicated, want)
	}
}
