#!/bin/sh
# bench.sh — the store's write-path benchmarks on SQLite, with ratios against
# a baseline measured in the same run.
#
#   sh continuity/sqlstore/bench.sh      (from the repository root; extra
#                                         arguments go to `go test`)
#
# BenchmarkSQLiteBaselineUpdate  one immediate transaction updating one row, nothing else
# BenchmarkSQLiteHeartbeat       one Stop through continuity.Service
# BenchmarkSQLiteRememberIdless  one curated write with the per-project attribution decision
set -eu
cd "$(dirname "$0")/../.."
out=$(go test ./continuity/sqlstore -run '^$' -bench '^BenchmarkSQLite' -benchtime 2000x -benchmem "$@")
printf '%s\n' "$out"
printf '%s\n' "$out" | awk '
	function field(unit,   i) { for (i = 2; i < NF; i++) if ($(i+1) == unit) return $i; return "" }
	/^BenchmarkSQLiteBaselineUpdate/ { base = field("ns/op") }
	/^BenchmarkSQLiteHeartbeat/      { hb = field("ns/op") }
	/^BenchmarkSQLiteRememberIdless/ { rem = field("ns/op") }
	END {
		if (base == "" || hb == "" || rem == "") { print "bench.sh: missing benchmark output" > "/dev/stderr"; exit 1 }
		printf "\nheartbeat: %7.1f µs vs baseline update %6.1f µs -> %.1fx the baseline\n", hb / 1e3, base / 1e3, hb / base
		printf "remember:  %7.1f µs vs baseline update %6.1f µs -> %.1fx the baseline\n", rem / 1e3, base / 1e3, rem / base
	}'
