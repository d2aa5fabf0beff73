package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/google/uuid"
)

// TestPostgresLedgerTrimReadsWhatGoes: at a tenant's bound, an append's
// trim reads the index entries of the lines it deletes, not the tenant's
// newest keep lines (migration 015; 011's trim read every one of them).
// The counts are the trim's own, read inside its transaction.
func TestPostgresLedgerTrimReadsWhatGoes(t *testing.T) {
	base := sqltest.PostgresBase(t)
	st, dsn := sqltest.PostgresStore(t, base)
	ctx := context.Background()
	const keep = 400
	err := st.Write(ctx, "tenant-a", func(ctx context.Context, tx continuity.Tx) error {
		return tx.AppendLedger(ctx, 0, ledgerLines(keep, time.Now())...)
	})
	if err != nil {
		t.Fatal(err)
	}
	db := sqltest.PostgresDB(t, dsn)
	for _, appended := range []int{1, 3} {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec(`SELECT set_config('baton.tenant', 'tenant-a', true)`)
		for _, l := range ledgerLines(appended, time.Now()) {
			exec(`INSERT INTO ledger (id, user_id, event, at, session, fields) VALUES ($1, 'tenant-a', $2, $3, '', '{}')`, l.ID, l.Event, l.At)
		}
		read := func() (entries int) {
			t.Helper()
			if err := tx.QueryRowContext(ctx, `SELECT pg_stat_get_xact_tuples_returned('ledger_tenant_idx'::regclass)`).Scan(&entries); err != nil {
				t.Fatal(err)
			}
			return entries
		}
		before := read()
		var deleted int
		if err := tx.QueryRowContext(ctx, `SELECT baton_trim_ledger($1)`, keep).Scan(&deleted); err != nil {
			t.Fatal(err)
		}
		entries := read() - before
		if deleted != appended || entries > 2*appended {
			t.Errorf("a trim after %d lines past the bound of %d deleted %d and read %d index entries; want %d deleted and at most %d read",
				appended, keep, deleted, entries, appended, 2*appended)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPostgresLedgerTrimsInterleaved: two transactions of one tenant
// append under Read Committed, one holding the tenant's trim while the
// other appends and commits. Neither waits on the other, the lines and the
// counts agree after each commit, and the next append trims to the bound
// exactly, the newest lines kept.
func TestPostgresLedgerTrimsInterleaved(t *testing.T) {
	base := sqltest.PostgresBase(t)
	st, dsn := sqltest.PostgresStore(t, base)
	ctx := context.Background()
	const keep = 3
	b := sizesBackend{raw: sqltest.PostgresDB(t, dsn), kept: postgresKept}
	order := []string{}
	appendOne := func(tag string) func(ctx context.Context, tx continuity.Tx) error {
		return func(ctx context.Context, tx continuity.Tx) error {
			l := ledgerLines(1, time.Now())
			l[0].Event = tag
			return tx.AppendLedger(ctx, keep, l...)
		}
	}
	for _, tag := range []string{"f1", "f2", "f3"} {
		if err := st.Write(ctx, "tenant-a", appendOne(tag)); err != nil {
			t.Fatal(err)
		}
		order = append(order, tag)
	}
	agree := func(when string, lines int) {
		t.Helper()
		kept, counted := b.sizes(t)
		if kept["tenant-a"] != lines || counted["tenant-a"] != lines {
			t.Fatalf("%s: counted %d, ledger %d; want %d", when, kept["tenant-a"], counted["tenant-a"], lines)
		}
	}

	// T1 appends x1 and trims (f1 goes), then holds its transaction open.
	held, release, t1 := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		t1 <- st.Write(ctx, "tenant-a", func(ctx context.Context, tx continuity.Tx) error {
			if err := appendOne("x1")(ctx, tx); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	select {
	case <-held:
	case err := <-t1:
		t.Fatalf("T1: %v", err)
	}
	// T2 appends x2 meanwhile: its trim finds T1's under way and leaves
	// the bound to a later one, without waiting for T1.
	done := make(chan error, 1)
	go func() { done <- st.Write(ctx, "tenant-a", appendOne("x2")) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("T2: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("T2 waited for T1's trim")
	}
	agree("T2 committed, T1 open", 4) // f1..f3 and x2; T1's x1 and its delete unseen
	close(release)
	if err := <-t1; err != nil {
		t.Fatalf("T1: %v", err)
	}
	agree("both committed", 4) // f2, f3, x1, x2
	if err := st.Write(ctx, "tenant-a", appendOne("x3")); err != nil {
		t.Fatal(err)
	}
	agree("the next append", keep)
	svc := continuity.New(st)
	es, err := svc.Ledger(ctx, "tenant-a", uuid.Nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Event)
	}
	if len(got) != keep || got[0] != "x1" || got[1] != "x2" || got[2] != "x3" {
		t.Fatalf("the ledger keeps %v, want [x1 x2 x3]", got)
	}
}
