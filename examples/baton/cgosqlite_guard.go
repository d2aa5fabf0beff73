//go:build cgosqlite && !cgo

package main

// The cgosqlite tag asks sqliteshim for SQLite's C library through cgo
// (mattn/go-sqlite3). Without cgo (CGO_ENABLED=0, or no C compiler on PATH)
// that build would have no SQLite driver at all and fail at its first open;
// this undefined name stops it at compile time instead. Build with a C
// compiler, or drop the tag for the pure-Go SQLite (modernc.org/sqlite).
var _ = cgosqlite_tag_needs_cgo_set_CGO_ENABLED_1_or_drop_the_tag
