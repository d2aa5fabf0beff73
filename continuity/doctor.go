package continuity

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/triage"
)

// Severity is how much a doctor finding matters.
type Severity string

// The severities, mildest first. A failure makes `baton doctor` exit
// non-zero.
const (
	SeverityInfo    Severity = "info"
	SeverityWarning Severity = "warning"
	SeverityFailure Severity = "failure"
)

// Finding is one thing the doctor noticed about what baton has (or has not)
// written, with a sentence a person can act on. It never carries memory
// content, excerpts or prompts.
type Finding struct {
	// Check names the rule that produced the finding (stable, snake_case).
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	// Sentence says what is wrong and what to do about it.
	Sentence string `json:"sentence"`
	// Project, Agent and SessionID locate the finding when it has a place.
	Project   string `json:"project,omitempty"`
	Agent     string `json:"agent,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// DoctorReport is the doctor's answer for one tenant.
type DoctorReport struct {
	GeneratedAt time.Time `json:"generatedAt"`
	// Sessions is how many conversations the tenant has recorded; below two
	// the doctor does not judge writtenness and says so in a finding.
	Sessions int       `json:"sessions"`
	Findings []Finding `json:"findings"`
}

// Healthy reports whether no finding is a failure.
func (r DoctorReport) Healthy() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityFailure {
			return false
		}
	}
	return true
}

// The doctor's thresholds. Ages are the policies' own (freshness.Policy's
// Stale, lease.Policy's Lease, MaxEndBudget); these are the counts and
// bounds the doctor adds, declared once.
const (
	// DoctorMinSessions is the fewest recorded sessions the doctor judges
	// from, and the fewest sessions opened while a project's newest record
	// was stale that make "sessions keep opening": one such session may
	// simply not have compacted or ended yet.
	DoctorMinSessions = 2
	// MaxDoctorProjects bounds the projects one report judges: those with
	// the newest activations.
	MaxDoctorProjects = 100
	// MaxDoctorFindings bounds the findings of a check that reports one
	// per conversation (armed bottle markers).
	MaxDoctorFindings = 10
	// MaxDoctorLedger bounds the ledger lines one report reads.
	MaxDoctorLedger = DefaultLedgerRetention
)

// The checks a Finding names.
const (
	CheckTooFewSessions    = "too_few_sessions"
	CheckWriterStopped     = "writer_stopped"
	CheckUnclosedSessions  = "unclosed_sessions"
	CheckUnansweredReceipt = "unanswered_receipt"
	CheckFailedEvents      = "failed_events"
	CheckStuckTriage       = "stuck_triage"
	CheckCloserFailures    = "closer_failures"
	CheckUnclaimedBottle   = "unclaimed_bottle"
)

// closerFailedEvent is the ledger event a closer pass appends when it
// fails or backs off; the doctor counts them over its window.
const closerFailedEvent = "closer.failed"

// receiptExpects is the receipt field naming the ledger event the event's
// work derives (a checkpoint's or a handover's line): a receipt carrying it
// is answered by that line or by its failure.
const receiptExpects = "expects"

// recordEvent is the ledger event a record of the kind appends.
func recordEvent(k RecordKind) string { return "record." + string(k) }

// ProjectActivity is what a tenant's rows say of one project's
// writtenness: its sessions and its newest checkpoint or handover.
type ProjectActivity struct {
	// Project is "" for the sessions without one.
	Project  string
	Sessions int
	// FirstOpenedAt is the earliest open; LastActivatedAt the newest
	// activation (open, reopen, resume or resurrection).
	FirstOpenedAt   time.Time
	LastActivatedAt time.Time
	// NewestRecordAt is when the newest checkpoint or handover was
	// written; zero when none was.
	NewestRecordAt time.Time
}

// SessionCount selects the session rows Tx.CountSessions counts; zero
// fields match anything. ByProject restricts to Project ("" then matches
// rows without one). The last_seen_at bounds are (SeenAfter,
// SeenNotAfter], the lease's own boundary: a row is leased at now exactly
// when it was seen after now minus the lease.
type SessionCount struct {
	ByProject bool
	Project   string
	// Open matches rows with no closed_at.
	Open bool
	// ActivatedSince matches rows whose current activation began at or
	// after the instant.
	ActivatedSince time.Time
	SeenAfter      time.Time
	SeenNotAfter   time.Time
	TriageStatus   string
}

// doctorFacts is what the doctor read, for diagnose to judge.
type doctorFacts struct {
	// sessions counts the rows; live those leased and not closed.
	sessions, live int
	projects       []projectFacts
	// counts are the ledger's event counts over the window; lines its
	// receipts, failures and record lines over the window, newest first.
	counts map[string]int
	lines  []LedgerEntry
	// kept are the conversations (by answerKey) that the window's lines
	// leave a receipt of unanswered but that kept a record of the kind it
	// expects from before that receipt: a repeated SessionEnd, which
	// writes no second handover, found it.
	kept map[answerKey]bool
	// stuck counts the rows pending a triage attempt past their lease.
	stuck int
	// armed are the markers armed past a lease ago and never claimed.
	armed []BottleMarker
}

// projectFacts is a project's activity and how many of its sessions
// opened at or after its newest record went stale.
type projectFacts struct {
	ProjectActivity
	openedWhileStale int
}

// doctorPolicy is the thresholds diagnose reads.
type doctorPolicy struct {
	fresh freshness.Policy
	lease lease.Policy
}

// window is how far back the doctor reads the ledger's evidence and
// looks past a lease for stuck rows: the stale threshold, so that a
// finding lasts as long as a record it is about stays current.
func (p doctorPolicy) window() time.Duration { return p.fresh.Stale }

// Doctor checks writtenness, not reachability: that what lifecycle events
// should derive (checkpoints, handovers, closes, claims) is being written.
// Below DoctorMinSessions recorded sessions it judges nothing and says so.
//
// Errors: invalid, internal.
func (s *Service) Doctor(ctx context.Context, tenant string) (DoctorReport, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	if err := fieldsErr(f); err != nil {
		return DoctorReport{}, err
	}
	pol := doctorPolicy{fresh: s.freshness, lease: s.lease}
	now := s.clock()
	var facts doctorFacts
	err := s.store.Read(ctx, tenant, func(ctx context.Context, tx Tx) error {
		var err error
		facts, err = readDoctorFacts(ctx, tx, pol, now)
		return err
	})
	if err != nil {
		return DoctorReport{}, err
	}
	return diagnose(facts, pol, now), nil
}

// readDoctorFacts makes the doctor's bounded reads.
func readDoctorFacts(ctx context.Context, tx Tx, pol doctorPolicy, now time.Time) (doctorFacts, error) {
	var f doctorFacts
	var err error
	if f.sessions, err = tx.CountSessions(ctx, SessionCount{}); err != nil || f.sessions < DoctorMinSessions {
		return f, err
	}
	expired := now.Add(-pol.lease.Lease) // a row seen at or before it has lapsed
	since := now.Add(-pol.window())
	if f.live, err = tx.CountSessions(ctx, SessionCount{Open: true, SeenAfter: expired}); err != nil {
		return f, err
	}
	ps, err := tx.ProjectActivity(ctx, MaxDoctorProjects)
	if err != nil {
		return f, err
	}
	for _, p := range ps {
		pf := projectFacts{ProjectActivity: p}
		if from := pol.fresh.StaleAt(p.writtenSince()); !p.LastActivatedAt.Before(from) {
			pf.openedWhileStale, err = tx.CountSessions(ctx, SessionCount{ByProject: true, Project: p.Project, ActivatedSince: from})
			if err != nil {
				return f, err
			}
		}
		f.projects = append(f.projects, pf)
	}
	if f.counts, err = tx.LedgerCountsSince(ctx, since); err != nil {
		return f, err
	}
	f.lines, err = tx.LedgerEvents(ctx, []string{EventReceived, EventFailed, recordEvent(RecordCheckpoint), recordEvent(RecordHandover)}, since, MaxDoctorLedger)
	if err != nil {
		return f, err
	}
	f.kept = map[answerKey]bool{}
	for _, l := range unanswered(f.lines, nil, now) {
		k := answerKeyOf(l)
		if _, asked := f.kept[k]; asked {
			continue
		}
		if len(f.kept) == MaxDoctorFindings {
			break // the rest are counted unanswered
		}
		rs, err := tx.Records(ctx, RecordQuery{Agent: k.agent, SessionID: k.session, Kinds: []RecordKind{RecordKind(strings.TrimPrefix(k.event, "record."))}, Limit: 1})
		if err != nil {
			return f, err
		}
		f.kept[k] = len(rs) == 1 && !rs[0].CreatedAt.After(l.At)
	}
	f.stuck, err = tx.CountSessions(ctx, SessionCount{TriageStatus: string(triage.Pending), SeenAfter: expired.Add(-pol.window()), SeenNotAfter: expired})
	if err != nil {
		return f, err
	}
	f.armed, err = tx.ArmedBottles(ctx, expired.Add(-pol.window()), expired, MaxDoctorFindings)
	return f, err
}

// writtenSince is the instant from which the project's records are aged:
// its newest record's, or, when it has none, its first session's open.
func (p ProjectActivity) writtenSince() time.Time {
	if p.NewestRecordAt.IsZero() {
		return p.FirstOpenedAt
	}
	return p.NewestRecordAt
}

// diagnose judges the facts at now. It is a function of values: every
// threshold comes from pol or is declared above.
func diagnose(f doctorFacts, pol doctorPolicy, now time.Time) DoctorReport {
	r := DoctorReport{GeneratedAt: now, Sessions: f.sessions, Findings: []Finding{}}
	if f.sessions < DoctorMinSessions {
		r.Findings = append(r.Findings, Finding{Check: CheckTooFewSessions, Severity: SeverityInfo,
			Sentence: fmt.Sprintf("%s recorded: the doctor judges from %d sessions on; run it again after the next session.",
				plural(f.sessions, "session"), DoctorMinSessions)})
		return r
	}
	for _, p := range f.projects {
		r.Findings = append(r.Findings, writerStopped(p, pol, now)...)
	}
	r.Findings = append(r.Findings, unclosedSessions(f, pol)...)
	r.Findings = append(r.Findings, unansweredReceipts(f.lines, f.kept, now)...)
	r.Findings = append(r.Findings, failedEvents(f, pol)...)
	if f.stuck > 0 {
		r.Findings = append(r.Findings, Finding{Check: CheckStuckTriage, Severity: SeverityWarning,
			Sentence: fmt.Sprintf("%s still pending a Stop nudge's triage past the %s lease: only the closer takes such a row over; run it (BATON_CLOSER=1 with `baton serve` or `baton worker`).",
				plural(f.stuck, "session is", "sessions are"), freshness.Compact(pol.lease.Lease))})
	}
	r.Findings = append(r.Findings, closerFailures(f.counts, pol)...)
	for _, m := range f.armed {
		r.Findings = append(r.Findings, Finding{Check: CheckUnclaimedBottle, Severity: SeverityWarning, Agent: m.Agent, SessionID: m.SessionID,
			Sentence: fmt.Sprintf("A bottle was sealed at a compaction %s ago (armed %s, now %s) and no SessionStart has claimed it: the start hook did not run after that compaction. Check that baton's start hook is installed for compactions (`baton install --harness NAME`); `baton bottle show %s` prints what the session lost.",
				freshness.Compact(now.Sub(m.ArmedAt)), stamp(m.ArmedAt), stamp(now), m.SessionID)})
	}
	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return severityRank(b.Severity) - severityRank(a.Severity) })
	return r
}

func severityRank(s Severity) int {
	switch s {
	case SeverityFailure:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// plural counts a noun: "1 session", "3 sessions"; with two forms given,
// the second is the plural.
func plural(n int, forms ...string) string {
	if n == 1 {
		return "1 " + forms[0]
	}
	if len(forms) > 1 {
		return strconv.Itoa(n) + " " + forms[1]
	}
	return strconv.Itoa(n) + " " + forms[0] + "s"
}

// projectName names a project in a sentence.
func projectName(p string) string {
	if p == "" {
		return "Sessions without a project"
	}
	return "Project " + strconv.Quote(p)
}

// writerStopped is the outage of the episode-lifecycle ADR: sessions keep
// opening while the project's newest checkpoint or handover is stale, so
// the writer of the records a next session resumes from has stopped.
func writerStopped(p projectFacts, pol doctorPolicy, now time.Time) []Finding {
	if p.openedWhileStale < DoctorMinSessions {
		return nil
	}
	what := fmt.Sprintf("its newest checkpoint or handover is %s old (stale from %s; written %s, compared with the activations from %s and with now, %s)",
		freshness.Compact(now.Sub(p.NewestRecordAt)), freshness.Compact(pol.fresh.Stale),
		stamp(p.NewestRecordAt), stamp(pol.fresh.StaleAt(p.NewestRecordAt)), stamp(now))
	if p.NewestRecordAt.IsZero() {
		what = fmt.Sprintf("no checkpoint or handover was ever written in the %s since its first session (opened %s, compared with the activations from %s and with now, %s)",
			freshness.Compact(now.Sub(p.FirstOpenedAt)), stamp(p.FirstOpenedAt), stamp(pol.fresh.StaleAt(p.FirstOpenedAt)), stamp(now))
	}
	return []Finding{{Check: CheckWriterStopped, Severity: SeverityFailure, Project: p.Project,
		Sentence: fmt.Sprintf("%s: %s opened while %s: the writer of checkpoints (PreCompact) and handovers (SessionEnd) has stopped, and every new session resumes from history. Check that baton's precompact and end hooks are installed and run (`baton install --harness NAME`), and read provider.event.failed in the ledger.",
			projectName(p.Project), plural(p.openedWhileStale, "session"), what)}}
}

// unclosedSessions: session.started exceeds session.closed by more than
// the sessions actually open (leased, not closed) over the window, so
// SessionEnd did not reach baton for the rest. Reopened and resumed
// activations are not counted as starts: a reopened session closed again
// only lowers the excess, so the check can miss, never invent, an unended
// session.
func unclosedSessions(f doctorFacts, pol doctorPolicy) []Finding {
	excess := f.counts[EventSessionStarted] - f.counts[EventSessionClosed] - f.live
	if excess <= 0 {
		return nil
	}
	return []Finding{{Check: CheckUnclosedSessions, Severity: SeverityWarning,
		Sentence: fmt.Sprintf("In the last %s %d sessions started and %d closed, but only %d are open: %s never ended, so no SessionEnd reached baton and no handover was written for %s. Check that baton's end hook is installed (`baton install --harness NAME`); a killed terminal also sends none.",
			freshness.Compact(pol.window()), f.counts[EventSessionStarted], f.counts[EventSessionClosed], f.live,
			plural(excess, "session"), pluralPronoun(excess))}}
}

func pluralPronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// unansweredReceipts: a receipt naming the line its work derives (a
// checkpoint's or a handover's) with neither that line for its
// conversation nor a failure naming it, once MaxEndBudget has passed. A
// repeated SessionEnd writes no second handover, so any line of the kind
// of the conversation in the window answers it, and so does a record of
// the kind the conversation kept from before the receipt (kept).
func unansweredReceipts(lines []LedgerEntry, kept map[answerKey]bool, now time.Time) []Finding {
	open := unanswered(lines, kept, now)
	if len(open) == 0 {
		return nil
	}
	newest := open[0]
	return []Finding{{Check: CheckUnansweredReceipt, Severity: SeverityWarning, Agent: newest.Fields["agent"], SessionID: newest.Session,
		Sentence: fmt.Sprintf("%s arrived and left neither the record its work writes nor a failure (the newest: %s %s, which writes a %s, %s ago: received %s, now %s): the work after the receipt stopped without a trace, a killed hook or a silent refusal. Raise the harness's hook timeout if it kills baton's end hook, else report it with `baton doctor --json`.",
			plural(len(open), "hook event"), newest.Fields["provider"], newest.Fields["provider_event"], strings.TrimPrefix(newest.Fields[receiptExpects], "record."),
			freshness.Compact(now.Sub(newest.At)), stamp(newest.At), stamp(now))}}
}

// stamp names an instant a finding compared, to the second. Every instant
// the doctor compares was stamped on one clock, the store's (StoreClock),
// whichever host wrote it; naming them lets a person see what was compared
// when a host's stamps are off anyway (a service given another clock).
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// answerKey is the line that answers a receipt: the record event it
// expects, of its conversation.
type answerKey struct{ event, agent, session string }

// answerKeyOf is the answerKey a receipt expects, or a record line is.
func answerKeyOf(l LedgerEntry) answerKey {
	if want := l.Fields[receiptExpects]; want != "" {
		return answerKey{want, l.Fields["agent"], l.Session}
	}
	return answerKey{l.Event, l.Fields["agent"], l.Session}
}

// unanswered returns the receipts of lines (newest first) past
// MaxEndBudget that expect a record line, have no failure, and are
// answered neither by a line of lines nor by kept.
func unanswered(lines []LedgerEntry, kept map[answerKey]bool, now time.Time) []LedgerEntry {
	failed := map[string]bool{}
	derived := map[answerKey]bool{}
	for _, l := range lines {
		switch l.Event {
		case EventFailed:
			failed[l.Fields["receipt"]] = true
		case EventReceived:
		default:
			derived[answerKeyOf(l)] = true
		}
	}
	var out []LedgerEntry
	for _, l := range lines {
		if l.Event != EventReceived || l.Fields[receiptExpects] == "" || now.Before(l.At.Add(MaxEndBudget)) {
			continue
		}
		if k := answerKeyOf(l); !failed[l.ID.String()] && !derived[k] && !kept[k] {
			out = append(out, l)
		}
	}
	return out
}

// failedEvents: receipts whose work failed and left its failure.
func failedEvents(f doctorFacts, pol doctorPolicy) []Finding {
	n := f.counts[EventFailed]
	if n == 0 {
		return nil
	}
	reason := ""
	for _, l := range f.lines { // newest first
		if l.Event == EventFailed {
			reason = fmt.Sprintf(" (the newest: %s %s: %s)", l.Fields["provider"], l.Fields["provider_event"], l.Fields["reason"])
			break
		}
	}
	return []Finding{{Check: CheckFailedEvents, Severity: SeverityWarning,
		Sentence: fmt.Sprintf("%s failed in the last %s%s: the hook still exited 0, so the person saw nothing. Read provider.event.failed in the ledger for each reason.",
			plural(n, "hook event"), freshness.Compact(pol.window()), reason)}}
}

// closerFailures counts the closer's failed or backed-off passes over the
// window, as it records them in the ledger (closerFailedEvent).
func closerFailures(counts map[string]int, pol doctorPolicy) []Finding {
	n := counts[closerFailedEvent]
	if n == 0 {
		return nil
	}
	return []Finding{{Check: CheckCloserFailures, Severity: SeverityWarning,
		Sentence: fmt.Sprintf("The closer failed or backed off %s in the last %s: closed sessions' commitments are not being resolved. Read %s in the ledger for the reasons.",
			plural(n, "time"), freshness.Compact(pol.window()), closerFailedEvent)}}
}
