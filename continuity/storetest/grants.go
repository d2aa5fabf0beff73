package storetest

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// Grants is implemented by stores whose database runs every transaction
// under a restricted runtime role (Postgres's baton_runtime); the embedded
// RowLevelSecurity reports whether that is so. The suite asserts the exact
// privileges the role holds and tries, as the role, what it must not do.
type Grants interface {
	Unscoped
	// RuntimeGrants returns what the runtime role may do to each table and
	// function of the store's schema: table privileges (SELECT, INSERT,
	// UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER) keyed by table name,
	// EXECUTE keyed by "name(argument types)", each list sorted. Objects it
	// may do nothing to are absent.
	RuntimeGrants(ctx context.Context) (map[string][]string, error)
	// TryAsRuntime runs one statement of the privilege's kind (SELECT,
	// INSERT, UPDATE or DELETE) over the tenant's rows of the table as the
	// runtime role, then rolls it back: forbidden when the role lacks the
	// privilege, nil when the statement ran.
	TryAsRuntime(ctx context.Context, tenant, table, privilege string) error
}

// runtimeGrants is what each table's writes need and no more: a session is
// closed by an update, provenance events are append-only, and retention
// pruning of the ledger and the Stop excerpts runs under its own grant (the
// two trim functions), never as a DELETE of the runtime role.
var runtimeGrants = map[string][]string{
	"agent_sessions":     {"INSERT", "SELECT", "UPDATE"},
	"memories":           {"INSERT", "SELECT", "UPDATE"},
	"memory_events":      {"INSERT", "SELECT"},
	"session_bottles":    {"INSERT", "SELECT", "UPDATE"},
	"user_prompts":       {"INSERT", "SELECT"},
	"stop_excerpts":      {"INSERT", "SELECT"},
	"ledger":             {"INSERT", "SELECT"},
	"continuity_records": {"INSERT", "SELECT"},
	// Which migrations are applied, read by Open (migration 012).
	"baton_schema_migrations": {"SELECT"},

	"baton_trim_ledger(integer)":                    {"EXECUTE"},
	"baton_trim_stop_excerpts(text, text, integer)": {"EXECUTE"},

	// Retention by age (migration 008); never baton_erase_batch.
	"baton_prune_ledger(timestamp with time zone, integer)":       {"EXECUTE"},
	"baton_prune_user_prompts(timestamp with time zone, integer)": {"EXECUTE"},
	// The worker's discovery: (tenant, row id) pairs across tenants,
	// through SECURITY DEFINER functions (migration 006).
	"baton_lapsed(timestamp with time zone, integer)":     {"EXECUTE"},
	"baton_closer_due(timestamp with time zone, integer)": {"EXECUTE"},
	// A live heartbeat in one statement (migration 010). It runs with the
	// caller's rights, under this role and the tenant it sets.
	"baton_touch_live(boolean, text, text[], text[], timestamp with time zone[], timestamp with time zone[], text[], integer[], integer[], uuid[], text[], boolean[], integer[], integer[])": {"EXECUTE"},
	// Retention's discovery of the tenants to prune (migration 009).
	"baton_retention_due(timestamp with time zone, timestamp with time zone, text, integer)": {"EXECUTE"},
}

func testGrants(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("RuntimeRoleHoldsWhatWritesNeed", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		g, ok := f.store.(Grants)
		if !ok || !g.RowLevelSecurity() {
			t.Skip("this store's database has no runtime role")
		}
		got, err := g.RuntimeGrants(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, runtimeGrants) {
			t.Errorf("the runtime role holds\n%v\nwant exactly\n%v", got, runtimeGrants)
		}

		// Give every statement rows to aim at, then try each table
		// privilege as the runtime role.
		run := mustOpen(t, f, tenantA, startup("s1"))
		mustRemember(t, f, tenantA, remember(continuity.KindNote, "grants", "a note", "baton", run.SessionRunID.String()))
		for _, table := range slices.Sorted(maps.Keys(runtimeGrants)) {
			if !isTable(table) || table == "baton_schema_migrations" {
				// Functions; and the migrations table, which has no
				// tenant to aim at: the comparison above holds it to
				// SELECT, and opening the store as a member of the role
				// uses that (sqlstore's TestPostgresRuntimeMemberLogin).
				continue
			}
			for _, p := range []string{"SELECT", "INSERT", "UPDATE", "DELETE"} {
				err := g.TryAsRuntime(ctx, tenantA, table, p)
				switch {
				case slices.Contains(runtimeGrants[table], p) && err != nil:
					t.Errorf("%s on %s as the runtime role: %v, want it to run", p, table, err)
				case !slices.Contains(runtimeGrants[table], p) && continuity.ErrorCode(err) != continuity.CodeForbidden:
					t.Errorf("%s on %s as the runtime role: %v, want forbidden", p, table, err)
				}
			}
		}
	})

	// The trims delete under their own grant; they must still stay within
	// the transaction's tenant and the conversation they were given.
	t.Run("TrimsStayWithinTheTenant", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		const keep = 2
		write := func(tenant, sid string) {
			t.Helper()
			f.clock.Advance(time.Second)
			now := f.clock.Now()
			err := f.store.Write(ctx, tenant, func(ctx context.Context, tx continuity.Tx) error {
				if err := tx.AppendLedger(ctx, keep, continuity.LedgerEntry{ID: uuid.Must(uuid.NewV7()), Event: "test.trim", At: now, Session: sid}); err != nil {
					return err
				}
				return tx.InsertStopExcerpt(ctx, keep, &continuity.StopExcerpt{ID: uuid.Must(uuid.NewV7()), Agent: agent, SessionID: sid, Text: "stop", At: now})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		write(tenantB, "s1")
		for range keep + 2 {
			write(tenantA, "s1")
		}
		counts := func(tenant string) (ledger, excerpts int) {
			t.Helper()
			err := f.store.Read(ctx, tenant, func(ctx context.Context, tx continuity.Tx) error {
				es, err := tx.Ledger(ctx, uuid.Nil, 100)
				if err != nil {
					return err
				}
				xs, err := tx.StopExcerpts(ctx, agent, "s1")
				ledger, excerpts = len(es), len(xs)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			return ledger, excerpts
		}
		if l, x := counts(tenantA); l != keep || x != keep {
			t.Fatalf("tenant A kept %d ledger lines and %d excerpts, want %d each", l, x, keep)
		}
		if l, x := counts(tenantB); l != 1 || x != 1 {
			t.Fatalf("tenant B kept %d ledger lines and %d excerpts after A's trims, want 1 each", l, x)
		}
	})
}

// isTable tells the tables of runtimeGrants from its functions.
func isTable(name string) bool { return !strings.Contains(name, "(") }
