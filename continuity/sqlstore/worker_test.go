package sqlstore_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
)

// TestPostgresDiscoveryFunctionsAreNotPublic: the discovery functions see
// across tenants under their owner's rights, so only the runtime role's
// grants (which storetest asserts) may call the two, and nobody but their
// owner the helper they share.
func TestPostgresDiscoveryFunctionsAreNotPublic(t *testing.T) {
	names := functionsNotPublic(t, `baton\_%`)
	names = slices.DeleteFunc(names, func(n string) bool {
		return strings.HasPrefix(n, "baton_trim_") || strings.HasPrefix(n, "baton_prune_") || strings.HasPrefix(n, "baton_ledger_") ||
			n == "baton_erase_batch" || n == "baton_touch_live"
	})
	if !slices.Equal(names, []string{"baton_closer_due", "baton_discovery_begin", "baton_lapsed", "baton_retention_due"}) {
		t.Fatalf("discovery functions = %v", names)
	}
}

// functionsNotPublic returns the names of a fresh store's functions LIKE
// the pattern, in order, failing t for each PUBLIC may execute.
func functionsNotPublic(t *testing.T, like string) []string {
	t.Helper()
	base := sqltest.PostgresBase(t)
	_, dsn := sqltest.PostgresStore(t, base)
	db := sqltest.PostgresDB(t, dsn)
	rows, err := db.Query(`SELECT p.proname, has_function_privilege('public', p.oid, 'EXECUTE')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = current_schema() AND p.proname LIKE $1 ORDER BY 1`, like)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		var public bool
		if err := rows.Scan(&name, &public); err != nil {
			t.Fatal(err)
		}
		if public {
			t.Errorf("PUBLIC may execute %s", name)
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// TestPostgresDiscoveryWithAnOwnerSubjectToRowLevelSecurity runs baton as
// a login role that owns its schema and is no superuser: FORCE row-level
// security binds it on every request path, and the discovery functions
// still see every tenant, through the policy migration 006 gives that role
// alone while discovery is on.
func TestPostgresDiscoveryWithAnOwnerSubjectToRowLevelSecurity(t *testing.T) {
	base := sqltest.PostgresBase(t)
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, ownerSchema(t, base))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	svc := continuity.New(st)
	for _, tenant := range []string{"tenant-a", "tenant-b"} {
		if _, err := svc.Open(ctx, tenant, continuity.OpenParams{Agent: "claude-code", SessionID: "s1", Source: continuity.SourceStartup}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Close(ctx, tenant, continuity.CloseParams{Agent: "claude-code", SessionID: "s1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Open(ctx, tenant, continuity.OpenParams{Agent: "claude-code", SessionID: "s2", Source: continuity.SourceStartup}); err != nil {
			t.Fatal(err)
		}
	}
	later := time.Now().Add(48 * time.Hour)
	for name, discover := range map[string]func() ([]continuity.RowRef, error){
		"Lapsed":    func() ([]continuity.RowRef, error) { return st.Lapsed(ctx, later, 10) },
		"CloserDue": func() ([]continuity.RowRef, error) { return st.CloserDue(ctx, later, 10) },
	} {
		refs, err := discover()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var tenants []string
		for _, r := range refs {
			tenants = append(tenants, r.Tenant)
		}
		slices.Sort(tenants)
		if !slices.Equal(tenants, []string{"tenant-a", "tenant-b"}) {
			t.Errorf("%s as an owner bound by row-level security found %v, want one row of each tenant", name, tenants)
		}
	}
	// The request path is still confined: with no tenant set the owner
	// sees nothing, and discovery has turned itself off again.
	var u2 storetest.Unscoped = st
	if n, err := u2.UnscopedCount(ctx, "agent_sessions"); err != nil || n != 0 {
		t.Fatalf("an unscoped count as the owner saw %d rows (%v), want 0", n, err)
	}
}

// ownerSchema creates a login role that is no superuser and has no
// BYPASSRLS, and a fresh schema it owns, both dropped when the test ends,
// and returns the DSN that connects as that role to that schema: FORCE
// row-level security binds such an owner, as it binds the runtime role.
func ownerSchema(t *testing.T, base string) string {
	t.Helper()
	ctx := context.Background()
	admin := sqltest.PostgresDB(t, base) // closed after the cleanup below, which needs it
	role, schema := "bt_owner_"+sqltest.RandomHex(4), "bt_"+sqltest.RandomHex(6)
	for _, stmt := range []string{
		"CREATE ROLE " + role + " LOGIN NOSUPERUSER NOBYPASSRLS",
		"CREATE SCHEMA " + schema + " AUTHORIZATION " + role,
	} {
		if _, err := admin.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, stmt := range []string{"DROP SCHEMA " + schema + " CASCADE", "DROP OWNED BY " + role, "DROP ROLE " + role} {
			if _, err := admin.ExecContext(ctx, stmt); err != nil {
				t.Errorf("%s: %v", stmt, err)
			}
		}
	})
	u, err := url.Parse(sqltest.WithSearchPath(t, base, schema))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// TestPostgresRuntimeMemberLogin runs baton as a login role that is only a
// member of baton_runtime (no superuser, no BYPASSRLS, owner of nothing),
// the way migration 002 recommends running it without privilege, on a
// schema another user migrated: Open succeeds, and the API's scenarios
// pass through it, a live heartbeat's one statement (migration 010's
// baton_touch_live, which then enters no role) included.
func TestPostgresRuntimeMemberLogin(t *testing.T) {
	base := sqltest.PostgresBase(t)
	ctx := context.Background()
	admin := sqltest.PostgresDB(t, base)
	role := "bt_member_" + sqltest.RandomHex(4)
	if _, err := admin.ExecContext(ctx, "CREATE ROLE "+role+" LOGIN NOSUPERUSER NOBYPASSRLS IN ROLE "+sqlstore.RuntimeRole); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(ctx, "DROP ROLE "+role); err != nil {
			t.Errorf("drop role: %v", err)
		}
	})
	member := storetest.Harness{New: func(t *testing.T) (continuity.Store, string) {
		_, dsn := sqltest.PostgresStore(t, base) // migrated by the base user
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.User(role)
		st, err := sqlstore.Open(ctx, u.String())
		if err != nil {
			t.Fatalf("open as a member of %s: %v", sqlstore.RuntimeRole, err)
		}
		t.Cleanup(func() { st.Close() })
		return st, u.String()
	}}
	storetest.RunScenarios(t, storetest.LocalScenarios(member))

	st, _ := member.New(t)
	svc := continuity.New(st)
	if _, err := svc.Open(ctx, "tenant-a", continuity.OpenParams{Agent: "claude-code", SessionID: "s1", Source: continuity.SourceStartup}); err != nil {
		t.Fatal(err)
	}
	excerpt := "done"
	for i := 1; i <= 3; i++ {
		hb, err := svc.Heartbeat(ctx, "tenant-a", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "s1", Stop: true, LastMessageExcerpt: &excerpt})
		if err != nil || hb.Resurrected {
			t.Fatalf("heartbeat %d as a member: %+v, %v; want a live heartbeat", i, hb, err)
		}
	}
	v, err := svc.Session(ctx, "tenant-a", "claude-code", "s1")
	if err != nil || v.StopCount != 3 {
		t.Fatalf("session after three Stops as a member: %+v, %v; want 3 Stops", v, err)
	}
}
