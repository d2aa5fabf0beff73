package sqlstore_test

import (
	"context"
	"database/sql"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

func open(ctx context.Context, dsn string) (continuity.Store, error) { return sqlstore.Open(ctx, dsn) }

func TestMain(m *testing.M) { storetest.Main(m, open) }

func TestSQLite(t *testing.T) { storetest.Run(t, sqltest.SQLite) }

// TestSQLiteOneConnection runs the suite over stores that read and write
// on one connection, as every baton command but serve opens them: reads
// stay read-only and see what the process wrote.
func TestSQLiteOneConnection(t *testing.T) {
	storetest.Run(t, sqltest.SQLiteWith(sqlstore.OneConnection()))
}

// TestPostgres runs the suite when BATON_TEST_POSTGRES_DSN names a database;
// each test gets its own schema. CI sets the variable and fails when the
// database cannot be reached.
func TestPostgres(t *testing.T) { storetest.Run(t, sqltest.Postgres(t)) }

// TestPostgresOpenSaysWhatIsWrong opens DSNs that cannot work against the
// real server: the error names what is wrong, with a code, and never the
// password (the server trusts every login, so the password is ignored).
func TestPostgresOpenSaysWhatIsWrong(t *testing.T) {
	base := sqltest.PostgresBase(t)
	const password = "s3cret-pw"
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), password)
	withPassword := u.String()
	database := "baton_missing_" + sqltest.RandomHex(4)
	u.Path = "/" + database
	noDatabase := u.String()
	schema := "bt_missing_" + sqltest.RandomHex(4)
	u, _ = url.Parse(withPassword)
	u.Host = "127.0.0.1:1"
	unreachable := u.String()
	cases := []struct {
		name, dsn string
		code      continuity.Code
		want      string
	}{
		{"database missing", noDatabase, continuity.CodeNotFound, `not_found: the Postgres database "` + database + `" does not exist at `},
		{"schema missing", sqltest.WithSearchPath(t, withPassword, schema), continuity.CodeNotFound, `not_found: the search_path schema "` + schema + `" does not exist in Postgres database `},
		{"server unreachable", unreachable, continuity.CodeInternal, "internal: cannot reach the Postgres server at 127.0.0.1:1"},
	}
	for _, tc := range cases {
		st, err := sqlstore.Open(context.Background(), tc.dsn)
		if err == nil {
			st.Close()
			t.Errorf("%s: Open succeeded", tc.name)
			continue
		}
		if got := continuity.ErrorCode(err); got != tc.code || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %q (%s), want %s prefixed %q", tc.name, err, got, tc.code, tc.want)
		}
		if strings.Contains(err.Error(), password) {
			t.Errorf("%s: the message carries the password: %q", tc.name, err)
		}
	}
}

// TestPostgresTrimFunctionsAreNotPublic: the retention functions delete
// under their owner's rights, so only the grants of migration 002 (the
// runtime role's, which storetest asserts) may call them.
func TestPostgresTrimFunctionsAreNotPublic(t *testing.T) {
	names := functionsNotPublic(t, `baton\_trim\_%`)
	if strings.Join(names, ",") != "baton_trim_ledger,baton_trim_stop_excerpts,baton_trim_tenant" {
		t.Fatalf("trim functions = %v", names)
	}
}

// TestPostgresFunctionSettings: every function of the migrations pins its
// search_path to the schema it was made in, so a caller's cannot redirect
// it, and the heartbeat's keeps the plan setting of migration 013. A
// migration that replaces a function (CREATE OR REPLACE resets its
// settings, keeping its grants) must set them again, as 016 and 018 do;
// PUBLIC still may not run the heartbeat's.
func TestPostgresFunctionSettings(t *testing.T) {
	if names := functionsNotPublic(t, `baton\_touch\_live`); len(names) != 1 {
		t.Fatalf("touch functions = %v", names)
	}
	_, dsn := sqltest.PostgresStore(t, sqltest.PostgresBase(t))
	rows, err := sqltest.PostgresDB(t, dsn).Query(`SELECT p.proname, current_schema(), array_to_string(p.proconfig, ';')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = current_schema() AND p.proname LIKE 'baton\_%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var name, schema string
		var config sql.NullString
		if err := rows.Scan(&name, &schema, &config); err != nil {
			t.Fatal(err)
		}
		n++
		settings := strings.Split(config.String, ";")
		if !slices.Contains(settings, "search_path="+schema+", pg_temp") {
			t.Errorf("%s's settings are %q: its search_path is not pinned to %s", name, config.String, schema)
		}
		if name == "baton_touch_live" && !slices.Contains(settings, "enable_seqscan=off") {
			t.Errorf("baton_touch_live's settings are %q, without migration 013's enable_seqscan=off", config.String)
		}
	}
	if err := rows.Err(); err != nil || n < 10 {
		t.Fatalf("%d functions read (%v)", n, err)
	}
}

// The suite's optional capabilities: a mismatch would skip their cases.
var _ storetest.Grants = (*sqlstore.Store)(nil)

// TestExportAcrossBackends moves an export from SQLite to Postgres and back.
func TestExportAcrossBackends(t *testing.T) {
	storetest.RunAcross(t, sqltest.SQLite, sqltest.Postgres(t))
}
