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

// TestInitIsCheap runs this test binary again with GODEBUG=inittrace=1 and
// reads what each of baton's packages allocated at init.
func TestInitIsCheap(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := 0
	for line := range strings.Lines(string(out)) {
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
