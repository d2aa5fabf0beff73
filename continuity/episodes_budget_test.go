package continuity

import (
	"context"
	"testing"
	"time"
)

// TestLocalBudget: an event's local work gets the first half of what is
// left of its budget, so the episode call after it keeps the other half;
// without a deadline it gets none either.
func TestLocalBudget(t *testing.T) {
	now := time.Now()
	cases := []struct {
		name string
		left time.Duration // 0: no deadline
		want time.Duration // the local deadline's distance from now
	}{
		{"a Stop's 22.5 s", 22500 * time.Millisecond, 11250 * time.Millisecond},
		{"one millisecond", time.Millisecond, 500 * time.Microsecond},
		{"already past: the event's own deadline", -time.Second, -time.Second},
		{"no deadline", 0, 0},
	}
	for _, tc := range cases {
		ctx := context.Background()
		if tc.left != 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, now.Add(tc.left))
			defer cancel()
		}
		lctx, cancel := localBudget(ctx, now)
		d, ok := lctx.Deadline()
		switch {
		case tc.left == 0 && ok:
			t.Errorf("%s: a deadline %v, want none", tc.name, d)
		case tc.left != 0 && (!ok || !d.Equal(now.Add(tc.want))):
			t.Errorf("%s: deadline %v (%v), want %v", tc.name, d, ok, now.Add(tc.want))
		}
		cancel()
		if lctx.Err() == nil {
			t.Errorf("%s: cancel left the local context running", tc.name)
		}
		if tc.left > time.Second && ctx.Err() != nil {
			t.Errorf("%s: ending the local work ended the event's context", tc.name)
		}
	}
}
