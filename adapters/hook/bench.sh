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
# after a warm-up run that warms the page cache and creates the store:
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
set -eu
cd "$(dirname "$0")/../.."
dir=$(mktemp -d "${TMPDIR:-/tmp}/baton-hook-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM
go build -o "$dir/baton" ./examples/baton
go build -o "$dir/benchbase" ./adapters/hook/benchbase
go build -o "$dir/benchstack" ./adapters/hook/benchstack
go test ./bottle -count=1 -args -marathon "$dir/marathon.jsonl" >/dev/null
BATON_BENCH_DIR=$dir go test ./adapters/hook -run '^$' -bench '^BenchmarkHook(Events|StopMarathon)$' -benchtime 100x -count 1 -timeout 60m "$@"
