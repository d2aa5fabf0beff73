// Package lease holds the pure rules of a session's lease and activation
// epoch: whether a session row is live, implicitly closed (its lease lapsed,
// or a sweep stamped it) or explicitly closed (SessionEnd), how a heartbeat
// floors last_seen_at, which rows a sweep may close, and what an open does to
// the row under its natural key.
//
// Every function takes values and a now; nothing here reads a clock or a
// database. The continuity service fetches rows and asks these rules.
//
// Files:
//
//	lease.go       Policy (lease 24 h, sweep grace 1 h), State (named on the wire), Floor, Sweepable, CloserDue
//	activate.go    Source, Activation, Action, Activate: the open matrix (startup or resume against the row it finds)
//	lease_test.go  table tests at every boundary; activate_test.go every cell of the open matrix
package lease
