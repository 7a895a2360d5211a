// Package cluster splits a crawl across processes, as the parallel crawler
// of the dissertation's ch. 3 does: each process (a C-proc) owns some
// partitions of the URL space and crawls only their hosts, so politeness
// holds across the cluster without the processes talking about it.
//
// What is here:
//   - partition.go: which partition a URL belongs to (site hash, the
//     default; URL hash and hierarchical by top-level domain, for the
//     ch. 3 comparison), and the three crawl modes (firewall, cross-over,
//     exchange).
//   - assign.go: which node owns a partition among the live ones
//     (rendezvous hashing, so a node's death moves only its partitions).
//   - batch.go: the URLs a node sends to other partitions between two
//     exchanges, each sent once per batch with the number of links to it
//     seen (the [URL, count] messages of §3.9), and their wire format.
//   - replica.go: the replicated set of popular URLs that are never
//     exchanged (§3.8).
//   - metrics.go: overlap, coverage and communication (§3.4).
package cluster
