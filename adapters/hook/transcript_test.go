package hook_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
)

// geminiUntil returns the lines of a captured Gemini transcript as the file
// stood when an event at ts fired: every line up to the last one stamped at
// or before ts.
func geminiUntil(t *testing.T, file, ts string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "transcripts", "gemini", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	keep := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		var rec struct {
			Timestamp string `json:"timestamp"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Timestamp != "" && rec.Timestamp <= ts {
			keep = len(lines)
		}
	}
	return strings.Join(lines[:keep], "\n") + "\n"
}

// TestGeminiLastMessage: AfterAgent's last message is the transcript's last
// model message when the payload's garbled copy contains it, else the
// payload's own.
func TestGeminiLastMessage(t *testing.T) {
	h, err := hook.Lookup("gemini")
	if err != nil {
		t.Fatal(err)
	}
	rec := func(typ, content string) string {
		b, _ := json.Marshal(map[string]any{"id": "x", "timestamp": "2026-11-30T01:00:00.000Z", "type": typ, "content": content})
		return string(b)
	}
	set := `{"$set":{"messages":[{"id":"a","type":"user","content":[{"text":"summary"}]},{"id":"b","type":"gemini","content":"Got it. Thanks for the additional context!"}]}}`
	filler := strings.Repeat(rec("info", strings.Repeat("x", 1000))+"\n", 1100) // past the table's 1 MiB tail
	// aligned is a reply record padded (with thoughts, which are not its
	// text) to the table's 1 MiB tail exactly, its newline included: the
	// tail read starts at its first byte.
	aligned := func() string {
		line := func(pad string) string {
			b, _ := json.Marshal(map[string]any{"id": "x", "timestamp": "2026-11-30T01:00:00.000Z", "type": "gemini", "content": "aligned reply", "thoughts": pad})
			return string(b) + "\n"
		}
		return line(strings.Repeat("t", 1<<20-len(line(""))))
	}()
	if len(aligned) != int(h.Transcript.TailBytes) {
		t.Fatalf("the aligned record is %d bytes, the tail %d", len(aligned), h.Transcript.TailBytes)
	}
	cases := []struct {
		name, transcript, response, want string
		dir                              bool
	}{
		{"the interactive capture as it stood at AfterAgent",
			geminiUntil(t, "interactive-after-clear-then-resume-nudge.jsonl", "2026-11-30T01:22:50.501Z"),
			"FAKE-REPLY #19 (you said: resumed interactive)  #19 (you said: resumed interactive)", "FAKE-REPLY #19 (you said: resumed interactive)", false},
		{"the transcript is ahead of the event",
			geminiUntil(t, "interactive-after-clear-then-resume-nudge.jsonl", "2026-11-30T01:23:00.000Z"),
			"FAKE-REPLY #19 (you said: resumed interactive)  #19 (you said: resumed interactive)", "FAKE-REPLY #19 (you said: resumed interactive)  #19 (you said: resumed interactive)", false},
		{"a compression rewrite is the last record", rec("user", "hi") + "\n" + set + "\n",
			"Got it. Thanks for the additional context! context!", "Got it. Thanks for the additional context!", false},
		{"a torn last line is not read", rec("gemini", "whole reply") + "\n" + strings.TrimSuffix(rec("gemini", "torn reply"), `"}`),
			"whole reply reply", "whole reply", false},
		{"a tool-call message without text is passed over", rec("gemini", "the text") + "\n" + rec("gemini", "") + "\n",
			"the text text", "the text", false},
		{"the message lies before the tail read", rec("gemini", "early reply") + "\n" + filler,
			"early reply reply", "early reply reply", false},
		{"the message starts where the tail read does", rec("user", "hi") + "\n" + aligned,
			"aligned reply reply", "aligned reply", false},
		{"the message starts one byte before the tail read", rec("user", "hi") + "\n" + " " + aligned,
			"aligned reply reply", "aligned reply reply", false},
		{"no transcript file", "", "payload reply", "payload reply", false},
		{"a directory, not a file", "", "payload reply", "payload reply", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.jsonl")
			switch {
			case tc.dir:
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			case tc.transcript != "":
				if err := os.WriteFile(path, []byte(tc.transcript), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			payload, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": path, "cwd": t.TempDir(),
				"hook_event_name": "AfterAgent", "prompt": "p", "prompt_response": tc.response, "stop_hook_active": false})
			ev, err := hook.Normalize(h, "", payload, "")
			if err != nil {
				t.Fatal(err)
			}
			if ev.LastMessage == nil || *ev.LastMessage != tc.want {
				t.Errorf("last message = %q, want %q", deref(ev.LastMessage), tc.want)
			}
		})
	}
}
