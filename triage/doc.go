// Package triage is the Stop nudge's begin/complete handshake as a pure state
// machine, and the one renderer of the debrief prompt the nudge injects.
//
// A session row carries a triage status (idle, pending, completed, expired,
// overflowed), an attempt id and a watermark: the cumulative set of the run's
// provenance event ids already triaged. Begin decides whether a Stop arms an
// attempt (at most once per attempt: the row's pending status is the numeric
// self-cap), Complete finalizes the attempt the caller names, and OnAttach is
// the status change an attaching write folds into its own update. Signal,
// "some visible event id is outside the watermark", is the only way a
// completed or expired row re-enters; it is a set membership test, never a
// time or id-order comparison, because a late-committing write can hold an
// earlier UUIDv7.
//
// Nothing here reads a clock or a database: the continuity service reads the
// row and the run's event listing inside one transaction, asks these rules,
// and writes the result back when it says Changed.
//
// Files:
//
//	status.go     Status and Reason, the stored and reported vocabularies
//	triage.go     Policy, Row, Listing, Begin, Complete, OnAttach, Signal
//	debrief.go    Debrief: the debrief prompt, facets and rows in a fenced JSON block
//	closer.go     the resolve-only closer's rules: Closable, ClaimStatus, CloserFinish, CloserBackoff
//	*_test.go     table tests per transition and decline, scenario tests, a
//	              seeded property test over random sequences, debrief tests
//	testdata/     golden debrief prompts (go test ./triage -update rewrites them)
package triage
