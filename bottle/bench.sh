#!/bin/sh
# bench.sh — the bottle's marathon benchmarks, with ratios measured in one run.
#
#   sh bottle/bench.sh            (from the repository root; any extra
#                                  arguments go to `go test`, e.g. -count 3)
#
# It generates a ~50 MB Claude Code transcript in a temporary directory (not
# committed), then runs three testing.B benchmarks over it in one process,
# each for two seconds (so each is averaged over the same stretch of a shared
# machine's load):
#   BenchmarkReadSplitBaseline   stream the file and split lines, no parsing
#   BenchmarkFullRender          parse from byte 0, lay out every page, write
#                                the pages, the index and the cache
#   BenchmarkIncrementalRender   append one ~10 KB turn, re-render from the
#                                cursor: lay out and write what changed
# and prints full-render throughput against the baseline, and incremental
# re-render time against the full render (the target is at most 0.02).
set -eu
cd "$(dirname "$0")/.."
out=$(go test ./bottle -run '^$' -bench '^Benchmark(ReadSplitBaseline|FullRender|IncrementalRender)$' -benchtime 2s -benchmem "$@")
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '
	function field(unit,   i) { for (i = 2; i < NF; i++) if ($(i+1) == unit) return $i; return "" }
	/^BenchmarkReadSplitBaseline/ { base_mbs = field("MB/s") }
	/^BenchmarkFullRender/        { full_mbs = field("MB/s"); full_ns = field("ns/op"); full_peak = field("peak-heap-MB"); bottle = field("bottle-MB") }
	/^BenchmarkIncrementalRender/ { inc_ns = field("ns/op"); inc_peak = field("peak-heap-MB") }
	END {
		if (base_mbs == "" || full_mbs == "" || inc_ns == "") { print "bench.sh: missing benchmark output" > "/dev/stderr"; exit 1 }
		printf "\nfull render:        %8.1f MB/s vs read+split baseline %8.1f MB/s  -> ratio %.4f (baseline is %.0fx faster)\n", full_mbs, base_mbs, full_mbs / base_mbs, base_mbs / full_mbs
		printf "incremental render: %8.2f ms vs full render %8.1f ms           -> ratio %.4f (%.0fx faster; target <= 0.02: %s)\n", inc_ns / 1e6, full_ns / 1e6, inc_ns / full_ns, full_ns / inc_ns, (inc_ns / full_ns <= 0.02 ? "met" : "NOT met")
		printf "peak live heap:     full %.1f MB, incremental %.1f MB, for a %.1f MB bottle of a ~50 MB transcript\n", full_peak, inc_peak, bottle
	}'
