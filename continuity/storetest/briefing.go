package storetest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// sectionOf returns the sections a memory appears in, in briefing order.
func sectionOf(b continuity.Briefing, id uuid.UUID) []string {
	var out []string
	for _, it := range b.Items {
		if it.ID == id {
			out = append(out, it.Section)
		}
	}
	return out
}

// testBriefingSections asserts that every section of the briefing is filled
// from its own bounded read, so no section starves behind newer rows of
// another, and that an item appears in exactly one section.
func testBriefingSections(t *testing.T, h Harness) {
	ctx := context.Background()
	pol := continuity.DefaultBriefingPolicy

	t.Run("NoSectionStarves", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		stale := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "old promise", "reply to the vendor", "baton", ""))
		f.clock.Advance(pol.StaleAfter + time.Hour)
		due := f.clock.Now().Add(time.Hour)
		p := remember(continuity.KindCommitment, "deadline", "file the report", "baton", "")
		p.Due = &due
		overdue := mustRemember(t, f, tenantA, p)
		for i := range 3*pol.PerSection + 1 {
			mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "newer "+strconv.Itoa(i), "newer work", "baton", ""))
		}
		f.clock.Advance(2 * time.Hour)
		b, err := f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{Project: "baton"})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct {
			id      uuid.UUID
			section string
		}{{stale.Memory.ID, continuity.SectionStale}, {overdue.Memory.ID, continuity.SectionOverdue}} {
			if got := sectionOf(b, w.id); len(got) != 1 || got[0] != w.section {
				t.Fatalf("%s is in %q, want exactly %q", w.id, got, w.section)
			}
		}
		n := 0
		for _, it := range b.Items {
			if it.Section == continuity.SectionCommitments {
				n++
			}
		}
		if n != pol.PerSection {
			t.Fatalf("%d open commitments listed, want the section's cap %d", n, pol.PerSection)
		}
		if !strings.Contains(b.Text, "file the report (due "+due.Format("2006-01-02 15:04 UTC")+")") {
			t.Fatalf("the overdue item's due date is not rendered:\n%s", b.Text)
		}
	})

	t.Run("Boundaries", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		now := f.clock.Now()
		const instant = time.Microsecond // the precision both stores keep
		at := func(d time.Duration) *time.Time { u := now.Add(d); return &u }
		cases := []struct {
			name     string
			kind     continuity.MemoryKind
			age      time.Duration // since the memory's last update
			due      *time.Time
			resolved bool
			want     string // "" means not in the briefing
		}{
			{"commitment updated exactly StaleAfter ago is current", continuity.KindCommitment, pol.StaleAfter, nil, false, continuity.SectionCommitments},
			{"commitment updated one instant earlier is stale", continuity.KindCommitment, pol.StaleAfter + instant, nil, false, continuity.SectionStale},
			{"blocker updated exactly StaleAfter ago is current", continuity.KindBlocker, pol.StaleAfter, nil, false, continuity.SectionBlockers},
			{"blocker updated one instant earlier is stale", continuity.KindBlocker, pol.StaleAfter + instant, nil, false, continuity.SectionStale},
			{"commitment due exactly now is not overdue", continuity.KindCommitment, 0, at(0), false, continuity.SectionCommitments},
			{"commitment due one instant ago is overdue", continuity.KindCommitment, 0, at(-instant), false, continuity.SectionOverdue},
			{"blocker due exactly now is not overdue", continuity.KindBlocker, 0, at(0), false, continuity.SectionBlockers},
			{"blocker due one instant ago is overdue", continuity.KindBlocker, 0, at(-instant), false, continuity.SectionOverdue},
			{"overdue comes before stale", continuity.KindCommitment, pol.StaleAfter + instant, at(-instant), false, continuity.SectionOverdue},
			{"stale with a due date still ahead is stale", continuity.KindCommitment, pol.StaleAfter + instant, at(time.Hour), false, continuity.SectionStale},
			{"a resolved commitment past its due is not listed", continuity.KindCommitment, 0, at(-time.Hour), true, ""},
			{"a decision past a due date is a decision", continuity.KindDecision, 0, at(-time.Hour), false, continuity.SectionDecisions},
		}
		ids := make([]uuid.UUID, len(cases))
		for i, c := range cases {
			f.clock.Set(now.Add(-c.age))
			p := remember(c.kind, "case "+strconv.Itoa(i), c.name, "baton", "")
			p.Due = c.due
			ids[i] = mustRemember(t, f, tenantA, p).Memory.ID
			if c.resolved {
				if _, err := f.svc.Resolve(ctx, tenantA, ids[i].String(), continuity.TransitionParams{Actor: continuity.ActorUserCLI}); err != nil {
					t.Fatal(err)
				}
			}
		}
		f.clock.Set(now)
		b, err := f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{Project: "baton"})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			got := sectionOf(b, ids[i])
			if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || got[0] != c.want) {
				t.Errorf("%s: in %q, want %q", c.name, got, c.want)
			}
		}
	})

	t.Run("DueDateRoundTrips", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		due := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
		p := remember(continuity.KindCommitment, "deadline", "file the report", "baton", "")
		p.Due = &due
		w := mustRemember(t, f, tenantA, p)
		imp, err := continuity.ParseImport([]byte(`{"kind":"blocker","topic":"t","content":"c","due":"2026-12-01T09:00:00.123456Z"}`))
		if err != nil {
			t.Fatal(err)
		}
		iw, err := f.svc.Import(ctx, tenantA, imp, continuity.ActorUserCLI)
		if err != nil {
			t.Fatal(err)
		}
		want := time.Date(2026, 12, 1, 9, 0, 0, 123456000, time.UTC)
		for _, written := range []continuity.Memory{w.Memory, iw.Memory} {
			read, err := f.svc.Memory(ctx, tenantA, written.ID.String())
			if err != nil {
				t.Fatal(err)
			}
			if written.Due == nil || read.Due == nil || !written.Due.Equal(want) || *read.Due != *written.Due {
				t.Fatalf("due written %v, read %v, want both %v", written.Due, read.Due, want)
			}
		}
		plain := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "undated", "no due date", "baton", ""))
		if read, err := f.svc.Memory(ctx, tenantA, plain.Memory.ID.String()); err != nil || read.Due != nil {
			t.Fatalf("an undated memory reads back with due %v (%v)", read.Due, err)
		}
		for _, bad := range []time.Time{{}, time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)} {
			p.Due = &bad
			_, err := f.svc.Remember(ctx, tenantA, p)
			if _, ok := continuity.ErrorFields(err)["due"]; !ok || continuity.ErrorCode(err) != continuity.CodeInvalid {
				t.Fatalf("due %v: %v, want invalid naming due", bad, err)
			}
		}
	})
}
