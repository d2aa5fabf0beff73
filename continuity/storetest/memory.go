package storetest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

func remember(kind continuity.MemoryKind, topic, content, project, run string) continuity.RememberParams {
	return continuity.RememberParams{Kind: kind, Topic: topic, Content: content, Project: project, SessionRunID: run, Actor: continuity.ActorUserAPI}
}

func mustRemember(t *testing.T, f *fixture, tenant string, p continuity.RememberParams) continuity.WriteResult {
	t.Helper()
	r, err := f.svc.Remember(context.Background(), tenant, p)
	if err != nil {
		t.Fatalf("remember: %v", err)
	}
	return r
}

// runEvents lists every event attributed to the run.
func runEvents(t *testing.T, f *fixture, tenant string, run uuid.UUID) []provenance.Item {
	t.Helper()
	var out []provenance.Item
	cursor := ""
	for {
		page, err := f.svc.RunEvents(context.Background(), tenant, run.String(), cursor, provenance.MaxLimit)
		if err != nil {
			t.Fatalf("run events: %v", err)
		}
		out = append(out, page.Items...)
		if page.NextCursor == "" {
			return out
		}
		cursor = page.NextCursor
	}
}

// flood attributes n events to the run directly through the store, to push
// it past the per-run ceiling without n writes through the service.
func flood(t *testing.T, f *fixture, run uuid.UUID, n int) {
	t.Helper()
	events := make([]continuity.MemoryEvent, n)
	for i := range events {
		events[i] = continuity.MemoryEvent{ID: uuid.Must(uuid.NewV7()), MemoryID: uuid.New(), Kind: continuity.EventCreate,
			ActorKind: continuity.ActorUserAPI, SessionRunID: run, CreatedAt: f.clock.Now()}
	}
	if err := f.store.Write(context.Background(), tenantA, func(ctx context.Context, tx continuity.Tx) error {
		return tx.InsertMemoryEvents(ctx, events...)
	}); err != nil {
		t.Fatal(err)
	}
}

func kinds(items []provenance.Item) string {
	var b []string
	for _, it := range items {
		b = append(b, it.EventKind)
	}
	return strings.Join(b, ",")
}

func countMemories(t *testing.T, f *fixture, tenant string) int {
	t.Helper()
	n := 0
	err := f.store.Read(context.Background(), tenant, func(ctx context.Context, tx continuity.Tx) error {
		ms, err := tx.Memories(ctx, continuity.MemoryQuery{})
		n = len(ms)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func testMemory(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("Verbs", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		r := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "ship", "ship the lease rules", "baton", run.String()))
		if r.Memory.Status != continuity.StatusOpen || r.SessionRunID != run {
			t.Fatalf("remember = %+v", r)
		}
		id := r.Memory.ID.String()
		tp := continuity.TransitionParams{SessionRunID: run.String(), Actor: continuity.ActorUserCLI}
		steps := []struct {
			name string
			do   func() (continuity.WriteResult, error)
			code continuity.Code
			want continuity.MemoryStatus
		}{
			{"unresolve an open memory", func() (continuity.WriteResult, error) { return f.svc.Unresolve(ctx, tenantA, id, tp) }, continuity.CodeConflict, ""},
			{"resolve", func() (continuity.WriteResult, error) { return f.svc.Resolve(ctx, tenantA, id, tp) }, "", continuity.StatusResolved},
			{"resolve twice", func() (continuity.WriteResult, error) { return f.svc.Resolve(ctx, tenantA, id, tp) }, continuity.CodeConflict, ""},
			{"unresolve", func() (continuity.WriteResult, error) { return f.svc.Unresolve(ctx, tenantA, id, tp) }, "", continuity.StatusOpen},
			{"archive", func() (continuity.WriteResult, error) { return f.svc.Archive(ctx, tenantA, id, tp) }, "", continuity.StatusArchived},
			{"archive twice", func() (continuity.WriteResult, error) { return f.svc.Archive(ctx, tenantA, id, tp) }, continuity.CodeConflict, ""},
			{"revise an archived memory", func() (continuity.WriteResult, error) {
				return f.svc.Revise(ctx, tenantA, id, continuity.ReviseParams{Content: "x", Actor: continuity.ActorUserAPI})
			}, continuity.CodeConflict, ""},
			{"resolve an unknown id", func() (continuity.WriteResult, error) { return f.svc.Resolve(ctx, tenantA, uuid.NewString(), tp) }, continuity.CodeNotFound, ""},
		}
		for _, st := range steps {
			got, err := st.do()
			if continuity.ErrorCode(err) != st.code {
				t.Fatalf("%s: code %q (%v), want %q", st.name, continuity.ErrorCode(err), err, st.code)
			}
			if st.code == "" && got.Memory.Status != st.want {
				t.Fatalf("%s: status %q, want %q", st.name, got.Memory.Status, st.want)
			}
		}
		if got := kinds(runEvents(t, f, tenantA, run)); got != "create,resolve,unresolve,archive" {
			t.Fatalf("run events = %s", got)
		}
		for _, it := range runEvents(t, f, tenantA, run) {
			if it.ActorKind != string(continuity.ActorUserAPI) && it.ActorKind != string(continuity.ActorUserCLI) {
				t.Fatalf("actor kind %q", it.ActorKind)
			}
		}
	})

	t.Run("ReviseCarriesOrDemotes", func(t *testing.T) {
		cases := []struct {
			name       string
			kind       continuity.MemoryKind
			wantEvents string
		}{
			{"commitment carried", continuity.KindCommitment, "create,create,supersede"},
			{"commitment demoted to a note", continuity.KindNote, "create,create,supersede,archive"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
				prev := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "ship", "ship v1 by friday", "baton", run.String()))
				next, err := f.svc.Revise(ctx, tenantA, prev.Memory.ID.String(), continuity.ReviseParams{Kind: tc.kind, Content: "ship v1 by monday", SessionRunID: run.String(), Actor: continuity.ActorUserAPI})
				if err != nil {
					t.Fatal(err)
				}
				if next.Memory.Status != continuity.StatusOpen || next.Memory.Topic != "ship" || next.Memory.Project != "baton" || next.Memory.Kind != tc.kind {
					t.Fatalf("successor = %+v", next.Memory)
				}
				old, err := f.svc.Memory(ctx, tenantA, prev.Memory.ID.String())
				if err != nil {
					t.Fatal(err)
				}
				if old.Status != continuity.StatusArchived || old.SupersededBy != next.Memory.ID || old.Content != "ship v1 by friday" {
					t.Fatalf("predecessor = %+v", old)
				}
				items := runEvents(t, f, tenantA, run)
				if got := kinds(items); got != tc.wantEvents {
					t.Fatalf("run events = %s, want %s (attribution on every event)", got, tc.wantEvents)
				}
				for _, it := range items {
					if it.SessionRunID != run {
						t.Fatalf("event %s attributed to %v", it.EventKind, it.SessionRunID)
					}
				}
			})
		}
	})

	t.Run("InvalidWritesNothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		base := remember(continuity.KindNote, "topic", "content", "baton", "")
		cases := []struct {
			name   string
			mutate func(*continuity.RememberParams)
			field  string
		}{
			{"unknown kind", func(p *continuity.RememberParams) { p.Kind = "idea" }, "kind"},
			{"content over 2000", func(p *continuity.RememberParams) { p.Content = strings.Repeat("x", continuity.MaxContentLen+1) }, "content"},
			{"content empty", func(p *continuity.RememberParams) { p.Content = "  " }, "content"},
			{"content only private", func(p *continuity.RememberParams) { p.Content = "<private>secret</private>" }, "content"},
			{"topic empty", func(p *continuity.RememberParams) { p.Topic = "" }, "topic"},
			{"topic too long", func(p *continuity.RememberParams) { p.Topic = strings.Repeat("t", continuity.MaxTopicLen+1) }, "topic"},
			{"malformed run id", func(p *continuity.RememberParams) { p.SessionRunID = "not-a-uuid" }, "sessionRunId"},
			{"run id without dashes", func(p *continuity.RememberParams) { p.SessionRunID = strings.ReplaceAll(uuid.NewString(), "-", "") }, "sessionRunId"},
			{"no actor", func(p *continuity.RememberParams) { p.Actor = "" }, "actor"},
			{"capture_hook is not an actor", func(p *continuity.RememberParams) { p.Actor = "capture_hook" }, "actor"},
		}
		for _, tc := range cases {
			p := base
			tc.mutate(&p)
			_, err := f.svc.Remember(ctx, tenantA, p)
			wantCode(t, err, continuity.CodeInvalid)
			if _, ok := continuity.ErrorFields(err)[tc.field]; !ok {
				t.Fatalf("%s: %v does not name %q", tc.name, err, tc.field)
			}
		}
		for _, id := range []string{"", "nope", "00000000-0000-0000-0000-000000000000"} {
			_, err := f.svc.Resolve(ctx, tenantA, id, continuity.TransitionParams{Actor: continuity.ActorUserCLI})
			if _, ok := continuity.ErrorFields(err)["id"]; !ok {
				t.Fatalf("resolve %q: %v does not name id", id, err)
			}
		}
		// Exactly at the bound is fine, and counted in characters.
		p := base
		p.Content = strings.Repeat("é", continuity.MaxContentLen)
		mustRemember(t, f, tenantA, p)
		if n := countMemories(t, f, tenantA); n != 1 {
			t.Fatalf("%d memories written, want only the valid one", n)
		}
	})

	t.Run("ContentIsPrivacyFiltered", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		r := mustRemember(t, f, tenantA, remember(continuity.KindDecision, "db", "use bun <private>api key sk-123</private> for storage", "", ""))
		m, err := f.svc.Memory(ctx, tenantA, r.Memory.ID.String())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(m.Content, "sk-123") || !strings.Contains(m.Content, "use bun") {
			t.Fatalf("stored content %q", m.Content)
		}
	})

	t.Run("Import", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		mustOpen(t, f, tenantA, startup("s1"))
		_, err := continuity.ParseImport([]byte(`{"kind":"note","topic":"t","content":"c","sessionRunId":"` + uuid.NewString() + `"}`))
		wantCode(t, err, continuity.CodeInvalid)
		if _, ok := continuity.ErrorFields(err)["sessionRunId"]; !ok {
			t.Fatalf("import accepted a sessionRunId: %v", err)
		}
		_, err = continuity.ParseImport([]byte(`{"kind":"note","topic":"t","content":"c","extra":1}`))
		wantCode(t, err, continuity.CodeInvalid)
		p, err := continuity.ParseImport([]byte(`{"kind":"note","topic":"t","content":"c","project":"baton"}`))
		if err != nil {
			t.Fatal(err)
		}
		r, err := f.svc.Import(ctx, tenantA, p, continuity.ActorUserCLI)
		if err != nil {
			t.Fatal(err)
		}
		if r.SessionRunID != uuid.Nil {
			t.Fatalf("an import was attributed to %v", r.SessionRunID)
		}
	})

	t.Run("TenantIsolation", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		r := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "a", "tenant a's", "", ""))
		id := r.Memory.ID.String()
		tp := continuity.TransitionParams{Actor: continuity.ActorUserAPI}
		_, err := f.svc.Memory(ctx, tenantB, id)
		wantCode(t, err, continuity.CodeNotFound)
		_, err = f.svc.Resolve(ctx, tenantB, id, tp)
		wantCode(t, err, continuity.CodeNotFound)
		_, err = f.svc.Revise(ctx, tenantB, id, continuity.ReviseParams{Content: "x", Actor: continuity.ActorUserAPI})
		wantCode(t, err, continuity.CodeNotFound)
		b, err := f.svc.Briefing(ctx, tenantB, continuity.BriefingParams{})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Items) != 0 {
			t.Fatalf("tenant B's briefing shows %d of A's rows", len(b.Items))
		}
		if m, _ := f.svc.Memory(ctx, tenantA, id); m.Status != continuity.StatusOpen {
			t.Fatalf("A's memory changed to %s", m.Status)
		}
	})
}

func testProvenance(t *testing.T, h Harness) {
	ctx := context.Background()

	t.Run("Decision", func(t *testing.T) {
		cases := []struct {
			name          string
			from          rowState
			carry         bool
			wantAttached  bool
			wantEpoch     int
			wantLiveAfter bool
		}{
			{"leased run attaches", rowLive, true, true, 1, true},
			{"explicitly closed run stays closed, write unattributed", rowClosed, true, false, 1, false},
			{"lapsed run, no sweep: resurrect and attach", rowLapsed, true, true, 2, true},
			{"swept run: resurrect and attach", rowSwept, true, true, 2, true},
			{"no id, one leased-open session: attach", rowLive, false, true, 1, true},
			{"no id, only a lapsed session: unattributed", rowLapsed, false, false, 1, false},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, h)
				run := prepare(t, f, "s1", tc.from)
				before := view(t, f, tenantA, "s1")
				f.clock.Advance(time.Second)
				carried := ""
				if tc.carry {
					carried = run.String()
				}
				r := mustRemember(t, f, tenantA, remember(continuity.KindDecision, "d", "decided", "baton", carried))
				if got := r.SessionRunID == run; got != tc.wantAttached {
					t.Fatalf("attached = %v (%v), want %v", got, r.SessionRunID, tc.wantAttached)
				}
				v := view(t, f, tenantA, "s1")
				if v.ActivationEpoch != tc.wantEpoch || (v.State == lease.Live) != tc.wantLiveAfter {
					t.Fatalf("after write: epoch %d state %v, want epoch %d live %v", v.ActivationEpoch, v.State, tc.wantEpoch, tc.wantLiveAfter)
				}
				if tc.wantAttached && !v.LastSeenAt.Equal(f.clock.Now()) {
					t.Fatalf("an attaching write did not floor the lease: %v", v.LastSeenAt)
				}
				if !tc.wantAttached && !v.LastSeenAt.Equal(before.LastSeenAt) {
					t.Fatalf("an unattributed write touched the lease")
				}
				wantEvents := 0
				if tc.wantAttached {
					wantEvents = 1
				}
				if n := len(runEvents(t, f, tenantA, run)); n != wantEvents {
					t.Fatalf("run has %d events, want %d", n, wantEvents)
				}
			})
		}
	})

	t.Run("ForeignRunIsForbiddenAndWritesNothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		foreign := mustOpen(t, f, tenantB, startup("b1")).SessionRunID
		mustOpen(t, f, tenantA, startup("a1"))
		for _, id := range []uuid.UUID{foreign, uuid.Must(uuid.NewV7())} {
			_, err := f.svc.Remember(ctx, tenantA, remember(continuity.KindNote, "probe", "x", "baton", id.String()))
			wantCode(t, err, continuity.CodeForbidden)
		}
		mem := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "c", "x", "", ""))
		_, err := f.svc.Resolve(ctx, tenantA, mem.Memory.ID.String(), continuity.TransitionParams{SessionRunID: foreign.String(), Actor: continuity.ActorUserAPI})
		wantCode(t, err, continuity.CodeForbidden)
		if n := countMemories(t, f, tenantA); n != 1 {
			t.Fatalf("%d memories after forbidden writes, want 1", n)
		}
		if m, _ := f.svc.Memory(ctx, tenantA, mem.Memory.ID.String()); m.Status != continuity.StatusOpen {
			t.Fatalf("a forbidden resolve changed the memory to %s", m.Status)
		}
		if n := len(runEvents(t, f, tenantB, foreign)); n != 0 {
			t.Fatalf("tenant B's run gained %d events", n)
		}
		_, err = f.svc.RunEvents(ctx, tenantA, foreign.String(), "", 0)
		wantCode(t, err, continuity.CodeNotFound)
	})

	t.Run("IdlessWritesWithTwoOpenSessionsNeverAttach", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		r1 := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		r2 := mustOpen(t, f, tenantA, startup("s2")).SessionRunID
		// Another project's and another tenant's sessions do not count.
		other := startup("s3")
		other.Project = "other"
		mustOpen(t, f, tenantA, other)
		const writers = 8
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		attached := make(chan uuid.UUID, writers)
		for range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := f.svc.Remember(ctx, tenantA, remember(continuity.KindNote, "n", "concurrent", "baton", ""))
				errs <- err
				attached <- r.SessionRunID
			}()
		}
		wg.Wait()
		close(errs)
		close(attached)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		for id := range attached {
			if id != uuid.Nil {
				t.Fatalf("an id-less write attached to %v with two open sessions", id)
			}
		}
		if n := len(runEvents(t, f, tenantA, r1)) + len(runEvents(t, f, tenantA, r2)); n != 0 {
			t.Fatalf("%d events attributed", n)
		}
	})

	t.Run("IdlessWriteRacingASecondOpenNeverAttachesWrongly", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		r1 := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		var wg sync.WaitGroup
		var res continuity.WriteResult
		var werr, oerr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			res, werr = f.svc.Remember(ctx, tenantA, remember(continuity.KindNote, "n", "x", "baton", ""))
		}()
		go func() { defer wg.Done(); _, oerr = f.svc.Open(ctx, tenantA, startup("s2")) }()
		wg.Wait()
		if werr != nil || oerr != nil {
			t.Fatal(werr, oerr)
		}
		// Serialized by the project lock: either the write saw one session
		// and attached to it, or it saw two and stayed unattributed.
		if res.SessionRunID != uuid.Nil && res.SessionRunID != r1 {
			t.Fatalf("attached to %v", res.SessionRunID)
		}
	})

	t.Run("NoProjectMatchesNoProject", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		p := startup("s1")
		p.Project = ""
		run := mustOpen(t, f, tenantA, p).SessionRunID
		if r := mustRemember(t, f, tenantA, remember(continuity.KindNote, "n", "x", "baton", "")); r.SessionRunID != uuid.Nil {
			t.Fatalf("a project write attached to a project-less session")
		}
		if r := mustRemember(t, f, tenantA, remember(continuity.KindNote, "n", "x", "", "")); r.SessionRunID != run {
			t.Fatalf("a project-less write did not attach to the one project-less session")
		}
	})

	t.Run("ReadPagination", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		const n = 7
		for range n {
			mustRemember(t, f, tenantA, remember(continuity.KindNote, "n", "x", "baton", run.String()))
		}
		var seen []uuid.UUID
		cursor := ""
		pages := 0
		for {
			page, err := f.svc.RunEvents(ctx, tenantA, run.String(), cursor, 3)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(page.Items) > 3 || page.Truncated {
				t.Fatalf("page of %d items, truncated %v", len(page.Items), page.Truncated)
			}
			for _, it := range page.Items {
				seen = append(seen, it.ID)
				if it.SessionRunID != run || it.EventKind != "create" || it.MemoryID == uuid.Nil || it.CreatedAt.IsZero() {
					t.Fatalf("item %+v", it)
				}
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		if len(seen) != n || pages != 3 {
			t.Fatalf("read %d items in %d pages, want %d in 3", len(seen), pages, n)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i].String() <= seen[i-1].String() {
				t.Fatalf("items out of id order")
			}
		}
		for _, bad := range []struct {
			cursor string
			limit  int
			field  string
		}{{"garbage", 0, "cursor"}, {"", 101, "limit"}, {"", -1, "limit"}} {
			_, err := f.svc.RunEvents(ctx, tenantA, run.String(), bad.cursor, bad.limit)
			if _, ok := continuity.ErrorFields(err)[bad.field]; !ok {
				t.Fatalf("cursor %q limit %d: %v does not name %s", bad.cursor, bad.limit, err, bad.field)
			}
		}
		_, err := f.svc.RunEvents(ctx, tenantA, "not-a-uuid", "", 0)
		if _, ok := continuity.ErrorFields(err)["sessionRunId"]; !ok {
			t.Fatalf("malformed run id: %v", err)
		}
	})

	t.Run("CeilingTruncates", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, h)
		run := mustOpen(t, f, tenantA, startup("s1")).SessionRunID
		flood(t, f, run, provenance.Ceiling+1)
		items := 0
		cursor := ""
		truncated := false
		for {
			page, err := f.svc.RunEvents(ctx, tenantA, run.String(), cursor, 100)
			if err != nil {
				t.Fatal(err)
			}
			items += len(page.Items)
			truncated = page.Truncated
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
		}
		if items != provenance.Ceiling || !truncated {
			t.Fatalf("read %d items truncated %v, want %d and truncated", items, truncated, provenance.Ceiling)
		}
	})
}
