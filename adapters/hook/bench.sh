#!/bin/sh
# bench.sh — hook latency: `baton hook EVENT` timed as whole processes, with
# ratios against a baseline measured in the same run.
#
#   sh adapters/hook/bench.sh      (from the repository root; extra arguments
#                                   go to `go test`, e.g. -benchtime 200x)
#
# It builds the baton binary, benchbase (adapters/hook/benchbase: start,
# open the same SQLite file with the store's pragmas, one write, exit) and
# benchstack (adapters/hook/benchstack: the same write by a program on the
# libraries baton must build on: kong, validator, bun), and generates the
# bottle's ~50 MB marathon transcript, all in a temporary directory, then
# runs two testing.B benchmarks over them, 100 runs each,
# after a warm-up run that warms the page cache and creates the store (in
# BenchmarkHookEvents the store's ledger is then filled to its retention,
# 5000 lines, as a store in use holds it):
#   BenchmarkHookEvents        one Claude Code session per iteration (the
#                              captured payloads of testdata/payloads):
#                              start, prompt, stop, precompact, end, and
#                              `baton version`, each paired with a benchbase
#                              and a benchstack run; prints median and p99,
#                              the ratio of the median to benchbase's (the
#                              target) and to benchstack's
#   BenchmarkHookStopMarathon  a Stop rendering the marathon's bottle
#                              incrementally against a Stop without a
#                              transcript, paired; prints the ratio
# and, asked for, a third:
#   BenchmarkHookCompare       the built baton beside other builds of it,
#                              each on a store of its own, taking turns:
#     BATON_BENCH_COMPARE=/tmp/old/baton sh adapters/hook/bench.sh -bench HookCompare
#                              (comma-separate several; build them with the
#                              same tags, e.g. from another worktree)
#
# The three programs are built alike: with -tags cgosqlite (SQLite's C
# library through cgo, the README's build of baton) when cgo can build, else
# with the pure-Go SQLite. BATON_BENCH_TAGS overrides the tags
# (BATON_BENCH_TAGS= sh adapters/hook/bench.sh measures the pure-Go build).
set -eu
cd "$(dirname "$0")/../.."
if [ -z "${BATON_BENCH_TAGS+set}" ]; then
	BATON_BENCH_TAGS=
	[ "$(go env CGO_ENABLED)" = 1 ] && BATON_BENCH_TAGS=cgosqlite
fi
echo "building baton, benchbase and benchstack with -tags '${BATON_BENCH_TAGS}'"
dir=$(mktemp -d "${TMPDIR:-/tmp}/baton-hook-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
go build -tags "$BATON_BENCH_TAGS" -o "$dir/baton" ./examples/baton
go build -tags "$BATON_BENCH_TAGS" -o "$dir/benchbase" ./adapters/hook/benchbase
go build -tags "$BATON_BENCH_TAGS" -o "$dir/benchstack" ./adapters/hook/benchstack
go test ./bottle -count=1 -args -marathon "$dir/marathon.jsonl" >/dev/null
BATON_BENCH_DIR=$dir go test ./adapters/hook -run '^$' -bench '^BenchmarkHook(Events|StopMarathon)$' -benchtime 100x -count 1 -timeout 60m "$@"
