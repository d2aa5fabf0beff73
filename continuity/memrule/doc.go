// Package memrule holds the pure rules of a curated memory atom's life: its
// kinds, statuses and audit event kinds (declared here once; continuity
// names them by alias), which status each transition (resolve, unresolve,
// archive) may leave and where it lands, and what a revise does: the
// successor carries the open status, the predecessor is superseded, and an
// open commitment revised into another kind is demoted, its close recorded
// as an archive too.
//
// Nothing here reads a clock or a database: the continuity service reads
// the memory, asks these rules, and writes what they decide.
//
// Files:
//
//	memrule.go       Kind, Kinds, MaxContentLen, Status, Statuses, Event, StatusError, Transition, Revise
//	memrule_test.go  every event against every status; every revise of kind pairs and statuses
package memrule
