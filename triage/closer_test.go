package triage_test

import (
	"slices"
	"testing"
	"time"

	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

func TestCloserBackoff(t *testing.T) {
	cases := []struct {
		failures int
		want     time.Duration
	}{
		{-1, 20 * time.Minute},
		{0, 20 * time.Minute},
		{1, 20 * time.Minute},
		{2, 40 * time.Minute},
		{3, 80 * time.Minute},
		{4, 160 * time.Minute},
		{5, 4 * time.Hour},
		{6, 4 * time.Hour},
		{1000, 4 * time.Hour},
	}
	for _, c := range cases {
		if got := triage.CloserBackoff(c.failures); got != c.want {
			t.Errorf("CloserBackoff(%d) = %v, want %v", c.failures, got, c.want)
		}
	}
}

func TestClosable(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	cases := []struct {
		name      string
		status    triage.Status
		watermark []uuid.UUID
		visible   []uuid.UUID
		want      bool
	}{
		{"idle, no events", triage.Idle, nil, nil, true},
		{"pending", triage.Pending, nil, []uuid.UUID{a}, true},
		{"expired, all triaged", triage.Expired, []uuid.UUID{a}, []uuid.UUID{a}, true},
		{"completed, all triaged", triage.Completed, []uuid.UUID{a}, []uuid.UUID{a}, false},
		{"completed, no events", triage.Completed, nil, nil, false},
		{"completed, one event outside the watermark", triage.Completed, []uuid.UUID{a}, []uuid.UUID{a, b}, true},
		{"overflowed, new events", triage.Overflowed, nil, []uuid.UUID{a}, false},
		{"unknown status", triage.Status("closing"), nil, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := triage.Closable(c.status, c.watermark, triage.Listing{IDs: c.visible}); got != c.want {
				t.Errorf("Closable = %v, want %v", got, c.want)
			}
		})
	}
}

func TestClaimStatus(t *testing.T) {
	for _, s := range []triage.Status{triage.Idle, triage.Pending, triage.Completed, triage.Expired, triage.Overflowed} {
		want := s
		if s == triage.Pending {
			want = triage.Expired
		}
		if got := triage.ClaimStatus(s); got != want {
			t.Errorf("ClaimStatus(%s) = %s, want %s", s, got, want)
		}
	}
}

func TestCloserFinish(t *testing.T) {
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	p := triage.Policy{MinStops: 3, MinElapsed: time.Minute, Ceiling: 2}
	cases := []struct {
		name      string
		watermark []uuid.UUID
		visible   triage.Listing
		status    triage.Status
		wm        []uuid.UUID
	}{
		{"nothing visible", nil, triage.Listing{}, triage.Completed, []uuid.UUID{}},
		{"stamps every visible id", []uuid.UUID{a}, triage.Listing{IDs: []uuid.UUID{a, b}}, triage.Completed, []uuid.UUID{a, b}},
		{"at the ceiling", nil, triage.Listing{IDs: []uuid.UUID{a, b}}, triage.Completed, []uuid.UUID{a, b}},
		{"one past the ceiling", []uuid.UUID{a, b}, triage.Listing{IDs: []uuid.UUID{c}}, triage.Overflowed, []uuid.UUID{a, b}},
		{"truncated listing", nil, triage.Listing{IDs: []uuid.UUID{a}, Truncated: true}, triage.Overflowed, []uuid.UUID{a}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, wm := p.CloserFinish(tc.watermark, tc.visible)
			if st != tc.status || !slices.Equal(wm, tc.wm) {
				t.Errorf("CloserFinish = %s %v, want %s %v", st, wm, tc.status, tc.wm)
			}
		})
	}
}
