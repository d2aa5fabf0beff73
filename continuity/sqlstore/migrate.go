package sqlstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/batonhq/baton/continuity"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
}

// sql reads the migration's text. loadMigrations does not: a process whose
// schema is current reads only the names.
func (m migration) sql() (string, error) {
	b, err := migrationFS.ReadFile("migrations/" + m.name)
	return string(b), err
}

// pgBlock and sqliteBlock are compiled on first use: a hook process whose
// schema is current expands no migration. A block between
// "-- postgres:begin" and "-- postgres:end" is for Postgres only; one
// between "-- sqlite:begin" and "-- sqlite:end" for SQLite only.
var (
	pgBlock     = sync.OnceValue(func() *regexp.Regexp { return dialectBlock("postgres") })
	sqliteBlock = sync.OnceValue(func() *regexp.Regexp { return dialectBlock("sqlite") })
)

func dialectBlock(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)-- ` + name + `:begin\n(.*?)-- ` + name + `:end\n?`)
}

// expand renders a migration for one dialect.
func expand(src string, postgres bool) string {
	repl := map[string]string{
		"{{uuid}}": "TEXT", "{{time}}": "TIMESTAMP", "{{json}}": "TEXT", "{{bool}}": "BOOLEAN",
	}
	if postgres {
		repl = map[string]string{
			"{{uuid}}": "UUID", "{{time}}": "TIMESTAMPTZ", "{{json}}": "JSONB", "{{bool}}": "BOOLEAN",
		}
		src = pgBlock().ReplaceAllString(src, "$1")
		src = sqliteBlock().ReplaceAllString(src, "")
	} else {
		src = pgBlock().ReplaceAllString(src, "")
		src = sqliteBlock().ReplaceAllString(src, "$1")
	}
	for k, v := range repl {
		src = strings.ReplaceAll(src, k, v)
	}
	return src
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			return nil, fmt.Errorf("migration %s: name must be NNN_name.sql", e.Name())
		}
		v, err := strconv.Atoi(prefix)
		if err != nil {
			return nil, fmt.Errorf("migration %s: %w", e.Name(), err)
		}
		out = append(out, migration{version: v, name: e.Name()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies every migration not yet applied, each in its own
// transaction. Concurrent openers (several hook processes, parallel tests)
// serialize on an advisory lock on Postgres and on the immediate
// transaction on SQLite. A store that records a migration this build does
// not know was migrated by a newer baton: it is refused (conflict) before
// anything is applied, since this build's writes would not keep what the
// newer schema expects.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	// Every hook process opens the store: when the schema is already current,
	// a plain read says so without taking the write lock its siblings need.
	current, newer := s.schemaCurrent(ctx, ms)
	if newer != "" {
		return &continuity.Error{Code: continuity.CodeConflict, Message: fmt.Sprintf("the schema holds migration %q, which this build of baton does not know: a newer baton migrated the store; run that one, or upgrade this one", newer)}
	}
	if current {
		return nil
	}
	for _, m := range ms {
		err := s.retry(ctx, func() error {
			tx, err := s.write.DB.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			if s.postgres {
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7301000001)`); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS baton_schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)`); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRowContext(ctx, s.rebind(`SELECT count(*) FROM baton_schema_migrations WHERE version = ?`), m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return tx.Commit()
			}
			src, err := m.sql()
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, expand(src, s.postgres)); err != nil {
				// Named, so that a schema baton did not make (a table of
				// that name already there) says which step it stopped at.
				var ce *continuity.Error
				errors.As(translate(err), &ce)
				return &continuity.Error{Code: ce.Code, Message: fmt.Sprintf("migration %s could not be applied: %s", m.name, ce.Message), Err: err}
			}
			if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO baton_schema_migrations (version, name) VALUES (?, ?)`), m.version, m.name); err != nil {
				return err
			}
			return tx.Commit()
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// schemaCurrent reports whether every migration is recorded as applied,
// and the name of a recorded migration ms does not hold ("" when none). Any
// error (a fresh database has no migrations table) means "not known to be
// current", and migrate takes the locked path. It reads on the write pool's
// connection, outside a transaction (no lock is taken): a hook process whose
// event only writes then opens one SQLite connection, not two.
func (s *Store) schemaCurrent(ctx context.Context, ms []migration) (current bool, newer string) {
	rows, err := s.write.DB.QueryContext(ctx, `SELECT version, name FROM baton_schema_migrations ORDER BY version`)
	if err != nil {
		return false, ""
	}
	defer rows.Close()
	known := make(map[int]bool, len(ms))
	for _, m := range ms {
		known[m.version] = true
	}
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		var name string
		if rows.Scan(&v, &name) != nil {
			return false, ""
		}
		if !known[v] && newer == "" {
			newer = name
		}
		applied[v] = true
	}
	if rows.Err() != nil {
		return false, ""
	}
	for _, m := range ms {
		if !applied[m.version] {
			return false, newer
		}
	}
	return true, newer
}

func (s *Store) rebind(q string) string {
	if !s.postgres {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
