package continuity_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
)

// TestPruneArchivedBottlesAtTheBoundary: an archived bottle a microsecond
// older than its retention is removed; one exactly as old, or younger, is
// kept; a retention of 0 keeps every one.
func TestPruneArchivedBottlesAtTheBoundary(t *testing.T) {
	archived := time.Date(2026, 10, 31, 8, 0, 0, 0, time.UTC)
	keep := continuity.DefaultRetention.ArchivedBottles
	cases := []struct {
		name   string
		keep   time.Duration
		now    time.Time
		pruned int
	}{
		{"a microsecond older than the retention", keep, archived.Add(keep + time.Microsecond), 1},
		{"exactly as old", keep, archived.Add(keep), 0},
		{"a microsecond younger", keep, archived.Add(keep - time.Microsecond), 0},
		{"a retention of 0 keeps it forever", 0, archived.Add(1000 * keep), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, "bottles", "codex", "archive", archived.Format(bottle.ArchiveStampLayout)+"-s1.bottle")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			r := continuity.DefaultRetention
			r.ArchivedBottles = tc.keep
			svc := continuity.New(nil, continuity.WithRetention(r))
			n, err := svc.PruneArchivedBottles(home, tc.now)
			if err != nil || n != tc.pruned {
				t.Fatalf("pruned %d, %v; want %d", n, err, tc.pruned)
			}
			if _, err := os.Stat(dir); os.IsNotExist(err) != (tc.pruned == 1) {
				t.Errorf("the archive exists: %v, want removed %v", err == nil, tc.pruned == 1)
			}
		})
	}
}
