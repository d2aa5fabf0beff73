package bottle

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// renderedAt is the fixed render time of every golden bottle.
var renderedAt = time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)

func parseFile(t testing.TB, path string) *Transcript {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tr Transcript
	if _, err := tr.ReadLines(f, 0); err != nil {
		t.Fatal(err)
	}
	return &tr
}

// assertBottle checks a bottle holds every string of present and none of
// absent.
func assertBottle(t *testing.T, out string, present, absent []string) {
	t.Helper()
	for _, s := range present {
		if !strings.Contains(out, s) {
			t.Errorf("bottle lacks %q", s)
		}
	}
	for _, s := range absent {
		if strings.Contains(out, s) {
			t.Errorf("bottle contains %q", s)
		}
	}
}
