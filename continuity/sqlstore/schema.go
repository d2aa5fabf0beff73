package sqlstore

import (
	"context"
	"regexp"
	"sync"

	"github.com/batonhq/baton/continuity"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// schemaName is compiled on first use, as every regexp of a package a hook
// process loads.
var schemaName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`) })

// CreateSchema creates a Postgres schema, so that several stores (tests,
// or tenants of a host that separates them physically) share one database.
// Open a store in it with search_path=<schema> in the DSN.
func CreateSchema(ctx context.Context, dsn, schema string) error {
	return execAdmin(ctx, dsn, schema, "CREATE SCHEMA IF NOT EXISTS ")
}

// DropSchema drops a schema created by CreateSchema and everything in it.
func DropSchema(ctx context.Context, dsn, schema string) error {
	return execAdmin(ctx, dsn, schema, "DROP SCHEMA IF EXISTS ")
}

func execAdmin(ctx context.Context, dsn, schema, stmt string) error {
	if !schemaName().MatchString(schema) {
		return continuity.Invalid("schema", "must match "+schemaName().String())
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return continuity.Invalid("dsn", "is not a valid Postgres URL")
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return connectError(err, &cfg.Config)
	}
	suffix := ""
	if stmt == "DROP SCHEMA IF EXISTS " {
		suffix = " CASCADE"
	}
	_, err = db.ExecContext(ctx, stmt+schema+suffix)
	return translate(err)
}
