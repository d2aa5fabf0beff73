package storetest

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/lease"
	"github.com/google/uuid"
)

// chaosCall is what one call of scenarioChaos did: its operation, the
// conversation, and what it answered.
type chaosCall struct {
	op, sid string
	// episode says the call is an episode method, which leaves a receipt.
	episode bool
	receipt uuid.UUID
	err     error
	// run and epoch are the row the call answered with, when it did.
	run   uuid.UUID
	epoch int
	// record is the checkpoint or handover the call returned.
	record uuid.UUID
	// want is the code the call must fail with; "" when it may succeed.
	want continuity.Code
	// activated says the call began an activation (epoch+1): a resume,
	// a reopen, a resurrection.
	activated bool
	// armed and claimed say the call armed a bottle marker, or claimed one.
	armed, claimed bool
	// event, attributed and carried are a memory write's event, the run
	// it answered the write attributed to (uuid.Nil: none) and the run id
	// it carried ("": none).
	event, attributed uuid.UUID
	carried           string
}

// chaosOps are the operations scenarioChaos mixes: every lifecycle event a
// hook sends, with its variants, and the session and memory methods an
// agent, a person or another replica calls meanwhile.
var chaosOps = []struct {
	name string
	call func(s *scene, rng *rand.Rand, sid, run string) chaosCall
}{
	{"start.startup", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		return chaosStart(s, sid, continuity.SourceStartup)
	}},
	{"start.resume", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		return chaosStart(s, sid, continuity.SourceResume)
	}},
	{"start.compact", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		return chaosStart(s, sid, continuity.SourceCompact)
	}},
	{"start.clear", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		return chaosStart(s, sid, continuity.SourceClear)
	}},
	{"prompt", func(s *scene, rng *rand.Rand, sid, _ string) chaosCall {
		r, err := s.a.UserPrompt(s.ctx, promptOf(sid, "step "+strconv.Itoa(rng.IntN(1000))))
		return chaosCall{episode: true, receipt: r.ReceiptID, err: err}
	}},
	{"prompt.invalid", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		// Bad input is refused after the receipt, which then has its
		// failure line.
		r, err := s.a.UserPrompt(s.ctx, promptOf(sid, "a NUL \x00 byte"))
		return chaosCall{episode: true, receipt: r.ReceiptID, err: err, want: continuity.CodeInvalid}
	}},
	{"stop", func(s *scene, rng *rand.Rand, sid, _ string) chaosCall {
		p := stopOf(sid, "Did step "+strconv.Itoa(rng.IntN(1000))+".")
		p.Nudge = rng.IntN(2) == 0
		p.StopHookActive = rng.IntN(3) == 0
		r, err := s.a.Stop(s.ctx, p)
		return chaosCall{episode: true, receipt: r.ReceiptID, err: err, run: r.SessionRunID, epoch: r.ActivationEpoch, activated: r.Resurrected}
	}},
	{"precompact", func(s *scene, rng *rand.Rand, sid, _ string) chaosCall {
		p := preCompactOf(sid)
		switch rng.IntN(3) {
		case 0:
			p.Sealed = sealedOf(sid)
		case 1:
			p.Provisional = true
		}
		r, err := s.a.PreCompact(s.ctx, p)
		return chaosCall{episode: true, receipt: r.ReceiptID, err: err, record: r.Checkpoint.ID, run: r.Checkpoint.SessionRunID, armed: r.Armed}
	}},
	{"end", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		// The longest budget: this is about interleavings, and 32 callers
		// on a loaded machine may queue past the hook's default.
		r, err := s.a.SessionEnd(s.ctx, continuity.EndParams{EventParams: hookEvent(evEnd, sid), Reason: "exit",
			BudgetMillis: int(continuity.MaxEndBudget / time.Millisecond)})
		return chaosCall{episode: true, receipt: r.ReceiptID, err: err, record: r.Handover.ID, run: r.Close.SessionRunID, epoch: r.Close.ActivationEpoch}
	}},
	{"heartbeat", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		msg := "Still on the step."
		r, err := s.a.Heartbeat(s.ctx, continuity.HeartbeatParams{Agent: agent, SessionID: sid, LastMessageExcerpt: &msg, Stop: true})
		return chaosCall{err: err, run: r.SessionRunID, epoch: r.ActivationEpoch, activated: r.Resurrected}
	}},
	{"close", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		r, err := s.a.Close(s.ctx, continuity.CloseParams{Agent: agent, SessionID: sid})
		return chaosCall{err: err, run: r.SessionRunID, epoch: r.ActivationEpoch}
	}},
	{"bottle.arm", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		return chaosCall{err: s.a.ArmBottle(s.ctx, agent, *sealedOf(sid)), armed: true}
	}},
	{"bottle.claim", func(s *scene, _ *rand.Rand, sid, _ string) chaosCall {
		_, ok, err := s.a.ClaimBottle(s.ctx, agent, sid)
		return chaosCall{err: err, claimed: ok}
	}},
	{"remember", func(s *scene, rng *rand.Rand, sid, run string) chaosCall {
		kind := []continuity.MemoryKind{continuity.KindCommitment, continuity.KindDecision}[rng.IntN(2)]
		topic := sid + " topic " + strconv.Itoa(rng.IntN(1000))
		if rng.IntN(2) == 0 {
			run = "" // id-less: attached only when one row is live at commit
		}
		w, err := s.a.Remember(s.ctx, remember(kind, topic, topic+" content", "baton", run))
		return chaosCall{err: err, event: w.EventID, attributed: w.SessionRunID, carried: run}
	}},
}

func chaosStart(s *scene, sid string, src continuity.Source) chaosCall {
	r, err := s.a.SessionStart(s.ctx, startOf(sid, src, "baton"))
	return chaosCall{episode: true, receipt: r.ReceiptID, err: err, run: r.SessionRunID, epoch: r.ActivationEpoch,
		activated: src == continuity.SourceResume || r.Reopened || r.Resurrected, claimed: r.Marker != nil}
}

// scenarioChaos: 32 callers mix every lifecycle event and the session and
// memory methods over three conversations of one project, in a seeded
// random order (three seeds), with prompts a NUL byte makes invalid, while
// the clock moves on by seconds and now and then past the lease, so rows
// lapse and are resurrected. However the calls interleave
// (on Postgres, Read Committed transactions of many connections), none
// fails for a reason of the store's own (internal), each episode call
// leaves exactly its receipt and, when it failed, exactly one failure
// naming it, each record a call returned was committed, each conversation
// keeps its one run and an epoch no call saw ahead of the row's, no two
// calls began the same activation, no bottle marker is claimed more often
// than markers were armed, and the doctor finds no receipt unanswered.
func scenarioChaos(t *testing.T, h ScenarioHarness) {
	for seed := range uint64(3) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { chaos(t, h, seed) })
	}
}

// chaos is one seeded run of scenarioChaos.
func chaos(t *testing.T, h ScenarioHarness, seed uint64) {
	const callers, perCaller = 32, 12
	s := newScene(t, h)
	sids := []string{"c0", "c1", "c2"}
	runs := map[string]uuid.UUID{}
	for _, sid := range sids {
		runs[sid] = s.startup(sid, "baton").SessionRunID
	}
	var (
		mu    sync.Mutex
		calls []chaosCall
		wg    sync.WaitGroup
	)
	for c := range callers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), seed))
			for range perCaller {
				sid := sids[rng.IntN(len(sids))]
				op := chaosOps[rng.IntN(len(chaosOps))]
				switch rng.IntN(40) {
				case 0:
					// A lease runs out: the rows lapse, and the next
					// heartbeat or resume resurrects them.
					s.clock.Advance(lease.Default.Lease + time.Second)
				case 1, 2, 3, 4, 5, 6, 7, 8, 9, 10:
					s.clock.Advance(time.Second)
				}
				r := op.call(s, rng, sid, runs[sid].String())
				r.op, r.sid = op.name, sid
				mu.Lock()
				calls = append(calls, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	codes := map[string]int{}
	for _, c := range calls {
		if c.want != "" && continuity.ErrorCode(c.err) != c.want {
			t.Errorf("%s of %s: error %v, want code %s", c.op, c.sid, c.err, c.want)
		}
		if c.err == nil {
			codes[c.op+" ok"]++
			continue
		}
		code := continuity.ErrorCode(c.err)
		codes[c.op+" "+string(code)]++
		if code != c.want && (code == continuity.CodeInternal || code == "") {
			t.Errorf("%s of %s failed on the store's side: %v", c.op, c.sid, c.err)
		}
	}
	t.Logf("outcomes: %v", codes)

	// Receipts: one per episode call (and per opening startup); a failure
	// line per failed call, naming its receipt, and none for the others.
	received, failed := 0, map[string]int{}
	for _, e := range s.ledger(s.a, uuid.Nil) {
		switch e.Event {
		case continuity.EventReceived:
			received++
		case continuity.EventFailed:
			failed[e.Fields["receipt"]]++
		}
	}
	episodes := len(sids)
	for _, c := range calls {
		if !c.episode {
			continue
		}
		episodes++
		if c.receipt == uuid.Nil {
			t.Errorf("%s of %s returned no receipt (err %v)", c.op, c.sid, c.err)
			continue
		}
		want := 0
		if c.err != nil {
			want = 1
		}
		if got := failed[c.receipt.String()]; got != want {
			t.Errorf("%s of %s (err %v): %d failure lines name its receipt, want %d", c.op, c.sid, c.err, got, want)
		}
	}
	if received != episodes {
		t.Errorf("%d receipts in the ledger, want one per episode call, %d", received, episodes)
	}

	// Every record a call returned was committed.
	kept := map[uuid.UUID]bool{}
	for _, r := range s.records(s.a, continuity.RecordQuery{Limit: continuity.MaxRecords}) {
		kept[r.ID] = true
	}
	for _, c := range calls {
		if c.err == nil && c.record != uuid.Nil && !kept[c.record] {
			t.Errorf("%s of %s returned record %v, which is not kept", c.op, c.sid, c.record)
		}
	}

	// One run per conversation, its epoch never behind one a call saw, and
	// no two calls that began an activation began the same one.
	for _, sid := range sids {
		v := s.session(s.a, sid)
		began := map[int]string{}
		if v.ID != runs[sid] {
			t.Errorf("conversation %s is run %v, want its startup's %v", sid, v.ID, runs[sid])
		}
		for _, c := range calls {
			if c.sid != sid || c.err != nil || c.run == uuid.Nil {
				continue
			}
			if c.run != runs[sid] {
				t.Errorf("%s of %s answered run %v, want %v", c.op, sid, c.run, runs[sid])
			}
			if c.epoch > v.ActivationEpoch {
				t.Errorf("%s of %s answered epoch %d, ahead of the row's %d", c.op, sid, c.epoch, v.ActivationEpoch)
			}
			if !c.activated {
				continue
			}
			if other, ok := began[c.epoch]; ok {
				t.Errorf("%s and %s of %s both began activation %d", other, c.op, sid, c.epoch)
			}
			began[c.epoch] = c.op
		}
	}

	// Every write's event is in the run its answer named, and in no other:
	// the attribution was decided and stamped in the write's transaction.
	listed := map[uuid.UUID]uuid.UUID{}
	for _, sid := range sids {
		for cursor := ""; ; {
			page, err := s.a.RunEvents(s.ctx, runs[sid].String(), cursor, 100)
			if err != nil {
				t.Fatalf("run events of %s: %v", sid, err)
			}
			for _, it := range page.Items {
				listed[it.ID] = it.SessionRunID
			}
			if cursor = page.NextCursor; cursor == "" {
				break
			}
		}
	}
	for _, c := range calls {
		if c.err != nil || c.event == uuid.Nil {
			continue
		}
		if got := listed[c.event]; got != c.attributed {
			t.Errorf("remember of %s answered run %v, but its event is listed under %v", c.sid, c.attributed, got)
		}
		if c.carried != "" && c.attributed != uuid.Nil && c.attributed.String() != c.carried {
			t.Errorf("remember carrying run %s was attributed to %v", c.carried, c.attributed)
		}
	}

	// A marker is claimed at most once: never more claims than arms.
	for _, sid := range sids {
		arms, claims := 0, 0
		for _, c := range calls {
			if c.sid == sid && c.err == nil {
				arms += b2i(c.armed)
				claims += b2i(c.claimed)
			}
		}
		if claims > arms {
			t.Errorf("conversation %s: %d markers claimed, but %d armed", sid, claims, arms)
		}
	}

	rep, err := s.a.Doctor(s.ctx)
	if err != nil {
		t.Fatalf("doctor: %v", err)
	}
	if i := slices.IndexFunc(rep.Findings, func(f continuity.Finding) bool { return f.Check == continuity.CheckUnansweredReceipt }); i >= 0 {
		t.Errorf("the doctor finds a receipt unanswered: %s", rep.Findings[i].Sentence)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
