package main

import (
	"bytes"
	"testing"
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
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		code := run(tt.args, &out, &errOut)
		checkUsageError(t, code, errOut.String(), tt.want)
	}
}
