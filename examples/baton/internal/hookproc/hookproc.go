// Package hookproc prepares a baton process before the packages it links
// initialize: it empties jinzhu/inflection's rule lists in every process
// (inflection.go) and gives a `baton hook` process one processor. It has no exported API: the
// baton command imports it for its init alone, and it must stay among the
// first packages initialized (its import path sorts before every
// third-party package's, and it imports only os, runtime and unsafe), so
// that what it sets holds while bun's, validator's and the rest initialize,
// and so that it can empty jinzhu/inflection's rule lists before
// inflection's init compiles them (inflection.go).
//
// A hook process runs one event in a few milliseconds and exits, on the
// person's machine, beside the agent it serves. With as many processors as
// the machine has, the Go scheduler wakes a spinning thread on another
// processor each time a goroutine becomes runnable (database/sql's opener,
// the driver's cancellation watchers, a timer), and each wake is a context
// switch on both sides; the hook's work is one goroutine's at a time but
// for the render a Stop overlaps with the store's opening, whose SQLite
// half runs in C on its own thread anyway. Paired runs measured start,
// prompt and end events up to 10% faster on one processor, and stop and
// precompact no slower (see the README's Hook latency). A GOMAXPROCS the
// person set is left as it is.
package hookproc

import (
	"os"
	"runtime"
)

func init() {
	dropInflections()
	if hookProcess(os.Args, os.Getenv) {
		runtime.GOMAXPROCS(1)
	}
}

// hookProcess reports whether a process with these arguments runs
// `baton hook` with no GOMAXPROCS of the environment's.
func hookProcess(args []string, getenv func(string) string) bool {
	return len(args) > 1 && args[1] == "hook" && getenv("GOMAXPROCS") == ""
}
