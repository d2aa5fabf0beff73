package continuity_test

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
)

var update = flag.Bool("update", false, "rewrite testdata/wire.golden")

// wireGolden holds the JSON of every case below: the HTTP contract's shapes,
// reviewed as one document.
const wireGolden = "testdata/wire.golden"

// module is the import path prefix of the types whose wire shape is ours.
const module = "github.com/batonhq/baton/"

// notOnWire names the exported struct types of continuity (and those its
// Service and BottleStore methods take or return) that never cross a
// transport, with the reason. Everything else must appear in wireCases.
var notOnWire = map[string]string{
	"continuity.Service":         "the service itself; no exported fields",
	"continuity.BottleStore":     "a handle bound to a tenant and agent; no exported fields",
	"continuity.Local":           "the API bound to a tenant; no exported fields",
	"continuity.Episodes":        "the local runner of hook events; configuration, never sent",
	"continuity.HookEvent":       "an adapter's normalized harness input, handled in-process; the wire carries the episode params",
	"continuity.HookOutcome":     "what an adapter writes in its harness's envelope, in-process",
	"continuity.BriefingPolicy":  "service configuration (WithBriefingPolicy)",
	"continuity.SessionTouch":    "a Tx heartbeat of a live row; the wire carries the heartbeat params",
	"continuity.MemoryQuery":     "a Tx query; the HTTP briefing and memory routes take their own params",
	"lease.Policy":               "service configuration (WithLeasePolicy, LeasePolicy)",
	"continuity.JudgeCase":       "the closer's in-process question to a Judge; an LLM judge sends its own bounded prompt",
	"continuity.Verdict":         "a Judge's in-process answer to the closer",
	"continuity.JudgeUsage":      "a Judge's meter reading, in-process (baton eval prints it)",
	"continuity.ProjectActivity": "a Tx aggregate the doctor reads; the wire carries its findings",
	"continuity.SessionCount":    "a Tx query the doctor counts with",
	"continuity.Retention":       "service configuration (WithRetention, Retention)",
	"continuity.ExportHeader": "the first line of the export file format (export.go documents it, storetest round-trips it); " +
		"it names the tenant the file holds, which is its requester's own",
	"continuity.ExportLine":  "a line of the export file format; its row is a wire type's JSON",
	"continuity.Worker":      "the cross-tenant worker itself; no exported fields",
	"continuity.RowRef":      "a Store discovery result, used in-process by the worker",
	"continuity.CloserClaim": "a Tx parameter of the closer's claim, in-process",
}

var (
	wRun     = uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000001")
	wMemory  = uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000002")
	wEvent   = uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000003")
	wAttempt = uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000004")
	wNext    = uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000005")
	wT0      = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	wT1      = wT0.Add(90 * time.Minute)
)

func ptr[T any](v T) *T { return &v }

// wireCases are the values marshalled against the golden file: for each wire
// type, its least (a declined, unattributed or required-fields-only value,
// as the service really produces) and its fullest.
func wireCases() []struct {
	name string
	v    any
} {
	briefed := []continuity.BriefedMemory{{ID: wMemory, Topic: "storage", Status: "open"}}
	sel := continuity.Selector{"kind": "project", "project": "baton"}
	memory := continuity.Memory{ID: wMemory, Tenant: "acme", Kind: continuity.KindCommitment, Topic: "tests",
		Content: "Add the wire test.", Status: continuity.StatusOpen, CreatedAt: wT0, UpdatedAt: wT0}
	fullMemory := continuity.Memory{ID: wMemory, Tenant: "acme", Kind: continuity.KindDecision, Topic: "storage",
		Content: "Use bun for both dialects.", Project: "baton", Scope: "core", Status: continuity.StatusArchived,
		SupersededBy: wNext, CreatedAt: wT0, UpdatedAt: wT1, Due: ptr(wT1)}
	row := continuity.Session{ID: wRun, Tenant: "acme", Agent: "claude-code", SessionID: "s-1", Source: continuity.SourceStartup,
		OpenedAt: wT0, LastSeenAt: wT0, ActivationEpoch: 1, TriageStatus: string(triage.Idle)}
	fullRow := continuity.Session{ID: wRun, Tenant: "acme", Agent: "claude-code", SessionID: "s-1", Source: continuity.SourceResume,
		Project: "baton", Scope: "core", Selector: sel, OpenedAt: wT0, LastSeenAt: wT1, ClosedAt: ptr(wT1),
		ActivationEpoch: 2, StopCount: 4, ActivatedAt: wT1, ActivationStops: 1, Compactions: 1, TriageStatus: string(triage.Completed), TriageAttemptID: wAttempt,
		TriagedEventIDs: []uuid.UUID{wEvent}, BriefingDeliveredAt: ptr(wT0), BriefedMemories: briefed, LastMessageExcerpt: "Done.",
		CloserNextAt: ptr(wT1), CloserFailures: 2}
	ev := continuity.EventParams{Provider: "claude-code", ProviderEvent: "SessionStart", Agent: "claude-code", SessionID: "s-1"}
	evFull := ev
	evFull.LocalFailure = "internal: the bottle could not be written"
	episode := continuity.Episode{Task: "t-1", Objective: "Ship the API.", State: "Tests pass.", NextAction: "Merge.",
		GitCommit: "0a1b2c3d", GitBranch: "main", BottlePath: "/b/s-1.md"}
	record := continuity.Record{ID: wEvent, Tenant: "acme", Kind: continuity.RecordHandover, Agent: "claude-code", SessionID: "s-1",
		SessionRunID: wRun, Project: "baton", Task: "t-1", Objective: "Ship the API.", State: "Tests pass.", NextAction: "Merge.",
		GitCommit: "0a1b2c3d", GitBranch: "main", BottlePath: "/b/s-1.md", Reason: "exit", CreatedAt: wT1, Seq: 7}
	return []struct {
		name string
		v    any
	}{
		{"OpenParams/least", continuity.OpenParams{Agent: "claude-code", SessionID: "s-1", Source: continuity.SourceStartup}},
		{"OpenParams/empty-briefing", continuity.OpenParams{Agent: "claude-code", SessionID: "s-1", Source: continuity.SourceStartup,
			BriefedMemories: []continuity.BriefedMemory{}}},
		{"OpenParams/full", continuity.OpenParams{Agent: "claude-code", SessionID: "s-1", Source: continuity.SourceStartup,
			Project: "baton", Scope: "core", Selector: sel, BriefedMemories: briefed}},
		{"OpenResult/least", continuity.OpenResult{SessionRunID: wRun, ActivationEpoch: 1, Source: continuity.SourceStartup,
			Created: true, OpenedAt: wT0, LastSeenAt: wT0}},
		{"OpenResult/full", continuity.OpenResult{SessionRunID: wRun, ActivationEpoch: 2, Source: continuity.SourceResume,
			Reopened: true, OpenedAt: wT0, LastSeenAt: wT1, BriefingDeliveredAt: ptr(wT0)}},
		{"HeartbeatParams/least", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "s-1"}},
		{"HeartbeatParams/full", continuity.HeartbeatParams{Agent: "claude-code", SessionID: "s-1", LastMessageExcerpt: ptr("Done."), Stop: true}},
		{"HeartbeatResult/full", continuity.HeartbeatResult{SessionRunID: wRun, ActivationEpoch: 2, LastSeenAt: wT1, Resurrected: true, ExcerptTruncated: true}},
		{"CloseParams/full", continuity.CloseParams{Agent: "claude-code", SessionID: "s-1"}},
		{"CloseResult/full", continuity.CloseResult{SessionRunID: wRun, ActivationEpoch: 1, ClosedAt: wT1, AlreadyClosed: true}},
		{"ClearResult/full", continuity.ClearResult{SessionRunID: wRun, ActivationEpoch: 1, Started: true}},
		{"SessionView/least", continuity.SessionView{Session: row, State: lease.Live}},
		{"SessionView/full", continuity.SessionView{Session: fullRow, State: lease.ExplicitlyClosed}},
		{"SweepResult/least", continuity.SweepResult{Swept: []uuid.UUID{}}},
		{"SweepResult/full", continuity.SweepResult{Swept: []uuid.UUID{wRun}}},

		{"RememberParams/least", continuity.RememberParams{Kind: continuity.KindNote, Topic: "tests", Content: "Add the wire test.",
			Actor: continuity.ActorUserAPI}},
		{"RememberParams/full", continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "tests", Content: "Add the wire test.",
			Project: "baton", Scope: "core", SessionRunID: wRun.String(), Due: ptr(wT1), Actor: continuity.ActorUserAPI}},
		{"ReviseParams/least", continuity.ReviseParams{Content: "Use bun.", Actor: continuity.ActorUserCLI}},
		{"ReviseParams/full", continuity.ReviseParams{Kind: continuity.KindDecision, Topic: "storage", Content: "Use bun.",
			Project: "baton", Scope: "core", SessionRunID: wRun.String(), Actor: continuity.ActorUserCLI}},
		{"TransitionParams/least", continuity.TransitionParams{Actor: continuity.ActorWorker}},
		{"TransitionParams/full", continuity.TransitionParams{SessionRunID: wRun.String(), Actor: continuity.ActorWorker}},
		{"WriteResult/unattributed", continuity.WriteResult{Memory: memory, EventID: wEvent}},
		{"WriteResult/attributed", continuity.WriteResult{Memory: fullMemory, EventID: wEvent, SessionRunID: wRun}},
		{"ImportParams/least", continuity.ImportParams{Kind: continuity.KindNote, Topic: "tests", Content: "Imported."}},
		{"ImportParams/full", continuity.ImportParams{Kind: continuity.KindNote, Topic: "tests", Content: "Imported.",
			Project: "baton", Scope: "core", Status: continuity.StatusResolved, Due: ptr(wT1)}},
		{"Memory/least", memory},
		{"Memory/full", fullMemory},
		{"MemoryEvent/unattributed", continuity.MemoryEvent{ID: wEvent, Tenant: "acme", MemoryID: wMemory, Kind: continuity.EventImport,
			ActorKind: continuity.ActorUserCLI, CreatedAt: wT0}},
		{"MemoryEvent/attributed", continuity.MemoryEvent{ID: wEvent, Tenant: "acme", MemoryID: wMemory, Kind: continuity.EventCreate,
			ActorKind: continuity.ActorUserAPI, SessionRunID: wRun, CreatedAt: wT0}},
		{"provenance.Page/least", provenance.Page{Items: []provenance.Item{}}},
		{"provenance.Page/full", provenance.Page{Items: []provenance.Item{{ID: wEvent, MemoryID: wMemory, EventKind: "create",
			ActorKind: "user_api", SessionRunID: wRun, CreatedAt: wT0}}, NextCursor: provenance.EncodeCursor(wEvent), Truncated: true}},

		{"TriageParams/full", continuity.TriageParams{Agent: "claude-code", SessionID: "s-1"}},
		{"TriageBeginResult/declined", continuity.TriageBeginResult{SessionRunID: wRun, TriageStatus: triage.Idle, Reason: triage.ReasonDebounce}},
		{"TriageBeginResult/pending", continuity.TriageBeginResult{SessionRunID: wRun, AttemptID: wAttempt, TriageStatus: triage.Pending,
			Reason: triage.ReasonPending}},
		{"TriageBeginResult/armed", continuity.TriageBeginResult{SessionRunID: wRun, Armed: true, AttemptID: wAttempt, TriageStatus: triage.Pending}},
		{"TriageCompleteParams/full", continuity.TriageCompleteParams{Agent: "claude-code", SessionID: "s-1", AttemptID: wAttempt.String()}},
		{"TriageCompleteResult/full", continuity.TriageCompleteResult{SessionRunID: wRun, TriageStatus: triage.Completed, EventCount: 3,
			SinceBeginCount: 1, Truncated: true}},
		{"DebriefParams/least", continuity.DebriefParams{}},
		{"DebriefParams/full", continuity.DebriefParams{Project: "baton", Scope: "core", Agent: "claude-code", SessionID: "s-1"}},

		{"BriefingParams/least", continuity.BriefingParams{}},
		{"BriefingParams/full", continuity.BriefingParams{Project: "baton", Scope: "core", Budget: 4000}},
		{"Briefing/least", continuity.Briefing{GeneratedAt: wT0, Selector: continuity.Selector{"kind": "all"},
			Items: []continuity.BriefingItem{}, Briefed: []continuity.BriefedMemory{}, Text: "# baton briefing\n"}},
		{"Briefing/full", continuity.Briefing{GeneratedAt: wT0, Selector: sel, Items: []continuity.BriefingItem{{ID: wMemory,
			Kind: continuity.KindCommitment, Topic: "storage", Status: continuity.StatusOpen, Content: "Use bun.",
			Section: continuity.SectionCommitments}}, Briefed: briefed, Text: "# baton briefing — project baton\n",
			Handover: &continuity.HandoverView{Record: record, History: true,
				Freshness: freshness.Reading{Label: freshness.Stale, Reason: "recorded 6d ago, stale from 2d", Age: 6 * 24 * time.Hour}}}},

		{"ReceiptParams/least", continuity.ReceiptParams{Provider: "claude-code", ProviderEvent: "Stop"}},
		{"ReceiptParams/full", continuity.ReceiptParams{Provider: "claude-code", ProviderEvent: "Stop", Agent: "claude-code", SessionID: "s-1"}},
		{"LedgerEntry/least", continuity.LedgerEntry{ID: wEvent, Tenant: "acme", Event: "host.note", At: wT0}},
		{"LedgerEntry/full", continuity.LedgerEntry{ID: wEvent, Tenant: "acme", Event: continuity.EventReceived, At: wT0, Session: "s-1",
			Fields: map[string]string{"provider": "claude-code", "provider_event": "Stop"}}},

		{"BottleMarker/armed", continuity.BottleMarker{Tenant: "acme", Agent: "claude-code", SessionID: "s-1", Path: "/b/s-1.md", Mode: "full", ArmedAt: wT0}},
		{"BottleMarker/consumed", continuity.BottleMarker{Tenant: "acme", Agent: "claude-code", SessionID: "s-1", Path: "/b/s-1.md", Mode: "reconstructed",
			Gap: 2, ArmedAt: wT0, ConsumedAt: ptr(wT1)}},
		{"Prompt/full", continuity.Prompt{ID: wEvent, Tenant: "acme", Agent: "claude-code", SessionID: "s-1", Number: 1,
			Text: "Fix the wire shapes.", Truncated: true, At: wT0}},
		{"StopExcerpt/full", continuity.StopExcerpt{ID: wEvent, Tenant: "acme", Agent: "claude-code", SessionID: "s-1", Text: "Done.", Truncated: true, At: wT1,
			PromptNumber: ptr(1), Seq: 3}},
		{"bottle.Marker/least", bottle.Marker{SessionID: "s-1", Path: "/b/s-1.md", Mode: bottle.ModeFull}},
		{"bottle.Marker/full", bottle.Marker{SessionID: "s-1", Path: "/b/s-1.md", Gap: 2, Mode: bottle.ModeReconstructed, Task: "Fix the wire shapes.", ArmedAt: wT0}},
		{"bottle.Record/unknown", bottle.Record{SessionID: "s-1"}},
		{"bottle.Record/full", bottle.Record{SessionID: "s-1", Project: "baton", Started: wT0, Compactions: 1,
			Prompts:      []bottle.Prompt{{Number: 1, Text: "Fix the wire shapes.", Truncated: true, Time: wT0}},
			StopExcerpts: []bottle.StopExcerpt{{PromptNumber: 1, Text: "Done.", Time: wT1, Seq: 3}},
			Summaries:    []bottle.Summary{{PromptNumber: 1, Text: "The wire shapes were fixed.", Time: wT1}}}},

		{"EventParams/least", ev},
		{"EventParams/full", evFull},
		{"StartParams/least", continuity.StartParams{EventParams: ev, Source: continuity.SourceStartup}},
		{"StartParams/full", continuity.StartParams{EventParams: evFull, Source: continuity.SourceCompact, Project: "baton", Scope: "core", BriefingBudget: 4000}},
		{"StartResult/least", continuity.StartResult{ReceiptID: wEvent, SessionRunID: wRun, ActivationEpoch: 1}},
		{"StartResult/full", continuity.StartResult{ReceiptID: wEvent, SessionRunID: wRun, ActivationEpoch: 2, Created: true, Reopened: true,
			Resurrected: true, Started: true, Briefing: &continuity.Briefing{GeneratedAt: wT0, Selector: sel, Items: []continuity.BriefingItem{},
				Briefed: []continuity.BriefedMemory{}, Text: "# baton briefing\n"}, Handover: &record,
			Marker: &bottle.Marker{SessionID: "s-1", Path: "/b/s-1.md", Mode: bottle.ModeFull, Task: "Ship.", ArmedAt: wT0}, ArchiveBottle: true}},
		{"PromptParams/full", continuity.PromptParams{EventParams: ev, Prompt: "Fix the wire shapes."}},
		{"PromptResult/least", continuity.PromptResult{}},
		{"PromptResult/full", continuity.PromptResult{Kept: true, Number: 3, Truncated: true}},
		{"PromptEventResult/full", continuity.PromptEventResult{ReceiptID: wEvent, Prompt: continuity.PromptResult{Kept: true, Number: 1}}},
		{"PromptEventResult/skippedDebrief", continuity.PromptEventResult{ReceiptID: wEvent, SkippedDebrief: true}},
		{"StopParams/least", continuity.StopParams{EventParams: ev}},
		{"StopParams/full", continuity.StopParams{EventParams: evFull, LastMessage: ptr("Done."), StopHookActive: true, Nudge: true}},
		{"StopResult/least", continuity.StopResult{ReceiptID: wEvent, SessionRunID: wRun, ActivationEpoch: 1}},
		{"StopResult/full", continuity.StopResult{ReceiptID: wEvent, SessionRunID: wRun, ActivationEpoch: 2, Resurrected: true, ExcerptTruncated: true,
			Inject: true, Reason: "Record what you decided.", Triage: &continuity.StopTriage{Status: triage.Pending, Armed: true, AttemptID: wAttempt}}},
		{"StopTriage/least", continuity.StopTriage{Status: triage.Idle}},
		{"StopTriage/full", continuity.StopTriage{Status: triage.Completed, Completed: true, Declined: triage.ReasonDebounce, AttemptID: wAttempt}},
		{"PreCompactParams/least", continuity.PreCompactParams{EventParams: ev}},
		{"PreCompactParams/full", continuity.PreCompactParams{EventParams: evFull, Trigger: "auto", Provisional: true,
			Sealed: &bottle.Marker{SessionID: "s-1", Path: "/b/s-1.md", Mode: bottle.ModeFull}, Episode: episode}},
		{"PreCompactResult/full", continuity.PreCompactResult{ReceiptID: wEvent, Armed: true, Checkpoint: record}},
		{"EndParams/least", continuity.EndParams{EventParams: ev}},
		{"EndParams/full", continuity.EndParams{EventParams: evFull, Reason: "exit", BudgetMillis: 1500, Episode: episode}},
		{"EndResult/full", continuity.EndResult{ReceiptID: wEvent, Close: continuity.CloseResult{SessionRunID: wRun, ActivationEpoch: 1, ClosedAt: wT1},
			Handover: record}},
		{"FailureParams/full", continuity.FailureParams{EventParams: ev, ReceiptID: wEvent.String(), Reason: "internal: render failed"}},
		{"Episode/least", continuity.Episode{}},
		{"Episode/full", episode},
		{"Record/least", continuity.Record{ID: wEvent, Tenant: "acme", Kind: continuity.RecordCheckpoint, Agent: "claude-code", SessionID: "s-1",
			SessionRunID: wRun, Objective: "o", State: "s", NextAction: "n", CreatedAt: wT0}},
		{"Record/full", record},
		{"RecordQuery/least", continuity.RecordQuery{}},
		{"RecordQuery/full", continuity.RecordQuery{ByProject: true, Project: "baton", Agent: "claude-code", SessionID: "s-1",
			Kinds: []continuity.RecordKind{continuity.RecordHandover}, Before: wEvent, Limit: 10}},
		{"ExportResult/least", continuity.ExportResult{Rows: map[string]int{}}},
		{"ExportResult/full", continuity.ExportResult{Rows: map[string]int{continuity.TableSessions: 2, continuity.TableLedger: 40}}},
		{"EraseParams/least", continuity.EraseParams{}},
		{"EraseParams/full", continuity.EraseParams{Batch: 500, MaxBatches: 3}},
		{"EraseResult/least", continuity.EraseResult{Complete: true}},
		{"EraseResult/full", continuity.EraseResult{Deleted: 1200, Batches: 3, Complete: false}},
		{"PruneResult/least", continuity.PruneResult{}},
		{"PruneResult/full", continuity.PruneResult{Ledger: 1007, Prompts: 3}},

		{"DoctorReport/healthy", continuity.DoctorReport{GeneratedAt: wT0, Sessions: 2, Findings: []continuity.Finding{}}},
		{"DoctorReport/full", continuity.DoctorReport{GeneratedAt: wT1, Sessions: 7, Findings: []continuity.Finding{
			{Check: continuity.CheckWriterStopped, Severity: continuity.SeverityFailure, Sentence: "Project \"baton\": 2 sessions opened while its newest record is stale.", Project: "baton"}}}},
		{"Finding/least", continuity.Finding{Check: continuity.CheckTooFewSessions, Severity: continuity.SeverityInfo, Sentence: "1 session recorded."}},
		{"Finding/full", continuity.Finding{Check: continuity.CheckUnclaimedBottle, Severity: continuity.SeverityWarning, Sentence: "A bottle was never claimed.",
			Project: "baton", Agent: "claude-code", SessionID: "s-1"}},
		{"SessionQuery/least", continuity.SessionQuery{}},
		{"SessionQuery/full", continuity.SessionQuery{ByProject: true, Project: "baton", Agent: "claude-code",
			States: []lease.State{lease.Live, lease.ExplicitlyClosed}, Before: wEvent, Limit: 10}},

		{"WorkerResult/least", continuity.WorkerResult{}},
		{"WorkerResult/full", continuity.WorkerResult{Swept: 3, Claimed: 2, Finished: 1, Failed: 1, Abandoned: 1, Resolved: 4, Skipped: 5,
			Usage: continuity.JudgeUsage{InputTokens: 900, OutputTokens: 40, CostMicroUSD: 1200}}},

		{"Error/not_found", continuity.Error{Code: continuity.CodeNotFound, Message: "no such session", Err: errors.New("sql: no rows")}},
		{"Error/invalid", *continuity.Invalid("sessionRunId", "must be a UUID")},
	}
}

var (
	zeroUUID = uuid.Nil.String()
	zeroTime = time.Time{}.Format(time.RFC3339Nano)
	wireKey  = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
)

// TestWireShapes marshals every wire type and compares it with the golden
// file, and asserts what the contract says of every shape: camelCase keys,
// no tenant, absent is absent (never a zero UUID or a zero time).
func TestWireShapes(t *testing.T) {
	var all bytes.Buffer
	for _, c := range wireCases() {
		b, err := json.MarshalIndent(c.v, "", "  ")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		fmt.Fprintf(&all, "== %s\n%s\n\n", c.name, b)
		if problems := wireProblems(b); len(problems) > 0 {
			t.Errorf("%s: %s:\n%s", c.name, strings.Join(problems, "; "), b)
		}
		// A Go client (the HTTP client implements the same interface)
		// decodes what the server encodes: decoding and encoding again
		// must give the same bytes.
		back := reflect.New(reflect.TypeOf(c.v))
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Errorf("%s does not decode into its own type: %v", c.name, err)
		} else if again, _ := json.MarshalIndent(back.Elem().Interface(), "", "  "); !bytes.Equal(again, b) {
			t.Errorf("%s changes through a decode:\n%s\nbecame\n%s", c.name, b, again)
		}
	}
	if *update {
		if err := os.WriteFile(wireGolden, all.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(wireGolden)
	if err != nil {
		t.Fatalf("%v (run go test ./continuity -run TestWireShapes -update to create it)", err)
	}
	if got := all.String(); got != string(want) {
		t.Errorf("wire shapes differ from %s (run with -update to accept, then review the diff):\n%s", wireGolden, lineDiff(string(want), got))
	}
}

// wireProblems lists what the contract forbids in any shape: a tenant, an
// internal cause, a key that is not camelCase, and a present-but-empty value
// (null, a zero UUID, a zero time) where absent is meant.
func wireProblems(b []byte) []string {
	var out []string
	for _, bad := range []string{"acme", "sql: no rows", zeroUUID, zeroTime} {
		if bytes.Contains(b, []byte(bad)) {
			out = append(out, fmt.Sprintf("carries %q", bad))
		}
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return append(out, err.Error())
	}
	walkJSON(v, func(key string, val any) {
		if !wireKey.MatchString(key) {
			out = append(out, fmt.Sprintf("key %q is not camelCase", key))
		}
		if val == nil {
			out = append(out, fmt.Sprintf("%q is null", key))
		}
	})
	return out
}

// walkJSON calls fn for every object member in v. The ledger's payload
// (fields) is data, not shape: its members are not visited.
func walkJSON(v any, fn func(key string, val any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			fn(k, e)
			if k != "fields" {
				walkJSON(e, fn)
			}
		}
	case []any:
		for _, e := range x {
			walkJSON(e, fn)
		}
	}
}

// lineDiff shows the first differing line of two texts, with its context.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			from := max(0, i-3)
			return fmt.Sprintf("line %d:\nwant: %q\ngot:  %q\ncontext (got):\n%s", i+1, wl, gl, strings.Join(g[from:min(len(g), i+3)], "\n"))
		}
	}
	return ""
}

// TestWireTags walks every exported struct type of continuity and every
// struct type its Service and BottleStore methods take or return, and the
// module's types reachable from their fields. Each must be covered by
// wireCases or named in notOnWire, and each exported field must carry a
// camelCase json tag (the tenant "-"), with omitzero rather than a no-op
// omitempty on a struct or array value, so a new field cannot regress the
// contract unnoticed.
func TestWireTags(t *testing.T) {
	covered := map[string]reflect.Type{}
	for _, c := range wireCases() {
		reach(reflect.TypeOf(c.v), covered)
	}
	roots := map[string]bool{}
	for _, name := range exportedStructs(t, ".") {
		roots["continuity."+name] = true
	}
	for _, recv := range []reflect.Type{reflect.TypeFor[*continuity.Service](), reflect.TypeFor[*continuity.BottleStore]()} {
		for m := range recv.Methods() {
			for i := 1; i < m.Type.NumIn(); i++ {
				for name := range moduleStructs(m.Type.In(i)) {
					roots[name] = true
				}
			}
			for i := range m.Type.NumOut() {
				for name := range moduleStructs(m.Type.Out(i)) {
					roots[name] = true
				}
			}
		}
	}
	for name := range roots {
		if _, ok := covered[name]; !ok && notOnWire[name] == "" {
			t.Errorf("%s is not in wireCases: add its least and fullest values (or name it in notOnWire with the reason)", name)
		}
	}
	for name := range notOnWire {
		if !roots[name] {
			t.Errorf("notOnWire names %s, which is no longer an exported struct of continuity or of its methods", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(covered)) {
		checkTags(t, name, covered[name])
	}
}

func checkTags(t *testing.T, name string, typ reflect.Type) {
	t.Helper()
	if typ.Kind() != reflect.Struct {
		if k := typ.Kind(); k >= reflect.Int && k <= reflect.Uint64 && !typ.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
			t.Errorf("%s is an integer on the wire: give it MarshalText so it marshals as its name", name)
		}
		return
	}
	for f := range typ.Fields() {
		if !f.IsExported() {
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		if !ok {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				continue // flattened into the parent, as the contract wants
			}
			t.Errorf("%s.%s has no json tag", name, f.Name)
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		switch {
		case f.Name == "Tenant" && tag != "-":
			t.Errorf("%s.Tenant is tagged %q: the tenant never goes on the wire (json:\"-\")", name, tag)
		case key != "-" && !wireKey.MatchString(key):
			t.Errorf("%s.%s is tagged %q: not camelCase", name, f.Name, tag)
		}
		if k := f.Type.Kind(); slices.Contains(strings.Split(opts, ","), "omitempty") && (k == reflect.Struct || k == reflect.Array) {
			t.Errorf("%s.%s is tagged %q: omitempty never omits a %s; use omitzero", name, f.Name, tag, f.Type)
		}
	}
}

// reach records the module's named types reachable from typ.
func reach(typ reflect.Type, seen map[string]reflect.Type) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	name := typeName(typ)
	if name == "" {
		return
	}
	if _, ok := seen[name]; ok {
		return
	}
	seen[name] = typ
	if typ.Kind() == reflect.Struct {
		for f := range typ.Fields() {
			if f.IsExported() {
				reach(f.Type, seen)
			}
		}
	}
}

// moduleStructs returns the module's struct types a parameter or result
// type names directly (through pointers, slices and maps).
func moduleStructs(typ reflect.Type) map[string]bool {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if name := typeName(typ); name != "" && typ.Kind() == reflect.Struct {
		return map[string]bool{name: true}
	}
	return nil
}

// typeName is "pkg.Name" for a named type of this module, "" otherwise.
func typeName(typ reflect.Type) string {
	if typ.Name() == "" || !strings.HasPrefix(typ.PkgPath(), module) {
		return ""
	}
	return filepath.Base(typ.PkgPath()) + "." + typ.Name()
}

// exportedStructs lists the exported struct types declared in the package
// in dir (test files excluded).
func exportedStructs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, isStruct := ts.Type.(*ast.StructType); isStruct && ts.Name.IsExported() {
					out = append(out, ts.Name.Name)
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no exported struct types found in %s", dir)
	}
	return out
}
