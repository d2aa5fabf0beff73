package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitAllocs bounds what one of baton's packages may allocate while it
// initializes. Every hook event is a new process, so whatever a package
// builds at init (a regexp, a parsed table) is paid by every hook, needed or
// not; such work is done on first use instead.
const maxInitAllocs = 100

// initTrace runs this test binary again with GODEBUG=inittrace=1 and
// returns what it printed: a line per package initialized, in order.
func initTrace(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return string(out)
}

// TestInitIsCheap runs this test binary again with GODEBUG=inittrace=1 and
// reads what each of baton's packages allocated at init.
func TestInitIsCheap(t *testing.T) {
	out := initTrace(t)
	seen := 0
	for line := range strings.Lines(out) {
		// init PKG @T ms, T ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/batonhq/baton/") || f[10] != "allocs" {
			continue
		}
		seen++
		if n, err := strconv.Atoi(f[9]); err != nil || n > maxInitAllocs {
			t.Errorf("%s allocates %s times at init, want at most %d: build it on first use", f[1], f[9], maxInitAllocs)
		}
	}
	if seen == 0 {
		t.Fatalf("no init of a baton package traced:\n%s", out)
	}
}

// TestInflectionInitIsEmpty checks that jinzhu/inflection's init, which
// compiles its rule lists, finds them emptied by internal/hookproc's and
// builds nothing (bun's table names are inflection's only use, and main
// keeps model names instead).
func TestInflectionInitIsEmpty(t *testing.T) {
	out := initTrace(t)
	for line := range strings.Lines(out) {
		// init PKG @T ms, T ms clock, B bytes, N allocs
		f := strings.Fields(line)
		if len(f) < 11 || f[0] != "init" || f[1] != "github.com/jinzhu/inflection" {
			continue
		}
		if f[7] != "0" || f[9] != "0" {
			t.Fatalf("inflection's init allocated %s bytes in %s allocations, want none: %s", f[7], f[9], line)
		}
		return
	}
	t.Fatalf("inflection's init was not traced:\n%s", out)
}

// TestHookProcInitializesFirst checks that internal/hookproc, whose init
// empties inflection's rules and sets a hook process's runtime up,
// initializes before the third-party
// packages whose inits are the dearest (bun's inflection rules, validator's
// tables): an import added to hookproc, or a package that sorts before it,
// would move it after them.
func TestHookProcInitializesFirst(t *testing.T) {
	out := initTrace(t)
	order := map[string]int{}
	n := 0
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = n
			n++
		}
	}
	first, ok := order["github.com/batonhq/baton/examples/baton/internal/hookproc"]
	if !ok {
		t.Fatalf("hookproc's init was not traced:\n%s", out)
	}
	for _, pkg := range []string{"github.com/jinzhu/inflection", "github.com/go-playground/validator/v10", "github.com/uptrace/bun/schema", "github.com/alecthomas/kong"} {
		at, ok := order[pkg]
		if !ok {
			t.Errorf("%s's init was not traced", pkg)
			continue
		}
		if at < first {
			t.Errorf("%s initializes before hookproc (%d < %d)", pkg, at, first)
		}
	}
}
