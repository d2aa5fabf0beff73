package continuity_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
)

// A SessionStart opens the conversation, every Stop heartbeats it, and a
// Stop after the lease lapsed resurrects it with a new activation epoch.
func Example() {
	dir, _ := os.MkdirTemp("", "baton-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	store, err := sqlstore.Open(ctx, filepath.Join(dir, "baton.db"))
	if err != nil {
		panic(err)
	}
	defer store.Close()
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	svc := continuity.New(store, continuity.WithClock(func() time.Time { return now }))

	open, _ := svc.Open(ctx, "local", continuity.OpenParams{Agent: "claude-code", SessionID: "abc", Source: continuity.SourceStartup, Project: "baton"})
	fmt.Println("opened at epoch", open.ActivationEpoch)

	now = now.Add(25 * time.Hour)
	hb, _ := svc.Heartbeat(ctx, "local", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "abc", Stop: true})
	fmt.Println("resurrected:", hb.Resurrected, "epoch", hb.ActivationEpoch)

	_, err = svc.Heartbeat(ctx, "local", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "never-opened"})
	fmt.Println(continuity.ErrorCode(err))
	// Output:
	// opened at epoch 1
	// resurrected: true epoch 2
	// not_found
}
