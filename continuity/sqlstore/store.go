package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// RuntimeRole is the non-superuser Postgres role the migrations create and
// the store enters when the connecting user would bypass row-level security.
const RuntimeRole = "baton_runtime"

// Store is a continuity.Store on SQLite or Postgres.
type Store struct {
	postgres bool
	write    *bun.DB // SQLite: immediate transactions; Postgres: the one pool
	read     *bun.DB // SQLite: deferred transactions, query-only; Postgres: same as write
	// enterRole says the connecting Postgres user is privileged (superuser
	// or BYPASSRLS), so every transaction runs SET LOCAL ROLE.
	enterRole bool
	retries   int
	// busy is SQLite's busy timeout: how long one attempt may wait on
	// another process's lock.
	busy    time.Duration
	touches touches // Postgres: TouchLive's batches
	// path is a SQLite store's file (or ":memory:"): a store of one
	// connection opens a second for Snapshot.
	path string
	// closed says Close ran: Snapshot then opens no connection.
	closed atomic.Bool
	// host is this process's clock (time.Now unless HostClock), and offset
	// what Now adds to it: on Postgres, how far the database's clock was
	// ahead of host's when Open measured both (see Now).
	host   func() time.Time
	offset time.Duration
}

var _ continuity.Store = (*Store)(nil)

// IsPostgresDSN reports whether dsn names a Postgres database rather than a
// SQLite file.
func IsPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens the store named by dsn and runs the migrations: a
// postgres:// or postgresql:// URL opens Postgres, anything else is a SQLite
// file path. A new SQLite file is created readable by its owner only (0600
// on Unix; SQLite gives its -wal and -shm files the database's mode): the
// store holds what agents remember. Its directory is never created: a path
// in a directory that does not exist is not_found, so that a mistyped path
// makes no tree of directories (a caller that owns a default location, as
// the baton binary its home, creates that one). A path that is another URL
// (it holds "://"), or holds a NUL, '?' or '#', is invalid, and nothing is
// created.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	if strings.TrimSpace(dsn) == "" {
		return nil, continuity.Invalid("dsn", "is required")
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.host == nil {
		o.host = time.Now
	}
	var s *Store
	var err error
	if IsPostgresDSN(dsn) {
		s, err = openPostgres(ctx, dsn, o.host)
	} else {
		if err := checkSQLitePath(dsn); err != nil {
			return nil, err
		}
		busy := o.busyTimeout
		if busy == 0 {
			busy = DefaultBusyTimeout
		}
		s, err = openSQLite(dsn, o.oneConnection, busy)
	}
	if err != nil {
		return nil, err
	}
	s.host = o.host
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("sqlstore: migrate: %w", err)
	}
	if s.postgres {
		if err := s.detectPrivilege(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// maxPostgresConns bounds a store's Postgres connections.
const maxPostgresConns = 16

func openPostgres(ctx context.Context, dsn string, host func() time.Time) (*Store, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, continuity.Invalid("dsn", "is not a valid Postgres URL")
	}
	sqldb := stdlib.OpenDB(*cfg)
	// Every connection the pool may open stays open once idle: the
	// default keeps two, so a burst past them closed and reopened Postgres
	// backends (a process each) under load.
	sqldb.SetMaxOpenConns(maxPostgresConns)
	sqldb.SetMaxIdleConns(maxPostgresConns)
	offset, err := connectPostgres(ctx, sqldb, &cfg.Config, host)
	if err != nil {
		sqldb.Close()
		return nil, err
	}
	db := bun.NewDB(sqldb, pgdialect.New())
	return &Store{postgres: true, write: db, read: db, retries: 8, offset: offset}, nil
}

// sqliteDSN renders the connection string for the shim's driver: WAL, a
// busy timeout, and immediate transactions for the write pool; the read
// pool's connections are query-only, so a write inside Read fails as it does
// in Postgres's read-only transaction. query_only comes last: the pragmas
// before it may still set up a new database file.
func sqliteDSN(path string, write bool, busy time.Duration) string {
	ms := strconv.FormatInt(busy.Milliseconds(), 10)
	q := url.Values{}
	if sqliteshim.DriverName() == "sqlite" { // modernc.org/sqlite
		q.Add("_pragma", "busy_timeout("+ms+")")
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		if write {
			q.Set("_txlock", "immediate")
		} else {
			q.Add("_pragma", "query_only(1)")
		}
	} else { // mattn/go-sqlite3
		q.Set("_busy_timeout", ms)
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "NORMAL")
		if write {
			q.Set("_txlock", "immediate")
		} else {
			q.Set("_query_only", "1")
		}
	}
	return path + "?" + q.Encode()
}

// Option configures Open.
type Option func(*options)

type options struct {
	oneConnection bool
	busyTimeout   time.Duration
	host          func() time.Time
}

// DefaultBusyTimeout is how long a SQLite statement waits for another
// process's lock before it fails (and is retried).
const DefaultBusyTimeout = 10 * time.Second

// BusyTimeout makes a SQLite store's statements wait at most d (at least a
// millisecond) for another process's lock, instead of DefaultBusyTimeout:
// a process that must finish within a budget (a hook, which its harness
// kills at its timeout) waits a fraction of it, so that it can still say
// the database was locked. Postgres ignores it.
func BusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = max(d, time.Millisecond) }
}

// OneConnection makes a SQLite store use a single connection for reads and
// writes, for a short-lived process that makes a few calls and exits (a
// hook, a CLI command): it opens the database file once instead of twice.
// Read transactions then hold the write lock for their duration (other
// processes' writers wait out the busy timeout), and stay read-only: the
// connection is query-only while one runs. A long-running server should
// not use it. Postgres ignores it.
func OneConnection() Option { return func(o *options) { o.oneConnection = true } }

// HostClock replaces time.Now as this process's clock, the one Now corrects
// to the database's: a test's, to open the store as a host whose clock is
// off would.
func HostClock(now func() time.Time) Option { return func(o *options) { o.host = now } }

// checkSQLitePath refuses a dsn that cannot be a SQLite file path: one that
// starts like a URL or URI, with a scheme of two or more letters and a
// colon (a mistyped postgres:// URL would otherwise become a directory named
// "postgresql:"; a Windows drive letter is one letter), or a path with a
// byte the driver's connection string or the platform cannot carry. A
// relative path that truly starts so can be given as ./path.
func checkSQLitePath(path string) error {
	scheme, _, found := strings.Cut(path, ":")
	switch {
	case found && len(scheme) >= 2 && strings.TrimLeft(scheme, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") == "" && isLetter(scheme[0]):
		return continuity.Invalid("dsn", "is neither a postgres:// or postgresql:// URL nor a SQLite file path")
	case libpqKeywords(path):
		// Taken for a file name, the string (its password too) would
		// name a SQLite file in the working directory.
		return continuity.Invalid("dsn", "is a Postgres key=value string: give it as a postgres:// URL")
	case strings.ContainsAny(path, "\x00?#"):
		return continuity.Invalid("dsn", "is a SQLite file path with a NUL, '?' or '#' in it")
	}
	return nil
}

// libpqKeywords says whether dsn starts as a libpq key=value connection
// string does: one of its connection keywords, then =.
func libpqKeywords(dsn string) bool {
	key, _, found := strings.Cut(strings.TrimSpace(dsn), "=")
	return found && slices.Contains([]string{"host", "hostaddr", "port", "dbname", "user", "password", "passfile", "sslmode", "service", "connect_timeout"}, strings.TrimSpace(key))
}

// isLetter says whether c is an ASCII letter.
func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func openSQLite(path string, one bool, busy time.Duration) (*Store, error) {
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, fs.ErrNotExist) {
		return nil, &continuity.Error{Code: continuity.CodeNotFound,
			Message: "the SQLite file's directory does not exist (baton creates the file, not its directory)", Err: err}
	}
	if path != ":memory:" {
		// Created here, not by SQLite (0644 less the umask).
		f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
		if err != nil {
			return nil, &continuity.Error{Code: continuity.CodeInternal, Message: "cannot create or open the database file", Err: err}
		}
		f.Close()
	}
	w, err := openSQLiteDB(path, true, busy)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	if one {
		return &Store{write: w, read: w, retries: 8, busy: busy, path: path}, nil
	}
	r, err := openSQLiteDB(path, false, busy)
	if err != nil {
		w.Close()
		return nil, err
	}
	// One writer connection per process (set above): SQLite admits one
	// writer at a time anyway, and queueing in the pool is cheaper than
	// spinning in the busy handler. Other processes still meet the busy
	// timeout.
	return &Store{write: w, read: r, retries: 8, busy: busy, path: path}, nil
}

// openSQLiteDB opens a pool on the SQLite file path: the write pool's
// connection string, or the read pool's (query-only, deferred
// transactions).
func openSQLiteDB(path string, write bool, busy time.Duration) (*bun.DB, error) {
	sqldb, err := sql.Open(sqliteshim.ShimName, sqliteDSN(path, write, busy))
	if err != nil {
		return nil, err
	}
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

func (s *Store) detectPrivilege(ctx context.Context) error {
	var privileged, roleExists bool
	err := s.write.QueryRowContext(ctx,
		`SELECT (SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user),
		        EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ?)`, RuntimeRole).Scan(&privileged, &roleExists)
	if err != nil {
		return translate(err)
	}
	if privileged && !roleExists {
		return &continuity.Error{Code: continuity.CodeInternal, Message: "the connecting Postgres user bypasses row-level security and the runtime role " + RuntimeRole + " does not exist"}
	}
	s.enterRole = privileged
	return nil
}

// Now implements continuity.StoreClock: the store's clock, as this process
// reads it. On Postgres it is the database server's clock: the host's clock
// plus the offset between the two that Open measured, in the statement it
// runs anyway (no round trip of its own), at the midpoint of that round
// trip. Every host, replica and hook process that opens the store then
// stamps handovers, heartbeats, closes and ledger lines on the one clock
// they share, whatever its own says, so an age or a gap between two stamps
// is measured on one clock; what is left is half a round trip and the
// host clock's drift since Open (a long-running replica that stepped its
// clock after Open keeps the offset it measured). On SQLite, one machine's
// file, every process that opens it reads the same machine's clock, which
// is the store's: Now is the host's clock.
func (s *Store) Now() time.Time { return s.host().Add(s.offset) }

// DatabaseClock reports whether Now is the database server's clock
// (Postgres) rather than the host's own (SQLite).
func (s *Store) DatabaseClock() bool { return s.postgres }

// SerialWrites reports whether write transactions never overlap: true on
// SQLite, whose immediate transactions admit one writer at a time; false on
// Postgres, where the project lock and row locks order them.
func (s *Store) SerialWrites() bool { return !s.postgres }

// Postgres reports whether the store runs on Postgres.
func (s *Store) Postgres() bool { return s.postgres }

// Close closes both pools.
func (s *Store) Close() error {
	s.closed.Store(true)
	err := s.write.Close()
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	return err
}

// Write implements continuity.Store.
func (s *Store) Write(ctx context.Context, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	return s.inTx(ctx, s.write, false, tenant, fn)
}

// Read implements continuity.Store.
func (s *Store) Read(ctx context.Context, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	return s.inTx(ctx, s.read, true, tenant, fn)
}

// Snapshot implements continuity.Store. On Postgres and on a SQLite store
// of two pools it is a transaction of Read's without its retries. A SQLite
// store of one connection (OneConnection) opens a second, query-only
// connection for the snapshot's duration: a transaction on its one
// connection would hold the write lock (the write pool's transactions are
// immediate) for as long as the export's reader takes, queueing every
// other process's writer into its busy timeout, and a write of this
// process would wait for the connection the export holds (from the
// export's own writer, for ever). An in-memory database (":memory:"),
// which no second connection reaches, is read on its one connection.
func (s *Store) Snapshot(ctx context.Context, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	if err := continuity.ValidateTenant(tenant); err != nil {
		return err
	}
	db := s.read
	if !s.postgres && s.read == s.write && s.path != ":memory:" {
		if s.closed.Load() {
			return &continuity.Error{Code: continuity.CodeInternal, Message: "the store is closed"}
		}
		r, err := openSQLiteDB(s.path, false, s.busy)
		if err != nil {
			return translate(err)
		}
		defer r.Close()
		r.SetMaxOpenConns(1)
		db = r
	}
	return translate(s.runTx(ctx, db, true, tenant, fn))
}

func (s *Store) inTx(ctx context.Context, db *bun.DB, readOnly bool, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	// The service refuses a bad tenant first; refusing it here too keeps a
	// tenant a driver would rewrite out of SQL whoever calls the store.
	if err := continuity.ValidateTenant(tenant); err != nil {
		return err
	}
	return s.retry(ctx, func() error { return s.runTx(ctx, db, readOnly, tenant, fn) })
}

// runTx runs fn in one transaction of db confined to tenant: read-only
// under Repeatable Read on Postgres when readOnly, in the runtime role
// and the tenant row-level security keys on.
func (s *Store) runTx(ctx context.Context, db *bun.DB, readOnly bool, tenant string, fn func(ctx context.Context, tx continuity.Tx) error) error {
	var opts *sql.TxOptions
	if readOnly && s.postgres {
		// One snapshot for the whole read, as SQLite's read transaction
		// has: under Read Committed each statement took its own, so a
		// read of several statements (a briefing's sections) showed a
		// write that committed between two of them in one and not the
		// other. A read-only transaction under Repeatable Read never
		// fails to serialize.
		opts = &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	}
	return db.RunInTx(ctx, opts, func(ctx context.Context, btx bun.Tx) (rerr error) {
		if s.postgres {
			// One round trip: the runtime role (SET LOCAL ROLE, as
			// set_config) when the connecting user is privileged, the
			// tenant row-level security keys on, and for a write the
			// tenant's write lock, shared.
			q, args := "SELECT set_config('baton.tenant', ?, true)", []any{tenant}
			if s.enterRole {
				q, args = "SELECT set_config('role', ?, true), set_config('baton.tenant', ?, true)", []any{RuntimeRole, tenant}
			}
			if !readOnly {
				q, args = q+", pg_advisory_xact_lock_shared("+tenantWriteLock+")", append(args, tenant)
			}
			if _, err := btx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		if readOnly && !s.postgres && db == s.write {
			// One connection (OneConnection): it is query-only for
			// the read's duration, as the read pool's always are.
			if _, err := btx.ExecContext(ctx, "PRAGMA query_only = 1"); err != nil {
				return err
			}
			defer func() {
				if _, err := btx.ExecContext(context.WithoutCancel(ctx), "PRAGMA query_only = 0"); err != nil && rerr == nil {
					rerr = err
				}
			}()
		}
		return fn(ctx, &tx{s: s, db: btx, tenant: tenant, write: !readOnly})
	})
}

// tenantWriteLock is the advisory lock key of a tenant's writes on
// Postgres (its one argument the tenant): every write transaction holds it
// shared, and each batch of an erase (EraseBatch) exclusively, so the
// batch that finds no row of the tenant left is still true when it
// commits. TouchLive takes none: it inserts only beside the session row it
// updated, whose row lock an erase deleting the row waits for. The key
// names the schema, as migration 011's trim lock does: advisory locks are
// the database's, and another schema's store may hold a tenant of the
// same name.
const tenantWriteLock = "hashtextextended(format('baton_tenant_writes %I %s', current_schema(), ?::text), 0)"

// retry runs fn again when the database answered busy, a serialization
// failure or a deadlock: the transaction rolled back whole, so running it
// again is safe. Any other error is translated and returned. Under a
// deadline, an attempt after the first starts only while a whole busy wait
// still fits before it: a busy wait does not watch the context, so an
// attempt begun later would keep its caller past the deadline by up to the
// busy timeout (a hook's budget is three quarters of what its harness
// allows before it kills the process).
func (s *Store) retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := 0; ; attempt++ {
		err = fn()
		if err == nil || !retryable(err) || attempt >= s.retries {
			break
		}
		d := time.Duration(1<<min(attempt, 6)) * time.Millisecond
		d += time.Duration(rand.Int64N(int64(d)))
		select {
		case <-ctx.Done():
			// The last attempt's error says more than the deadline: the
			// database was locked.
			return translate(err)
		case <-time.After(d):
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < s.busy {
			break
		}
	}
	return translate(err)
}

func retryable(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "40001" || pg.Code == "40P01"
	}
	// SQLite's drivers say busy only in their text. A Tx method has already
	// translated the driver's error, whose own text is the code's message,
	// so every error of the chain is read.
	for ; err != nil; err = errors.Unwrap(err) {
		msg := err.Error()
		if strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY") ||
			strings.Contains(msg, "database table is locked") {
			return true
		}
	}
	return false
}

// translate maps a driver error to baton's codes at the store's edge.
// Errors the service raised inside the transaction pass through unchanged.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var ce *continuity.Error
	if errors.As(err, &ce) {
		return err
	}
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return &continuity.Error{Code: continuity.CodeNotFound, Message: "not found", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &continuity.Error{Code: continuity.CodeInternal, Message: "the request was cancelled", Err: err}
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "23505":
			return &continuity.Error{Code: continuity.CodeConflict, Message: "the row already exists", Err: err}
		case "42501":
			return &continuity.Error{Code: continuity.CodeForbidden, Message: "the row is not this tenant's", Err: err}
		case "22001", "22P02", "23502", "23514":
			return &continuity.Error{Code: continuity.CodeInvalid, Message: "the database refused a value", Err: err}
		}
		return &continuity.Error{Code: continuity.CodeInternal, Message: "database error", Err: err}
	}
	msg := err.Error()
	if strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "constraint failed: UNIQUE") {
		return &continuity.Error{Code: continuity.CodeConflict, Message: "the row already exists", Err: err}
	}
	if retryable(err) {
		return &continuity.Error{Code: continuity.CodeInternal, Message: "the database is locked by another process", Err: err}
	}
	if strings.Contains(msg, "file is not a database") { // SQLITE_NOTADB, in both drivers' words
		return &continuity.Error{Code: continuity.CodeInternal, Message: "the file is not a SQLite database", Err: err}
	}
	return &continuity.Error{Code: continuity.CodeInternal, Message: "database error", Err: err}
}

// RowLevelSecurity reports whether the database itself enforces tenancy
// (Postgres row-level security). It is what storetest's isolation case asks.
func (s *Store) RowLevelSecurity() bool { return s.postgres }

// UnscopedCount counts a table's rows as the store's queries would see them
// with no tenant setting: as the runtime role on Postgres. It exists so the
// suite can prove that such a query sees nothing; on SQLite, which has no
// row-level security, it counts every row.
func (s *Store) UnscopedCount(ctx context.Context, table string) (int, error) {
	if !batonTable(table) {
		return 0, continuity.Invalid("table", "is not a baton table")
	}
	var n int
	err := s.read.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if s.postgres && s.enterRole {
			if _, err := tx.ExecContext(ctx, "SET LOCAL ROLE "+RuntimeRole); err != nil {
				return err
			}
		}
		return tx.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	})
	return n, translate(err)
}

// batonTable reports whether name is one of baton's tables: the test hooks
// that build a statement from a table name accept nothing else.
func batonTable(name string) bool {
	switch name {
	case "agent_sessions", "ledger", "memories", "memory_events", "session_bottles", "user_prompts", "stop_excerpts", "continuity_records":
		return true
	}
	return false
}
