package storetest

import (
	"context"
	"testing"

	"github.com/batonhq/baton/continuity"
)

// testProvisionalPreCompact: a PreCompact the harness sends before deciding
// whether to compact (Gemini CLI's PreCompress(auto), every turn) keeps the
// bottle current and writes its checkpoint, but arms no marker, so no later
// SessionStart injects a pointer as if a compaction had happened; a
// PreCompact that does compact still arms one, and a provisional one after
// it leaves that marker armed.
func testProvisionalPreCompact(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	e := episodes(t, f)
	api := f.svc.For(tenantA)
	handle(t, e, continuity.HookEvent{Kind: continuity.HookStart, Source: continuity.SourceStartup, SessionID: "s1"})
	handle(t, e, continuity.HookEvent{Kind: continuity.HookPrompt, SessionID: "s1", Prompt: "Split the bottle package."})
	done := "Split it in two."
	handle(t, e, continuity.HookEvent{Kind: continuity.HookStop, SessionID: "s1", LastMessage: &done})

	handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", Trigger: "auto", Provisional: true})
	path, err := e.Bottler.Path("s1")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := api.Records(ctx, continuity.RecordQuery{SessionID: "s1", Kinds: []continuity.RecordKind{continuity.RecordCheckpoint}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].BottlePath != path || rs[0].Reason != "auto" {
		t.Fatalf("checkpoints after a provisional PreCompact = %+v, want one naming the bottle %s", rs, path)
	}
	if m, ok, err := api.ClaimBottle(ctx, agent, "s1"); ok || err != nil {
		t.Fatalf("a provisional PreCompact armed a marker: %+v (err %v)", m, err)
	}

	handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", Trigger: "manual"})
	// The next turn's provisional PreCompact leaves that marker armed.
	handle(t, e, continuity.HookEvent{Kind: continuity.HookPreCompact, SessionID: "s1", Trigger: "auto", Provisional: true})
	if m, ok, err := api.ClaimBottle(ctx, agent, "s1"); !ok || err != nil || m.Path != path {
		t.Fatalf("a PreCompact that compacts armed %+v (ok %v, err %v), want the marker of %s", m, ok, err, path)
	}
}
