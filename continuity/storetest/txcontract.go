package storetest

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// testTxContract exercises every Store and Tx method on its own, as river's
// riverdrivertest exercises every driver method: each case calls its method
// directly inside f.store.Write or Read, never through the Service, and
// asserts what store.go documents: return values, order, keyset and limit,
// error codes, edge cases, and tenant confinement (tenant B's row, seen from
// tenant A's transaction, behaves exactly like an unknown one).
func testTxContract(t *testing.T, h Harness) {
	t.Run("EveryMethodHasACase", func(t *testing.T) {
		for _, missing := range uncoveredMethods() {
			t.Errorf("%s has no case in txContract", missing)
		}
		for _, stale := range staleCases() {
			t.Errorf("txContract has a case for %s, which is no Store or Tx method", stale)
		}
	})
	for _, name := range slices.Sorted(maps.Keys(txContract)) {
		check := txContract[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			check(t, newFixture(t, h))
		})
	}
}

// txContract holds one case per Store and Tx method, keyed by the method's
// name: a method added to either interface without a case here fails
// EveryMethodHasACase.
var txContract = map[string]func(t *testing.T, f *fixture){
	"Write": txWrite,
	"Read":  txRead,
	"Close": txClose,

	"SessionByKey":  txSessionByKey,
	"SessionByID":   txSessionByID,
	"ProjectByKey":  txProjectByKey,
	"ProjectByID":   txProjectByID,
	"InsertSession": txInsertSession,
	"UpdateSession": txUpdateSession,
	"OpenSessions":  txOpenSessions,
	"StaleSessions": txStaleSessions,
	"LockProject":   txLockProject,
	"LockTenant":    txLockTenant,

	"AppendLedger": txAppendLedger,
	"Ledger":       txLedger,
	"LedgerCounts": txLedgerCounts,

	"InsertMemory":       txInsertMemory,
	"MemoryByID":         txMemoryByID,
	"UpdateMemory":       txUpdateMemory,
	"Memories":           txMemories,
	"InsertMemoryEvents": txInsertMemoryEvents,
	"RunEvents":          txRunEvents,

	"ArmBottle":    txArmBottle,
	"ClaimBottle":  txClaimBottle,
	"BottleMarker": txBottleMarker,

	"AppendPrompt":      txAppendPrompt,
	"Prompts":           txPrompts,
	"LastPrompt":        txLastPrompt,
	"InsertStopExcerpt": txInsertStopExcerpt,
	"StopExcerpts":      txStopExcerpts,

	"InsertRecord": txInsertRecord,
	"Records":      txRecords,
}

// contractInterfaces are the interfaces whose every method needs a case.
var contractInterfaces = []reflect.Type{reflect.TypeFor[continuity.Store](), reflect.TypeFor[continuity.Tx]()}

// uncoveredMethods names the Store and Tx methods txContract has no case for.
func uncoveredMethods() []string {
	var out []string
	for _, it := range contractInterfaces {
		for i := range it.NumMethod() {
			if name := it.Method(i).Name; txContract[name] == nil {
				out = append(out, it.Name()+"."+name)
			}
		}
	}
	return out
}

// staleCases names the cases of txContract no interface method has.
func staleCases() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(txContract)) {
		found := false
		for _, it := range contractInterfaces {
			_, ok := it.MethodByName(name)
			found = found || ok
		}
		if !found {
			out = append(out, name)
		}
	}
	return out
}

// txFunc is what Write and Read run.
type txFunc = func(ctx context.Context, tx continuity.Tx) error

// inWrite runs fn in one write transaction of tenant; the test fails on its
// error.
func inWrite(t *testing.T, f *fixture, tenant string, fn txFunc) {
	t.Helper()
	if err := f.store.Write(t.Context(), tenant, fn); err != nil {
		t.Fatalf("write as %s: %v", tenant, err)
	}
}

// inRead runs fn in one read transaction of tenant; the test fails on its
// error.
func inRead(t *testing.T, f *fixture, tenant string, fn txFunc) {
	t.Helper()
	if err := f.store.Read(t.Context(), tenant, fn); err != nil {
		t.Fatalf("read as %s: %v", tenant, err)
	}
}

// methodErr runs one call in its own write transaction of tenant and returns
// the error the method itself returned (the transaction rolls back then):
// a Postgres transaction is over after a failed statement, so every expected
// failure gets a transaction of its own.
func methodErr(t *testing.T, f *fixture, tenant string, call txFunc) error {
	t.Helper()
	var got error
	err := f.store.Write(t.Context(), tenant, func(ctx context.Context, tx continuity.Tx) error {
		got = call(ctx, tx)
		return got
	})
	if got == nil && err != nil {
		t.Fatalf("write as %s: %v", tenant, err)
	}
	return got
}

func newID() uuid.UUID { return uuid.Must(uuid.NewV7()) }

// sessionRow is a fresh session row of tenant A with the key and project.
func sessionRow(sid, project string, at time.Time) continuity.Session {
	s, _ := txRows(newID(), at)
	s.SessionID, s.Project, s.ActivatedAt = sid, project, at
	return s
}

// memoryRow is a fresh open note of tenant A.
func memoryRow(at time.Time) continuity.Memory {
	_, m := txRows(newID(), at)
	return m
}

// same reports a difference between got and want as a test error.
func same[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

// wantIDs asserts a list's rows by id, in order; an empty list must be
// empty and non-nil.
func wantIDs[T any](t *testing.T, what string, got []T, want []uuid.UUID) {
	t.Helper()
	same(t, what, rowIDs(got), want)
	if len(want) == 0 {
		wantEmpty(t, what, got, nil)
	}
}

// wantEmpty asserts that a list method found nothing and said so with an
// empty, non-nil result and no error.
func wantEmpty[T any](t *testing.T, what string, got []T, err error) {
	t.Helper()
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("%s = %+v (nil %v), %v; want an empty, non-nil result and no error", what, got, got == nil, err)
	}
}

// listOf runs one list method in a read transaction of tenant; the test
// fails on its error.
func listOf[T any](t *testing.T, f *fixture, tenant string, list func(ctx context.Context, tx continuity.Tx) ([]T, error)) []T {
	t.Helper()
	var out []T
	inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		var err error
		out, err = list(ctx, tx)
		return err
	})
	return out
}

// ofConversation reads one per-conversation list (continuity.Tx.Prompts
// or continuity.Tx.StopExcerpts) of ag/sid as tenant.
func ofConversation[T any](t *testing.T, f *fixture, tenant, ag, sid string,
	list func(tx continuity.Tx, ctx context.Context, agent, sessionID string) ([]T, error)) []T {
	t.Helper()
	return listOf(t, f, tenant, func(ctx context.Context, tx continuity.Tx) ([]T, error) { return list(tx, ctx, ag, sid) })
}

// rowIDs lists the rows' ID fields, in order.
func rowIDs[T any](rows []T) []uuid.UUID {
	out := []uuid.UUID{}
	for _, r := range rows {
		out = append(out, reflect.ValueOf(r).FieldByName("ID").Interface().(uuid.UUID))
	}
	return out
}

// whileHeld runs hold in a write transaction of tenant A and, while that
// transaction is still open, other in a write transaction of tenant on
// another goroutine: other must finish without waiting for hold's
// transaction to end. A store whose writes never overlap cannot open the
// second transaction at all, so there the check is skipped. The deadline
// only turns a wait that would never end into a failure; passing never
// depends on it.
func whileHeld(t *testing.T, f *fixture, tenant string, hold, other txFunc) {
	t.Helper()
	if sw, ok := f.store.(SerialWriter); ok && sw.SerialWrites() {
		t.Log("this store admits one writer at a time: no second transaction runs while the first is open")
		return
	}
	var otherErr error
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if err := hold(ctx, tx); err != nil {
			return err
		}
		octx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- f.store.Write(octx, tenant, other) }()
		otherErr = <-done
		return nil
	})
	if otherErr != nil {
		t.Fatalf("the second transaction, run while the first was open: %v", otherErr)
	}
}

// conversation is one row of every table, all of the conversation sid.
type conversation struct {
	session continuity.Session
	line    continuity.LedgerEntry
	memory  continuity.Memory
	event   continuity.MemoryEvent
	marker  continuity.BottleMarker
	prompt  continuity.Prompt
	excerpt continuity.StopExcerpt
}

func newConversation(sid string, now time.Time) *conversation {
	s, m := sessionRow(sid, "baton", now), memoryRow(now)
	return &conversation{
		session: s,
		line:    continuity.LedgerEntry{ID: newID(), Tenant: tenantA, Event: "test.line", At: now, Session: sid, Fields: map[string]string{}},
		memory:  m,
		event: continuity.MemoryEvent{ID: newID(), Tenant: tenantA, MemoryID: m.ID, Kind: continuity.EventCreate,
			ActorKind: continuity.ActorUserCLI, SessionRunID: s.ID, CreatedAt: now},
		marker:  bottleMarker(sid, "/b/"+sid+".md", 1, now),
		prompt:  continuity.Prompt{ID: newID(), Tenant: tenantA, Agent: agent, SessionID: sid, Number: 1, Text: "p", At: now},
		excerpt: continuity.StopExcerpt{ID: newID(), Tenant: tenantA, Agent: agent, SessionID: sid, Text: "x", At: now, Seq: 1},
	}
}

// inserts are the calls that write c, one a table, keyed by method name.
func (c *conversation) inserts() map[string]txFunc {
	return map[string]txFunc{
		"InsertSession": func(ctx context.Context, tx continuity.Tx) error { s := c.session; return tx.InsertSession(ctx, &s) },
		"AppendLedger":  func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, 0, c.line) },
		"InsertMemory":  func(ctx context.Context, tx continuity.Tx) error { m := c.memory; return tx.InsertMemory(ctx, &m) },
		"InsertMemoryEvents": func(ctx context.Context, tx continuity.Tx) error {
			return tx.InsertMemoryEvents(ctx, c.event)
		},
		"ArmBottle":    func(ctx context.Context, tx continuity.Tx) error { return tx.ArmBottle(ctx, c.marker) },
		"AppendPrompt": func(ctx context.Context, tx continuity.Tx) error { p := c.prompt; return tx.AppendPrompt(ctx, &p) },
		"InsertStopExcerpt": func(ctx context.Context, tx continuity.Tx) error {
			e := c.excerpt
			return tx.InsertStopExcerpt(ctx, 5, &e)
		},
	}
}

// write writes every row of c.
func (c *conversation) write(ctx context.Context, tx continuity.Tx) error {
	inserts := c.inserts()
	for _, name := range slices.Sorted(maps.Keys(inserts)) {
		if err := inserts[name](ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// left names the tables in which tenant reads c's rows back unchanged; a
// row read back changed fails the test.
func (c *conversation) left(t *testing.T, f *fixture, tenant string) []string {
	t.Helper()
	var left []string
	found := func(table string, err error) bool {
		t.Helper()
		switch continuity.ErrorCode(err) {
		case "":
			left = append(left, table)
			return true
		case continuity.CodeNotFound:
		default:
			t.Errorf("reading %s: %v", table, err)
		}
		return false
	}
	listed := func(table string, n int, err error) bool {
		t.Helper()
		if err != nil {
			t.Errorf("reading %s: %v", table, err)
			return false
		}
		if n > 0 {
			left = append(left, table)
		}
		return n > 0
	}
	inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		if s, err := tx.SessionByID(ctx, c.session.ID); found("agent_sessions", err) {
			same(t, "the session", *s, c.session)
		}
		if m, err := tx.MemoryByID(ctx, c.memory.ID); found("memories", err) {
			same(t, "the memory", *m, c.memory)
		}
		if mk, err := tx.BottleMarker(ctx, agent, c.session.SessionID); found("session_bottles", err) {
			same(t, "the marker", *mk, c.marker)
		}
		es, err := tx.Ledger(ctx, uuid.Nil, 0)
		if listed("ledger", len(es), err) {
			same(t, "the ledger", es, []continuity.LedgerEntry{c.line})
		}
		evs, err := tx.RunEvents(ctx, c.session.ID, uuid.Nil, 0)
		if listed("memory_events", len(evs), err) {
			same(t, "the run's events", evs, []continuity.MemoryEvent{c.event})
		}
		ps, err := tx.Prompts(ctx, agent, c.session.SessionID)
		if listed("user_prompts", len(ps), err) {
			same(t, "the prompts", ps, []continuity.Prompt{c.prompt})
		}
		xs, err := tx.StopExcerpts(ctx, agent, c.session.SessionID)
		if listed("stop_excerpts", len(xs), err) {
			same(t, "the excerpts", xs, []continuity.StopExcerpt{c.excerpt})
		}
		return nil
	})
	return left
}

// txWrite: fn's error rolls everything back and comes back to the caller, a
// *continuity.Error as is and any other error as internal wrapping it; a
// tenant ValidateTenant refuses is invalid and fn never runs.
func txWrite(t *testing.T, f *fixture) {
	ctx := t.Context()
	cases := []struct {
		name string
		ret  error
		code continuity.Code
	}{
		{"a coded error", continuity.Errorf(continuity.CodeConflict, "abort"), continuity.CodeConflict},
		{"an uncoded error", errors.New("abort"), continuity.CodeInternal},
	}
	for i, tc := range cases {
		c := newConversation("rolled-back-"+strconv.Itoa(i), f.clock.Now())
		err := f.store.Write(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			if err := c.write(ctx, tx); err != nil {
				t.Errorf("%s: writing the conversation: %v", tc.name, err)
			}
			return tc.ret
		})
		if !errors.Is(err, tc.ret) || continuity.ErrorCode(err) != tc.code {
			t.Errorf("%s: Write returned %v (%s), want it carrying fn's error with code %s", tc.name, err, continuity.ErrorCode(err), tc.code)
		}
		if left := c.left(t, f, tenantA); len(left) != 0 {
			t.Errorf("%s: a rolled-back write left rows in %v", tc.name, left)
		}
	}

	// What fn wrote commits when it returns nil.
	c := newConversation("kept", f.clock.Now())
	inWrite(t, f, tenantA, c.write)
	if left := c.left(t, f, tenantA); len(left) != len(c.inserts()) {
		t.Errorf("a committed write left rows in %v, want every table", left)
	}

	for _, tenant := range []string{"", "bad\x00tenant"} {
		ran := false
		err := f.store.Write(ctx, tenant, func(context.Context, continuity.Tx) error { ran = true; return nil })
		if _, ok := continuity.ErrorFields(err)["tenant"]; !ok || ran {
			t.Errorf("Write as %q: %v, fn ran %v; want invalid naming tenant and fn not run", tenant, err, ran)
		}
	}
}

// txRead: a Read sees what committed, and every write method inside it fails
// (internal) and changes nothing.
func txRead(t *testing.T, f *fixture) {
	ctx := t.Context()
	now := f.clock.Now()
	c := newConversation("s1", now)
	inWrite(t, f, tenantA, c.write)
	if left := c.left(t, f, tenantA); len(left) != len(c.inserts()) {
		t.Fatalf("a Read saw the committed rows in %v, want every table", left)
	}

	next := newConversation("s2", now)
	writes := next.inserts()
	writes["UpdateSession"] = func(ctx context.Context, tx continuity.Tx) error {
		s := c.session
		s.StopCount = 9
		return tx.UpdateSession(ctx, &s)
	}
	writes["UpdateMemory"] = func(ctx context.Context, tx continuity.Tx) error {
		m := c.memory
		m.Status = continuity.StatusArchived
		return tx.UpdateMemory(ctx, &m)
	}
	writes["ClaimBottle"] = func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.ClaimBottle(ctx, agent, "s1", now)
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(writes)) {
		var got error
		err := f.store.Read(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			got = writes[name](ctx, tx)
			return got
		})
		if continuity.ErrorCode(got) != continuity.CodeInternal || continuity.ErrorCode(err) != continuity.CodeInternal {
			t.Errorf("%s inside Read returned %v (Read: %v), want internal", name, got, err)
		}
	}
	// c.left compares every row with what was written before.
	if left := c.left(t, f, tenantA); len(left) != len(c.inserts()) {
		t.Errorf("after writes inside Read the first conversation is in %v, want every table", left)
	}
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.SessionByID(ctx, next.session.ID)
		wantCode(t, err, continuity.CodeNotFound)
		_, err = tx.MemoryByID(ctx, next.memory.ID)
		wantCode(t, err, continuity.CodeNotFound)
		_, err = tx.BottleMarker(ctx, agent, "s2")
		wantCode(t, err, continuity.CodeNotFound)
		ps, err := tx.Prompts(ctx, agent, "s2")
		wantEmpty(t, "prompts appended inside Read", ps, err)
		es, err := tx.StopExcerpts(ctx, agent, "s2")
		wantEmpty(t, "excerpts inserted inside Read", es, err)
		evs, err := tx.RunEvents(ctx, next.session.ID, uuid.Nil, 0)
		wantEmpty(t, "events inserted inside Read", evs, err)
		return nil
	})

	ran := false
	err := f.store.Read(ctx, "", func(context.Context, continuity.Tx) error { ran = true; return nil })
	if _, ok := continuity.ErrorFields(err)["tenant"]; !ok || ran {
		t.Errorf("Read with no tenant: %v, fn ran %v; want invalid naming tenant and fn not run", err, ran)
	}
}

// txClose: after Close, Write, Read and Snapshot fail (internal) without running fn.
func txClose(t *testing.T, f *fixture) {
	if err := f.store.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for name, run := range map[string]func(context.Context, string, txFunc) error{"Write": f.store.Write, "Read": f.store.Read, "Snapshot": f.store.Snapshot} {
		ran := false
		err := run(t.Context(), tenantA, func(context.Context, continuity.Tx) error { ran = true; return nil })
		if continuity.ErrorCode(err) != continuity.CodeInternal || ran {
			t.Errorf("%s after Close: %v, fn ran %v; want internal and fn not run", name, err, ran)
		}
	}
}

// fullSession is a session row with every column set.
func fullSession(at time.Time) continuity.Session {
	closed, delivered := at.Add(3*time.Minute), at.Add(time.Second)
	closerAt := at.Add(time.Hour)
	return continuity.Session{
		ID: newID(), Tenant: tenantA, Agent: agent, SessionID: "full", Source: continuity.SourceResume,
		Project: "baton", Scope: "core", Selector: continuity.Selector{"kind": "all", "axis": "z", "b": "2"},
		OpenedAt: at, LastSeenAt: at.Add(2 * time.Minute), ClosedAt: &closed,
		ActivationEpoch: 3, StopCount: 7, ActivatedAt: at.Add(time.Minute), ActivationStops: 2, Compactions: 4,
		TriageStatus: "pending", TriageAttemptID: newID(), TriagedEventIDs: []uuid.UUID{newID(), newID()},
		BriefingDeliveredAt: &delivered,
		BriefedMemories: []continuity.BriefedMemory{
			{ID: newID(), Topic: "first", Status: "open"}, {ID: newID(), Topic: "second", Status: "resolved"},
		},
		LastMessageExcerpt: "last words",
		CloserNextAt:       &closerAt, CloserFailures: 2,
		ClearedThroughPrompt: 5, ClearedThroughExcerpt: newID(),
	}
}

// sessionLookupFunc reads a row by natural key or by id.
type sessionLookupFunc = func(ctx context.Context, tx continuity.Tx, s continuity.Session) (*continuity.Session, error)

// sessionLookup asserts one lookup's contract: the row with every column,
// inside the writing transaction and after it, closed or not; not_found for
// an unknown key or id and for tenant B.
func sessionLookup(t *testing.T, f *fixture, method string, lookup sessionLookupFunc, unknown []continuity.Session) {
	now := f.clock.Now()
	full := fullSession(now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if err := tx.InsertSession(ctx, &full); err != nil {
			return err
		}
		got, err := lookup(ctx, tx, full)
		if err != nil {
			return err
		}
		same(t, method+" in the inserting transaction", *got, full)
		return nil
	})
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		got, err := lookup(ctx, tx, full)
		if err != nil {
			return err
		}
		same(t, method+" of a closed row with every column set", *got, full)
		if got.Selector.Canonical() != full.Selector.Canonical() {
			t.Errorf("selector %s, want %s", got.Selector.Canonical(), full.Selector.Canonical())
		}
		for _, u := range unknown {
			_, err := lookup(ctx, tx, u)
			if continuity.ErrorCode(err) != continuity.CodeNotFound {
				t.Errorf("%s of unknown %s/%s/%v: %v, want not_found", method, u.Agent, u.SessionID, u.ID, err)
			}
		}
		return nil
	})
	for _, read := range []func(string, txFunc) error{
		func(tenant string, fn txFunc) error { return f.store.Read(t.Context(), tenant, fn) },
		func(tenant string, fn txFunc) error { return f.store.Write(t.Context(), tenant, fn) },
	} {
		err := read(tenantB, func(ctx context.Context, tx continuity.Tx) error {
			_, err := lookup(ctx, tx, full)
			return err
		})
		wantCode(t, err, continuity.CodeNotFound)
	}
}

func txSessionByKey(t *testing.T, f *fixture) {
	other := fullSession(f.clock.Now())
	otherAgent, otherSession := other, other
	otherAgent.Agent, otherSession.SessionID = "codex", "other"
	sessionLookup(t, f, "SessionByKey", func(ctx context.Context, tx continuity.Tx, s continuity.Session) (*continuity.Session, error) {
		return tx.SessionByKey(ctx, s.Agent, s.SessionID)
	}, []continuity.Session{otherAgent, otherSession})
}

func txSessionByID(t *testing.T, f *fixture) {
	sessionLookup(t, f, "SessionByID", func(ctx context.Context, tx continuity.Tx, s continuity.Session) (*continuity.Session, error) {
		return tx.SessionByID(ctx, s.ID)
	}, []continuity.Session{{ID: newID()}, {ID: uuid.Nil}})
}

// projectLookup asserts ProjectByKey or ProjectByID: the row's project, ""
// for a row without one, not_found for an unknown row and for tenant B, and
// no wait for a row another transaction holds locked.
func projectLookup(t *testing.T, f *fixture, lookup func(ctx context.Context, tx continuity.Tx, s continuity.Session) (string, error)) {
	now := f.clock.Now()
	with, without := sessionRow("with", "baton", now), sessionRow("without", "", now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if err := tx.InsertSession(ctx, &with); err != nil {
			return err
		}
		return tx.InsertSession(ctx, &without)
	})
	unknown := sessionRow("unknown", "baton", now)
	cases := []struct {
		name, tenant string
		row          continuity.Session
		want         string
		code         continuity.Code
	}{
		{"a row with a project", tenantA, with, "baton", ""},
		{"a row without one", tenantA, without, "", ""},
		{"an unknown row", tenantA, unknown, "", continuity.CodeNotFound},
		{"tenant A's row from tenant B", tenantB, with, "", continuity.CodeNotFound},
	}
	for _, tc := range cases {
		inRead(t, f, tc.tenant, func(ctx context.Context, tx continuity.Tx) error {
			got, err := lookup(ctx, tx, tc.row)
			if got != tc.want || continuity.ErrorCode(err) != tc.code {
				t.Errorf("%s: %q, %v; want %q with code %q", tc.name, got, err, tc.want, tc.code)
			}
			return nil
		})
	}
	// The lock order reads the project first: it never waits for the row.
	whileHeld(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.SessionByID(ctx, with.ID)
		return err
	}, func(ctx context.Context, tx continuity.Tx) error {
		got, err := lookup(ctx, tx, with)
		if err == nil && got != "baton" {
			t.Errorf("the project of a locked row = %q, want baton", got)
		}
		return err
	})
}

func txProjectByKey(t *testing.T, f *fixture) {
	projectLookup(t, f, func(ctx context.Context, tx continuity.Tx, s continuity.Session) (string, error) {
		return tx.ProjectByKey(ctx, s.Agent, s.SessionID)
	})
}

func txProjectByID(t *testing.T, f *fixture) {
	projectLookup(t, f, func(ctx context.Context, tx continuity.Tx, s continuity.Session) (string, error) {
		return tx.ProjectByID(ctx, s.ID)
	})
}

func txInsertSession(t *testing.T, f *fixture) {
	now := f.clock.Now()
	insert := func(tenant string, s continuity.Session) error {
		return methodErr(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) })
	}
	read := func(tenant string, id uuid.UUID) *continuity.Session {
		var got *continuity.Session
		inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			got, err = tx.SessionByID(ctx, id)
			return err
		})
		return got
	}

	// How each column reads back; fullSession's round trip is the lookups'.
	zone := time.FixedZone("UTC+5", 5*3600)
	delivered := now
	cases := []struct {
		name string
		set  func(s *continuity.Session)
		want func(in continuity.Session, got *continuity.Session) bool
	}{
		{"a zero ActivatedAt reads back as OpenedAt",
			func(s *continuity.Session) { s.ActivatedAt = time.Time{} },
			func(in continuity.Session, got *continuity.Session) bool { return got.ActivatedAt.Equal(in.OpenedAt) }},
		{"an empty selector reads back nil",
			func(s *continuity.Session) { s.Selector = continuity.Selector{} },
			func(_ continuity.Session, got *continuity.Session) bool {
				return got.Selector == nil && got.Selector.Canonical() == "{}"
			}},
		{"a nil selector reads back nil",
			func(s *continuity.Session) { s.Selector = nil },
			func(_ continuity.Session, got *continuity.Session) bool { return got.Selector == nil }},
		{"empty triaged event ids read back nil",
			func(s *continuity.Session) { s.TriagedEventIDs = []uuid.UUID{} },
			func(_ continuity.Session, got *continuity.Session) bool { return got.TriagedEventIDs == nil }},
		{"a briefing delivered with no memories reads back an empty, non-nil list",
			func(s *continuity.Session) { s.BriefingDeliveredAt, s.BriefedMemories = &delivered, nil },
			func(_ continuity.Session, got *continuity.Session) bool {
				return got.BriefedMemories != nil && len(got.BriefedMemories) == 0 && got.BriefingDeliveredAt.Equal(delivered)
			}},
		{"no briefing reads back nil memories",
			func(s *continuity.Session) {
				s.BriefingDeliveredAt, s.BriefedMemories = nil, []continuity.BriefedMemory{}
			},
			func(_ continuity.Session, got *continuity.Session) bool {
				return got.BriefedMemories == nil && got.BriefingDeliveredAt == nil
			}},
		{"unset optional columns read back unset",
			func(s *continuity.Session) {},
			func(_ continuity.Session, got *continuity.Session) bool {
				return got.ClosedAt == nil && got.TriageAttemptID == uuid.Nil && got.Project == "" && got.Scope == "" && got.LastMessageExcerpt == ""
			}},
		{"times read back in UTC at microsecond precision",
			func(s *continuity.Session) {
				s.OpenedAt = now.In(zone).Add(1500 * time.Nanosecond)
				s.LastSeenAt, s.ActivatedAt = s.OpenedAt, s.OpenedAt
			},
			func(_ continuity.Session, got *continuity.Session) bool {
				want := now.Add(time.Microsecond)
				for _, at := range []time.Time{got.OpenedAt, got.LastSeenAt, got.ActivatedAt} {
					if !at.Equal(want) || at.Location() != time.UTC {
						return false
					}
				}
				return true
			}},
		{"the Tenant field is ignored: the row is the transaction's tenant's",
			func(s *continuity.Session) { s.Tenant = tenantB },
			func(_ continuity.Session, got *continuity.Session) bool { return got.Tenant == tenantA }},
	}
	for i, tc := range cases {
		s := sessionRow("edge-"+strconv.Itoa(i), "", now)
		tc.set(&s)
		if err := insert(tenantA, s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := read(tenantA, s.ID); !tc.want(s, got) {
			t.Errorf("%s: read back %+v", tc.name, got)
		}
	}

	row := sessionRow("s1", "baton", now)
	if err := insert(tenantA, row); err != nil {
		t.Fatal(err)
	}
	sameKey, sameID := sessionRow("s1", "baton", now), sessionRow("s2", "baton", now)
	sameID.ID = row.ID
	for name, err := range map[string]error{
		"the natural key again under a new id": insert(tenantA, sameKey),
		"the id again under a new key":         insert(tenantA, sameID),
		// Ids are unique across tenants (the service's UUIDv7s, never a
		// caller's): B's insert conflicts and A's row is untouched.
		"tenant A's id from tenant B": insert(tenantB, sameID),
	} {
		if continuity.ErrorCode(err) != continuity.CodeConflict {
			t.Errorf("%s: %v, want conflict", name, err)
		}
	}
	// The natural key is per tenant: B's row of the same key is B's own.
	b := sessionRow("s1", "elsewhere", now)
	if err := insert(tenantB, b); err != nil {
		t.Fatalf("tenant B's insert of A's natural key: %v", err)
	}
	same(t, "tenant A's row after B's inserts", *read(tenantA, row.ID), row)
	if got := read(tenantB, b.ID); got.Project != "elsewhere" || got.Tenant != tenantB {
		t.Errorf("tenant B's row = %+v", got)
	}
}

func txUpdateSession(t *testing.T, f *fixture) {
	now := f.clock.Now()
	row := sessionRow("s1", "baton", now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &row) })
	read := func() continuity.Session {
		var got *continuity.Session
		inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			got, err = tx.SessionByID(ctx, row.ID)
			return err
		})
		return *got
	}

	// Every mutable column is written.
	want := fullSession(now.Add(time.Hour))
	want.ID, want.SessionID = row.ID, row.SessionID
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { u := want; return tx.UpdateSession(ctx, &u) })
	same(t, "the row after an update of every mutable column", read(), want)

	// The id, the natural key, the project and the tenant never change.
	moved := want
	moved.Agent, moved.SessionID, moved.Project, moved.Tenant, moved.StopCount = "codex", "moved", "elsewhere", tenantB, 8
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateSession(ctx, &moved) })
	want.StopCount = 8
	same(t, "the row after an update naming another key, project and tenant", read(), want)
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.SessionByKey(ctx, "codex", "moved")
		wantCode(t, err, continuity.CodeNotFound)
		return nil
	})

	unknown := want
	unknown.ID = newID()
	wantCode(t, methodErr(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateSession(ctx, &unknown) }),
		continuity.CodeNotFound)
	hijack := want
	hijack.StopCount = 99
	wantCode(t, methodErr(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateSession(ctx, &hijack) }),
		continuity.CodeNotFound)
	same(t, "the row after tenant B's update", read(), want)
}

func txOpenSessions(t *testing.T, f *fixture) {
	now := f.clock.Now()
	first, second := sessionRow("first", "p", now), sessionRow("second", "p", now)
	second.LastSeenAt = now.Add(-30 * 24 * time.Hour) // long lapsed, yet not closed
	closed := sessionRow("closed", "p", now)
	closed.ClosedAt = &now
	other, none := sessionRow("other", "q", now), sessionRow("none", "", now)
	b := sessionRow("b", "p", now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for _, s := range []*continuity.Session{&second, &closed, &first, &other, &none} {
			if err := tx.InsertSession(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &b) })

	cases := []struct {
		tenant, project string
		want            []uuid.UUID
	}{
		{tenantA, "p", []uuid.UUID{first.ID, second.ID}},
		{tenantA, "", []uuid.UUID{none.ID}},
		{tenantA, "q", []uuid.UUID{other.ID}},
		{tenantB, "p", []uuid.UUID{b.ID}},
		{tenantB, "q", []uuid.UUID{}},
	}
	for _, tc := range cases {
		got := listOf(t, f, tc.tenant, func(ctx context.Context, tx continuity.Tx) ([]continuity.Session, error) {
			return tx.OpenSessions(ctx, tc.project)
		})
		wantIDs(t, tc.tenant+"'s open sessions of "+strconv.Quote(tc.project)+" in id order", got, tc.want)
		if tc.project == "p" && tc.tenant == tenantA && len(got) == 2 {
			same(t, "a lapsed open row", got[1], second)
		}
	}
}

func txStaleSessions(t *testing.T, f *fixture) {
	before := f.clock.Now()
	at := func(sid string, d time.Duration) continuity.Session { return sessionRow(sid, "baton", before.Add(d)) }
	oldest, tieFirst, tieSecond := at("oldest", -3*time.Hour), at("tie-1", -2*time.Hour), at("tie-2", -2*time.Hour)
	justBefore, atBoundary, after := at("just-before", -time.Microsecond), at("boundary", 0), at("after", time.Hour)
	closed := at("closed", -5*time.Hour)
	closed.ClosedAt = &before
	b := at("b", -4*time.Hour)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for _, s := range []*continuity.Session{&justBefore, &tieSecond, &after, &oldest, &atBoundary, &closed, &tieFirst} {
			if err := tx.InsertSession(ctx, s); err != nil {
				return err
			}
		}
		return nil
	})
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &b) })

	stale := []uuid.UUID{oldest.ID, tieFirst.ID, tieSecond.ID, justBefore.ID}
	cases := []struct {
		name   string
		before time.Time
		limit  int
		want   []uuid.UUID
	}{
		{"oldest first, ties in id order, the instant itself excluded", before, 10, stale},
		{"at most limit, the oldest", before, 2, stale[:2]},
		{"a limit below 1 is no limit", before, 0, stale},
		{"one microsecond later includes the boundary row", before.Add(time.Microsecond), 10, append(slices.Clone(stale), atBoundary.ID)},
		{"nothing before the oldest", oldest.LastSeenAt, 10, []uuid.UUID{}},
	}
	for _, tc := range cases {
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			got, err := tx.StaleSessions(ctx, tc.before, tc.limit)
			if err != nil {
				return err
			}
			wantIDs(t, tc.name, got, tc.want)
			if len(tc.want) > 0 && len(got) > 0 {
				same(t, tc.name+": the oldest row", got[0], oldest)
			}
			return nil
		})
	}
	inRead(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error {
		got, err := tx.StaleSessions(ctx, before, 10)
		same(t, "tenant B's stale sessions", rowIDs(got), []uuid.UUID{b.ID})
		return err
	})

	// A second sweeper skips the rows the first holds.
	whileHeld(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		got, err := tx.StaleSessions(ctx, before, 1)
		same(t, "the first sweeper's rows", rowIDs(got), stale[:1])
		return err
	}, func(ctx context.Context, tx continuity.Tx) error {
		got, err := tx.StaleSessions(ctx, before, 10)
		same(t, "the second sweeper's rows", rowIDs(got), stale[1:])
		return err
	})
}

func txLockProject(t *testing.T, f *fixture) {
	row := sessionRow("s1", "p", f.clock.Now())
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for _, project := range []string{"p", "p", "q", "", "p"} {
			if err := tx.LockProject(ctx, project); err != nil {
				t.Errorf("LockProject(%q) in a transaction that may already hold it: %v", project, err)
			}
		}
		// The transaction goes on after the locks.
		return tx.InsertSession(ctx, &row)
	})
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.SessionByID(ctx, row.ID)
		return err
	})
	// The lock is per (tenant, project): another project, or the same
	// project of another tenant, never waits for it.
	for _, other := range []struct{ tenant, project string }{{tenantA, "q"}, {tenantB, "p"}} {
		whileHeld(t, f, other.tenant, func(ctx context.Context, tx continuity.Tx) error {
			return tx.LockProject(ctx, "p")
		}, func(ctx context.Context, tx continuity.Tx) error {
			return tx.LockProject(ctx, other.project)
		})
	}
}

// txLockTenant: the tenant's lock may be taken again by the transaction
// that holds it, the transaction goes on after it, another tenant's write
// never waits for it, and a write of the same tenant begun while it is
// held commits only after the holder does (where writes overlap at all).
func txLockTenant(t *testing.T, f *fixture) {
	row := sessionRow("s1", "p", f.clock.Now())
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for range 2 {
			if err := tx.LockTenant(ctx); err != nil {
				t.Errorf("LockTenant in a transaction that may already hold it: %v", err)
			}
		}
		return tx.InsertSession(ctx, &row)
	})
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		_, err := tx.SessionByID(ctx, row.ID)
		return err
	})
	whileHeld(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error {
		return tx.LockTenant(ctx)
	}, func(ctx context.Context, tx continuity.Tx) error {
		return tx.LockTenant(ctx)
	})
	if sw, ok := f.store.(SerialWriter); ok && sw.SerialWrites() {
		return // writers take turns: the holder's commit comes first by construction
	}
	// The same tenant: the second write is still waiting when the holder
	// has slept a while after taking the lock; had it not waited, its
	// line would be in the ledger the holder reads before committing.
	line := continuity.LedgerEntry{ID: newID(), Event: "test.line", At: f.clock.Now(), Session: "s1", Fields: map[string]string{}}
	done := make(chan error, 1)
	var waited error
	finished := false
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if err := tx.LockTenant(ctx); err != nil {
			return err
		}
		go func() {
			done <- f.store.Write(t.Context(), tenantA, func(ctx context.Context, tx continuity.Tx) error {
				return tx.AppendLedger(ctx, 0, line)
			})
		}()
		time.Sleep(300 * time.Millisecond)
		select {
		case waited = <-done:
			finished = true
			t.Errorf("a write of the tenant committed (%v) while another transaction held its lock", waited)
		default:
		}
		return nil
	})
	if !finished {
		waited = <-done
	}
	if err := waited; err != nil {
		t.Fatalf("the waiting write, after the holder committed: %v", err)
	}
	if got := ledgerOf(t, f, tenantA); !slices.ContainsFunc(got, func(e continuity.LedgerEntry) bool { return e.ID == line.ID }) {
		t.Fatalf("the waiting write's line is not in the ledger after it committed")
	}
}

// newIDs returns n fresh ids in increasing order.
func newIDs(n int) []uuid.UUID {
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = newID()
	}
	return ids
}

// appendLines appends one line per id, in one call with batch or else one
// call each, with the keep.
func appendLines(t *testing.T, f *fixture, tenant string, keep int, batch bool, ids ...uuid.UUID) {
	t.Helper()
	es := make([]continuity.LedgerEntry, len(ids))
	for i, id := range ids {
		es[i] = continuity.LedgerEntry{ID: id, Event: "test.line", At: f.clock.Now(), Session: "s1", Fields: map[string]string{"i": strconv.Itoa(i)}}
	}
	if batch {
		inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, keep, es...) })
		return
	}
	for _, e := range es {
		inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, keep, e) })
	}
}

// ledgerOf reads tenant's whole ledger.
func ledgerOf(t *testing.T, f *fixture, tenant string) []continuity.LedgerEntry {
	t.Helper()
	return listOf(t, f, tenant, func(ctx context.Context, tx continuity.Tx) ([]continuity.LedgerEntry, error) {
		return tx.Ledger(ctx, uuid.Nil, 0)
	})
}

func txAppendLedger(t *testing.T, f *fixture) {
	now := f.clock.Now()
	// Every field round-trips; the Tenant field is ignored; nil fields
	// read back empty.
	e := continuity.LedgerEntry{ID: newID(), Tenant: tenantB, Event: "test.full", At: now, Session: "s1", Fields: map[string]string{"a": "1", "b": "2"}}
	bare := continuity.LedgerEntry{ID: newID(), Event: "test.bare", At: now}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, 0, e, bare) })
	e.Tenant, bare.Tenant, bare.Fields = tenantA, tenantA, map[string]string{}
	same(t, "the ledger after one append of two lines", ledgerOf(t, f, tenantA), []continuity.LedgerEntry{e, bare})
	if got := ledgerOf(t, f, tenantB); len(got) != 0 {
		t.Errorf("tenant B reads %d of A's lines", len(got))
	}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, 1) })
	if got := ledgerOf(t, f, tenantA); len(got) != 2 {
		t.Errorf("appending no entries with keep 1 left %d lines, want the 2 untouched", len(got))
	}
	dup := e
	dup.Event = "test.dup"
	wantCode(t, methodErr(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, 0, dup) }),
		continuity.CodeConflict)

	// keep trims the tenant's ledger to its newest lines, and no other
	// tenant's: each case runs in a tenant of its own beside B's lines.
	bLines := newIDs(2)
	appendLines(t, f, tenantB, 0, true, bLines...)
	cases := []struct {
		name           string
		keep, appended int
		batch          bool
		kept           int
	}{
		{"keep below 1 keeps every line", 0, 4, false, 4},
		{"exactly keep lines are all kept", 3, 3, false, 3},
		{"one line past keep drops the oldest", 3, 4, false, 3},
		{"one call past keep keeps the newest of the call", 2, 5, true, 2},
		{"keep 1 keeps the newest", 1, 3, false, 1},
	}
	for i, tc := range cases {
		tenant := "keep-" + strconv.Itoa(i)
		ids := newIDs(tc.appended)
		appendLines(t, f, tenant, tc.keep, tc.batch, ids...)
		same(t, tc.name, rowIDs(ledgerOf(t, f, tenant)), ids[len(ids)-tc.kept:])
	}
	same(t, "tenant B's lines after the other tenants' trims", rowIDs(ledgerOf(t, f, tenantB)), bLines)
}

func txLedger(t *testing.T, f *fixture) {
	// A's and B's lines interleave in id order; A appends its own out of
	// id order, and reads them in id order.
	var a, b []uuid.UUID
	for range 5 {
		a, b = append(a, newID()), append(b, newID())
	}
	appendLines(t, f, tenantA, 0, true, a[3], a[0], a[4])
	appendLines(t, f, tenantA, 0, true, a[2], a[1])
	appendLines(t, f, tenantB, 0, true, b...)

	cases := []struct {
		name  string
		after uuid.UUID
		limit int
		want  []uuid.UUID
	}{
		{"from the start, in id order", uuid.Nil, 10, a},
		{"at most limit", uuid.Nil, 2, a[:2]},
		{"after a line", a[1], 2, a[2:4]},
		{"after the second last", a[3], 10, a[4:]},
		{"after the last", a[4], 10, []uuid.UUID{}},
		{"after an id the tenant has no line with", b[1], 10, a[2:]},
		{"a limit below 1 is no limit", a[0], 0, a[1:]},
	}
	for _, tc := range cases {
		wantIDs(t, tc.name, listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.LedgerEntry, error) {
			return tx.Ledger(ctx, tc.after, tc.limit)
		}), tc.want)
	}
	inRead(t, f, "tenant-c", func(ctx context.Context, tx continuity.Tx) error {
		got, err := tx.Ledger(ctx, uuid.Nil, 10)
		wantEmpty(t, "an empty ledger", got, err)
		return nil
	})
}

func txLedgerCounts(t *testing.T, f *fixture) {
	counts := func(tenant string) map[string]int {
		var got map[string]int
		inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			got, err = tx.LedgerCounts(ctx)
			return err
		})
		return got
	}
	if got := counts(tenantA); got == nil || len(got) != 0 {
		t.Errorf("an empty ledger's counts = %v (nil %v), want an empty, non-nil map", got, got == nil)
	}
	line := func(event string) continuity.LedgerEntry {
		return continuity.LedgerEntry{ID: newID(), Event: event, At: f.clock.Now()}
	}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		return tx.AppendLedger(ctx, 0, line("a"), line("b"), line("a"), line("c"), line("a"))
	})
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error {
		return tx.AppendLedger(ctx, 0, line("a"), line("d"))
	})
	same(t, "tenant A's counts", counts(tenantA), map[string]int{"a": 3, "b": 1, "c": 1})
	same(t, "tenant B's counts", counts(tenantB), map[string]int{"a": 1, "d": 1})
	// The counts are of the lines kept: a trim lowers them.
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendLedger(ctx, 2, line("b")) })
	same(t, "tenant A's counts after a trim to 2", counts(tenantA), map[string]int{"a": 1, "b": 1})
}

// fullMemory is a memory with every column set.
func fullMemory(at time.Time) continuity.Memory {
	due := at.Add(48 * time.Hour)
	return continuity.Memory{ID: newID(), Tenant: tenantA, Kind: continuity.KindCommitment, Topic: "ship", Content: "ship it",
		Project: "baton", Scope: "core", Status: continuity.StatusResolved, SupersededBy: newID(),
		CreatedAt: at, UpdatedAt: at.Add(time.Minute), Due: &due}
}

// memoryOf reads one memory as tenant.
func memoryOf(t *testing.T, f *fixture, tenant string, id uuid.UUID) (*continuity.Memory, error) {
	t.Helper()
	var got *continuity.Memory
	var err error
	inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		got, err = tx.MemoryByID(ctx, id)
		return nil
	})
	return got, err
}

// mustMemory reads one memory of tenant A; the test fails when it cannot.
func mustMemory(t *testing.T, f *fixture, id uuid.UUID) continuity.Memory {
	t.Helper()
	m, err := memoryOf(t, f, tenantA, id)
	if err != nil {
		t.Fatalf("memory %v: %v", id, err)
	}
	return *m
}

func txInsertMemory(t *testing.T, f *fixture) {
	now := f.clock.Now()
	full, bare := fullMemory(now), memoryRow(now)
	full.Tenant = tenantB // ignored: the row is the transaction's tenant's
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if err := tx.InsertMemory(ctx, &full); err != nil {
			return err
		}
		return tx.InsertMemory(ctx, &bare)
	})
	full.Tenant = tenantA
	for _, m := range []continuity.Memory{full, bare} {
		same(t, "the memory read back", mustMemory(t, f, m.ID), m)
	}
	if _, err := memoryOf(t, f, tenantB, full.ID); continuity.ErrorCode(err) != continuity.CodeNotFound {
		t.Errorf("tenant B reads A's memory: %v", err)
	}
	dup := memoryRow(now)
	dup.ID = full.ID
	for _, tenant := range []string{tenantA, tenantB} {
		wantCode(t, methodErr(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemory(ctx, &dup) }),
			continuity.CodeConflict)
	}
}

func txMemoryByID(t *testing.T, f *fixture) {
	m := fullMemory(f.clock.Now())
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if err := tx.InsertMemory(ctx, &m); err != nil {
			return err
		}
		got, err := tx.MemoryByID(ctx, m.ID)
		if err != nil {
			return err
		}
		same(t, "the memory in its inserting transaction", *got, m)
		return nil
	})
	for _, tc := range []struct {
		name, tenant string
		id           uuid.UUID
	}{{"an unknown id", tenantA, newID()}, {"the nil id", tenantA, uuid.Nil}, {"tenant A's memory from tenant B", tenantB, m.ID}} {
		err := methodErr(t, f, tc.tenant, func(ctx context.Context, tx continuity.Tx) error { _, err := tx.MemoryByID(ctx, tc.id); return err })
		if continuity.ErrorCode(err) != continuity.CodeNotFound {
			t.Errorf("%s: %v, want not_found", tc.name, err)
		}
	}
}

func txUpdateMemory(t *testing.T, f *fixture) {
	now := f.clock.Now()
	m := fullMemory(now)
	m.Status, m.SupersededBy = continuity.StatusOpen, uuid.Nil
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemory(ctx, &m) })

	// Status, superseded_by and updated_at are written; nothing else is.
	u := continuity.Memory{ID: m.ID, Tenant: tenantB, Kind: continuity.KindNote, Topic: "other", Content: "other",
		Project: "p", Scope: "s", Status: continuity.StatusArchived, SupersededBy: newID(),
		CreatedAt: now.Add(time.Hour), UpdatedAt: now.Add(2 * time.Hour)}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateMemory(ctx, &u) })
	want := m
	want.Status, want.SupersededBy, want.UpdatedAt = u.Status, u.SupersededBy, u.UpdatedAt
	same(t, "the memory after an update naming every column", mustMemory(t, f, m.ID), want)

	// Back to no successor.
	u.Status, u.SupersededBy = continuity.StatusOpen, uuid.Nil
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateMemory(ctx, &u) })
	if got := mustMemory(t, f, m.ID); got.SupersededBy != uuid.Nil || got.Status != continuity.StatusOpen {
		t.Errorf("after clearing the successor: %+v", got)
	}

	unknown := u
	unknown.ID = newID()
	wantCode(t, methodErr(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateMemory(ctx, &unknown) }),
		continuity.CodeNotFound)
	hijack := u
	hijack.Status = continuity.StatusArchived
	wantCode(t, methodErr(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.UpdateMemory(ctx, &hijack) }),
		continuity.CodeNotFound)
	if got := mustMemory(t, f, m.ID); got.Status != continuity.StatusOpen {
		t.Errorf("tenant B's update changed A's memory: %+v", got)
	}
}

func txMemories(t *testing.T, f *fixture) {
	base := f.clock.Now()
	minute := func(n int) time.Time { return base.Add(time.Duration(n) * time.Minute) }
	hour := func(n int) *time.Time { d := base.Add(time.Duration(n) * time.Hour); return &d }
	mem := func(kind continuity.MemoryKind, status continuity.MemoryStatus, project, scope string, created, updated int, due *time.Time) continuity.Memory {
		m := memoryRow(minute(created))
		m.Kind, m.Status, m.Project, m.Scope, m.UpdatedAt, m.Due = kind, status, project, scope, minute(updated), due
		return m
	}
	open, resolved, archived := continuity.StatusOpen, continuity.StatusResolved, continuity.StatusArchived
	m1 := mem(continuity.KindCommitment, open, "baton", "core", 1, 1, hour(10))
	m2 := mem(continuity.KindBlocker, open, "", "", 2, 5, nil)
	m3 := mem(continuity.KindDecision, resolved, "other", "core", 3, 3, nil)
	m4 := mem(continuity.KindNote, archived, "baton", "ui", 4, 8, nil)
	m5 := mem(continuity.KindCommitment, open, "baton", "", 5, 5, hour(2))
	m6 := mem(continuity.KindPreference, open, "other", "other", 5, 6, nil) // created with m5: the later id is newer
	bm := mem(continuity.KindCommitment, open, "baton", "core", 6, 6, nil)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for _, m := range []*continuity.Memory{&m3, &m6, &m1, &m5, &m2, &m4} {
			if err := tx.InsertMemory(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemory(ctx, &bm) })

	ids := func(ms ...continuity.Memory) []uuid.UUID { return rowIDs(ms) }
	cut, due := minute(5), *hour(10)
	cases := []struct {
		name string
		q    continuity.MemoryQuery
		want []uuid.UUID
	}{
		{"everything, newest created first, ties by id", continuity.MemoryQuery{}, ids(m6, m5, m4, m3, m2, m1)},
		{"kinds", continuity.MemoryQuery{Kinds: []continuity.MemoryKind{continuity.KindCommitment, continuity.KindBlocker}}, ids(m5, m2, m1)},
		{"statuses", continuity.MemoryQuery{Statuses: []continuity.MemoryStatus{resolved, archived}}, ids(m4, m3)},
		{"a project matches it or none", continuity.MemoryQuery{Project: "baton"}, ids(m5, m4, m2, m1)},
		{"a scope matches it or none", continuity.MemoryQuery{Scope: "core"}, ids(m5, m3, m2, m1)},
		{"project and scope", continuity.MemoryQuery{Project: "baton", Scope: "core"}, ids(m5, m2, m1)},
		{"updated before excludes the instant", continuity.MemoryQuery{UpdatedBefore: cut}, ids(m3, m1)},
		{"updated before a microsecond later includes it", continuity.MemoryQuery{UpdatedBefore: cut.Add(time.Microsecond)}, ids(m5, m3, m2, m1)},
		{"updated since includes the instant", continuity.MemoryQuery{UpdatedSince: cut}, ids(m6, m5, m4, m2)},
		{"due before excludes the instant and undated rows", continuity.MemoryQuery{DueBefore: due}, ids(m5)},
		{"not due before includes the instant and undated rows", continuity.MemoryQuery{NotDueBefore: due}, ids(m6, m4, m3, m2, m1)},
		{"limit keeps the newest", continuity.MemoryQuery{Limit: 2}, ids(m6, m5)},
		{"every field at once", continuity.MemoryQuery{Kinds: []continuity.MemoryKind{continuity.KindCommitment}, Statuses: []continuity.MemoryStatus{open},
			Project: "baton", Scope: "core", UpdatedSince: minute(1), UpdatedBefore: minute(2), NotDueBefore: due, Limit: 5}, ids(m1)},
		{"nothing matches", continuity.MemoryQuery{Kinds: []continuity.MemoryKind{continuity.KindNote}, Statuses: []continuity.MemoryStatus{open}}, []uuid.UUID{}},
	}
	for _, tc := range cases {
		wantIDs(t, tc.name, listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.Memory, error) {
			return tx.Memories(ctx, tc.q)
		}), tc.want)
	}
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		got, err := tx.Memories(ctx, continuity.MemoryQuery{DueBefore: due})
		if err == nil && len(got) == 1 {
			same(t, "a listed memory", got[0], m5)
		}
		return err
	})
	inRead(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error {
		got, err := tx.Memories(ctx, continuity.MemoryQuery{})
		same(t, "tenant B's memories", rowIDs(got), ids(bm))
		return err
	})
}

// runEventsOf reads RunEvents as tenant.
func runEventsOf(t *testing.T, f *fixture, tenant string, run, after uuid.UUID, limit int) []continuity.MemoryEvent {
	t.Helper()
	return listOf(t, f, tenant, func(ctx context.Context, tx continuity.Tx) ([]continuity.MemoryEvent, error) {
		return tx.RunEvents(ctx, run, after, limit)
	})
}

func memoryEvent(run uuid.UUID, at time.Time) continuity.MemoryEvent {
	return continuity.MemoryEvent{ID: newID(), MemoryID: newID(), Kind: continuity.EventCreate, ActorKind: continuity.ActorUserCLI,
		SessionRunID: run, CreatedAt: at}
}

func txInsertMemoryEvents(t *testing.T, f *fixture) {
	now := f.clock.Now()
	run := newID()
	e1, e2 := memoryEvent(run, now), memoryEvent(run, now.Add(time.Second))
	e1.Kind, e1.ActorKind, e1.Tenant = continuity.EventSupersede, continuity.ActorWorker, tenantB
	e2.Kind, e2.ActorKind = continuity.EventImport, continuity.ActorUserAPI
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx, e1, e2) })
	e1.Tenant, e2.Tenant = tenantA, tenantA
	same(t, "the events read back", runEventsOf(t, f, tenantA, run, uuid.Nil, 10), []continuity.MemoryEvent{e1, e2})
	if got := runEventsOf(t, f, tenantB, run, uuid.Nil, 10); len(got) != 0 {
		t.Errorf("tenant B reads A's events: %v", rowIDs(got))
	}
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx) })
	dup := memoryEvent(run, now)
	dup.ID = e1.ID
	for _, tenant := range []string{tenantA, tenantB} {
		wantCode(t, methodErr(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx, dup) }),
			continuity.CodeConflict)
	}
	// An unattributed event belongs to no run.
	un := memoryEvent(uuid.Nil, now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx, un) })
	if got := runEventsOf(t, f, tenantA, uuid.Nil, uuid.Nil, 10); len(got) != 0 {
		t.Errorf("the nil run has events: %v", rowIDs(got))
	}
	same(t, "the run's events after an unattributed one", rowIDs(runEventsOf(t, f, tenantA, run, uuid.Nil, 10)), []uuid.UUID{e1.ID, e2.ID})
}

func txRunEvents(t *testing.T, f *fixture) {
	now := f.clock.Now()
	run, other := newID(), newID()
	// Ids in creation order: e1 < b1 < e2 < ... ; A inserts out of order.
	e1, b1, e2, e3, e4, e5 := memoryEvent(run, now), memoryEvent(run, now), memoryEvent(other, now), memoryEvent(run, now), memoryEvent(run, now), memoryEvent(run, now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx, e4, e1, e2) })
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx, e5, e3) })
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx, b1) })
	mine := []uuid.UUID{e1.ID, e3.ID, e4.ID, e5.ID}
	cases := []struct {
		name       string
		run, after uuid.UUID
		limit      int
		want       []uuid.UUID
	}{
		{"the run's events in id order", run, uuid.Nil, 10, mine},
		{"at most limit", run, uuid.Nil, 2, mine[:2]},
		{"after an event", run, e3.ID, 1, mine[2:3]},
		{"after the last", run, e5.ID, 10, []uuid.UUID{}},
		{"after an id the tenant has no event with", run, b1.ID, 10, mine[1:]},
		{"a limit below 1 is no limit", run, e1.ID, 0, mine[1:]},
		{"another run", other, uuid.Nil, 10, []uuid.UUID{e2.ID}},
		{"an unknown run", newID(), uuid.Nil, 10, []uuid.UUID{}},
	}
	for _, tc := range cases {
		wantIDs(t, tc.name, runEventsOf(t, f, tenantA, tc.run, tc.after, tc.limit), tc.want)
	}
	same(t, "tenant B's events of the run", rowIDs(runEventsOf(t, f, tenantB, run, uuid.Nil, 10)), []uuid.UUID{b1.ID})
}

// markerOf reads the conversation's marker as tenant.
func markerOf(t *testing.T, f *fixture, tenant, ag, sid string) (*continuity.BottleMarker, error) {
	t.Helper()
	var got *continuity.BottleMarker
	var err error
	inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		got, err = tx.BottleMarker(ctx, ag, sid)
		return nil
	})
	return got, err
}

// mustMarker reads the conversation's marker as tenant; the test fails when
// it cannot.
func mustMarker(t *testing.T, f *fixture, tenant, sid string) continuity.BottleMarker {
	t.Helper()
	m, err := markerOf(t, f, tenant, agent, sid)
	if err != nil {
		t.Fatalf("%s's marker of %s: %v", tenant, sid, err)
	}
	return *m
}

// claim claims the conversation's marker as tenant in its own transaction.
func claim(t *testing.T, f *fixture, tenant, ag, sid string) (*continuity.BottleMarker, error) {
	t.Helper()
	var got *continuity.BottleMarker
	err := methodErr(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
		var err error
		got, err = tx.ClaimBottle(ctx, ag, sid, f.clock.Now())
		return err
	})
	return got, err
}

func arm(t *testing.T, f *fixture, tenant string, m continuity.BottleMarker) {
	t.Helper()
	inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.ArmBottle(ctx, m) })
}

func bottleMarker(sid, path string, gap int, at time.Time) continuity.BottleMarker {
	return continuity.BottleMarker{Tenant: tenantA, Agent: agent, SessionID: sid, Path: path, Mode: "full", Gap: gap, ArmedAt: at}
}

func txArmBottle(t *testing.T, f *fixture) {
	now := f.clock.Now()
	first := bottleMarker("s1", "/b/s1-1.md", 1, now)
	first.Tenant = tenantB // ignored: the marker is the transaction's tenant's
	arm(t, f, tenantA, first)
	first.Tenant = tenantA
	same(t, "the armed marker", mustMarker(t, f, tenantA, "s1"), first)

	// Re-arming an armed marker overwrites it.
	second := bottleMarker("s1", "/b/s1-2.md", 2, now.Add(time.Minute))
	second.Mode = "degraded"
	arm(t, f, tenantA, second)
	same(t, "the re-armed marker", mustMarker(t, f, tenantA, "s1"), second)

	// Re-arming a consumed marker arms it again: consumed_at is reset.
	f.clock.Advance(time.Hour)
	if _, err := claim(t, f, tenantA, agent, "s1"); err != nil {
		t.Fatal(err)
	}
	third := bottleMarker("s1", "/b/s1-3.md", 3, now.Add(2*time.Hour))
	arm(t, f, tenantA, third)
	same(t, "the marker re-armed after its claim", mustMarker(t, f, tenantA, "s1"), third)
	if got, err := claim(t, f, tenantA, agent, "s1"); err != nil || got.Path != third.Path {
		t.Errorf("the claim after the re-arm: %+v %v", got, err)
	}

	// Tenant B arming the same key arms its own marker.
	b := bottleMarker("s1", "/b/elsewhere.md", 9, now)
	arm(t, f, tenantB, b)
	b.Tenant = tenantB
	same(t, "tenant B's marker", mustMarker(t, f, tenantB, "s1"), b)
	if got := mustMarker(t, f, tenantA, "s1"); got.Path != third.Path || got.ConsumedAt == nil {
		t.Errorf("tenant B's arm changed A's marker: %+v", got)
	}
}

func txClaimBottle(t *testing.T, f *fixture) {
	now := f.clock.Now()
	_, err := claim(t, f, tenantA, agent, "s1")
	wantCode(t, err, continuity.CodeNotFound)

	m := bottleMarker("s1", "/b/s1.md", 2, now)
	arm(t, f, tenantA, m)
	// Another agent's claim under the same session id, and tenant B's, find
	// nothing and leave the marker armed.
	for _, who := range []struct{ tenant, agent string }{{tenantA, "codex"}, {tenantB, agent}} {
		_, err := claim(t, f, who.tenant, who.agent, "s1")
		wantCode(t, err, continuity.CodeNotFound)
	}
	if got := mustMarker(t, f, tenantA, "s1"); got.ConsumedAt != nil {
		t.Fatalf("another agent's or tenant's claim consumed the marker: %+v", got)
	}

	f.clock.Advance(time.Minute)
	got, err := claim(t, f, tenantA, agent, "s1")
	if err != nil {
		t.Fatal(err)
	}
	consumed := f.clock.Now()
	m.ConsumedAt = &consumed
	same(t, "the claimed marker", *got, m)
	_, err = claim(t, f, tenantA, agent, "s1")
	wantCode(t, err, continuity.CodeNotFound)

	// Exactly one of many concurrent claims wins.
	arm(t, f, tenantA, bottleMarker("s2", "/b/s2.md", 1, now))
	const n = 8
	var wg sync.WaitGroup
	results := make(chan error, n)
	for range n {
		wg.Go(func() {
			results <- f.store.Write(t.Context(), tenantA, func(ctx context.Context, tx continuity.Tx) error {
				_, err := tx.ClaimBottle(ctx, agent, "s2", f.clock.Now())
				return err
			})
		})
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch continuity.ErrorCode(err) {
		case "":
			won++
		case continuity.CodeNotFound:
		default:
			t.Errorf("a concurrent claim: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d concurrent claims won, want exactly 1", won, n)
	}
}

func txBottleMarker(t *testing.T, f *fixture) {
	now := f.clock.Now()
	_, err := markerOf(t, f, tenantA, agent, "s1")
	wantCode(t, err, continuity.CodeNotFound)
	m := bottleMarker("s1", "/b/s1.md", 1, now)
	arm(t, f, tenantA, m)
	same(t, "an armed marker", mustMarker(t, f, tenantA, "s1"), m)
	f.clock.Advance(time.Minute)
	if _, err := claim(t, f, tenantA, agent, "s1"); err != nil {
		t.Fatal(err)
	}
	consumed := f.clock.Now()
	m.ConsumedAt = &consumed
	same(t, "a consumed marker", mustMarker(t, f, tenantA, "s1"), m)
	for _, who := range []struct{ tenant, agent string }{{tenantA, "codex"}, {tenantB, agent}} {
		_, err := markerOf(t, f, who.tenant, who.agent, "s1")
		if continuity.ErrorCode(err) != continuity.CodeNotFound {
			t.Errorf("%s/%s reads A's marker: %v", who.tenant, who.agent, err)
		}
	}
}

func prompt(ag, sid, text string, at time.Time) continuity.Prompt {
	return continuity.Prompt{ID: newID(), Agent: ag, SessionID: sid, Text: text, At: at}
}

func txAppendPrompt(t *testing.T, f *fixture) {
	now := f.clock.Now()
	cases := []struct {
		tenant, agent, sid string
		want               int
	}{
		{tenantA, agent, "s1", 1}, {tenantA, agent, "s1", 2}, {tenantA, "codex", "s1", 1},
		{tenantA, agent, "s2", 1}, {tenantB, agent, "s1", 1}, {tenantA, agent, "s1", 3},
	}
	for i, tc := range cases {
		p := prompt(tc.agent, tc.sid, "p"+strconv.Itoa(i), now)
		p.Number = 99 // decided by the store
		inWrite(t, f, tc.tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &p) })
		if p.Number != tc.want {
			t.Errorf("append %d (%s/%s/%s): number %d, want %d", i, tc.tenant, tc.agent, tc.sid, p.Number, tc.want)
		}
	}
	// Two appends in one transaction number on from each other.
	p4, p5 := prompt(agent, "s1", "fourth", now), prompt(agent, "s1", "fifth", now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if err := tx.AppendPrompt(ctx, &p4); err != nil {
			return err
		}
		return tx.AppendPrompt(ctx, &p5)
	})
	if p4.Number != 4 || p5.Number != 5 {
		t.Errorf("two appends in one transaction numbered %d and %d, want 4 and 5", p4.Number, p5.Number)
	}
	// A conversation whose prompts are gone (pruned) numbers on past the
	// turns its excerpts recorded; an excerpt without a number, or
	// another conversation's, counts for nothing.
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		for _, e := range []continuity.StopExcerpt{excerpt(agent, "s4", "turn 7", now), excerpt(agent, "s4", "unnumbered", now),
			excerpt("codex", "s4", "other agent", now), excerpt(agent, "s5", "other conversation", now)} {
			switch e.Text {
			case "turn 7":
				e.PromptNumber = new(7)
			case "other agent", "other conversation":
				e.PromptNumber = new(20)
			}
			if err := tx.InsertStopExcerpt(ctx, 0, &e); err != nil {
				return err
			}
		}
		return nil
	})
	p8 := prompt(agent, "s4", "after the pruned ones", now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &p8) })
	if p8.Number != 8 {
		t.Errorf("the first prompt kept after excerpts of turn 7 is numbered %d, want 8", p8.Number)
	}
	dup := prompt(agent, "s3", "dup", now)
	dup.ID = p4.ID
	for _, tenant := range []string{tenantA, tenantB} {
		wantCode(t, methodErr(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &dup) }),
			continuity.CodeConflict)
	}
}

func txPrompts(t *testing.T, f *fixture) {
	now := f.clock.Now()
	first, second := prompt(agent, "s1", "first", now), prompt(agent, "s1", "second", now.Add(time.Second))
	second.Truncated, second.Tenant = true, tenantB // the Tenant field is ignored
	other := prompt("codex", "s1", "other agent", now)
	for _, p := range []*continuity.Prompt{&first, &other, &second} {
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, p) })
	}
	first.Tenant, second.Tenant = tenantA, tenantA
	same(t, "the conversation's prompts in number order", ofConversation(t, f, tenantA, agent, "s1", continuity.Tx.Prompts), []continuity.Prompt{first, second})
	for _, who := range []struct{ tenant, agent, sid string }{{tenantA, agent, "unknown"}, {tenantB, agent, "s1"}} {
		got := ofConversation(t, f, who.tenant, who.agent, who.sid, continuity.Tx.Prompts)
		wantEmpty(t, who.tenant+"/"+who.sid+"'s prompts", got, nil)
	}
}

func txLastPrompt(t *testing.T, f *fixture) {
	now := f.clock.Now()
	last := func(tenant, ag, sid string) (continuity.Prompt, bool) {
		var p continuity.Prompt
		var ok bool
		inRead(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			p, ok, err = tx.LastPrompt(ctx, ag, sid)
			return err
		})
		return p, ok
	}
	if p, ok := last(tenantA, agent, "s1"); ok {
		t.Errorf("a conversation with no prompt has a last one: %+v", p)
	}
	// Numbered in the order recorded, whatever their times say; the
	// neighbours (the same session id under another agent, another
	// session, the same key in tenant B) are recorded after it, so a
	// last prompt read across conversations would be one of theirs.
	var mine []continuity.Prompt
	for i, text := range []string{"one", "two", "three"} {
		p := prompt(agent, "s1", text, now.Add(-time.Duration(i)*time.Minute))
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &p) })
		p.Tenant = tenantA
		mine = append(mine, p)
		if got, ok := last(tenantA, agent, "s1"); !ok || !reflect.DeepEqual(got, p) {
			t.Errorf("after %d prompts: last %+v (ok %v), want %+v", i+1, got, ok, p)
		}
	}
	for _, n := range []struct{ tenant, agent, sid string }{{tenantA, "codex", "s1"}, {tenantA, agent, "s2"}, {tenantB, agent, "s1"}} {
		p := prompt(n.agent, n.sid, "neighbour", now.Add(time.Hour))
		inWrite(t, f, n.tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &p) })
	}
	if got, ok := last(tenantA, agent, "s1"); !ok || !reflect.DeepEqual(got, mine[2]) {
		t.Errorf("with neighbours: last %+v (ok %v), want %+v", got, ok, mine[2])
	}
	if p, ok := last(tenantB, agent, "unknown"); ok {
		t.Errorf("tenant B's unknown conversation has a last prompt: %+v", p)
	}
}

// idAt is a UUIDv7 of the instant at, as a writer whose clock read at
// makes it.
func IDAt(at time.Time) uuid.UUID {
	id := newID()
	ms := uint64(at.UnixMilli())
	for i := range 6 {
		id[i] = byte(ms >> (8 * (5 - i)))
	}
	return id
}

func excerpt(ag, sid, text string, at time.Time) continuity.StopExcerpt {
	return continuity.StopExcerpt{ID: newID(), Agent: ag, SessionID: sid, Text: text, At: at}
}

func txInsertStopExcerpt(t *testing.T, f *fixture) {
	now := f.clock.Now()
	insert := func(tenant string, keep int, e continuity.StopExcerpt) {
		inWrite(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertStopExcerpt(ctx, keep, &e) })
	}
	// Neighbours of the trimmed conversations: the same session id under
	// another agent, and the same key in tenant B.
	neighbours := []struct{ tenant, agent string }{{tenantA, "codex"}, {tenantB, agent}}
	cases := []struct {
		name           string
		keep, inserted int
		kept           int
		// step is each id's time after the one before: negative, each
		// Stop's writer had a clock behind the one before's (a replica
		// behind, or a step back between two hook processes).
		step time.Duration
	}{
		{"keep below 1 keeps every excerpt", 0, 4, 4, time.Millisecond},
		{"exactly keep excerpts are all kept", 3, 3, 3, time.Millisecond},
		{"one past keep drops the oldest", 3, 4, 3, time.Millisecond},
		{"keep 1 keeps the newest", 1, 3, 1, time.Millisecond},
		{"one past keep drops the oldest written, its id the highest", 3, 4, 3, -time.Minute},
		{"keep 1 keeps the newest written, its id the lowest", 1, 3, 1, -time.Millisecond},
		{"ids a millisecond apart, one stepped back", 2, 3, 2, -time.Millisecond},
	}
	for i, tc := range cases {
		sid := "keep-" + strconv.Itoa(i)
		for _, n := range neighbours {
			insert(n.tenant, 0, excerpt(n.agent, sid, "neighbour", now))
		}
		var ids []uuid.UUID
		for j := range tc.inserted {
			e := excerpt(agent, sid, "stop "+strconv.Itoa(j), now)
			e.ID = IDAt(now.Add(time.Duration(j) * tc.step))
			ids = append(ids, e.ID)
			insert(tenantA, tc.keep, e)
		}
		same(t, tc.name, rowIDs(ofConversation(t, f, tenantA, agent, sid, continuity.Tx.StopExcerpts)), ids[len(ids)-tc.kept:])
		for _, n := range neighbours {
			if got := ofConversation(t, f, n.tenant, n.agent, sid, continuity.Tx.StopExcerpts); len(got) != 1 {
				t.Errorf("%s: %s/%s's excerpts = %d, want its one untouched", tc.name, n.tenant, n.agent, len(got))
			}
		}
	}
	dup := excerpt(agent, "dup", "dup", now)
	insert(tenantA, 5, dup)
	for _, tenant := range []string{tenantA, tenantB} {
		wantCode(t, methodErr(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertStopExcerpt(ctx, 5, &dup) }),
			continuity.CodeConflict)
	}
}

func txStopExcerpts(t *testing.T, f *fixture) {
	now := f.clock.Now()
	first, second, third := excerpt(agent, "s1", "first", now.Add(time.Second)), excerpt(agent, "s1", "second", now), excerpt(agent, "s1", "third", now)
	second.Truncated, second.Tenant = true, tenantB // the Tenant field is ignored
	// The prompt number as given: one, 0 (a Stop before any prompt), and
	// none (a row from before it was recorded).
	first.PromptNumber, second.PromptNumber = new(3), new(0)
	// A number given is kept (an import's replay); the next is numbered
	// after it.
	given := excerpt(agent, "s1", "given", now)
	given.Seq = 10
	for _, e := range []*continuity.StopExcerpt{&second, &third, &first, &given} { // out of id order
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertStopExcerpt(ctx, 0, e) })
	}
	fourth := excerpt(agent, "s1", "fourth", now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertStopExcerpt(ctx, 0, &fourth) })
	first.Tenant, second.Tenant, third.Tenant, given.Tenant, fourth.Tenant = tenantA, tenantA, tenantA, tenantA, tenantA
	second.Seq, third.Seq, first.Seq, fourth.Seq = 1, 2, 3, 11
	same(t, "the conversation's excerpts in the order they were written", ofConversation(t, f, tenantA, agent, "s1", continuity.Tx.StopExcerpts),
		[]continuity.StopExcerpt{second, third, first, given, fourth})
	dup := excerpt(agent, "s1", "a number taken", now)
	dup.Seq = 3
	wantCode(t, methodErr(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertStopExcerpt(ctx, 0, &dup) }),
		continuity.CodeConflict)
	for _, who := range []struct{ tenant, agent, sid string }{{tenantA, agent, "unknown"}, {tenantA, "codex", "s1"}, {tenantB, agent, "s1"}} {
		got := ofConversation(t, f, who.tenant, who.agent, who.sid, continuity.Tx.StopExcerpts)
		wantEmpty(t, who.tenant+"/"+who.agent+"/"+who.sid+"'s excerpts", got, nil)
	}
}
