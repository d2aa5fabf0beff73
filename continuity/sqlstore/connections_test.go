package sqlstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/batonhq/baton/continuity"
)

// TestWritesOpenOneConnection: a hook process opens the store, writes and
// exits; on SQLite every connection it opens costs it the pragmas and a
// parse of the schema. Opening an existing store and writing to it opens the
// write connection only, the read pool none.
func TestWritesOpenOneConnection(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "baton.db")
	first, err := Open(ctx, path) // creates the schema
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Write(ctx, "t", func(ctx context.Context, tx continuity.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if n := s.read.DB.Stats().OpenConnections; n != 0 {
		t.Errorf("the read pool opened %d connections for an Open and a Write, want none", n)
	}
}
