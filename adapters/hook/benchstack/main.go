// Command benchstack is the hook latency benchmark's second yardstick
// (adapters/hook/bench.sh): benchbase's one write, by a program built on
// the libraries baton is required to build on. kong parses its one
// argument, validator checks it, and bun (sqlitedialect over sqliteshim,
// with the store's pragmas) performs the write in one immediate
// transaction. A process linking them pays their package initialization
// (bun's inflection rules, validator's tables) before its main runs; this
// program pays that and nothing of baton's, so an event's time over this
// program's is what baton's own code costs.
package main

import (
	"context"
	"database/sql"
	"errors"

	"github.com/alecthomas/kong"
	"github.com/batonhq/baton/adapters/hook/internal/benchdsn"
	"github.com/go-playground/validator/v10"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// cli is the command line: the SQLite file to write to.
type cli struct {
	File string `arg:"" help:"The SQLite file to write to." validate:"required,filepath"`
}

// benchRow is the one row written, in a table of its own.
type benchRow struct {
	bun.BaseModel `bun:"table:benchstack"`
	ID            int64 `bun:"id,pk"`
	N             int64 `bun:"n,notnull"`
}

func main() {
	var c cli
	ctx := kong.Parse(&c, kong.Name("benchstack"), kong.Description("Write one row to a SQLite file through bun."))
	ctx.FatalIfErrorf(validator.New().Struct(&c))
	ctx.FatalIfErrorf(write(context.Background(), c.File))
}

// write upserts the row in one immediate transaction.
func write(ctx context.Context, path string) (err error) {
	sqldb, err := sql.Open(sqliteshim.ShimName, benchdsn.DSN(path))
	if err != nil {
		return err
	}
	db := bun.NewDB(sqldb, sqlitedialect.New())
	defer func() { err = errors.Join(err, db.Close()) }()
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewCreateTable().Model((*benchRow)(nil)).IfNotExists().Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&benchRow{ID: 1, N: 1}).On("CONFLICT (id) DO UPDATE").Set("n = n + 1").Exec(ctx)
		return err
	})
}
