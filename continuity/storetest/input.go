package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// testInput asserts that input is checked before any SQL is built: text that
// is not valid UTF-8 or carries a NUL byte is invalid naming its field,
// tenant included (a driver would rewrite the one to U+FFFD, so two tenants
// or two session ids could share a row, and refuse the other as internal);
// and the library keeps one session-id rule, so an id Open accepts can be
// bottled and one a bottle refuses is refused at Open.
func testInput(t *testing.T, h Harness) {
	t.Run("EncodingOfEveryStringField", func(t *testing.T) { t.Parallel(); testEncoding(t, h) })
	t.Run("TenantsThatWouldShareRows", func(t *testing.T) { t.Parallel(); testEncodedTenants(t, h) })
	t.Run("OneSessionIDRule", func(t *testing.T) { t.Parallel(); testSessionIDRule(t, h) })
	t.Run("Bounds", func(t *testing.T) { t.Parallel(); testBounds(t, h) })
}

// countingStore counts the transactions the service opens, to prove that a
// refused input never reached the store.
type countingStore struct {
	continuity.Store
	n atomic.Int64
}

func (s *countingStore) Write(ctx context.Context, tenant string, fn func(context.Context, continuity.Tx) error) error {
	s.n.Add(1)
	return s.Store.Write(ctx, tenant, fn)
}

func (s *countingStore) TouchLive(ctx context.Context, tenant string, t continuity.SessionTouch) (*continuity.Session, error) {
	s.n.Add(1)
	return s.Store.TouchLive(ctx, tenant, t)
}

func (s *countingStore) Read(ctx context.Context, tenant string, fn func(context.Context, continuity.Tx) error) error {
	s.n.Add(1)
	return s.Store.Read(ctx, tenant, fn)
}

// slot returns the value of one named input of a call: the bad value when
// name is the input under test, valid otherwise. A name's part before '#'
// is the field the error must name ("selector#key" is the selector's key).
type slot func(name, valid string) string

// stringCall is one service method and the string inputs it takes.
type stringCall struct {
	method string
	inputs []string
	call   func(in slot) error
}

// badText are the two encodings no string input may carry.
var badText = []struct {
	name   string
	spoil  func(string) string
	reason string
}{
	{"invalid UTF-8", func(v string) string { return v + "\xfe" }, "UTF-8"},
	{"NUL byte", func(v string) string { return v + "\x00" }, "NUL"},
}

func testEncoding(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	op := mustOpen(t, f, tenantA, startup("s1"))
	m := mustRemember(t, f, tenantA, remember(continuity.KindCommitment, "lease", "fix the lease", "baton", ""))
	bs := f.svc.Bottles(tenantA, agent)
	if err := bs.RecordPrompt(ctx, "s1", "first prompt"); err != nil {
		t.Fatal(err)
	}
	armed := bottle.Marker{SessionID: "s1", Path: "/tmp/b/s1.md", Gap: 1, Mode: bottle.ModeFull, ArmedAt: f.clock.Now()}
	if err := bs.ArmBottle(ctx, armed); err != nil {
		t.Fatal(err)
	}
	// A refused call that slipped through would now move last_seen_at.
	f.clock.Advance(time.Minute)
	before := inputSnapshot(t, f)

	cs := &countingStore{Store: f.store}
	svc := continuity.New(cs, continuity.WithClock(f.clock.Now))
	mid, run := m.Memory.ID.String(), op.SessionRunID.String()
	calls := []stringCall{
		{"Open", []string{"tenant", "agent", "sessionId", "source", "project", "scope", "selector", "selector#key", "briefedMemories[0].topic", "briefedMemories[0].status"}, func(in slot) error {
			_, err := svc.Open(ctx, in("tenant", tenantA), continuity.OpenParams{Agent: in("agent", agent), SessionID: in("sessionId", "s2"),
				Source: continuity.Source(in("source", "startup")), Project: in("project", "baton"), Scope: in("scope", "core"),
				Selector:        continuity.Selector{in("selector#key", "kind"): in("selector", "all")},
				BriefedMemories: []continuity.BriefedMemory{{ID: m.Memory.ID, Topic: in("briefedMemories[0].topic", "lease"), Status: in("briefedMemories[0].status", "open")}}})
			return err
		}},
		{"Clear", []string{"tenant", "agent", "sessionId", "project", "scope", "selector"}, func(in slot) error {
			_, err := svc.Clear(ctx, in("tenant", tenantA), continuity.OpenParams{Agent: in("agent", agent), SessionID: in("sessionId", "s1"),
				Project: in("project", "baton"), Scope: in("scope", "core"), Selector: continuity.Selector{"kind": in("selector", "all")}})
			return err
		}},
		{"Heartbeat", []string{"tenant", "agent", "sessionId", "lastMessageExcerpt"}, func(in slot) error {
			excerpt := in("lastMessageExcerpt", "done")
			_, err := svc.Heartbeat(ctx, in("tenant", tenantA), continuity.HeartbeatParams{Agent: in("agent", agent), SessionID: in("sessionId", "s1"), LastMessageExcerpt: &excerpt, Stop: true})
			return err
		}},
		{"Compact", []string{"tenant", "agent", "sessionId", "lastMessageExcerpt"}, func(in slot) error {
			excerpt := in("lastMessageExcerpt", "done")
			_, err := svc.Compact(ctx, in("tenant", tenantA), continuity.HeartbeatParams{Agent: in("agent", agent), SessionID: in("sessionId", "s1"), LastMessageExcerpt: &excerpt})
			return err
		}},
		{"Close", []string{"tenant", "agent", "sessionId"}, func(in slot) error {
			_, err := svc.Close(ctx, in("tenant", tenantA), continuity.CloseParams{Agent: in("agent", agent), SessionID: in("sessionId", "s1")})
			return err
		}},
		{"Session", []string{"tenant", "agent", "sessionId"}, func(in slot) error {
			_, err := svc.Session(ctx, in("tenant", tenantA), in("agent", agent), in("sessionId", "s1"))
			return err
		}},
		{"Sweep", []string{"tenant"}, func(in slot) error {
			_, err := svc.Sweep(ctx, in("tenant", tenantA), 10)
			return err
		}},
		{"TriageBegin", []string{"tenant", "agent", "sessionId"}, func(in slot) error {
			_, err := svc.TriageBegin(ctx, in("tenant", tenantA), continuity.TriageParams{Agent: in("agent", agent), SessionID: in("sessionId", "s1")})
			return err
		}},
		{"TriageComplete", []string{"tenant", "agent", "sessionId", "attemptId"}, func(in slot) error {
			_, err := svc.TriageComplete(ctx, in("tenant", tenantA), continuity.TriageCompleteParams{Agent: in("agent", agent), SessionID: in("sessionId", "s1"), AttemptID: in("attemptId", uuid.NewString())})
			return err
		}},
		{"Debrief", []string{"tenant", "project", "scope", "agent", "sessionId"}, func(in slot) error {
			_, err := svc.Debrief(ctx, in("tenant", tenantA), continuity.DebriefParams{Project: in("project", "baton"), Scope: in("scope", "core"), Agent: in("agent", agent), SessionID: in("sessionId", "s1")})
			return err
		}},
		{"AppendReceipt", []string{"tenant", "provider", "providerEvent", "agent", "sessionId"}, func(in slot) error {
			_, err := svc.AppendReceipt(ctx, in("tenant", tenantA), continuity.ReceiptParams{Provider: in("provider", "claude-code"), ProviderEvent: in("providerEvent", "Stop"), Agent: in("agent", agent), SessionID: in("sessionId", "s1")})
			return err
		}},
		{"Receive", []string{"tenant", "provider", "providerEvent", "agent", "sessionId"}, func(in slot) error {
			ran := false
			err := svc.Receive(ctx, in("tenant", tenantA), continuity.ReceiptParams{Provider: in("provider", "claude-code"), ProviderEvent: in("providerEvent", "Stop"), Agent: in("agent", agent), SessionID: in("sessionId", "s1")},
				func(context.Context) error { ran = true; return nil })
			if ran {
				return errors.Join(err, errors.New("the work ran after a refused receipt"))
			}
			return err
		}},
		{"AppendEvent", []string{"tenant", "event", "session", "fields#key", "fields.note"}, func(in slot) error {
			_, err := svc.AppendEvent(ctx, in("tenant", tenantA), in("event", "test.event"), in("session", "s1"), map[string]string{in("fields#key", "note"): in("fields.note", "x")})
			return err
		}},
		{"Ledger", []string{"tenant"}, func(in slot) error {
			_, err := svc.Ledger(ctx, in("tenant", tenantA), uuid.Nil, 10)
			return err
		}},
		{"Remember", []string{"tenant", "kind", "topic", "content", "project", "scope", "sessionRunId", "actor"}, func(in slot) error {
			_, err := svc.Remember(ctx, in("tenant", tenantA), continuity.RememberParams{Kind: continuity.MemoryKind(in("kind", "note")), Topic: in("topic", "t"), Content: in("content", "c"),
				Project: in("project", "baton"), Scope: in("scope", "core"), SessionRunID: in("sessionRunId", run), Actor: continuity.ActorKind(in("actor", "user_api"))})
			return err
		}},
		{"Revise", []string{"tenant", "id", "kind", "topic", "content", "project", "scope", "sessionRunId", "actor"}, func(in slot) error {
			_, err := svc.Revise(ctx, in("tenant", tenantA), in("id", mid), continuity.ReviseParams{Kind: continuity.MemoryKind(in("kind", "commitment")), Topic: in("topic", "t"), Content: in("content", "c"),
				Project: in("project", "baton"), Scope: in("scope", "core"), SessionRunID: in("sessionRunId", run), Actor: continuity.ActorKind(in("actor", "user_api"))})
			return err
		}},
		{"Resolve", []string{"tenant", "id", "sessionRunId", "actor"}, func(in slot) error {
			_, err := svc.Resolve(ctx, in("tenant", tenantA), in("id", mid), continuity.TransitionParams{SessionRunID: in("sessionRunId", run), Actor: continuity.ActorKind(in("actor", "user_api"))})
			return err
		}},
		{"Archive", []string{"tenant", "id", "sessionRunId", "actor"}, func(in slot) error {
			_, err := svc.Archive(ctx, in("tenant", tenantA), in("id", mid), continuity.TransitionParams{SessionRunID: in("sessionRunId", run), Actor: continuity.ActorKind(in("actor", "user_api"))})
			return err
		}},
		{"Unresolve", []string{"tenant", "id", "sessionRunId", "actor"}, func(in slot) error {
			_, err := svc.Unresolve(ctx, in("tenant", tenantA), in("id", mid), continuity.TransitionParams{SessionRunID: in("sessionRunId", run), Actor: continuity.ActorKind(in("actor", "user_api"))})
			return err
		}},
		{"Import", []string{"tenant", "kind", "topic", "content", "project", "scope", "status", "actor"}, func(in slot) error {
			_, err := svc.Import(ctx, in("tenant", tenantA), continuity.ImportParams{Kind: continuity.MemoryKind(in("kind", "note")), Topic: in("topic", "t"), Content: in("content", "c"),
				Project: in("project", "baton"), Scope: in("scope", "core"), Status: continuity.MemoryStatus(in("status", "open"))}, continuity.ActorKind(in("actor", "user_cli")))
			return err
		}},
		{"RunEvents", []string{"tenant", "sessionRunId", "cursor"}, func(in slot) error {
			_, err := svc.RunEvents(ctx, in("tenant", tenantA), in("sessionRunId", run), in("cursor", ""), 10)
			return err
		}},
		{"Briefing", []string{"tenant", "project", "scope"}, func(in slot) error {
			_, err := svc.Briefing(ctx, in("tenant", tenantA), continuity.BriefingParams{Project: in("project", "baton"), Scope: in("scope", "core")})
			return err
		}},
		{"OpenCommitments", []string{"tenant", "project"}, func(in slot) error {
			_, err := svc.OpenCommitments(ctx, in("tenant", tenantA), in("project", "baton"))
			return err
		}},
		{"Memory", []string{"tenant", "id"}, func(in slot) error {
			_, err := svc.Memory(ctx, in("tenant", tenantA), in("id", mid))
			return err
		}},
		{"ArmBottle", []string{"tenant", "agent", "sessionId", "path", "mode"}, func(in slot) error {
			return svc.Bottles(in("tenant", tenantA), in("agent", agent)).ArmBottle(ctx, bottle.Marker{SessionID: in("sessionId", "s1"), Path: in("path", "/tmp/b/other.md"), Mode: bottle.Mode(in("mode", "full"))})
		}},
		{"ClaimBottle", []string{"tenant", "agent", "sessionId"}, func(in slot) error {
			_, _, err := svc.Bottles(in("tenant", tenantA), in("agent", agent)).ClaimBottle(ctx, in("sessionId", "s1"))
			return err
		}},
		{"SessionHistory", []string{"tenant", "agent", "sessionId"}, func(in slot) error {
			_, err := svc.Bottles(in("tenant", tenantA), in("agent", agent)).SessionHistory(ctx, in("sessionId", "s1"))
			return err
		}},
		{"RecordPrompt", []string{"tenant", "agent", "sessionId", "text"}, func(in slot) error {
			return svc.Bottles(in("tenant", tenantA), in("agent", agent)).RecordPrompt(ctx, in("sessionId", "s1"), in("text", "another prompt"))
		}},
	}
	for _, c := range calls {
		for _, input := range c.inputs {
			field, _, _ := strings.Cut(input, "#")
			for _, bad := range badText {
				name := fmt.Sprintf("%s %s with %s", c.method, input, bad.name)
				reached := false
				start := cs.n.Load()
				err := c.call(func(n, valid string) string {
					if n != input {
						return valid
					}
					reached = true
					return bad.spoil(valid)
				})
				if !reached {
					t.Fatalf("%s: the call has no input %q", name, input)
				}
				if code := continuity.ErrorCode(err); code != continuity.CodeInvalid {
					t.Errorf("%s: code %q (%v), want invalid", name, code, err)
					continue
				}
				reason, ok := continuity.ErrorFields(err)[field]
				if !ok {
					t.Errorf("%s: %v does not name %q", name, err, field)
				}
				if field == "tenant" && !strings.Contains(reason, bad.reason) {
					t.Errorf("%s: tenant reason %q does not say %s", name, reason, bad.reason)
				}
				if n := cs.n.Load() - start; n != 0 {
					t.Errorf("%s: refused, but only after %d store transactions", name, n)
				}
			}
		}
	}
	if after := inputSnapshot(t, f); after != before {
		t.Errorf("refused calls changed the store:\nbefore %s\nafter  %s", before, after)
	}
	if got, ok, err := bs.ClaimBottle(ctx, "s1"); err != nil || !ok || got.Path != armed.Path || !got.ArmedAt.Equal(armed.ArmedAt) {
		t.Errorf("the armed marker changed under refused calls: %+v %v %v", got, ok, err)
	}
}

// inputSnapshot renders what a refused call might have changed: tenant A's
// ledger, memories, conversation s1 and its prompts, and the rows of the
// tenant a driver would rewrite tenant A's spoiled name to.
func inputSnapshot(t *testing.T, f *fixture) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, tenant := range []string{tenantA, tenantA + "\uFFFD"} {
		es, err := f.svc.Ledger(ctx, tenant, uuid.Nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%q: %d ledger lines, %d memories; ", tenant, len(es), countMemories(t, f, tenant))
	}
	v := view(t, f, tenantA, "s1")
	rec, err := f.svc.Bottles(tenantA, agent).SessionHistory(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := f.svc.OpenCommitments(ctx, tenantA, "baton")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "s1 epoch %d seen %s closed %v stops %d compactions %d triage %s, %d prompts, %d open commitments",
		v.ActivationEpoch, v.LastSeenAt.Format(time.RFC3339Nano), v.ClosedAt != nil, v.StopCount, v.Compactions, v.TriageStatus, len(rec.Prompts), len(ms))
	return b.String()
}

// testEncodedTenants is the case: "acme\xfe" and "acme\xff" both
// become "acme\uFFFD" in a driver, so unchecked they share one tenant's
// rows. Both are refused, at the service and at the store's own edge.
func testEncodedTenants(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	for _, tenant := range []string{"acme\xfe", "acme\xff", "acme\x00"} {
		_, err := f.svc.Open(ctx, tenant, startup("s1"))
		wantInvalid(t, err, "tenant")
		_, err = f.svc.Session(ctx, tenant, agent, "s1")
		wantInvalid(t, err, "tenant")
		ran := false
		err = f.store.Write(ctx, tenant, func(context.Context, continuity.Tx) error { ran = true; return nil })
		wantInvalid(t, err, "tenant")
		err = f.store.Read(ctx, tenant, func(context.Context, continuity.Tx) error { ran = true; return nil })
		wantInvalid(t, err, "tenant")
		if ran {
			t.Fatalf("the store ran a transaction for tenant %q", tenant)
		}
	}
	// Two session ids a driver would fold into one.
	mustOpen(t, f, tenantA, startup("s1"))
	for _, sid := range []string{"s\xfe", "s\xff", "s\x00"} {
		_, err := f.svc.Open(ctx, tenantA, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup})
		wantInvalid(t, err, "sessionId")
	}
}

func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	wantCode(t, err, continuity.CodeInvalid)
	if _, ok := continuity.ErrorFields(err)[field]; !ok {
		t.Fatalf("%v does not name %q", err, field)
	}
}

// testSessionIDRule: an id Open accepts is one a bottle can be sealed,
// armed and claimed under; an id the bottle refuses is refused by Open, and
// the bottle's own refusal reaches a caller as invalid naming sessionId,
// never internal.
func testSessionIDRule(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	bs := f.svc.Bottles(tenantA, agent)
	bt := &bottle.Bottler{Home: t.TempDir(), History: bs, Marker: bs, Clock: testClock{f.clock}}
	for _, sid := range []string{"c96e6033-0cbe-4890-a588-1160d3853949", "a", "A.b_c-1", strings.Repeat("a", continuity.MaxSessionIDLen)} {
		if err := bottle.ValidateSessionID(sid); err != nil {
			t.Fatalf("the bottle refuses %q: %v", sid, err)
		}
		mustOpen(t, f, tenantA, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup})
		if err := bs.RecordPrompt(ctx, sid, "carry this on"); err != nil {
			t.Fatalf("record a prompt for %q: %v", sid, err)
		}
		res, err := bt.Seal(ctx, sid, "", time.Second)
		if err != nil || !res.Sealed || !res.Armed {
			t.Fatalf("seal %q = %+v, %v", sid, res, err)
		}
		if _, ok, err := bt.Continuation(ctx, bs, sid); !ok || err != nil {
			t.Fatalf("claim %q: %v %v", sid, ok, err)
		}
	}
	for _, sid := range []string{"../escape", "a/b", `a\b`, "C:x", ".hidden", "-flag", "a..b", "a b", "é", "NUL", "com1.x", strings.Repeat("a", continuity.MaxSessionIDLen+1)} {
		if bottle.ValidateSessionID(sid) == nil {
			t.Fatalf("the bottle accepts %q", sid)
		}
		_, err := f.svc.Open(ctx, tenantA, continuity.OpenParams{Agent: agent, SessionID: sid, Source: continuity.SourceStartup})
		wantInvalid(t, err, "sessionId")
		_, err = bt.Seal(ctx, sid, "", time.Second)
		wantInvalid(t, err, "sessionId")
		_, _, err = bt.Continuation(ctx, bs, sid)
		wantInvalid(t, err, "sessionId")
	}
}

// axes returns a selector of n axes whose keys and values are size
// characters long.
func axes(n, size int) continuity.Selector {
	sel := continuity.Selector{}
	for i := range n {
		k := fmt.Sprintf("%0*d", size, i)
		sel[k] = strings.Repeat("v", size)
	}
	return sel
}

// payload returns n ledger fields whose keys are keySize and values
// valueSize characters long.
func payload(n, keySize, valueSize int) map[string]string {
	fields := map[string]string{}
	for i := range n {
		fields[fmt.Sprintf("%0*d", keySize, i)] = strings.Repeat("v", valueSize)
	}
	return fields
}

// testBounds: every input is bounded and every enum checked, the field
// named; the bound itself is accepted.
func testBounds(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	bs := f.svc.Bottles(tenantA, agent)
	open := func(sel continuity.Selector) error {
		_, err := f.svc.Open(ctx, tenantA, continuity.OpenParams{Agent: agent, SessionID: "s1", Source: continuity.SourceStartup, Selector: sel})
		return err
	}
	event := func(session string, fields map[string]string) error {
		_, err := f.svc.AppendEvent(ctx, tenantA, "test.event", session, fields)
		return err
	}
	receipt := func(sid string) error {
		_, err := f.svc.AppendReceipt(ctx, tenantA, continuity.ReceiptParams{Provider: "claude-code", ProviderEvent: "Stop", Agent: agent, SessionID: sid})
		return err
	}
	arm := func(path string, mode bottle.Mode, gap int) error {
		return bs.ArmBottle(ctx, bottle.Marker{SessionID: "s1", Path: path, Mode: mode, Gap: gap})
	}
	const fullPath = "/tmp/b/s1.md"
	cases := []struct {
		name  string
		err   error
		field string
	}{
		{"selector with too many axes", open(axes(continuity.MaxSelectorAxes+1, 4)), "selector"},
		{"selector with 5000 axes", open(axes(5000, 200)), "selector"},
		{"selector key too long", open(continuity.Selector{strings.Repeat("k", continuity.MaxFacetLen+1): "v"}), "selector"},
		{"selector value too long", open(continuity.Selector{"kind": strings.Repeat("v", continuity.MaxFacetLen+1)}), "selector"},
		{"selector key empty", open(continuity.Selector{"": "v"}), "selector"},
		{"event session of 1 MiB", event(strings.Repeat("s", 1<<20), nil), "session"},
		{"event session that is no session id", event("../s1", nil), "session"},
		{"event field value of 1 MiB", event("s1", map[string]string{"k": strings.Repeat("v", 1<<20)}), "fields.k"},
		{"event field value too long", event("s1", map[string]string{"k": strings.Repeat("v", continuity.MaxLedgerValueLen+1)}), "fields.k"},
		{"event with too many fields", event("s1", payload(continuity.MaxLedgerFields+1, 3, 1)), "fields"},
		{"event field key too long", event("s1", payload(1, 65, 1)), "fields"},
		{"event field key empty", event("s1", map[string]string{"": "v"}), "fields"},
		{"receipt session id too long", receipt(strings.Repeat("s", continuity.MaxSessionIDLen+1)), "sessionId"},
		{"arm with mode bogus", arm(fullPath, "bogus", 0), "mode"},
		{"arm with no mode", arm(fullPath, "", 0), "mode"},
		{"arm with mode timeline, which writes no bottle", arm(fullPath, bottle.ModeTimeline, 0), "mode"},
		{"arm with a negative gap", arm(fullPath, bottle.ModeFull, -1), "gap"},
		{"arm with a gap past the column", arm(fullPath, bottle.ModeFull, continuity.MaxBottleGap+1), "gap"},
		{"arm with a path too long", arm("/"+strings.Repeat("p", continuity.MaxPathLen), bottle.ModeFull, 0), "path"},
	}
	for _, c := range cases {
		if continuity.ErrorCode(c.err) != continuity.CodeInvalid {
			t.Errorf("%s: %v, want invalid", c.name, c.err)
			continue
		}
		if _, ok := continuity.ErrorFields(c.err)[c.field]; !ok {
			t.Errorf("%s: %v does not name %q", c.name, c.err, c.field)
		}
	}
	for _, c := range []struct {
		name string
		err  error
	}{
		{"selector at the bounds", open(axes(continuity.MaxSelectorAxes, continuity.MaxFacetLen))},
		{"event at the bounds", event(strings.Repeat("s", continuity.MaxSessionIDLen), payload(continuity.MaxLedgerFields, 64, continuity.MaxLedgerValueLen))},
		{"receipt at the bounds", receipt(strings.Repeat("s", continuity.MaxSessionIDLen))},
		{"arm at the bounds", arm(strings.Repeat("p", continuity.MaxPathLen), bottle.ModeReconstructed, continuity.MaxBottleGap)},
		{"arm with no gap", arm(fullPath, bottle.ModeFull, 0)},
	} {
		if c.err != nil {
			t.Errorf("%s refused: %v", c.name, c.err)
		}
	}
}
