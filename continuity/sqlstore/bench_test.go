package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
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
