// Package benchdsn is the connection string of the hook latency
// benchmark's yardsticks (benchbase, benchstack): a SQLite file with the
// pragmas the store uses, WAL, a busy timeout, synchronous NORMAL and
// immediate transactions, in the dialect of the driver the build selected,
// as sqlstore's sqliteDSN writes them. mattn/go-sqlite3 ignores
// modernc.org/sqlite's _pragma parameters: given those, a yardstick built
// with -tags cgosqlite wrote with the driver's defaults (synchronous FULL).
package benchdsn

import "github.com/uptrace/bun/driver/sqliteshim"

// DSN returns path's connection string.
func DSN(path string) string {
	if sqliteshim.DriverName() == "sqlite" { // modernc.org/sqlite
		return path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	}
	return path + "?_busy_timeout=10000&_journal_mode=WAL&_synchronous=NORMAL&_txlock=immediate"
}
