// Command benchbase is the yardstick of the hook latency benchmark
// (adapters/hook/bench.sh): the least a hook process could do. It starts,
// opens the SQLite file named by its argument with the pragmas the store
// uses (WAL, a busy timeout, immediate transactions), performs one write in
// one transaction, and exits. A `baton hook` process does that and
// everything the event needs; the benchmark prints each event's time as a
// multiple of this program's.
package main

import (
	"database/sql"
	"fmt"
	"os"

	"github.com/batonhq/baton/adapters/hook/internal/benchdsn"
	"github.com/uptrace/bun/driver/sqliteshim"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchbase SQLITE-FILE")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "benchbase:", err)
		os.Exit(1)
	}
}

// write upserts one row of its own table in one immediate transaction.
func write(path string) error {
	db, err := sql.Open(sqliteshim.ShimName, benchdsn.DSN(path))
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS benchbase (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)`); err != nil {
		return err
	}
	if _, err := tx.Exec(`INSERT INTO benchbase (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n + 1`); err != nil {
		return err
	}
	return tx.Commit()
}
