// Package continuity is baton's domain service: the one place that sequences
// the pure rules (lease, triage, provenance, bottle/privacy, and its own
// continuity/memrule and continuity/brief) and storage, so that a coding
// agent's work carries across sessions and harnesses. It reads rows, asks a
// rule, and applies the decision; no decision is made here twice.
//
// A conversation is addressed by its natural key (tenant, agent, session id);
// its row's id is the opaque sessionRunId that writes may carry. The Service
// opens, heartbeats, compacts, clears and closes conversations under a lease
// and an activation epoch; records every provider event in a receipts ledger
// before any other work; keeps a small built-in store of curated memory whose
// writes are attributed, at write time, to the run that made them; runs the
// Stop triage handshake; renders the briefing and the debrief prompt; and
// keeps the bottle marker and the history a degraded bottle is rebuilt from.
// A Worker serves every tenant of a store at once: it sweeps lapsed rows and,
// when turned on, runs the resolve-only closer over closed ones.
//
// Adapters call API, one tenant-bound interface (Service.For binds the
// tenant; the HTTP client will implement it too) with one method per hook
// event, each recording its receipt first and its failure after. Episodes
// runs the part of a hook event that reads the local transcript and work
// tree (bottle render and seal, git facts) around that one call.
//
// Storage is the Store interface: tenant-scoped transactions in which every
// multi-row decision runs. continuity/sqlstore implements it on SQLite and
// Postgres, and continuity/storetest is the one suite every Store passes.
// Errors carry one of a small set of codes (Code); an adapter maps them to
// its transport in one table. Every exported param and result type marshals
// as the HTTP contract's camelCase JSON, never with the tenant
// (testdata/wire.golden pins each shape).
//
// Files:
//
//	api.go       API, the interface every adapter calls; Local, the Service bound to a tenant
//	episode.go   SessionStart, UserPrompt, Stop, PreCompact, SessionEnd, RecordFailure: a method per hook event
//	episodes.go  Episodes: a hook event's local half (bottle, git facts) around one API call
//	records.go   checkpoints and handovers (Record), derived from the last prompt and excerpt
//	service.go   Service, options, the clock
//	sessions.go  Open, Heartbeat, Close, Compact, Clear, Session, Sweep: the lifecycle matrix
//	sessionlist.go Sessions: conversations with their lease state, filtered by project, agent and state; SessionLedger
//	ledger.go    Receive, AppendReceipt, AppendEvent, Ledger: receipts and bounded retention
//	memory.go    Remember, Revise, Resolve, Unresolve, Archive, Import; attribution; RunEvents
//	triage.go    TriageBegin, TriageComplete, Debrief
//	worker.go    Worker: the cross-tenant sweep and the resolve-only closer (claim, Judge, resolve, write back)
//	judge.go     Judge, the closer's pluggable decision of which briefed commitments are done
//	briefing.go  Briefing (with the newest handover and its freshness), OpenCommitments, Memory
//	bottles.go   the bottle marker and history; BottleStore binds one agent of an API for a bottle.Bottler
//	export.go    Export and Restore: every row of a tenant as versioned JSON lines, and back (the format's doc)
//	erase.go     Erase in bounded, resumable batches; TenantData, what Local offers adapters beyond API
//	retention.go Retention (declared once), Prune by age, PruneArchivedBottles
//	store.go     Store and Tx, the storage contract
//	doctor.go    Doctor: findings about writtenness (a stopped record writer, unended sessions, unanswered receipts, ...)
//	store.go     Store and Tx, the storage contract (and the worker's discovery across tenants)
//	types.go     the domain types and the ledger vocabulary
//	errors.go    Error and its codes; ruleError, the one map from the rule packages' errors to them
//	validate.go  input limits and validation; the rule of each stored text field (textRule), applied by writes and imports alike
//	wire_test.go every wire shape against testdata/wire.golden (-update rewrites it),
//	             and a json tag on every exported field of a param or result type
package continuity
