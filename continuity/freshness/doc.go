// Package freshness holds the pure rules that say how far a continuation
// record (a checkpoint or handover) can be trusted as current: its freshness,
// a statement about age, and its divergence, a statement about git topology.
// The two are independent. A record can be Advanced (its commit is an
// ancestor of HEAD) and Stale (days old) at once, and that is exactly the
// record the episode-lifecycle ADR found quoted as current for six days; so
// whether a record is shown as history is decided by freshness alone
// (Label.History: stale or invalid).
//
// Thresholds are declared once, in Policy (Default: fresh under 12 h, stale
// from 48 h, aging between); the boundary rule is declared once, in
// Policy.AgingAt: an instant strictly before a threshold is on the fresher
// side of it. Ages are worded once, by Compact. A stamp ahead of now is
// clock skew while it is less than Policy.Skew (2 minutes) ahead: clamped
// to age zero, its reason saying so; from Skew it is Invalid. The caller
// measures both instants on one clock (the store's, continuity.StoreClock),
// so what is left to clamp is small.
//
// Every function takes values and a now; nothing here reads a clock, a file
// or git. The caller learns the working directory's HEAD and the ancestry
// fact from continuity/workdir and passes them in a Topology.
//
// Files:
//
//	freshness.go    Policy (Default, Validate, AgingAt, StaleAt, Of, Parse), Reading, Compact
//	label.go        Label: unknown, invalid, fresh, aging, stale; History; text marshalling
//	divergence.go   Ref, Topology, Divergence: unknown, exact, advanced, diverged, different_context; Diverge
//	assessment.go   Assessment: both dimensions, and History
//	names.go        the stable names both enums marshal as
//	*_test.go       boundary tables for every threshold and unit switch with the reasons' wording,
//	                every divergence combination, marshalling, a fuzz target for Parse, examples
package freshness
