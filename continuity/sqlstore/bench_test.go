package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// BenchmarkSQLiteBaselineUpdate is the floor the service's writes are
// compared with: one immediate transaction updating one row of a WAL SQLite
// file with the same pragmas, and nothing else.
func BenchmarkSQLiteBaselineUpdate(b *testing.B) {
	path := filepath.Join(b.TempDir(), "base.db")
	db, err := sql.Open(sqliteshim.ShimName, path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO t VALUES (1, 0)`); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(`UPDATE t SET n = n + 1 WHERE id = 1`); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchService(b *testing.B) *continuity.Service {
	st, err := sqlstore.Open(context.Background(), filepath.Join(b.TempDir(), "baton.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	svc := continuity.New(st)
	if _, err := svc.Open(context.Background(), "bench", continuity.OpenParams{Agent: "claude-code", SessionID: "s1", Source: continuity.SourceStartup, Project: "p"}); err != nil {
		b.Fatal(err)
	}
	return svc
}

// BenchmarkSQLiteHeartbeat is one Stop: read the row, evaluate the lease,
// floor last_seen_at, keep the excerpt, write it back, in one transaction.
func BenchmarkSQLiteHeartbeat(b *testing.B) {
	svc := benchService(b)
	ctx := context.Background()
	excerpt := "Done: the lease rules ship with table tests."
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.Heartbeat(ctx, "bench", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "s1", Stop: true, LastMessageExcerpt: &excerpt}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSQLiteRememberIdless is a curated write with no run id: the
// per-project attribution decision, the memory row and its audit event.
func BenchmarkSQLiteRememberIdless(b *testing.B) {
	svc := benchService(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.Remember(ctx, "bench", continuity.RememberParams{Kind: continuity.KindDecision, Topic: "t", Content: "Use bun.", Project: "p", Actor: continuity.ActorUserAPI}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchLedger opens a Postgres store (BATON_TEST_POSTGRES_DSN) whose
// tenant "bench" holds continuity.DefaultLedgerRetention ledger lines, as a
// tenant's ledger in use does, and a plain handle on its schema.
func benchLedger(b *testing.B) (*sqlstore.Store, *sql.DB) {
	base := sqltest.PostgresBase(b)
	st, dsn := sqltest.PostgresStore(b, base)
	err := st.Write(context.Background(), "bench", func(ctx context.Context, tx continuity.Tx) error {
		return tx.AppendLedger(ctx, continuity.DefaultLedgerRetention, ledgerLines(continuity.DefaultLedgerRetention, time.Now())...)
	})
	if err != nil {
		b.Fatal(err)
	}
	db := sqltest.PostgresDB(b, dsn)
	if _, err := db.Exec(`ANALYZE ledger`); err != nil {
		b.Fatal(err)
	}
	return st, db
}

// BenchmarkPostgresBaselineLedgerInsert is the floor of a ledger append on
// Postgres: a transaction that sets the tenant and inserts one line, no
// trim, beside the same full ledger.
func BenchmarkPostgresBaselineLedgerInsert(b *testing.B) {
	_, db := benchLedger(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		l := ledgerLines(1, time.Now())[0]
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `SELECT set_config('baton.tenant', 'bench', true)`); err != nil {
			b.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO ledger (id, user_id, event, at, session, fields) VALUES ($1, 'bench', $2, $3, '', '{}')`, l.ID, l.Event, l.At); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPostgresLedgerAppend is one line appended through the store at
// the tenant's bound: the insert and the trim that deletes the oldest line,
// in one transaction.
func BenchmarkPostgresLedgerAppend(b *testing.B) {
	st, _ := benchLedger(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		err := st.Write(ctx, "bench", func(ctx context.Context, tx continuity.Tx) error {
			return tx.AppendLedger(ctx, continuity.DefaultLedgerRetention, ledgerLines(1, time.Now())...)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
