package continuity

import (
	"time"

	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// DefaultLedgerRetention is how many ledger lines a tenant keeps by default.
const DefaultLedgerRetention = 5000

// Service is baton's domain service: the only place that sequences the pure
// rules (lease, triage, provenance) and storage. Every method takes the
// tenant explicitly; the adapters decide it from authentication.
type Service struct {
	store      Store
	now        func() time.Time
	lease      lease.Policy
	triage     triage.Policy
	ledgerKeep int
	briefing   BriefingPolicy
	freshness  freshness.Policy
	newID      func() uuid.UUID
	// retention is nil for DefaultRetention (see Retention).
	retention *Retention
}

// Option configures a Service.
type Option func(*Service)

// WithClock injects the clock. Times are truncated to microseconds, the
// precision both backends keep. Without it the clock is the store's when the
// store is a StoreClock, else time.Now.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithLeasePolicy replaces lease.Default.
func WithLeasePolicy(p lease.Policy) Option { return func(s *Service) { s.lease = p } }

// WithTriagePolicy replaces triage.Default.
func WithTriagePolicy(p triage.Policy) Option { return func(s *Service) { s.triage = p } }

// WithLedgerRetention sets how many ledger lines each tenant keeps.
func WithLedgerRetention(n int) Option { return func(s *Service) { s.ledgerKeep = n } }

// WithBriefingPolicy replaces DefaultBriefingPolicy.
func WithBriefingPolicy(p BriefingPolicy) Option { return func(s *Service) { s.briefing = p } }

// WithFreshnessPolicy replaces freshness.Default, the thresholds a
// handover's age is read against.
func WithFreshnessPolicy(p freshness.Policy) Option { return func(s *Service) { s.freshness = p } }

// New returns a Service over store.
func New(store Store, opts ...Option) *Service {
	s := &Service{
		store:      store,
		now:        time.Now,
		lease:      lease.Default,
		triage:     triage.Default,
		ledgerKeep: DefaultLedgerRetention,
		briefing:   DefaultBriefingPolicy,
		freshness:  freshness.Default,
		newID:      mustV7,
	}
	if c, ok := store.(StoreClock); ok {
		s.now = c.Now
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Store returns the service's store.
func (s *Service) Store() Store { return s.store }

// LeasePolicy returns the lease policy in force.
func (s *Service) LeasePolicy() lease.Policy { return s.lease }

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Now is the clock the service stamps and reads on (the store's, a
// StoreClock's, unless WithClock gave another), in the precision it keeps:
// a surface beside the service (a status page) reads ages on it, not on its
// host's clock.
func (s *Service) Now() time.Time { return s.clock() }

func mustV7() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		// NewV7 fails only when the system's random source does.
		panic(err)
	}
	return id
}

// state evaluates a row's lease state at now.
func (s *Service) state(row *Session, now time.Time) lease.State {
	return s.lease.State(lease.Row{LastSeenAt: row.LastSeenAt, ClosedAt: row.ClosedAt}, now)
}

// entry builds a ledger line for a session row.
func (s *Service) entry(event string, now time.Time, row *Session, fields map[string]string) LedgerEntry {
	f := map[string]string{"agent": row.Agent, "session_run_id": row.ID.String()}
	for k, v := range fields {
		f[k] = v
	}
	return LedgerEntry{ID: s.newID(), Tenant: row.Tenant, Event: event, At: now, Session: row.SessionID, Fields: f}
}
