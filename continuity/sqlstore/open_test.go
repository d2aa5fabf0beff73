package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// TestOpenRefusesWhatIsNoSQLitePath opens DSNs that are neither a Postgres
// URL nor a SQLite file path: each is invalid naming dsn, and nothing is
// created where it points.
func TestOpenRefusesWhatIsNoSQLitePath(t *testing.T) {
	for _, dsn := range []string{
		"postgresql:/host/db", // one slash: no URL, and no directory "postgresql:"
		"mysql://host/db",
		"Postgres://host/db", // pgx takes the scheme in lower case only
		"file:///tmp/baton.db",
		"baton.db?mode=ro",
		"baton.db#x",
		"dir/baton\x00.db",
		// libpq's key=value strings: a file named so would keep the
		// password in the working directory's listing.
		"host=127.0.0.1 user=postgres password=s3cret dbname=baton",
		" dbname=baton",
		"password = s3cret host=db",
	} {
		t.Run(dsn, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			_, err := sqlstore.Open(context.Background(), dsn)
			var ce *continuity.Error
			if !errors.As(err, &ce) || ce.Code != continuity.CodeInvalid || len(ce.Fields) != 1 || ce.Fields["dsn"] == "" {
				t.Fatalf("Open(%q) = %v, want invalid naming dsn", dsn, err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("Open(%q) left %v in the working directory", dsn, ents)
			}
		})
	}
}

// TestOpenTakesSQLitePaths: what only resembles a URL stays a path. A
// Windows drive-letter path and a UNC path are paths too (off Windows they
// are odd file names in the working directory, which is all the DSN check
// sees of them).
func TestOpenTakesSQLitePaths(t *testing.T) {
	paths := []string{"baton.db", "./pg:x.db", "c:baton.db", "sub/dir/baton.db", "postgres//x.db"}
	if runtime.GOOS != "windows" {
		paths = append(paths, `C:\Users\me\.baton\baton.db`, `C:/Users/me/.baton/baton.db`, `\\server\share\baton.db`)
	}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			st, err := sqlstore.Open(context.Background(), path)
			if err != nil {
				t.Fatalf("Open(%q): %v", path, err)
			}
			st.Close()
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("Open(%q) made no file there: %v", path, err)
			}
		})
	}
}

// TestOpenCreatesNoDirectory: a SQLite path in a directory that does not
// exist, at any depth, relative or absolute, is not_found, and nothing is
// created: a mistyped path must not make a tree of directories.
func TestOpenCreatesNoDirectory(t *testing.T) {
	for _, path := range []string{
		filepath.Join("missing", "baton.db"),
		filepath.Join("a", "b", "c", "baton.db"),
		"missing/sub/../baton.db",
		"abs",
	} {
		t.Run(path, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			if path == "abs" {
				path = filepath.Join(dir, "typo", "baton.db")
			}
			st, err := sqlstore.Open(context.Background(), path)
			if err == nil {
				st.Close()
			}
			if continuity.ErrorCode(err) != continuity.CodeNotFound || !strings.Contains(err.Error(), "directory does not exist") {
				t.Fatalf("Open(%q) = %v, want not_found naming the directory", path, err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("Open(%q) left %v in the working directory", path, ents)
			}
		})
	}
}

// TestOpenCreatesAPrivateFile: a new SQLite store and its WAL are readable
// by their owner only; an existing file keeps the mode it has.
func TestOpenCreatesAPrivateFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix file modes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	st, err := sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]os.FileMode{path: 0o600, path + "-wal": 0o600} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Base(name), fi.Mode(), want)
		}
	}
	st.Close()

	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	st, err = sqlstore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode() != 0o640 {
		t.Fatalf("reopened: %v %v, want mode 0640 kept", fi.Mode(), err)
	}
}

// TestOpenRefusesANewerSchema: a store that records a migration this build
// does not know was migrated by a newer baton. Open refuses it (conflict,
// naming the migration) before it applies anything, on SQLite and on
// Postgres; a store whose newest migration is forgotten is migrated again.
func TestOpenRefusesANewerSchema(t *testing.T) {
	cases := []struct {
		name string
		// change edits the migrations table of a current store.
		change string
		code   continuity.Code // "" means Open succeeds
		want   string
	}{
		{"a migration of a newer baton", `INSERT INTO baton_schema_migrations (version, name) VALUES (999, '999_future.sql')`,
			continuity.CodeConflict, `the schema holds migration "999_future.sql", which this build of baton does not know`},
		{"a newer baton's migration where this one has none", `INSERT INTO baton_schema_migrations (version, name) VALUES (7, '007_elsewhere.sql')`,
			continuity.CodeConflict, `"007_elsewhere.sql"`},
		// A store an older baton left, as far as the records go: 016 only
		// replaces a function, so applying it again changes nothing.
		{"an older schema", `DELETE FROM baton_schema_migrations WHERE name = '016_erase_concurrent_update.sql'`, "", ""},
	}
	backends := []struct {
		name string
		// store makes a current store and returns its DSN and a handle on
		// its database.
		store func(t *testing.T) (string, *sql.DB)
	}{
		{"sqlite", func(t *testing.T) (string, *sql.DB) {
			dsn := filepath.Join(t.TempDir(), "baton.db")
			st, err := sqlstore.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			db, err := sql.Open(sqliteshim.ShimName, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			return dsn, db
		}},
		{"postgres", func(t *testing.T) (string, *sql.DB) {
			_, dsn := sqltest.PostgresStore(t, sqltest.PostgresBase(t))
			return dsn, sqltest.PostgresDB(t, dsn)
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, tc := range cases {
				dsn, db := b.store(t)
				if _, err := db.Exec(tc.change); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				count := func() (n int) {
					if err := db.QueryRow(`SELECT count(*) FROM baton_schema_migrations`).Scan(&n); err != nil {
						t.Fatal(err)
					}
					return n
				}
				before := count()
				st, err := sqlstore.Open(context.Background(), dsn)
				if tc.code == "" {
					if err != nil {
						t.Errorf("%s: Open: %v", tc.name, err)
						continue
					}
					st.Close()
					if count() != before+1 {
						t.Errorf("%s: the forgotten migration was not applied again", tc.name)
					}
					continue
				}
				if err == nil {
					st.Close()
					t.Errorf("%s: Open succeeded", tc.name)
					continue
				}
				if got := continuity.ErrorCode(err); got != tc.code || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %q (%s), want %s saying %q", tc.name, err, got, tc.code, tc.want)
				}
				if count() != before {
					t.Errorf("%s: Open changed the migrations table of a refused store", tc.name)
				}
			}
		})
	}
}

// TestOpenSaysWhatTheFileIs: a SQLite file that is not a database, or a
// database of another program's tables, is refused saying so (the
// migration it stopped at), not as a bare "database error".
func TestOpenSaysWhatTheFileIs(t *testing.T) {
	cases := []struct {
		name string
		make func(path string) error
		want string
	}{
		{"text", func(path string) error {
			return os.WriteFile(path, []byte("not a database, but long enough to be read as one's header\n"), 0o600)
		}, "internal: the file is not a SQLite database"},
		{"another program's tables", func(path string) error {
			db, err := sql.Open(sqliteshim.ShimName, path)
			if err != nil {
				return err
			}
			defer db.Close()
			_, err = db.Exec(`CREATE TABLE agent_sessions (x INTEGER)`)
			return err
		}, "internal: migration 001_init.sql could not be applied"},
	}
	for _, tc := range cases {
		path := filepath.Join(t.TempDir(), "baton.db")
		if err := tc.make(path); err != nil {
			t.Fatal(err)
		}
		st, err := sqlstore.Open(context.Background(), path)
		if err == nil {
			st.Close()
			t.Errorf("%s: Open succeeded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.name, err, tc.want)
		}
	}
}
