package sqlstore

import (
	"context"
	"strings"

	"github.com/batonhq/baton/continuity"
	"github.com/uptrace/bun"
)

// AdminRole is the Postgres role migration 008 grants erasure to: a login
// that erases tenants (`baton forget`, the admin HTTP route) is a member of
// it, or owns the schema. The runtime role is not, so no request path can
// erase.
const AdminRole = "baton_admin"

// tenantTables lists, in name order, the tables of the store's schema that
// carry a user_id column: what a tenant owns. It is read from the catalog,
// so a table a later migration adds is erased and counted without a list
// to keep in step (Postgres's baton_erase_batch reads its catalog alike).
func (s *Store) tenantTables(ctx context.Context, db bun.IDB) ([]string, error) {
	q := `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND p.name = 'user_id' ORDER BY 1`
	if s.postgres {
		q = `SELECT c.relname::text FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_attribute a ON a.attrelid = c.oid
			WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attname = 'user_id' AND NOT a.attisdropped
			ORDER BY 1`
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// quoteIdent quotes a catalog name for SQLite.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// EraseBatch implements continuity.Store. On Postgres it takes the
// tenant's write lock (tenantWriteLock) exclusively, then calls
// baton_erase_batch as the connecting user, never as the runtime role:
// the function is granted to AdminRole and to no one else, so a login that
// is only a member of the runtime role is refused (forbidden). A call of
// the function deletes from one table only, the first that holds rows of
// the tenant; the batch calls it again, with what is left of its limit,
// until the limit is spent or a call finds no row, so one transaction
// deletes the tenant's last rows of every table and sees it empty.
func (s *Store) EraseBatch(ctx context.Context, tenant string, limit int) (int, error) {
	if err := continuity.ValidateTenant(tenant); err != nil {
		return 0, err
	}
	if limit < 1 {
		return 0, continuity.Invalid("limit", "must be at least 1")
	}
	var n int
	err := s.retry(ctx, func() error {
		n = 0
		return s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if s.postgres {
				// The tenant's write lock, exclusively: the batch waits
				// for the tenant's open writes to commit and holds its
				// new ones back until it commits, so a batch that finds
				// no row is still true at its commit. Without it a write
				// open when the last batch began committed before that
				// batch did, and the erase reported the tenant empty
				// beside the write's rows.
				if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock("+tenantWriteLock+")", tenant); err != nil {
					return err
				}
				for n < limit {
					var d int
					if err := tx.QueryRowContext(ctx, "SELECT baton_erase_batch(?, ?)", tenant, limit-n).Scan(&d); err != nil || d == 0 {
						return err
					}
					n += d
				}
				return nil
			}
			tables, err := s.tenantTables(ctx, tx)
			if err != nil {
				return err
			}
			for _, table := range tables {
				q := "DELETE FROM " + quoteIdent(table) + " WHERE rowid IN (SELECT rowid FROM " + quoteIdent(table) + " WHERE user_id = ? LIMIT ?)"
				res, err := tx.ExecContext(ctx, q, tenant, limit-n)
				if err != nil {
					return err
				}
				d, err := res.RowsAffected()
				if err != nil {
					return err
				}
				if n += int(d); n == limit {
					return nil
				}
			}
			return nil
		})
	})
	if continuity.ErrorCode(err) == continuity.CodeForbidden {
		return 0, &continuity.Error{Code: continuity.CodeForbidden,
			Message: "erasing a tenant needs the " + AdminRole + " grant, which the runtime role " + RuntimeRole + " lacks", Err: err}
	}
	return n, err
}

// TenantRows counts the tenant's rows in every table that carries a
// user_id, by table name, reading the tables directly rather than through
// a Tx: the raw count storetest's erase cases compare. Tables where the
// tenant has no row count 0.
func (s *Store) TenantRows(ctx context.Context, tenant string) (map[string]int, error) {
	out := map[string]int{}
	err := s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if s.postgres {
			// As the connecting user: a schema owner that is no superuser
			// still meets FORCE row-level security, which reads this.
			if _, err := tx.ExecContext(ctx, "SELECT set_config('baton.tenant', ?, true)", tenant); err != nil {
				return err
			}
		}
		tables, err := s.tenantTables(ctx, tx)
		if err != nil {
			return err
		}
		for _, table := range tables {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteIdent(table)+" WHERE user_id = ?", tenant).Scan(&n); err != nil {
				return err
			}
			out[table] = n
		}
		return nil
	})
	return out, translate(err)
}
