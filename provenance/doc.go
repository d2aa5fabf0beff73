// Package provenance holds the pure parts of write-time attribution and of the
// typed read of a run's provenance events.
//
// Attribution is a decision, not a lookup: the continuity service reads the
// session row a write names (or, when it names none, the tenant's leased-open
// rows for the write's project, under a per-(tenant, project) lock) inside the
// write's transaction and asks Decide what to do. A run id the tenant does
// not own fails the write; every other outcome lets the curated write
// succeed, because bookkeeping going stale must never destroy it.
//
// The read side is keyset-paginated on the UUIDv7 event id. This package owns
// its bounds (Limit, Ceiling), its opaque cursor, the slicing of a page out
// of the run's visible listing and its wire types; the service owns the
// query.
//
// Files:
//
//	decide.go   Action, Run, Input, Decision and Decide: the attribution rule
//	read.go     Limit, EncodeCursor/DecodeCursor, Item, Page, FieldError
//	page.go     Slice, PageSlice: the keyset slice of a run's visible listing one page returns
//	*_test.go   table tests for every branch and bound, a cursor fuzz target
package provenance
