package storetest

import (
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// cellState is a row state of the README's lifecycle table, reached
// through the API alone, at the lease boundary where it has one.
type cellState struct {
	name string
	// class is the column of the lifecycle table the state belongs to.
	class cellClass
	// prepare leaves the conversation sid of api in the state, at the
	// scene's clock, and returns its run id (uuid.Nil for no row).
	prepare func(s *scene, api continuity.API, sid, project string) uuid.UUID
}

// cellClass is a column of the lifecycle table; an open row whose lease
// lapsed and a closed one whose close was implicit share the last column
// but not every cell of it (a SessionEnd stamps the first, and answers
// alreadyClosed to the second).
type cellClass int

const (
	classNone     cellClass = iota // no row
	classLive                      // live row
	classExplicit                  // explicitly closed row
	classLapsed                    // lapsed row, never closed
	classImplicit                  // closed at or after its lease expired (swept)
)

// cellStates are the states every operation of the table is tried in: the
// columns, and each side of the one lease boundary (lease.Policy.Expiry:
// one microsecond before it is inside, the instant itself outside), for
// the row's lease and for a close's stamp.
func cellStates() []cellState {
	lp := lease.Default
	open := func(s *scene, api continuity.API, sid, project string) uuid.UUID {
		return s.start(api, startOf(sid, continuity.SourceStartup, project)).SessionRunID
	}
	after := func(d time.Duration) func(*scene, continuity.API, string, string) uuid.UUID {
		return func(s *scene, api continuity.API, sid, project string) uuid.UUID {
			run := open(s, api, sid, project)
			s.clock.Advance(d)
			return run
		}
	}
	closedAt := func(d, then time.Duration) func(*scene, continuity.API, string, string) uuid.UUID {
		return func(s *scene, api continuity.API, sid, project string) uuid.UUID {
			run := after(d)(s, api, sid, project)
			if _, err := api.Close(s.ctx, continuity.CloseParams{Agent: agent, SessionID: sid}); err != nil {
				s.t.Fatalf("close %s: %v", sid, err)
			}
			s.clock.Advance(then)
			return run
		}
	}
	return []cellState{
		{"none", classNone, func(*scene, continuity.API, string, string) uuid.UUID { return uuid.Nil }},
		{"live", classLive, after(time.Minute)},
		{"live one microsecond before expiry", classLive, after(lp.Lease - time.Microsecond)},
		{"explicitly closed", classExplicit, closedAt(time.Minute, time.Minute)},
		// Closed inside the lease, then read long past it: the
		// protection never expires.
		{"explicitly closed one microsecond before expiry, read past it", classExplicit, closedAt(lp.Lease-time.Microsecond, time.Hour)},
		{"lapsed at the expiry instant", classLapsed, after(lp.Lease)},
		{"lapsed past lease and grace, not swept", classLapsed, after(lp.Lease + lp.SweepGrace + time.Hour)},
		{"closed at the expiry instant", classImplicit, closedAt(lp.Lease, time.Second)},
		// A sweep's close lands past lease and grace; a late SessionEnd
		// there leaves the same row.
		{"swept", classImplicit, closedAt(lp.Lease+lp.SweepGrace+time.Minute, time.Second)},
	}
}

// eachCell runs fn in a scene of its own for every cell state (the no-row
// state only when withNone).
func eachCell(t *testing.T, h ScenarioHarness, withNone bool, fn func(t *testing.T, s *scene, st cellState)) {
	for _, st := range cellStates() {
		if st.class == classNone && !withNone {
			continue
		}
		t.Run(st.name, func(t *testing.T) { fn(t, newScene(t, h), st) })
	}
}

// scenarioLifecycleTable walks the README's lifecycle table row by row for
// every row state: Stop (heartbeat), SessionEnd (close), a memory write
// carrying its run id, and one carrying none, each asserted on the answer
// and on the row it left.
func scenarioLifecycleTable(t *testing.T, h ScenarioHarness) {
	t.Run("Stop", func(t *testing.T) { lifecycleStop(t, h) })
	t.Run("SessionEnd", func(t *testing.T) { lifecycleSessionEnd(t, h) })
	t.Run("WriteByRunID", func(t *testing.T) { lifecycleWriteByRunID(t, h) })
	t.Run("WriteByForeignRunID", func(t *testing.T) { lifecycleWriteByForeignRunID(t, h) })
	t.Run("WriteWithoutRunID", func(t *testing.T) { lifecycleWriteWithoutRunID(t, h) })
	t.Run("WriteWithoutRunIDTwoRows", func(t *testing.T) { lifecycleWriteWithoutRunIDTwoRows(t, h) })
}

// before is what a cell's assertions compare the row after the operation
// with.
func (s *scene) before(sid string, c cellClass) continuity.SessionView {
	s.t.Helper()
	if c == classNone {
		return continuity.SessionView{}
	}
	return s.session(s.a, sid)
}

// unchanged fails unless the row is exactly as it was, lifecycle-wise.
func (s *scene) unchanged(sid string, was continuity.SessionView) {
	s.t.Helper()
	v := s.session(s.a, sid)
	if v.ActivationEpoch != was.ActivationEpoch || !v.LastSeenAt.Equal(was.LastSeenAt) || !sameTime(v.ClosedAt, was.ClosedAt) ||
		v.State != was.State || v.StopCount != was.StopCount || v.TriageStatus != was.TriageStatus {
		s.t.Fatalf("row changed: %+v (state %v), was %+v (state %v)", v.Session, v.State, was.Session, was.State)
	}
}

// resurrected fails unless the row was reopened by the operation at now:
// epoch+1, closed_at cleared, last_seen_at now, a new activation.
func (s *scene) resurrected(sid string, was continuity.SessionView) continuity.SessionView {
	s.t.Helper()
	v := s.session(s.a, sid)
	now := s.clock.Now()
	if v.ActivationEpoch != was.ActivationEpoch+1 || v.ClosedAt != nil || v.State != lease.Live || !v.LastSeenAt.Equal(now) ||
		!v.ActivatedAt.Equal(now) || v.ID != was.ID {
		s.t.Fatalf("row = %+v (state %v), want run %v resurrected at %v, epoch %d", v.Session, v.State, was.ID, now, was.ActivationEpoch+1)
	}
	return v
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func lifecycleStop(t *testing.T, h ScenarioHarness) {
	eachCell(t, h, true, func(t *testing.T, s *scene, st cellState) {
		st.prepare(s, s.a, "s1", "baton")
		was := s.before("s1", st.class)
		msg := "turn " + st.name
		r, err := s.a.Stop(s.ctx, stopOf("s1", msg))
		if st.class == classNone {
			wantCode(t, err, continuity.CodeNotFound)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var v continuity.SessionView
		if st.class == classLive {
			v = s.session(s.a, "s1")
			if r.Resurrected || r.ActivationEpoch != was.ActivationEpoch || v.ActivationEpoch != was.ActivationEpoch ||
				!v.LastSeenAt.Equal(s.clock.Now()) || v.ActivationStops != was.ActivationStops+1 || v.State != lease.Live {
				t.Fatalf("stop = %+v, row %+v; want a heartbeat at %v, epoch %d", r, v.Session, s.clock.Now(), was.ActivationEpoch)
			}
		} else {
			v = s.resurrected("s1", was)
			if !r.Resurrected || r.ActivationEpoch != v.ActivationEpoch || v.ActivationStops != 1 {
				t.Fatalf("stop = %+v, activation stops %d; want resurrected, epoch %d, its first Stop counted", r, v.ActivationStops, v.ActivationEpoch)
			}
		}
		if r.SessionRunID != was.ID || v.StopCount != was.StopCount+1 || v.LastMessageExcerpt != msg {
			t.Fatalf("stop = %+v, row %+v; want run %v, the Stop counted, the excerpt kept", r, v.Session, was.ID)
		}
	})
}

func lifecycleSessionEnd(t *testing.T, h ScenarioHarness) {
	eachCell(t, h, true, func(t *testing.T, s *scene, st cellState) {
		st.prepare(s, s.a, "s1", "baton")
		was := s.before("s1", st.class)
		r, err := s.a.SessionEnd(s.ctx, endOf("s1"))
		if st.class == classNone {
			wantCode(t, err, continuity.CodeNotFound)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		v := s.session(s.a, "s1")
		if v.ActivationEpoch != was.ActivationEpoch || !v.LastSeenAt.Equal(was.LastSeenAt) || r.Close.SessionRunID != was.ID {
			t.Fatalf("close = %+v, row %+v; a close never touches the epoch or last_seen_at (was %+v)", r.Close, v.Session, was.Session)
		}
		switch st.class {
		case classLive, classLapsed:
			want := lease.ExplicitlyClosed
			if st.class == classLapsed {
				want = lease.ImplicitlyClosed
			}
			if r.Close.AlreadyClosed || !r.Close.ClosedAt.Equal(s.clock.Now()) || v.ClosedAt == nil || !v.ClosedAt.Equal(s.clock.Now()) || v.State != want {
				t.Fatalf("close = %+v, row closed at %v reads %v; want stamped now %v, %v", r.Close, v.ClosedAt, v.State, s.clock.Now(), want)
			}
		default:
			if !r.Close.AlreadyClosed || !r.Close.ClosedAt.Equal(*was.ClosedAt) || !sameTime(v.ClosedAt, was.ClosedAt) || v.State != was.State {
				t.Fatalf("close = %+v, row closed at %v reads %v; want alreadyClosed with the first close's time %v, %v",
					r.Close, v.ClosedAt, v.State, was.ClosedAt, was.State)
			}
		}
	})
}

// runEventIDs are the ids of the run's provenance events.
func (s *scene) runEventIDs(api continuity.API, run uuid.UUID) []uuid.UUID {
	s.t.Helper()
	page, err := api.RunEvents(s.ctx, run.String(), "", 100)
	if err != nil {
		s.t.Fatalf("run events of %v: %v", run, err)
	}
	ids := make([]uuid.UUID, len(page.Items))
	for i, it := range page.Items {
		if it.SessionRunID != run {
			s.t.Fatalf("run %v lists an event of run %v", run, it.SessionRunID)
		}
		ids[i] = it.ID
	}
	return ids
}

func lifecycleWriteByRunID(t *testing.T, h ScenarioHarness) {
	eachCell(t, h, true, func(t *testing.T, s *scene, st cellState) {
		run := st.prepare(s, s.a, "s1", "baton")
		was := s.before("s1", st.class)
		if st.class == classNone {
			// A syntactically valid id the tenant owns no row for.
			run = uuid.Must(uuid.NewV7())
		}
		p := remember(continuity.KindDecision, "by id", "content", "baton", run.String())
		p.Actor = continuity.ActorUserAPI
		w, err := s.a.Remember(s.ctx, p)
		if st.class == classNone {
			wantCode(t, err, continuity.CodeForbidden)
			if n := len(succeed(s, "Briefing", s.a.Briefing, continuity.BriefingParams{Project: "baton"}).Items); n != 0 {
				t.Fatalf("a forbidden write left %d memories", n)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		events := s.runEventIDs(s.a, run)
		switch st.class {
		case classExplicit:
			if w.SessionRunID != uuid.Nil || len(events) != 0 {
				t.Fatalf("write = %+v, run events %v; want succeeded unattributed", w, events)
			}
			s.unchanged("s1", was)
		case classLive:
			v := s.session(s.a, "s1")
			if w.SessionRunID != run || v.ActivationEpoch != was.ActivationEpoch || !v.LastSeenAt.Equal(s.clock.Now()) || v.State != lease.Live {
				t.Fatalf("write = %+v, row %+v; want attached, epoch %d, last_seen_at floored to %v", w, v.Session, was.ActivationEpoch, s.clock.Now())
			}
		default:
			s.resurrected("s1", was)
			if w.SessionRunID != run {
				t.Fatalf("write = %+v, want resurrected and attached to %v", w, run)
			}
		}
		if st.class != classExplicit && (len(events) != 1 || events[0] != w.EventID) {
			t.Fatalf("run events = %v, want the write's event %v", events, w.EventID)
		}
	})
}

// lifecycleWriteByForeignRunID: a write carrying another tenant's run id
// is forbidden whatever that row's state, and leaves it as it was.
func lifecycleWriteByForeignRunID(t *testing.T, h ScenarioHarness) {
	eachCell(t, h, false, func(t *testing.T, s *scene, st cellState) {
		run := st.prepare(s, s.b, "s1", "baton")
		was, err := s.b.Session(s.ctx, agent, "s1")
		if err != nil {
			t.Fatal(err)
		}
		p := remember(continuity.KindDecision, "probe", "content", "baton", run.String())
		p.Actor = continuity.ActorUserAPI
		_, err = s.a.Remember(s.ctx, p)
		wantCode(t, err, continuity.CodeForbidden)
		v, err := s.b.Session(s.ctx, agent, "s1")
		if err != nil {
			t.Fatal(err)
		}
		if v.ActivationEpoch != was.ActivationEpoch || !v.LastSeenAt.Equal(was.LastSeenAt) || !sameTime(v.ClosedAt, was.ClosedAt) {
			t.Fatalf("the other tenant's row changed: %+v, was %+v", v.Session, was.Session)
		}
		if ids := s.runEventIDs(s.b, run); len(ids) != 0 {
			t.Fatalf("the other tenant's run lists %v", ids)
		}
	})
}

// lifecycleWriteWithoutRunID: with one row in the project, an id-less
// write attaches only when that row is live at the write.
func lifecycleWriteWithoutRunID(t *testing.T, h ScenarioHarness) {
	eachCell(t, h, true, func(t *testing.T, s *scene, st cellState) {
		run := st.prepare(s, s.a, "s1", "baton")
		was := s.before("s1", st.class)
		w := s.remember(s.a, continuity.KindNote, "id-less", "baton", "")
		if st.class != classLive {
			if w.SessionRunID != uuid.Nil {
				t.Fatalf("write = %+v, want unattributed: no live row", w)
			}
			if st.class != classNone {
				s.unchanged("s1", was)
			}
			return
		}
		v := s.session(s.a, "s1")
		if w.SessionRunID != run || !v.LastSeenAt.Equal(s.clock.Now()) || v.ActivationEpoch != was.ActivationEpoch {
			t.Fatalf("write = %+v, row %+v; want attached to %v, last_seen_at floored", w, v.Session, run)
		}
		if ids := s.runEventIDs(s.a, run); len(ids) != 1 || ids[0] != w.EventID {
			t.Fatalf("run events = %v, want the write's", ids)
		}
	})
}

// lifecycleWriteWithoutRunIDTwoRows: beside a live row s2, an id-less
// write attaches to s2 exactly when s1 is not live too.
func lifecycleWriteWithoutRunIDTwoRows(t *testing.T, h ScenarioHarness) {
	eachCell(t, h, false, func(t *testing.T, s *scene, st cellState) {
		st.prepare(s, s.a, "s1", "baton")
		was1 := s.before("s1", st.class)
		run2 := s.startup("s2", "baton").SessionRunID
		// A row of the same project in the other tenant is never a
		// candidate.
		s.start(s.b, startOf("s3", continuity.SourceStartup, "baton"))
		w := s.remember(s.a, continuity.KindNote, "id-less", "baton", "")
		want := run2
		if st.class == classLive {
			want = uuid.Nil
		}
		if w.SessionRunID != want {
			t.Fatalf("write beside a %s row = attached to %v, want %v", st.name, w.SessionRunID, want)
		}
		if st.class != classLive {
			s.unchanged("s1", was1)
		}
	})
}
