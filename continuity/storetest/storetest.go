package storetest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
)

// Harness tells the suite how to make stores.
type Harness struct {
	// New returns a fresh, empty store for one test and the DSN that opens
	// the same store from another process. It registers its own cleanup.
	New func(t *testing.T) (continuity.Store, string)
	// Open, when set, opens a second handle on the store a DSN New
	// returned names, as a second replica (or process) would: the replica
	// races run over it. Without it they share New's handle.
	Open Opener
	// OpenClocked, when set, opens a handle on the store a DSN New
	// returned names as a process on a host whose clock is host would: the
	// clock-skew cases run over it, and are skipped without it.
	OpenClocked func(ctx context.Context, dsn string, host func() time.Time) (continuity.Store, error)
}

// Unscoped is implemented by stores that enforce tenancy in the database
// itself (Postgres row-level security). The suite uses it to prove that a
// query carrying no tenant sees nothing.
type Unscoped interface {
	// RowLevelSecurity reports whether the database enforces tenancy.
	RowLevelSecurity() bool
	// UnscopedCount counts a table's rows as the runtime role without any
	// tenant setting.
	UnscopedCount(ctx context.Context, table string) (int, error)
}

// Opener opens an existing store by DSN; Main uses it in child processes.
type Opener func(ctx context.Context, dsn string) (continuity.Store, error)

// Run runs the whole suite.
func Run(t *testing.T, h Harness) {
	t.Run("Lifecycle", func(t *testing.T) { testLifecycle(t, h) })
	t.Run("Lease", func(t *testing.T) { testLease(t, h) })
	t.Run("Sweep", func(t *testing.T) { testSweep(t, h) })
	t.Run("Errors", func(t *testing.T) { testErrors(t, h) })
	t.Run("Validation", func(t *testing.T) { testValidation(t, h) })
	t.Run("Input", func(t *testing.T) { testInput(t, h) })
	t.Run("Ledger", func(t *testing.T) { testLedger(t, h) })
	t.Run("Isolation", func(t *testing.T) { testIsolation(t, h) })
	t.Run("Concurrency", func(t *testing.T) { testConcurrency(t, h) })
	t.Run("Memory", func(t *testing.T) { testMemory(t, h) })
	t.Run("Provenance", func(t *testing.T) { testProvenance(t, h) })
	t.Run("AttachRace", func(t *testing.T) { testAttachRace(t, h) })
	t.Run("ReplicaRaces", func(t *testing.T) { testReplicaRaces(t, h) })
	t.Run("Episodes", func(t *testing.T) { testEpisodes(t, h) })
	t.Run("Triage", func(t *testing.T) { testTriage(t, h) })
	t.Run("Briefing", func(t *testing.T) { testBriefing(t, h) })
	t.Run("Bottle", func(t *testing.T) { testBottle(t, h) })
	t.Run("ExcerptTurns", func(t *testing.T) { testExcerptTurns(t, h) })
	t.Run("WriteOrder", func(t *testing.T) { testWriteOrder(t, h) })
	t.Run("HandoverClockSkew", func(t *testing.T) { testHandoverClockSkew(t, h) })
	t.Run("Conversation", func(t *testing.T) { testConversation(t, h) })
	t.Run("BriefingSections", func(t *testing.T) { testBriefingSections(t, h) })
	t.Run("TxErrors", func(t *testing.T) { testTxErrors(t, h) })
	t.Run("Grants", func(t *testing.T) { testGrants(t, h) })
	t.Run("Scenarios", func(t *testing.T) { RunScenarios(t, LocalScenarios(h)) })
	t.Run("TxContract", func(t *testing.T) { testTxContract(t, h) })
	t.Run("ProvisionalPreCompact", func(t *testing.T) { testProvisionalPreCompact(t, h) })
	t.Run("Doctor", func(t *testing.T) { testDoctor(t, h) })
	t.Run("Export", func(t *testing.T) { testExport(t, h) })
	t.Run("Erase", func(t *testing.T) { testErase(t, h) })
	t.Run("Retention", func(t *testing.T) { testRetention(t, h) })
	t.Run("SessionList", func(t *testing.T) { testSessionList(t, h) })
	t.Run("SessionLedger", func(t *testing.T) { testSessionLedger(t, h) })
	t.Run("Worker", func(t *testing.T) { testWorker(t, h) })
	t.Run("SweepRaces", func(t *testing.T) { testSweepRaces(t, h) })
	t.Run("WorkerStops", func(t *testing.T) { testWorkerStops(t, h) })
	t.Run("WorkerRetention", func(t *testing.T) { testWorkerRetention(t, h) })
	t.Run("WorkerRetentionAfterClockStep", func(t *testing.T) { testWorkerRetentionClockStep(t, h) })
}

// Clock is a settable test clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at a fixed instant.
func NewClock() *Clock {
	return &Clock{t: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward (or back, for a negative d).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Set sets the clock.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// fixture is one test's store, clock and service.
type fixture struct {
	store continuity.Store
	dsn   string
	clock *Clock
	svc   *continuity.Service
}

func newFixture(t *testing.T, h Harness, opts ...continuity.Option) *fixture {
	t.Helper()
	st, dsn := h.New(t)
	c := NewClock()
	opts = append([]continuity.Option{continuity.WithClock(c.Now)}, opts...)
	return &fixture{store: st, dsn: dsn, clock: c, svc: continuity.New(st, opts...)}
}

// Child process roles, selected by environment.
const (
	envChild  = "BATON_STORETEST_CHILD"
	envDSN    = "BATON_STORETEST_DSN"
	envWrites = "BATON_STORETEST_WRITES"
	envIndex  = "BATON_STORETEST_INDEX"
)

// Main is a store test file's TestMain. In a child process started by the
// suite it runs the child's work and exits; otherwise it runs the tests.
func Main(m *testing.M, open Opener) {
	if role := os.Getenv(envChild); role != "" {
		if err := runChild(role, open); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(role string, open Opener) error {
	ctx := context.Background()
	st, err := open(ctx, os.Getenv(envDSN))
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := strconv.Atoi(os.Getenv(envWrites))
	if err != nil {
		return err
	}
	idx := os.Getenv(envIndex)
	svc := continuity.New(st)
	switch role {
	case "writer":
		for i := range n {
			if _, err := svc.Heartbeat(ctx, "tenant-a", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "shared", Stop: true}); err != nil {
				return fmt.Errorf("heartbeat %d: %w", i, err)
			}
			if _, err := svc.AppendEvent(ctx, "tenant-a", "test.write", "shared", map[string]string{"child": idx}); err != nil {
				return fmt.Errorf("append %d: %w", i, err)
			}
			if _, err := svc.Open(ctx, "tenant-a", continuity.OpenParams{Agent: "claude-code", SessionID: "child-" + idx + "-" + strconv.Itoa(i), Source: continuity.SourceStartup}); err != nil {
				return fmt.Errorf("open %d: %w", i, err)
			}
		}
		return nil
	}
	return fmt.Errorf("unknown child role %q", role)
}
