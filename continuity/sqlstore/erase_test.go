package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/google/uuid"
)

// TestPostgresEraseIsTheAdminRoles: migration 008's functions are callable
// by the grants it makes and by no one else. baton_erase_batch deletes
// under its owner's rights for a member of baton_admin and is refused to
// the runtime role and to PUBLIC; the prunes are the runtime role's.
func TestPostgresEraseIsTheAdminRoles(t *testing.T) {
	base := sqltest.PostgresBase(t)
	st, dsn := sqltest.PostgresStore(t, base)
	ctx := context.Background()
	svc := continuity.New(st)
	for _, tenant := range []string{"tenant-a", "tenant-b"} {
		if _, err := svc.AppendEvent(ctx, tenant, "test.erase", "", nil); err != nil {
			t.Fatal(err)
		}
	}
	db := sqltest.PostgresDB(t, dsn)

	may := func(role, fn string) bool {
		t.Helper()
		var ok bool
		err := db.QueryRow(`SELECT has_function_privilege($1, p.oid, 'EXECUTE')
			FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
			WHERE n.nspname = current_schema() AND p.proname = $2`, role, fn).Scan(&ok)
		if err != nil {
			t.Fatalf("%s on %s: %v", role, fn, err)
		}
		return ok
	}
	cases := []struct {
		role, fn string
		want     bool
	}{
		{"public", "baton_erase_batch", false},
		{sqlstore.RuntimeRole, "baton_erase_batch", false},
		{sqlstore.AdminRole, "baton_erase_batch", true},
		{"public", "baton_prune_ledger", false},
		{"public", "baton_prune_user_prompts", false},
		{"public", "baton_prune_tenant", false},
		{sqlstore.RuntimeRole, "baton_prune_ledger", true},
		{sqlstore.RuntimeRole, "baton_prune_user_prompts", true},
		{sqlstore.RuntimeRole, "baton_prune_tenant", false},
	}
	for _, tc := range cases {
		if got := may(tc.role, tc.fn); got != tc.want {
			t.Errorf("%s may execute %s: %v, want %v", tc.role, tc.fn, got, tc.want)
		}
	}

	// Behaviour: as baton_admin the function erases one tenant's rows,
	// row-level security notwithstanding; as the runtime role it is
	// refused before it deletes anything.
	erase := func(role string) (int, error) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.Exec("SET LOCAL ROLE " + role); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := tx.QueryRow("SELECT baton_erase_batch($1, 10)", "tenant-a").Scan(&n); err != nil {
			return 0, err
		}
		return n, tx.Commit()
	}
	if _, err := erase(sqlstore.RuntimeRole); err == nil {
		t.Fatal("the runtime role erased")
	}
	if n, err := erase(sqlstore.AdminRole); err != nil || n != 1 {
		t.Fatalf("baton_admin's erase deleted %d, %v; want tenant A's one line", n, err)
	}
	for tenant, want := range map[string]int{"tenant-a": 0, "tenant-b": 1} {
		rows, err := st.TenantRows(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		if rows["ledger"] != want {
			t.Errorf("%s has %d ledger lines after A's erase, want %d", tenant, rows["ledger"], want)
		}
	}
}

// TestTenantRowsFindsEveryTable: the raw count reads the catalog, so it
// counts every table that holds tenants' rows (these, and any a later
// migration adds), on both backends, and the erase reaches the same tables.
func TestTenantRowsFindsEveryTable(t *testing.T) {
	want := []string{"agent_sessions", "continuity_records", "ledger", "memories", "memory_events", "session_bottles", "stop_excerpts", "user_prompts"}
	harnesses := map[string]func(t *testing.T) *sqlstore.Store{
		"sqlite": func(t *testing.T) *sqlstore.Store { st, _ := sqltest.SQLite.New(t); return st.(*sqlstore.Store) },
		"postgres": func(t *testing.T) *sqlstore.Store {
			st, _ := sqltest.PostgresStore(t, sqltest.PostgresBase(t))
			return st
		},
	}
	for name, open := range harnesses {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			rows, err := st.TenantRows(context.Background(), "nobody")
			if err != nil {
				t.Fatal(err)
			}
			for _, table := range want {
				if n, ok := rows[table]; !ok || n != 0 {
					t.Errorf("%s: counted %d (present %v), want 0", table, n, ok)
				}
			}
			// The erase reaches what the count lists.
			err = st.Write(context.Background(), "t", func(ctx context.Context, tx continuity.Tx) error {
				p := continuity.Prompt{ID: uuid.Must(uuid.NewV7()), Agent: "claude-code", SessionID: "s1", Number: 3, Text: "p", At: time.Now()}
				return tx.InsertPrompt(ctx, &p)
			})
			if err != nil {
				t.Fatal(err)
			}
			if n, err := st.EraseBatch(context.Background(), "t", 5); err != nil || n != 1 {
				t.Fatalf("EraseBatch = %d, %v; want the one prompt", n, err)
			}
		})
	}
}
