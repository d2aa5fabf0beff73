package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestConnectError classifies synthetic connection failures. Each cause
// carries the DSN's password in its text, as a driver's message may; the
// classified message must name what is wrong and never carry it.
func TestConnectError(t *testing.T) {
	const password = "s3cret-pw"
	dsn := "postgres://alice:" + password + "@db.example:6543/app?search_path=tenant_x&sslmode=disable"
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	leaky := func(cause error) error { return fmt.Errorf("failed to connect to %s: %w", dsn, cause) }
	pg := func(code string) error {
		return leaky(&pgconn.PgError{Severity: "FATAL", Code: code, Message: "password " + password})
	}
	cases := []struct {
		name string
		err  error
		code continuity.Code
		want string
	}{
		{"database missing", pg("3D000"), continuity.CodeNotFound, `the Postgres database "app" does not exist at db.example:6543`},
		{"schema missing", pg("3F000"), continuity.CodeNotFound, `the search_path schema "tenant_x" does not exist in Postgres database "app"`},
		{"wrong password", pg("28P01"), continuity.CodeUnauthorized, `Postgres authentication failed for user "alice" at db.example:6543`},
		{"no such role or no hba entry", pg("28000"), continuity.CodeUnauthorized, `Postgres authentication failed for user "alice" at db.example:6543`},
		{"no CONNECT privilege", pg("42501"), continuity.CodeForbidden, `Postgres user "alice" may not connect to database "app" at db.example:6543`},
		{"other server refusal", pg("53300"), continuity.CodeInternal, `Postgres at db.example:6543 refused the connection (SQLSTATE 53300)`},
		{"connection refused", leaky(&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}), continuity.CodeInternal, `cannot reach the Postgres server at db.example:6543`},
		{"unknown host", leaky(&net.DNSError{Err: "no such host", Name: "db.example"}), continuity.CodeInternal, `cannot reach the Postgres server at db.example:6543`},
		{"connect timeout", leaky(context.DeadlineExceeded), continuity.CodeInternal, `cannot reach the Postgres server at db.example:6543`},
		{"cancelled", leaky(context.Canceled), continuity.CodeInternal, `the request was cancelled while connecting to Postgres at db.example:6543`},
		{"anything else", leaky(errors.New("tls: bad certificate")), continuity.CodeInternal, `cannot connect to Postgres at db.example:6543`},
	}
	for _, tc := range cases {
		got := connectError(tc.err, &cfg.Config)
		var ce *continuity.Error
		if !errors.As(got, &ce) || ce.Code != tc.code || ce.Message != tc.want {
			t.Errorf("%s: %v, want %s: %s", tc.name, got, tc.code, tc.want)
		}
		if strings.Contains(got.Error(), password) {
			t.Errorf("%s: the message carries the password: %q", tc.name, got)
		}
	}
}
