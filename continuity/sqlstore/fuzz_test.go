package sqlstore_test

import (
	"bytes"
	"context"
	"maps"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
)

// FuzzRestore imports arbitrary files into a tenant that owns nothing, on
// a real SQLite store. An import never panics and never fails as internal
// (a file is a person's input: whatever it holds is refused as invalid,
// conflict or too_large); a refused import writes nothing (the tenant
// still owns no row); an accepted one exports again to a file that
// imports into another empty store and exports the same, byte for byte.
func FuzzRestore(f *testing.F) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(f.TempDir(), "baton.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	svc := continuity.New(st, continuity.WithClock(func() time.Time { return now }))
	other, err := sqlstore.Open(ctx, filepath.Join(f.TempDir(), "other.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { other.Close() })
	osvc := continuity.New(other, continuity.WithClock(func() time.Time { return now }))

	// The seeds: a real export of a tenant that owns a conversation, its
	// prompt, a Stop and an attributed memory, and that export broken in
	// the ways a file is.
	open, err := svc.Open(ctx, "seed", continuity.OpenParams{Agent: "claude-code", SessionID: "s1", Source: continuity.SourceStartup, Project: "p"})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := svc.RecordPrompt(ctx, "seed", "claude-code", "s1", "carry on"); err != nil {
		f.Fatal(err)
	}
	done := "done"
	if _, err := svc.Heartbeat(ctx, "seed", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "s1", Stop: true, LastMessageExcerpt: &done}); err != nil {
		f.Fatal(err)
	}
	if _, err := svc.Remember(ctx, "seed", continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "t", Content: "ship it",
		Project: "p", SessionRunID: open.SessionRunID.String(), Actor: continuity.ActorUserCLI}); err != nil {
		f.Fatal(err)
	}
	var seed bytes.Buffer
	if _, err := svc.Export(ctx, "seed", &seed); err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(seed.Bytes(), []byte("\n"))
	f.Add(seed.Bytes())
	f.Add(lines[0])
	f.Add(append([]byte("\ufeff"), seed.Bytes()...))
	f.Add(bytes.ReplaceAll(seed.Bytes(), []byte("\n"), []byte("\r\n")))
	f.Add(seed.Bytes()[:seed.Len()-7])
	f.Add(bytes.Join([][]byte{lines[0], lines[len(lines)-2], lines[len(lines)-2]}, nil))
	f.Add([]byte(""))
	f.Add([]byte("{}\n"))
	f.Add([]byte("[1]\n"))

	n := 0
	f.Fuzz(func(t *testing.T, file []byte) {
		n++
		tenant := "fuzz-" + strconv.Itoa(n)
		_, err := svc.Restore(ctx, tenant, bytes.NewReader(file))
		if err != nil {
			switch continuity.ErrorCode(err) {
			case continuity.CodeInvalid, continuity.CodeConflict, continuity.CodeTooLarge:
			default:
				t.Fatalf("import failed as %s: %v", continuity.ErrorCode(err), err)
			}
			if rows := exported(t, svc, tenant); len(rows) != 0 {
				t.Fatalf("a refused import (%v) wrote %v", err, rows)
			}
			return
		}
		var again bytes.Buffer
		if _, err := svc.Export(ctx, tenant, &again); err != nil {
			t.Fatal(err)
		}
		first := bytes.Clone(again.Bytes())
		// The ids are kept, and one row's id is one row's: the copy goes
		// into another store, as a round trip does.
		if _, err := osvc.Restore(ctx, tenant, &again); err != nil {
			t.Fatalf("an accepted import's export is refused: %v", err)
		}
		var second bytes.Buffer
		if _, err := osvc.Export(ctx, tenant, &second); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second.Bytes()) {
			t.Fatalf("exported\n%s\nthen, after a round trip,\n%s", first, second.Bytes())
		}
	})
}

// exported returns the row counts of tenant's export, by table, leaving
// out the tables with none.
func exported(t *testing.T, svc *continuity.Service, tenant string) map[string]int {
	t.Helper()
	res, err := svc.Export(context.Background(), tenant, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	maps.DeleteFunc(res.Rows, func(_ string, n int) bool { return n == 0 })
	return res.Rows
}
