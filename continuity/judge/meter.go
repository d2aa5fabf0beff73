package judge

import (
	"sync"
	"time"

	"github.com/batonhq/baton/continuity"
)

// DefaultPeriod is the budget window when a Cap names none: the UTC day.
const DefaultPeriod = 24 * time.Hour

// Cap bounds what one tenant may spend on a metered judge in a period. Zero
// values mean no bound.
type Cap struct {
	// Tokens bounds input plus output tokens per period.
	Tokens int64
	// MicroUSD bounds the estimated cost per period.
	MicroUSD int64
	// Period is the window: fixed windows aligned on the Unix epoch, so 24h
	// is the UTC day. Zero is DefaultPeriod.
	Period time.Duration
}

// meter keeps each tenant's spend in the current window and refuses a call
// whose worst case does not fit the cap beside what is spent and what calls
// in flight have reserved. It is in memory: each process (each LLM) meters
// alone, so replicas enforce a shared budget only when each is given its
// share of it as its Cap.
type meter struct {
	cap   Cap
	clock func() time.Time

	mu       sync.Mutex
	accounts map[string]*account
}

// account is one tenant's window.
type account struct {
	window   int64
	spent    continuity.JudgeUsage
	reserved continuity.JudgeUsage
}

// maxIdleAccounts is how many tenants a meter keeps before it forgets those
// whose window has passed and who have nothing in flight.
const maxIdleAccounts = 10000

// newMeter returns a meter of cap on clock (nil: time.Now).
func newMeter(c Cap, clock func() time.Time) *meter {
	if c.Period <= 0 {
		c.Period = DefaultPeriod
	}
	if clock == nil {
		clock = time.Now
	}
	return &meter{cap: c, clock: clock, accounts: map[string]*account{}}
}

// spent returns what tenant has spent in the current window.
func (m *meter) spent(tenant string) continuity.JudgeUsage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.account(tenant).spent
}

// account returns tenant's account rolled to the current window. The caller
// holds mu.
func (m *meter) account(tenant string) *account {
	w := m.clock().UnixNano() / int64(m.cap.Period)
	a := m.accounts[tenant]
	if a == nil {
		if len(m.accounts) >= maxIdleAccounts {
			for t, old := range m.accounts {
				if old.window != w && old.reserved == (continuity.JudgeUsage{}) {
					delete(m.accounts, t)
				}
			}
		}
		a = &account{window: w}
		m.accounts[tenant] = a
	}
	if a.window != w {
		a.window, a.spent = w, continuity.JudgeUsage{}
	}
	return a
}

// reserve holds worst against tenant's cap, or returns ErrOverBudget (coded
// forbidden) when spent, reserved and worst together exceed it.
func (m *meter) reserve(tenant string, worst continuity.JudgeUsage) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.account(tenant)
	tokens := a.spent.InputTokens + a.spent.OutputTokens + a.reserved.InputTokens + a.reserved.OutputTokens + worst.InputTokens + worst.OutputTokens
	cost := a.spent.CostMicroUSD + a.reserved.CostMicroUSD + worst.CostMicroUSD
	if (m.cap.Tokens > 0 && tokens > m.cap.Tokens) || (m.cap.MicroUSD > 0 && cost > m.cap.MicroUSD) {
		return &continuity.Error{Code: continuity.CodeForbidden, Message: "the tenant's judge budget for this period is spent", Err: ErrOverBudget}
	}
	a.reserved = add(a.reserved, worst)
	return nil
}

// settle releases a reservation of worst and records actual.
func (m *meter) settle(tenant string, worst, actual continuity.JudgeUsage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a := m.account(tenant)
	a.reserved = add(a.reserved, continuity.JudgeUsage{InputTokens: -worst.InputTokens, OutputTokens: -worst.OutputTokens, CostMicroUSD: -worst.CostMicroUSD})
	a.spent = add(a.spent, actual)
}

func add(a, b continuity.JudgeUsage) continuity.JudgeUsage {
	return continuity.JudgeUsage{InputTokens: a.InputTokens + b.InputTokens, OutputTokens: a.OutputTokens + b.OutputTokens, CostMicroUSD: a.CostMicroUSD + b.CostMicroUSD}
}
