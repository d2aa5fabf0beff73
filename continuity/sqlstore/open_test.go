package sqlstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
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
