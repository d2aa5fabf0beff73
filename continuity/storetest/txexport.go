package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// The contract cases of the methods export, import, erase and retention
// use, registered beside txContract's own.
func init() {
	txContract["SessionsAfter"] = keysetCase(func(id uuid.UUID, at time.Time) txFunc {
		s := sessionRow("k-"+id.String(), "baton", at)
		s.ID = id
		return func(ctx context.Context, tx continuity.Tx) error { return tx.InsertSession(ctx, &s) }
	}, continuity.Tx.SessionsAfter)
	txContract["MemoriesAfter"] = keysetCase(func(id uuid.UUID, at time.Time) txFunc {
		m := memoryRow(at)
		m.ID = id
		return func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemory(ctx, &m) }
	}, continuity.Tx.MemoriesAfter)
	txContract["MemoryEventsAfter"] = keysetCase(func(id uuid.UUID, at time.Time) txFunc {
		e := memoryEvent(uuid.Nil, at) // unattributed events are exported too
		e.ID = id
		return func(ctx context.Context, tx continuity.Tx) error { return tx.InsertMemoryEvents(ctx, e) }
	}, continuity.Tx.MemoryEventsAfter)
	txContract["RecordsAfter"] = keysetCase(func(id uuid.UUID, at time.Time) txFunc {
		r := recordRow(continuity.RecordHandover, agent, "s1", "", at)
		r.ID = id
		return func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, &r) }
	}, continuity.Tx.RecordsAfter)
	txContract["PromptsAfter"] = keysetCase(func(id uuid.UUID, at time.Time) txFunc {
		p := prompt(agent, "k-"+id.String(), "p", at)
		p.ID = id
		return func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &p) }
	}, continuity.Tx.PromptsAfter)
	txContract["StopExcerptsAfter"] = keysetCase(func(id uuid.UUID, at time.Time) txFunc {
		e := excerpt(agent, "s1", "x", at)
		e.ID = id
		return func(ctx context.Context, tx continuity.Tx) error { return tx.InsertStopExcerpt(ctx, 0, &e) }
	}, continuity.Tx.StopExcerptsAfter)
	txContract["BottleMarkersAfter"] = txBottleMarkersAfter
	txContract["InsertPrompt"] = txInsertPrompt
	txContract["PruneLedger"] = pruneCase(func(id uuid.UUID, at time.Time) txFunc {
		return func(ctx context.Context, tx continuity.Tx) error {
			return tx.AppendLedger(ctx, 0, continuity.LedgerEntry{ID: id, Event: "test.age", At: at})
		}
	}, continuity.Tx.PruneLedger, func(t *testing.T, f *fixture, tenant string) []uuid.UUID { return rowIDs(ledgerOf(t, f, tenant)) })
	txContract["PrunePrompts"] = pruneCase(func(id uuid.UUID, at time.Time) txFunc {
		p := prompt(agent, "s1", "p", at)
		p.ID = id
		return func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &p) }
	}, continuity.Tx.PrunePrompts, func(t *testing.T, f *fixture, tenant string) []uuid.UUID {
		return rowIDs(ofConversation(t, f, tenant, agent, "s1", continuity.Tx.Prompts))
	})
	txContract["EraseBatch"] = txEraseBatch
	txContract["Snapshot"] = txSnapshot
}

// txSnapshot: a Snapshot reads one snapshot however long it runs; a write
// issued from inside it, on another transaction, commits at once (a store
// of one connection too: it never waits for the snapshot) and the snapshot
// does not see it, nor a write method of its own, which fails (internal)
// and changes nothing; a bad tenant is refused before fn runs.
func txSnapshot(t *testing.T, f *fixture) {
	now := f.clock.Now()
	before := newConversation("s1", now)
	inWrite(t, f, tenantA, before.write)
	during := newConversation("s2", now)
	// A write that waited for the snapshot would wait for ever: it has
	// a deadline, and failing it fails the case.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var ownWrite error
	err := f.store.Snapshot(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if _, err := tx.SessionByID(ctx, before.session.ID); err != nil {
			return err
		}
		if err := f.store.Write(ctx, tenantA, during.write); err != nil {
			return fmt.Errorf("the write issued inside the snapshot: %w", err)
		}
		_, err := tx.SessionByID(ctx, during.session.ID)
		wantCode(t, err, continuity.CodeNotFound)
		ms, err := tx.MemoriesAfter(ctx, uuid.Nil, 0)
		if err != nil {
			return err
		}
		if len(ms) != 1 || ms[0].ID != before.memory.ID {
			t.Errorf("the snapshot read memories %v, want the one written before it alone", rowIDs(ms))
		}
		m := memoryRow(now)
		ownWrite = tx.InsertMemory(ctx, &m)
		return ownWrite
	})
	if continuity.ErrorCode(ownWrite) != continuity.CodeInternal || continuity.ErrorCode(err) != continuity.CodeInternal {
		t.Fatalf("InsertMemory inside Snapshot returned %v (Snapshot: %v), want internal", ownWrite, err)
	}
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		if _, err := tx.SessionByID(ctx, during.session.ID); err != nil {
			t.Errorf("the session written inside the snapshot, after it: %v", err)
		}
		ms, err := tx.MemoriesAfter(ctx, uuid.Nil, 0)
		if err == nil && len(ms) != 2 {
			t.Errorf("after the snapshot tenant A holds %d memories, want the two conversations'", len(ms))
		}
		return err
	})

	for _, tenant := range []string{"", "bad\x00tenant"} {
		ran := false
		err := f.store.Snapshot(ctx, tenant, func(context.Context, continuity.Tx) error { ran = true; return nil })
		if _, ok := continuity.ErrorFields(err)["tenant"]; !ok || ran {
			t.Errorf("Snapshot as %q: %v, fn ran %v; want invalid naming tenant and fn not run", tenant, err, ran)
		}
	}
}

// keysetCase is the contract of an export page: A's rows, written out of
// id order and interleaved with B's, read back in id order after a key,
// at most limit (below 1: no limit); tenant B's rows never; an empty
// tenant's page empty and non-nil.
func keysetCase[T any](row func(id uuid.UUID, at time.Time) txFunc,
	page func(tx continuity.Tx, ctx context.Context, after uuid.UUID, limit int) ([]T, error)) func(t *testing.T, f *fixture) {
	return func(t *testing.T, f *fixture) {
		now := f.clock.Now()
		var a, b []uuid.UUID
		for range 5 {
			a, b = append(a, newID()), append(b, newID())
		}
		for _, i := range []int{3, 0, 4, 2, 1} {
			inWrite(t, f, tenantA, row(a[i], now))
			inWrite(t, f, tenantB, row(b[i], now))
		}
		cases := []struct {
			name  string
			after uuid.UUID
			limit int
			want  []uuid.UUID
		}{
			{"from the start, in id order", uuid.Nil, 10, a},
			{"at most limit", uuid.Nil, 2, a[:2]},
			{"after a row", a[1], 2, a[2:4]},
			{"after the last", a[4], 10, []uuid.UUID{}},
			{"after an id the tenant has no row with", b[1], 10, a[2:]},
			{"a limit below 1 is no limit", a[0], 0, a[1:]},
		}
		for _, tc := range cases {
			wantIDs(t, tc.name, listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]T, error) {
				return page(tx, ctx, tc.after, tc.limit)
			}), tc.want)
		}
		inRead(t, f, "tenant-c", func(ctx context.Context, tx continuity.Tx) error {
			got, err := page(tx, ctx, uuid.Nil, 10)
			wantEmpty(t, "an empty tenant's page", got, err)
			return nil
		})
	}
}

func txBottleMarkersAfter(t *testing.T, f *fixture) {
	now := f.clock.Now()
	// Keys out of order, two agents sharing a session id, one consumed.
	keys := [][2]string{{"codex", "a"}, {agent, "b"}, {agent, "a"}, {"codex", "c"}}
	for _, k := range keys {
		m := bottleMarker(k[1], "/b/"+k[1], 1, now)
		m.Agent = k[0]
		arm(t, f, tenantA, m)
		arm(t, f, tenantB, m)
	}
	f.clock.Advance(time.Minute)
	consumed := f.clock.Now()
	if _, err := claim(t, f, tenantA, "codex", "a"); err != nil {
		t.Fatal(err)
	}
	key := func(ms []continuity.BottleMarker) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, m.Agent+"/"+m.SessionID)
			if m.Tenant != tenantA {
				t.Errorf("a marker of %q", m.Tenant)
			}
		}
		return out
	}
	cases := []struct {
		name         string
		agent, after string
		limit        int
		want         []string
	}{
		{"from the start, by agent then session id", "", "", 10, []string{"claude-code/a", "claude-code/b", "codex/a", "codex/c"}},
		{"at most limit", "", "", 1, []string{"claude-code/a"}},
		{"after a key", agent, "b", 1, []string{"codex/a"}},
		{"after a key no marker has", "codex", "b", 10, []string{"codex/c"}},
		{"after the last", "codex", "c", 10, []string{}},
		{"a limit below 1 is no limit", agent, "a", 0, []string{"claude-code/b", "codex/a", "codex/c"}},
	}
	for _, tc := range cases {
		got := listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.BottleMarker, error) {
			return tx.BottleMarkersAfter(ctx, tc.agent, tc.after, tc.limit)
		})
		same(t, tc.name, key(got), tc.want)
	}
	all := listOf(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) ([]continuity.BottleMarker, error) {
		return tx.BottleMarkersAfter(ctx, "", "", 0)
	})
	want := bottleMarker("a", "/b/a", 1, now)
	want.Agent, want.ConsumedAt = "codex", &consumed
	if len(all) == 4 {
		same(t, "a consumed marker, every field", all[2], want)
	}
	inRead(t, f, "tenant-c", func(ctx context.Context, tx continuity.Tx) error {
		got, err := tx.BottleMarkersAfter(ctx, "", "", 10)
		wantEmpty(t, "an empty tenant's page", got, err)
		return nil
	})
}

func txInsertPrompt(t *testing.T, f *fixture) {
	now := f.clock.Now()
	// The number is kept as given, gaps and all; AppendPrompt goes on
	// from the highest.
	p := prompt(agent, "s1", "seven", now)
	p.Number, p.Truncated = 7, true
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { q := p; return tx.InsertPrompt(ctx, &q) })
	next := prompt(agent, "s1", "next", now)
	inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, &next) })
	p.Tenant = tenantA
	got := ofConversation(t, f, tenantA, agent, "s1", continuity.Tx.Prompts)
	if len(got) != 2 || next.Number != 8 {
		t.Fatalf("prompts %+v, the next numbered %d; want 7 then 8", got, next.Number)
	}
	same(t, "the inserted prompt", got[0], p)
	dupID, dupNumber := p, prompt(agent, "s1", "again", now)
	dupNumber.Number = 7
	other := prompt(agent, "s2", "elsewhere", now)
	other.Number = 7
	for _, tc := range []struct {
		name string
		p    continuity.Prompt
		code continuity.Code
	}{
		{"its id again", dupID, continuity.CodeConflict},
		{"its number again in the conversation", dupNumber, continuity.CodeConflict},
		{"its number in another conversation", other, ""},
	} {
		err := methodErr(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { q := tc.p; return tx.InsertPrompt(ctx, &q) })
		if continuity.ErrorCode(err) != tc.code {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.code)
		}
	}
	if got := ofConversation(t, f, tenantB, agent, "s1", continuity.Tx.Prompts); len(got) != 0 {
		t.Errorf("tenant B reads %d of A's prompts", len(got))
	}
}

// pruneCase is the contract of a prune by age: rows at before are kept,
// a microsecond earlier deleted, oldest id first up to limit (below 1: no
// limit), the count returned, tenant B's never touched.
func pruneCase(row func(id uuid.UUID, at time.Time) txFunc,
	prune func(tx continuity.Tx, ctx context.Context, before time.Time, limit int) (int, error),
	ids func(t *testing.T, f *fixture, tenant string) []uuid.UUID) func(t *testing.T, f *fixture) {
	return func(t *testing.T, f *fixture) {
		before := f.clock.Now()
		old := newIDs(4)
		for _, id := range old {
			inWrite(t, f, tenantA, row(id, before.Add(-time.Microsecond)))
		}
		atBefore, after := newID(), newID()
		inWrite(t, f, tenantA, row(atBefore, before))
		inWrite(t, f, tenantA, row(after, before.Add(time.Microsecond)))
		bOld := newID()
		inWrite(t, f, tenantB, row(bOld, before.Add(-time.Hour)))
		steps := []struct {
			name  string
			limit int
			n     int
			left  []uuid.UUID
		}{
			{"limit 1 deletes the oldest", 1, 1, append(old[1:4:4], atBefore, after)},
			{"limit 2 the next two", 2, 2, append(old[3:4:4], atBefore, after)},
			{"no limit the rest", 0, 1, []uuid.UUID{atBefore, after}},
			{"nothing older is left", 5, 0, []uuid.UUID{atBefore, after}},
		}
		for _, s := range steps {
			var n int
			inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
				var err error
				n, err = prune(tx, ctx, before, s.limit)
				return err
			})
			if n != s.n {
				t.Errorf("%s: deleted %d, want %d", s.name, n, s.n)
			}
			same(t, s.name, ids(t, f, tenantA), s.left)
		}
		same(t, "tenant B's rows", ids(t, f, tenantB), []uuid.UUID{bOld})
	}
}

func txEraseBatch(t *testing.T, f *fixture) {
	ctx := t.Context()
	c := newConversation("s1", f.clock.Now())
	inWrite(t, f, tenantA, c.write)
	inWrite(t, f, tenantB, newConversation("s1", f.clock.Now()).write)
	all, beforeB := total(rawRows(t, f, tenantA)), rawRows(t, f, tenantB)
	for _, bad := range []struct {
		tenant string
		limit  int
		field  string
	}{{tenantA, 0, "limit"}, {"", 1, "tenant"}, {"bad\x00", 1, "tenant"}} {
		_, err := f.store.EraseBatch(ctx, bad.tenant, bad.limit)
		wantCode(t, err, continuity.CodeInvalid)
		if _, ok := continuity.ErrorFields(err)[bad.field]; !ok {
			t.Errorf("EraseBatch(%q, %d) = %v, want it to name %s", bad.tenant, bad.limit, err, bad.field)
		}
	}
	deleted := 0
	for i := 0; ; i++ {
		n, err := f.store.EraseBatch(ctx, tenantA, 2)
		if err != nil {
			t.Fatal(err)
		}
		if n < 0 || n > 2 {
			t.Fatalf("batch %d deleted %d rows, want at most 2", i, n)
		}
		if n == 0 {
			break
		}
		deleted += n
		if i > all {
			t.Fatalf("more batches than rows: %d", i)
		}
	}
	if deleted != all || total(rawRows(t, f, tenantA)) != 0 {
		t.Errorf("the batches deleted %d of %d rows, %d left", deleted, all, total(rawRows(t, f, tenantA)))
	}
	same(t, "tenant B's rows", rawRows(t, f, tenantB), beforeB)
	if left := c.left(t, f, tenantA); len(left) != 0 {
		t.Errorf("tenant A still reads rows in %v", left)
	}

	// A call goes on to the next table while its limit is not spent: one
	// that returns fewer than its limit deleted the tenant's every row, in
	// every table. A call that stopped at the first table holding rows
	// returned fewer than its limit with rows of later tables left.
	for _, extra := range []int{-1, 0, 1} {
		inWrite(t, f, tenantA, newConversation(fmt.Sprint("s", extra+2), f.clock.Now()).write)
		rows := rawRows(t, f, tenantA)
		all, tables := total(rows), 0
		for _, n := range rows {
			if n > 0 {
				tables++
			}
		}
		if tables < 2 {
			t.Fatalf("the conversation fills %d tables, want several", tables)
		}
		n, err := f.store.EraseBatch(ctx, tenantA, all+extra)
		switch left := total(rawRows(t, f, tenantA)); {
		case err != nil:
			t.Fatal(err)
		case n != min(all, all+extra) || left != all-n:
			t.Errorf("EraseBatch(%d) of %d rows in %d tables deleted %d and left %d, want %d deleted", all+extra, all, tables, n, left, min(all, all+extra))
		}
		if n, err := f.store.EraseBatch(ctx, tenantA, all); err != nil || n != max(0, -extra) {
			t.Errorf("the next EraseBatch = %d, %v; want the %d rows left", n, err, max(0, -extra))
		}
	}
	same(t, "tenant B's rows", rawRows(t, f, tenantB), beforeB)
}
