// Package storetest is the one behavioural suite every continuity.Store must
// pass. It drives the store through continuity.Service, and calls every
// Store and Tx method directly in a contract case of its own, so the
// lifecycle matrix, tenant isolation, the lease boundaries (with an injected
// clock) and concurrency (goroutines and OS processes) are asserted once,
// here, and run against SQLite always and Postgres when
// BATON_TEST_POSTGRES_DSN is set.
//
// A store's test file is thin:
//
//	func TestMain(m *testing.M) { storetest.Main(m, open) }
//	func TestSQLite(t *testing.T) { storetest.Run(t, harness) }
//
// Files:
//
//	storetest.go   Harness, Run, Main (child processes), the test clock
//	lifecycle.go   the open/heartbeat/close/compact/clear matrix, lease boundaries, validation
//	sweep.go       the lease-expiry sweep's boundaries, limit and tenancy
//	memory.go      memory verbs, provenance attribution and the typed read
//	attach.go      an id-less write's attach decision held at commit against each interleaved change of the project's live set
//	triage.go      the Stop handshake and the briefing
//	briefing.go    each briefing section's own bounded read, precedence, boundaries; due dates
//	bottle.go      the bottle marker claim, history and a degraded bottle from the store
//	turns.go       the turn a Stop excerpt is filed under: by its recorded prompt number across a clock step, by time without one
//	writeorder.go  what reads newest first is the last written, whatever the writers' clocks: trims, a turn's Stops, a clear, the newest handover, interleaved writers
//	conversation.go what is kept per conversation: prompt numbers, bottle markers
//	errors.go      driver errors translated to baton's codes; rollback
//	ledger.go      receipts, lifecycle events, envelope, retention
//	isolation.go   tenant isolation and row-level security
//	grants.go      the runtime role's exact grants, tried as the role; trims bounded to the tenant
//	txerrors.go    every Tx method returns baton's codes itself, inside the transaction
//	txcontract.go  every Store and Tx method on its own: results, order, limits, codes, tenancy
//	sessionlist.go Tx.Sessions's contract case; Service.Sessions's lease-state filter at each boundary
//	sessionledger.go Tx.SessionLedger's contract case; Service.SessionLedger
//	concurrency.go goroutines and OS processes writing one store
//	scenarios.go   RunScenarios: hook events through continuity.API alone, for every implementation of it
//	activations.go a scenario: every SessionStart source against every row state
//	lifecycletable.go a scenario: Stop, SessionEnd and memory writes (by run id, foreign, id-less) against every row state at the lease boundary
//	nudgetable.go  a scenario: the nudge's debounce counted per activation, for every way one starts, and its time boundary
//	chaos.go       a scenario: mixed hook events from 32 callers
//	doctor.go      the doctor: the episode-lifecycle ADR's outage end to end, each check at its thresholds
//	doctortx.go    the doctor's Tx reads in the contract
//	portability.go export → import round trip, import's line checks, erase (raw counts, interrupted), retention boundaries
//	importrules.go an import's per-field rules at each boundary (Restore and Import); hostile export files
//	txexport.go    the contract cases of the export pages, InsertPrompt, the prunes and EraseBatch
package storetest
