package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/jackc/pgx/v5/pgconn"
)

// connectPostgres reaches the database cfg names and checks that its
// search_path names a schema that exists, so that Open says what is wrong
// before the migrations would fail on it. It returns how far the database
// server's clock is ahead of host (behind, when negative), read in the same
// statement: the server's clock_timestamp() against the midpoint of host's
// readings either side of the round trip (see Store.Now).
func connectPostgres(ctx context.Context, db *sql.DB, cfg *pgconn.Config, host func() time.Time) (time.Duration, error) {
	if err := db.PingContext(ctx); err != nil {
		return 0, connectError(err, cfg)
	}
	// current_schema() is NULL when no schema of the search_path exists:
	// the migrations would have nowhere to create their tables.
	var schema sql.NullString
	var searchPath string
	var server time.Time
	sent := host()
	if err := db.QueryRowContext(ctx, "SELECT current_schema(), current_setting('search_path'), clock_timestamp()").Scan(&schema, &searchPath, &server); err != nil {
		return 0, connectError(err, cfg)
	}
	got := host()
	if !schema.Valid {
		return 0, schemaMissing(cfg, searchPath, nil)
	}
	return server.Sub(sent.Add(got.Sub(sent) / 2)), nil
}

// connectError says what stopped a connection to Postgres: the database is
// missing, the schema is missing, authentication failed, the role may not
// connect, the server is unreachable. The message is built from the host,
// port, database and user of the parsed DSN and never from the driver's
// text, which may echo the connection string; the password never appears.
func connectError(err error, cfg *pgconn.Config) error {
	where := net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	fail := func(code continuity.Code, format string, args ...any) error {
		return &continuity.Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
	}
	if errors.Is(err, context.Canceled) {
		return fail(continuity.CodeInternal, "the request was cancelled while connecting to Postgres at %s", where)
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "3D000": // invalid_catalog_name
			return fail(continuity.CodeNotFound, "the Postgres database %q does not exist at %s", cfg.Database, where)
		case "3F000": // invalid_schema_name
			return schemaMissing(cfg, cfg.RuntimeParams["search_path"], err)
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fail(continuity.CodeUnauthorized, "Postgres authentication failed for user %q at %s", cfg.User, where)
		case "42501": // insufficient_privilege: no CONNECT on the database
			return fail(continuity.CodeForbidden, "Postgres user %q may not connect to database %q at %s", cfg.User, cfg.Database, where)
		}
		return fail(continuity.CodeInternal, "Postgres at %s refused the connection (SQLSTATE %s)", where, pg.Code)
	}
	var nerr net.Error
	if errors.As(err, &nerr) || errors.Is(err, context.DeadlineExceeded) {
		return fail(continuity.CodeInternal, "cannot reach the Postgres server at %s", where)
	}
	return fail(continuity.CodeInternal, "cannot connect to Postgres at %s", where)
}

// schemaMissing reports a search_path that names no existing schema.
func schemaMissing(cfg *pgconn.Config, searchPath string, cause error) error {
	return &continuity.Error{Code: continuity.CodeNotFound,
		Message: fmt.Sprintf("the search_path schema %q does not exist in Postgres database %q", searchPath, cfg.Database), Err: cause}
}
