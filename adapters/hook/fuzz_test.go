package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/bottle/privacy"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// talkativeAPI answers every episode call with something to say (a
// briefing, a nudge), so that every envelope is exercised.
type talkativeAPI struct{ continuity.API }

var runID = uuid.MustParse("01900000-0000-7000-8000-000000000001")

func (talkativeAPI) SessionStart(context.Context, continuity.StartParams) (continuity.StartResult, error) {
	return continuity.StartResult{SessionRunID: runID, Briefing: &continuity.Briefing{Text: "# briefing\n\n\"quoted\" <tag> & more"}}, nil
}
func (talkativeAPI) UserPrompt(context.Context, continuity.PromptParams) (continuity.PromptEventResult, error) {
	return continuity.PromptEventResult{}, nil
}
func (talkativeAPI) Stop(context.Context, continuity.StopParams) (continuity.StopResult, error) {
	return continuity.StopResult{SessionRunID: runID, Inject: true, Reason: "Record what this session settled."}, nil
}
func (talkativeAPI) PreCompact(context.Context, continuity.PreCompactParams) (continuity.PreCompactResult, error) {
	return continuity.PreCompactResult{}, nil
}
func (talkativeAPI) SessionEnd(context.Context, continuity.EndParams) (continuity.EndResult, error) {
	return continuity.EndResult{}, nil
}
func (talkativeAPI) AppendReceipt(context.Context, continuity.ReceiptParams) (uuid.UUID, error) {
	return runID, nil
}
func (talkativeAPI) RecordFailure(context.Context, continuity.FailureParams) error { return nil }

// FuzzNormalize feeds arbitrary stdin bytes, EVENT arguments and harnesses
// to Normalize and to the whole hook: Normalize never panics nor keeps a
// private block in the text it normalizes, the hook never
// recovers from a panic (its "internal error"), its stdout is always empty
// or exactly one JSON object, and its stderr at most one line.
func FuzzNormalize(f *testing.F) {
	hs := hook.Harnesses()
	err := filepath.WalkDir(filepath.Join("testdata", "payloads"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		data, err := os.ReadFile(path)
		for i := range hs {
			f.Add(data, uint8(i), "")
		}
		f.Add(data, uint8(3), "stop")
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", "null", "{}", "[]", `"x"`, `{"hook_event_name":null}`, `{"hook_event_name":["Stop"]}`,
		`{"session_id":"s","hook_event_name":"Stop","loop_count":"x"}`, `{"conversation_id":"c","hook_event_name":"stop","loop_count":1e999}`,
		`{"conversation_id":"c","hook_event_name":"sessionStart","workspace_roots":[]}`, `{"session_id":"s","hook_event_name":"BeforeAgent","prompt":"<hook_context>`,
		`{"session_id":"s","hook_event_name":"AfterAgent","transcript_path":".","prompt_response":"\ud800"}`,
		`{"session_id":"s","hook_event_name":"stop"}`, `{"session_id":["s"],"hook_event_name":"Stop","cwd":["/x"]}`,
		`{"conversation_id":"c","hook_event_name":"stop","loop_count":-0,"workspace_roots":["/r"]}`, `{"hook_event_name":"PreCompress"}`} {
		f.Add([]byte(s), uint8(0), "")
		f.Add([]byte(s), uint8(2), "stop")
		f.Add([]byte(s), uint8(4), "start")
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8, arg string) {
		h := &hs[int(which)%len(hs)]
		if ev, err := hook.Normalize(h, arg, data, ""); err == nil {
			for _, s := range []string{ev.Prompt, ev.Trigger, ev.Reason} {
				if tag := privacy.Residue(s); tag != "" {
					t.Fatalf("<%s> survived in %q", tag, s)
				}
			}
			out, err := h.Envelope(ev.HookEvent, continuity.HookOutcome{Context: ev.Prompt, Block: true, Reason: ev.Reason})
			if err != nil {
				t.Fatal(err)
			}
			checkEnvelope(t, out)
		}
		var out, errOut bytes.Buffer
		inv := hook.Invocation{Harness: h.Name, Event: arg, Stdin: bytes.NewReader(data), Stdout: &out, Stderr: &errOut,
			Nudge: true, Open: func(context.Context) (continuity.API, error) { return talkativeAPI{}, nil }}
		inv.Run(context.Background())
		if strings.Contains(errOut.String(), "internal error") {
			t.Fatalf("the hook recovered from a panic: %s", errOut.String())
		}
		checkEnvelope(t, out.Bytes())
		if n := strings.Count(errOut.String(), "\n"); n > 1 || errOut.Len() > 0 && !strings.HasSuffix(errOut.String(), "\n") {
			t.Fatalf("stderr is not one line: %q", errOut.String())
		}
	})
}

// checkEnvelope fails unless out is empty or one JSON object and a newline.
func checkEnvelope(t *testing.T, out []byte) {
	t.Helper()
	if len(out) == 0 {
		return
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	if !json.Valid(out) || dec.Decode(&v) != nil || dec.More() || !bytes.HasSuffix(out, []byte("}\n")) {
		t.Fatalf("stdout is not one JSON object: %q", out)
	}
}
