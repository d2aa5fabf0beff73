package sqlstore

import (
	"context"
	"errors"
	"slices"

	"github.com/batonhq/baton/continuity"
	"github.com/uptrace/bun"
)

// RuntimeGrants returns what the runtime role may do, directly or through
// PUBLIC, to each table and function of the store's schema (migration 002
// decides it): table privileges keyed by table name, EXECUTE keyed by
// "name(argument types)", each list sorted. storetest asserts the exact set.
// On SQLite, which has no roles, it returns nil.
func (s *Store) RuntimeGrants(ctx context.Context) (map[string][]string, error) {
	if !s.postgres {
		return nil, nil
	}
	rows, err := s.read.QueryContext(ctx, `
		SELECT c.relname::text, p.privilege
		FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		CROSS JOIN unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) AS p(privilege)
		WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm')
		  AND has_table_privilege(?, c.oid, p.privilege)
		UNION ALL
		SELECT f.proname || '(' || oidvectortypes(f.proargtypes) || ')', 'EXECUTE'
		FROM pg_proc f
		JOIN pg_namespace n ON n.oid = f.pronamespace
		WHERE n.nspname = current_schema() AND has_function_privilege(?, f.oid, 'EXECUTE')`,
		RuntimeRole, RuntimeRole)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var object, privilege string
		if err := rows.Scan(&object, &privilege); err != nil {
			return nil, translate(err)
		}
		out[object] = append(out[object], privilege)
	}
	for _, ps := range out {
		slices.Sort(ps)
	}
	return out, translate(rows.Err())
}

// errTried ends a TryAsRuntime transaction so that it always rolls back.
var errTried = errors.New("tried; rolling back")

// TryAsRuntime runs one statement of the privilege's kind (SELECT, INSERT,
// UPDATE or DELETE; or ERASE, one call of baton_erase_batch) over the
// tenant's rows of a baton table as the runtime role, then rolls it back
// whatever it did. It returns forbidden when the role lacks the privilege,
// so storetest can prove by behaviour what the grants say. The INSERT copies no row (WHERE false): the privilege is
// checked before any row is.
func (s *Store) TryAsRuntime(ctx context.Context, tenant, table, privilege string) error {
	if !s.postgres {
		return continuity.Errorf(continuity.CodeInvalid, "SQLite has no roles")
	}
	if !batonTable(table) {
		return continuity.Invalid("table", "is not a baton table")
	}
	var stmt string
	var args []any
	switch privilege {
	case "SELECT":
		stmt, args = "SELECT count(*) FROM "+table+" WHERE user_id = ?", []any{tenant}
	case "INSERT":
		stmt = "INSERT INTO " + table + " SELECT * FROM " + table + " WHERE false"
	case "UPDATE":
		stmt, args = "UPDATE "+table+" SET user_id = user_id WHERE user_id = ?", []any{tenant}
	case "DELETE":
		stmt, args = "DELETE FROM "+table+" WHERE user_id = ?", []any{tenant}
	case "ERASE":
		// The table is not the function's to choose: it erases the
		// tenant's rows wherever they are.
		stmt, args = "SELECT baton_erase_batch(?, 1)", []any{tenant}
	default:
		return continuity.Invalid("privilege", "must be SELECT, INSERT, UPDATE, DELETE or ERASE")
	}
	err := s.write.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL ROLE "+RuntimeRole); err != nil {
			// Not the answer to the question asked: never forbidden.
			return &continuity.Error{Code: continuity.CodeInternal, Message: "cannot enter the runtime role " + RuntimeRole, Err: err}
		}
		if _, err := tx.ExecContext(ctx, "SELECT set_config('baton.tenant', ?, true)", tenant); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
			return err
		}
		return errTried
	})
	if errors.Is(err, errTried) {
		return nil
	}
	return translate(err)
}
