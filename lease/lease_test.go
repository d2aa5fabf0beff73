package lease_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/batonhq/baton/lease"
)

// t0 is an arbitrary instant; every case is expressed as an offset from it so
// the tables read as the boundaries they pin.
var t0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

const (
	day   = 24 * time.Hour
	grace = time.Hour
	ns    = time.Nanosecond
)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ptr(t time.Time) *time.Time { return &t }

func TestDefault(t *testing.T) {
	if lease.Default.Lease != day {
		t.Errorf("Default.Lease = %v, want 24h", lease.Default.Lease)
	}
	if lease.Default.SweepGrace != grace {
		t.Errorf("Default.SweepGrace = %v, want 1h", lease.Default.SweepGrace)
	}
}

func TestLeased(t *testing.T) {
	p := lease.Default
	tests := []struct {
		name     string
		lastSeen time.Time
		now      time.Time
		want     bool
	}{
		{"seen now", at(0), at(0), true},
		{"seen one ns ago", at(0), at(ns), true},
		{"seen one lease minus one ns ago", at(0), at(day - ns), true},
		{"seen exactly one lease ago has lapsed", at(0), at(day), false},
		{"seen one lease plus one ns ago", at(0), at(day + ns), false},
		{"one ns after the lapse instant is leased", at(ns), at(day), true},
		{"seen long ago", at(0), at(30 * day), false},
		// A clock that runs behind the stored last_seen_at must not lapse a row.
		{"seen in the future", at(time.Hour), at(0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Leased(tt.lastSeen, tt.now); got != tt.want {
				t.Errorf("Leased(%v, %v) = %v, want %v", tt.lastSeen, tt.now, got, tt.want)
			}
		})
	}
}

func TestLeasedCustomPolicy(t *testing.T) {
	p := lease.Policy{Lease: time.Minute, SweepGrace: time.Second}
	if !p.Leased(at(0), at(time.Minute-ns)) {
		t.Error("one ns inside a one-minute lease should be leased")
	}
	if p.Leased(at(0), at(time.Minute)) {
		t.Error("exactly one minute after the last heartbeat should have lapsed")
	}
}

func TestExplicitlyClosed(t *testing.T) {
	p := lease.Default
	tests := []struct {
		name string
		row  lease.Row
		want bool
	}{
		{"open row", lease.Row{LastSeenAt: at(0)}, false},
		{"closed at last seen", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(0))}, true},
		{"closed inside the lease", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(time.Hour))}, true},
		{"closed one ns before the lease ends", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day - ns))}, true},
		// The one boundary: a close stamped at the instant the lease expires
		// is a close of a lapsed row, as Leased says of that instant.
		{"closed exactly at last seen plus lease", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day))}, false},
		{"closed one ns after last seen plus lease", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day + ns))}, false},
		{"closed by a sweep", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day + grace + ns))}, false},
		// A close stamped by a writer whose clock lags the last heartbeat is
		// still a close made while the lease held.
		{"closed before last seen", lease.Row{LastSeenAt: at(time.Hour), ClosedAt: ptr(at(0))}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.ExplicitlyClosed(tt.row); got != tt.want {
				t.Errorf("ExplicitlyClosed(%+v) = %v, want %v", tt.row, got, tt.want)
			}
		})
	}
}

// TestExplicitCloseNeverExpires pins the seed's "that protection never
// expires": the classification of a closed row does not depend on now.
func TestExplicitCloseNeverExpires(t *testing.T) {
	p := lease.Default
	explicit := lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day - ns))}
	implicit := lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day))}
	for _, now := range []time.Time{at(0), at(day), at(day + ns), at(365 * day)} {
		if got := p.State(explicit, now); got != lease.ExplicitlyClosed {
			t.Errorf("State(explicit, %v) = %v, want explicitly_closed", now, got)
		}
		if got := p.State(implicit, now); got != lease.ImplicitlyClosed {
			t.Errorf("State(implicit, %v) = %v, want implicitly_closed", now, got)
		}
	}
}

func TestState(t *testing.T) {
	p := lease.Default
	tests := []struct {
		name string
		row  lease.Row
		now  time.Time
		want lease.State
	}{
		// open rows: the lease decides
		{"open, seen now", lease.Row{LastSeenAt: at(0)}, at(0), lease.Live},
		{"open, one ns inside the lease", lease.Row{LastSeenAt: at(0)}, at(day - ns), lease.Live},
		{"open, exactly one lease ago", lease.Row{LastSeenAt: at(0)}, at(day), lease.ImplicitlyClosed},
		{"open, past lease but not yet sweepable", lease.Row{LastSeenAt: at(0)}, at(day + grace), lease.ImplicitlyClosed},
		{"open, past lease and grace (no sweep ran)", lease.Row{LastSeenAt: at(0)}, at(day + grace + ns), lease.ImplicitlyClosed},
		{"open, seen in the future", lease.Row{LastSeenAt: at(time.Hour)}, at(0), lease.Live},

		// explicit closes, whether or not the lease has since lapsed
		{"explicit close, lease still running", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(time.Hour))}, at(2 * time.Hour), lease.ExplicitlyClosed},
		{"explicit close, lease since lapsed", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(time.Hour))}, at(10 * day), lease.ExplicitlyClosed},
		{"explicit close one ns before the lease boundary", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day - ns))}, at(day), lease.ExplicitlyClosed},
		{"close stamped at the lease boundary is implicit", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day))}, at(day), lease.ImplicitlyClosed},
		// closed_at is authoritative even when now is before it
		{"explicit close, now before closed_at", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(time.Hour))}, at(0), lease.ExplicitlyClosed},

		// implicit closes: a close stamped after the lease lapsed
		{"implicit close one ns past the boundary", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day + ns))}, at(day + ns), lease.ImplicitlyClosed},
		{"swept row", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day + grace + ns))}, at(2 * day), lease.ImplicitlyClosed},
		// a closed row is closed even when its last_seen_at alone would be leased
		{"implicit close, now inside last_seen lease", lease.Row{LastSeenAt: at(0), ClosedAt: ptr(at(day + ns))}, at(time.Hour), lease.ImplicitlyClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.State(tt.row, tt.now); got != tt.want {
				t.Errorf("State(%+v, %v) = %v, want %v", tt.row, tt.now, got, tt.want)
			}
		})
	}
}

// TestSweeperTimingDoesNotChangeState pins "sweeper timing must not change
// attribution": a lapsed row is implicitly closed before the sweep (closed_at
// nil) and after it (closed_at stamped), for every sweep instant a sweep may
// run at.
func TestSweeperTimingDoesNotChangeState(t *testing.T) {
	p := lease.Default
	lastSeen := at(0)
	read := at(3 * day)
	before := p.State(lease.Row{LastSeenAt: lastSeen}, read)
	for _, sweep := range []time.Time{at(day + grace + ns), at(day + grace + time.Minute), at(2 * day), read} {
		row := lease.Row{LastSeenAt: lastSeen}
		if !p.Sweepable(row, sweep) {
			t.Fatalf("row should be sweepable at %v", sweep)
		}
		row.ClosedAt = ptr(sweep)
		if after := p.State(row, read); after != before {
			t.Errorf("sweep at %v: state after = %v, before = %v", sweep, after, before)
		}
	}
	if before != lease.ImplicitlyClosed {
		t.Errorf("lapsed row = %v, want implicitly_closed", before)
	}
}

func TestStateString(t *testing.T) {
	tests := []struct {
		s      lease.State
		want   string
		closed bool
	}{
		{lease.Live, "live", false},
		{lease.ImplicitlyClosed, "implicitly_closed", true},
		{lease.ExplicitlyClosed, "explicitly_closed", true},
		{lease.State(7), "State(7)", true},
		{lease.State(-1), "State(-1)", true},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("State(%d).String() = %q, want %q", int(tt.s), got, tt.want)
		}
		if got := tt.s.Closed(); got != tt.closed {
			t.Errorf("State(%d).Closed() = %v, want %v", int(tt.s), got, tt.closed)
		}
	}
}

// TestStateText pins the state's wire form: its name, both ways, and an
// error (never a number) for a state or a name this package does not define.
func TestStateText(t *testing.T) {
	tests := []struct {
		s    lease.State
		json string // "" when marshalling must fail
	}{
		{lease.Live, `"live"`},
		{lease.ImplicitlyClosed, `"implicitly_closed"`},
		{lease.ExplicitlyClosed, `"explicitly_closed"`},
		{lease.State(3), ""},
		{lease.State(-1), ""},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.s)
		if tt.json == "" {
			if err == nil {
				t.Errorf("State(%d) marshalled as %s, want an error", int(tt.s), b)
			}
			continue
		}
		if err != nil || string(b) != tt.json {
			t.Errorf("State(%d) marshals as %s, %v; want %s", int(tt.s), b, err, tt.json)
		}
		var back lease.State = -1
		if err := json.Unmarshal(b, &back); err != nil || back != tt.s {
			t.Errorf("%s unmarshals as %v, %v; want %v", b, back, err, tt.s)
		}
	}
	for _, bad := range []string{`"Live"`, `""`, `"State(7)"`, `0`} {
		var s lease.State
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("%s unmarshalled as %v, want an error", bad, s)
		}
	}
}

func TestFloor(t *testing.T) {
	tests := []struct {
		name     string
		lastSeen time.Time
		now      time.Time
		want     time.Time
	}{
		{"now is later: advance", at(0), at(time.Minute), at(time.Minute)},
		{"now is one ns later: advance", at(0), at(ns), at(ns)},
		{"equal: unchanged", at(0), at(0), at(0)},
		{"now is one ns earlier: keep", at(ns), at(0), at(ns)},
		{"slow writer with an older clock: keep", at(time.Hour), at(0), at(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lease.Floor(tt.lastSeen, tt.now)
			if !got.Equal(tt.want) {
				t.Errorf("Floor(%v, %v) = %v, want %v", tt.lastSeen, tt.now, got, tt.want)
			}
		})
	}
}

// TestFloorIsMonotonic runs heartbeats carrying out-of-order clocks through
// Floor and checks last_seen_at ends at the latest and never moved backwards.
func TestFloorIsMonotonic(t *testing.T) {
	clocks := []time.Duration{5, 1, 9, 3, 9, 2, 12, 0, 11}
	seen := at(0)
	for _, c := range clocks {
		next := lease.Floor(seen, at(c*time.Second))
		if next.Before(seen) {
			t.Fatalf("Floor moved last_seen_at backwards: %v -> %v", seen, next)
		}
		seen = next
	}
	if want := at(12 * time.Second); !seen.Equal(want) {
		t.Errorf("last_seen_at = %v, want the latest clock %v", seen, want)
	}
}

func TestSweepFloor(t *testing.T) {
	tests := []struct {
		p    lease.Policy
		now  time.Time
		want time.Time
	}{
		{lease.Default, at(0), at(-day - grace)},
		{lease.Default, at(day + grace), at(0)},
		{lease.Policy{Lease: time.Minute, SweepGrace: time.Second}, at(0), at(-time.Minute - time.Second)},
		{lease.Policy{Lease: time.Minute}, at(0), at(-time.Minute)},
	}
	for _, tt := range tests {
		if got := tt.p.SweepFloor(tt.now); !got.Equal(tt.want) {
			t.Errorf("%+v.SweepFloor(%v) = %v, want %v", tt.p, tt.now, got, tt.want)
		}
	}
}

func TestSweepable(t *testing.T) {
	p := lease.Default
	sweep := at(day + grace) // floor == at(0)
	tests := []struct {
		name string
		row  lease.Row
		want bool
	}{
		{"one ns before the floor", lease.Row{LastSeenAt: at(-ns)}, true},
		{"exactly at the floor", lease.Row{LastSeenAt: at(0)}, false},
		{"one ns after the floor", lease.Row{LastSeenAt: at(ns)}, false},
		{"lapsed but inside the grace", lease.Row{LastSeenAt: at(grace / 2)}, false},
		{"live", lease.Row{LastSeenAt: sweep}, false},
		{"long lapsed", lease.Row{LastSeenAt: at(-30 * day)}, true},
		{"explicitly closed, long lapsed", lease.Row{LastSeenAt: at(-30 * day), ClosedAt: ptr(at(-30 * day))}, false},
		{"implicitly closed, long lapsed", lease.Row{LastSeenAt: at(-30 * day), ClosedAt: ptr(at(-20 * day))}, false},
		{"closed one ns before the floor", lease.Row{LastSeenAt: at(-ns), ClosedAt: ptr(at(-ns))}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Sweepable(tt.row, sweep); got != tt.want {
				t.Errorf("Sweepable(%+v, %v) = %v, want %v", tt.row, sweep, got, tt.want)
			}
		})
	}
}

// TestSweptRowResurrects pins the reason the grace is non-zero: a sweep
// stamps closed_at = its own now, which is past last_seen_at + lease, so the
// row classifies as implicitly closed and a later write resurrects it.
func TestSweptRowResurrects(t *testing.T) {
	p := lease.Default
	tests := []struct {
		name     string
		lastSeen time.Time
		sweep    time.Time
	}{
		{"earliest possible sweep", at(0), at(day + grace + ns)},
		{"sweep an hour late", at(0), at(day + 2*grace)},
		{"sweep a month late", at(0), at(30 * day)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := lease.Row{LastSeenAt: tt.lastSeen}
			if !p.Sweepable(row, tt.sweep) {
				t.Fatalf("row not sweepable at %v", tt.sweep)
			}
			row.ClosedAt = ptr(tt.sweep)
			if p.ExplicitlyClosed(row) {
				t.Errorf("swept row classifies as explicitly closed")
			}
			if got := p.State(row, tt.sweep); got != lease.ImplicitlyClosed {
				t.Errorf("State = %v, want implicitly_closed", got)
			}
		})
	}
}

// TestSweptRowSurvivesStoragePrecision shows what the grace buys beyond the
// strict floor: a store that rounds timestamps (Postgres keeps microseconds,
// some SQLite encodings keep milliseconds or seconds) cannot round a swept
// closed_at back into the explicit-close window while the grace is wider than
// the rounding.
func TestSweptRowSurvivesStoragePrecision(t *testing.T) {
	p := lease.Default
	lastSeen := at(0).Add(999_999_999 * ns) // the worst case for truncation
	sweep := lastSeen.Add(day + grace + ns)
	row := lease.Row{LastSeenAt: lastSeen}
	if !p.Sweepable(row, sweep) {
		t.Fatal("row not sweepable")
	}
	for _, precision := range []time.Duration{time.Microsecond, time.Millisecond, time.Second} {
		stored := lease.Row{
			LastSeenAt: lastSeen.Round(precision),
			ClosedAt:   ptr(sweep.Truncate(precision)),
		}
		if got := p.State(stored, sweep); got != lease.ImplicitlyClosed {
			t.Errorf("precision %v: State = %v, want implicitly_closed", precision, got)
		}
	}
}

func Example() {
	p := lease.Default
	seen := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	closedAtEnd := seen.Add(time.Hour) // SessionEnd an hour after the last Stop
	swept := seen.Add(p.Lease + p.SweepGrace + time.Minute)

	fmt.Println(p.State(lease.Row{LastSeenAt: seen}, seen.Add(p.Lease-time.Nanosecond)))
	fmt.Println(p.State(lease.Row{LastSeenAt: seen}, seen.Add(p.Lease)))
	fmt.Println(p.State(lease.Row{LastSeenAt: seen, ClosedAt: &closedAtEnd}, seen.Add(48*time.Hour)))
	fmt.Println(p.Sweepable(lease.Row{LastSeenAt: seen}, swept))
	fmt.Println(p.State(lease.Row{LastSeenAt: seen, ClosedAt: &swept}, swept))
	fmt.Println(lease.Floor(seen, seen.Add(-time.Minute)).Equal(seen))
	// Output:
	// live
	// implicitly_closed
	// explicitly_closed
	// true
	// implicitly_closed
	// true
}

// TestOneBoundary pins the lease boundary declared once in Expiry: at every
// instant around it, an open row read at t and a row closed at t agree on
// which side of the lease t lies. A row read as lapsed at t, closed at t,
// stays resurrectable; a row live at t, closed at t, is protected.
func TestOneBoundary(t *testing.T) {
	for _, p := range []lease.Policy{lease.Default, {Lease: time.Minute}, {Lease: time.Nanosecond}} {
		lastSeen := at(0)
		for _, d := range []time.Duration{-ns, 0, ns} {
			instant := p.Expiry(lastSeen).Add(d)
			live := p.State(lease.Row{LastSeenAt: lastSeen}, instant) == lease.Live
			closed := p.State(lease.Row{LastSeenAt: lastSeen, ClosedAt: ptr(instant)}, instant)
			if live != (closed == lease.ExplicitlyClosed) {
				t.Errorf("lease %v, boundary%+v: open row live=%v but a close at that instant reads %v", p.Lease, d, live, closed)
			}
			if want := d < 0; live != want {
				t.Errorf("lease %v, boundary%+v: live=%v, want %v", p.Lease, d, live, want)
			}
		}
		if got := p.Expiry(lastSeen); !got.Equal(lastSeen.Add(p.Lease)) {
			t.Errorf("Expiry = %v, want last seen + lease", got)
		}
	}
}

func TestCloserDue(t *testing.T) {
	p := lease.Default
	tests := []struct {
		name     string
		closedAt *time.Time
		wantOK   bool
		want     time.Time
	}{
		{"open row", nil, false, time.Time{}},
		{"explicit close: due at the close", ptr(at(time.Hour)), true, at(time.Hour)},
		{"explicit close one ns before the expiry", ptr(at(day - ns)), true, at(day - ns)},
		{"close at the expiry is implicit: due a grace later", ptr(at(day)), true, at(day + grace)},
		{"implicit close inside the grace: due at its end", ptr(at(day + grace - ns)), true, at(day + grace)},
		{"implicit close at the end of the grace", ptr(at(day + grace)), true, at(day + grace)},
		{"swept one ns past the grace: due at the sweep", ptr(at(day + grace + ns)), true, at(day + grace + ns)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := p.CloserDue(lease.Row{LastSeenAt: at(0), ClosedAt: tt.closedAt})
			if ok != tt.wantOK || !got.Equal(tt.want) {
				t.Errorf("CloserDue = %v %v, want %v %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
