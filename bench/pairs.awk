# pairs.awk — the summary of an A/B benchmark run in alternated rounds
# (listen-cost.sh, throughput-ab.sh). Each input line is
#   round R KEY=0|1 ... pages/s=X cpu-s/1000=Y ...
# with one run of each side in every round. It prints the medians of each
# side, the ratio of the medians (side 1 over side 0), and the median of
# the rounds' own ratios (the two runs of a round are seconds apart, so the
# machine's drift between rounds cancels). Set key, name0 and name1 with -v.
function median(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function paired(arr,   i, q) {
	for (i = 1; i <= n[1] && i <= n[0]; i++) q[i] = arr[1, i] / arr[0, i]
	return median(q, i - 1)
}
{
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	l = v[key]; n[l]++
	rate[l, n[l]] = v["pages/s"]; cpu[l, n[l]] = v["cpu-s/1000"]
}
END {
	for (l = 0; l <= 1; l++) {
		for (i = 1; i <= n[l]; i++) { r[i] = rate[l, i]; c[i] = cpu[l, i] }
		mr[l] = median(r, n[l]); mc[l] = median(c, n[l])
	}
	printf "\n%-24s %12s %22s\n", "", "pages/s", "CPU s per 1,000 pages"
	printf "%-24s %12.1f %22.3f\n", name0, mr[0], mc[0]
	printf "%-24s %12.1f %22.3f\n", name1, mr[1], mc[1]
	printf "%-24s %12.3f %22.3f\n", "ratio of the medians", mr[1] / mr[0], mc[1] / mc[0]
	printf "%-24s %12.3f %22.3f\n", "median of the rounds", paired(rate), paired(cpu)
	printf "(%d rounds, one run of each in every round, which goes first alternating)\n", n[0]
}
