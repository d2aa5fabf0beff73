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
#
# With BATON_TEST_POSTGRES_DSN set (a Postgres database; each benchmark uses
# a fresh schema of it), also, at a tenant's full ledger (5000 lines):
# BenchmarkPostgresBaselineLedgerInsert  a transaction setting the tenant and inserting one line, no trim
# BenchmarkPostgresLedgerAppend          one line appended through the store: the insert and its trim
set -eu
cd "$(dirname "$0")/../.."
# bench PATTERN PROGRAM [ARG...]: runs the benchmarks PATTERN names (the
# ARGs go to go test) and prints their output, then the awk PROGRAM's
# ratios over it (field(unit) is a line's figure in that unit).
bench() {
	pattern=$1 program=$2
	shift 2
	out=$(go test ./continuity/sqlstore -run '^$' -bench "$pattern" -benchtime 2000x -benchmem "$@")
	printf '%s\n' "$out"
	printf '%s\n' "$out" | awk '
	function field(unit,   i) { for (i = 2; i < NF; i++) if ($(i+1) == unit) return $i; return "" }
	'"$program"
}
bench '^BenchmarkSQLite' '
	/^BenchmarkSQLiteBaselineUpdate/ { base = field("ns/op") }
	/^BenchmarkSQLiteHeartbeat/      { hb = field("ns/op") }
	/^BenchmarkSQLiteRememberIdless/ { rem = field("ns/op") }
	END {
		if (base == "" || hb == "" || rem == "") { print "bench.sh: missing benchmark output" > "/dev/stderr"; exit 1 }
		printf "\nheartbeat: %7.1f µs vs baseline update %6.1f µs -> %.1fx the baseline\n", hb / 1e3, base / 1e3, hb / base
		printf "remember:  %7.1f µs vs baseline update %6.1f µs -> %.1fx the baseline\n", rem / 1e3, base / 1e3, rem / base
	}' "$@"
if [ -n "${BATON_TEST_POSTGRES_DSN:-}" ]; then
	bench '^BenchmarkPostgres' '
		/^BenchmarkPostgresBaselineLedgerInsert/ { base = field("ns/op") }
		/^BenchmarkPostgresLedgerAppend/         { app = field("ns/op") }
		END {
			if (base == "" || app == "") { print "bench.sh: missing Postgres benchmark output" > "/dev/stderr"; exit 1 }
			printf "\nledger append at the bound (Postgres): %7.1f µs vs baseline insert %6.1f µs -> %.2fx the baseline\n", app / 1e3, base / 1e3, app / base
		}' "$@"
fi
