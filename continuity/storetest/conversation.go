package storetest

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// testConversation asserts what is kept per conversation, the natural key
// (tenant, agent, session id): prompt numbers and bottle markers.
func testConversation(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("ConcurrentPromptsAreAllNumbered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		bs := f.svc.Bottles(tenantA, agent)
		const n = 32
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := bs.RecordPrompt(ctx, "s1", "prompt "+strconv.Itoa(i)); err != nil {
					t.Errorf("recorder %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		rec, err := bs.SessionHistory(ctx, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Prompts) != n {
			t.Fatalf("%d prompts kept, want %d", len(rec.Prompts), n)
		}
		texts := map[string]bool{}
		for i, p := range rec.Prompts {
			if p.Number != i+1 {
				t.Fatalf("prompt %d has number %d, want numbers exactly 1..%d", i, p.Number, n)
			}
			texts[p.Text] = true
		}
		for i := range n {
			if !texts["prompt "+strconv.Itoa(i)] {
				t.Fatalf("prompt %d was lost", i)
			}
		}
	})

	t.Run("PromptNumbersArePerConversation", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		appendPrompt := func(tenant, ag string) int {
			t.Helper()
			p := &continuity.Prompt{ID: uuid.Must(uuid.NewV7()), Agent: ag, SessionID: "s1", Text: "p", At: f.clock.Now()}
			if err := f.store.Write(ctx, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.AppendPrompt(ctx, p) }); err != nil {
				t.Fatal(err)
			}
			return p.Number
		}
		for _, c := range []struct {
			tenant, agent string
			want          int
		}{{tenantA, agent, 1}, {tenantA, agent, 2}, {tenantA, "codex", 1}, {tenantB, agent, 1}, {tenantA, agent, 3}} {
			if got := appendPrompt(c.tenant, c.agent); got != c.want {
				t.Fatalf("%s/%s: number %d, want %d", c.tenant, c.agent, got, c.want)
			}
		}
	})

	t.Run("BottleMarkersArePerAgent", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		claude, codex := f.svc.Bottles(tenantA, agent), f.svc.Bottles(tenantA, "codex")
		m := bottle.Marker{SessionID: "s1", Path: "/tmp/b/s1.md", Gap: 1, Mode: bottle.Mode("full"), ArmedAt: f.clock.Now()}
		if err := codex.ArmBottle(ctx, m); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := claude.ClaimBottle(ctx, "s1"); ok || err != nil {
			t.Fatalf("claude-code claimed the marker codex armed under the same session id: %+v %v", got, err)
		}
		if got, ok, err := codex.ClaimBottle(ctx, "s1"); !ok || err != nil || got.Path != m.Path {
			t.Fatalf("codex's claim = %+v %v %v, want its marker", got, ok, err)
		}
		if _, ok, err := codex.ClaimBottle(ctx, "s1"); ok || err != nil {
			t.Fatalf("codex claimed its marker twice: %v", err)
		}
		err := f.store.Read(ctx, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			if _, err := tx.BottleMarker(ctx, agent, "s1"); continuity.ErrorCode(err) != continuity.CodeNotFound {
				t.Errorf("claude-code's marker read: %v, want not_found", err)
			}
			got, err := tx.BottleMarker(ctx, "codex", "s1")
			if err != nil {
				return err
			}
			if got.Agent != "codex" || got.ConsumedAt == nil {
				t.Errorf("codex's marker = %+v, want it consumed under its agent", got)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
