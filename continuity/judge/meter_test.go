package judge

import (
	"strconv"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// TestMeterForgetsIdleTenants: past maxIdleAccounts tenants, a new tenant
// makes the meter forget those of past windows with nothing in flight, and
// keep the current window's and those holding a reservation.
func TestMeterForgetsIdleTenants(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m := newMeter(Cap{Tokens: 100}, func() time.Time { return now })
	one := continuity.JudgeUsage{InputTokens: 1}
	for i := range maxIdleAccounts {
		m.settle("old"+strconv.Itoa(i), continuity.JudgeUsage{}, one)
	}
	if err := m.reserve("inflight", one); err != nil {
		t.Fatal(err)
	}
	now = now.Add(DefaultPeriod)
	m.settle("current", continuity.JudgeUsage{}, one)
	m.settle("new", continuity.JudgeUsage{}, one)
	if _, ok := m.accounts["old0"]; ok || len(m.accounts) != 3 {
		t.Fatalf("%d accounts kept, old0 among them: %v; want inflight, current and new", len(m.accounts), ok)
	}
	if m.accounts["inflight"].reserved != one || m.spent("current") != one {
		t.Fatalf("inflight %+v current %+v", m.accounts["inflight"], m.spent("current"))
	}
}
