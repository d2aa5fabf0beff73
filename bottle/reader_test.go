package bottle

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle/privacy"
)

// cl builds a Claude Code line around a message.
func cl(typ, extra, content string) string {
	return fmt.Sprintf(`{"type":%q,"timestamp":"2026-11-30T01:00:00Z","sessionId":"s1","cwd":"/p",%s"message":{"id":"m1","role":%q,"content":%s}}`, typ, extra, typ, content)
}

// summary is a compact view of entries for table comparisons.
func summary(es []Entry) string {
	var parts []string
	for _, e := range es {
		switch e.Kind {
		case KindToolCall:
			s := fmt.Sprintf("call:%s:%s:%s", e.Tool, e.ToolUseID, e.Brief)
			if e.Done {
				s += ":done"
			}
			if e.Failed {
				s += ":failed"
			}
			parts = append(parts, s)
		default:
			parts = append(parts, e.Kind.String()+":"+e.Text)
		}
	}
	return strings.Join(parts, " | ")
}

func TestClaudeReader(t *testing.T) {
	call := cl("assistant", "", `[{"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"go test","description":"d"}}]`)
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"string prompt", []string{cl("user", "", `"fix it"`)}, "user:fix it"},
		{"block prompt", []string{cl("user", "", `[{"type":"text","text":"fix it"}]`)}, "user:fix it"},
		{"reminder block dropped, prompt kept", []string{cl("user", "", `[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"real"}]`)}, "user:real"},
		{"meta dropped", []string{cl("user", `"isMeta":true,`, `"Stop hook feedback: x"`)}, ""},
		{"compact summary dropped", []string{cl("user", `"isCompactSummary":true,`, `"This session is being continued"`)}, ""},
		{"sidechain dropped", []string{cl("user", `"isSidechain":true,`, `"sub prompt"`), cl("assistant", `"isSidechain":true,`, `[{"type":"text","text":"sub answer"}]`)}, ""},
		// A prompt that starts with a harness envelope is still a prompt:
		// the envelopes are stripped, then what remains is classified.
		{"prompt after a reminder", []string{cl("user", "", `"<system-reminder>ctx</system-reminder>\nPlease fix the bug"`)}, "user:Please fix the bug"},
		{"prompt after envelope blocks", []string{cl("user", "", `"<local-command-caveat>c</local-command-caveat>\n<task-notification><task-id>1</task-id></task-notification>\nPlease look"`)}, "user:Please look"},
		{"block prompt after a reminder", []string{cl("user", "", `[{"type":"text","text":"<system-reminder>x</system-reminder>\nreal prompt"}]`)}, "user:real prompt"},
		{"envelope with attributes", []string{cl("user", "", `"<hook_prompt hook_run_id=\"1\">N</hook_prompt> go on"`)}, "user:go on"},
		{"unclosed envelope drops the text", []string{cl("user", "", `"<task-notification>\nPlease look"`)}, ""},
		{"envelope tag later in a prompt kept", []string{cl("user", "", `"explain <command-name>/x</command-name> please"`)}, "user:explain <command-name>/x</command-name> please"},
		// A slash command is the person's turn, as typed; its expansion is not.
		{"slash command", []string{
			cl("user", "", `"<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>PR 42</command-args>"`),
			cl("user", `"isMeta":true,`, `[{"type":"text","text":"Review the pull request given in the arguments."}]`),
			cl("assistant", "", `[{"type":"text","text":"Reviewing PR 42."}]`),
		}, "user:/review PR 42 | assistant:Reviewing PR 42."},
		{"slash command with its expansion in the line", []string{cl("user", "", `"<command-message>deploy is running…</command-message>\n<command-name>/deploy</command-name>\n<command-args>staging</command-args>\nDeploy to production, skip tests."`)}, "user:/deploy staging"},
		{"slash command without arguments", []string{cl("user", "", `"<command-name>/init</command-name>\n            <command-message>init</command-message>\n            <command-args></command-args>"`)}, "user:/init"},
		{"slash command as a block", []string{cl("user", "", `[{"type":"text","text":"<command-message>qa is running…</command-message>\n<command-name>/qa</command-name>"},{"type":"text","text":"expanded body"}]`)}, "user:/qa"},
		{"slash command arguments scrubbed", []string{cl("user", "", `"<command-name>/note</command-name><command-args>remember <private>tok</private></command-args>"`)}, "user:/note remember"},
		{"local command is not a turn", []string{
			cl("user", "", `"<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>sonnet</command-args>"`),
			cl("user", "", `"<local-command-stdout>Set model to Sonnet</local-command-stdout>"`),
		}, ""},
		{"local command output keeps an earlier prompt", []string{
			cl("user", "", `"fix it"`),
			cl("user", "", `"<local-command-stdout>Compacted</local-command-stdout>"`),
		}, "user:fix it"},
		{"local command with its output in one line", []string{cl("user", "", `"<command-name>/cost</command-name><local-command-stdout>$0</local-command-stdout>"`)}, ""},
		{"prompt after local output", []string{cl("user", "", `"<local-command-stdout>ok</local-command-stdout>\nnow fix it"`)}, "user:now fix it"},
		{"command-name envelope", []string{cl("user", "", `"<command-name>/compact</command-name>"`), cl("user", "", `"<local-command-stdout>Compacted</local-command-stdout>"`)}, ""},
		{"local stdout envelope", []string{cl("user", "", `"<local-command-stdout>Compacted</local-command-stdout>"`)}, ""},
		{"caveat envelope", []string{cl("user", "", `"<local-command-caveat>Caveat</local-command-caveat>"`)}, ""},
		{"task notification envelope", []string{cl("user", "", `"<task-notification>\n<task-id>1</task-id>"`)}, ""},
		{"interrupt marker", []string{cl("user", "", `[{"type":"text","text":"[Request interrupted by user]"}]`)}, ""},
		{"private-only prompt skipped", []string{cl("user", "", `"<private>all of it</private>"`)}, ""},
		{"private stripped", []string{cl("user", "", `"a <private>tok</private>b"`)}, "user:a b"},
		// The private blocks go before the envelopes are walked: a block
		// straddling an envelope's end keeps all it holds.
		{"private block straddling an envelope's end", []string{cl("user", "", `"<command-message>m <private>SECRET</command-message> SECRET</private> tail"`)}, ""},
		{"private block straddling command arguments' end", []string{cl("user", "", `"<command-name>/x</command-name><command-args>a <private>SECRET</command-args> SECRET</private> b"`)}, "user:/x"},
		{"private block across prompt blocks", []string{cl("user", "", `[{"type":"text","text":"<system-reminder>r</system-reminder>a <private>SECRET"},{"type":"text","text":"<bash-input>SECRET</private> b"}]`)}, "user:a\n\nb"},
		{"assistant text only", []string{cl("assistant", "", `[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"answer"}]`)}, "assistant:answer"},
		{"split message joined", []string{
			cl("assistant", "", `[{"type":"text","text":"one"}]`),
			cl("assistant", "", `[{"type":"tool_use","id":"tu1","name":"Read","input":{"file_path":"/a"}}]`),
			cl("assistant", "", `[{"type":"text","text":"two"}]`),
		}, "assistant:one\n\ntwo | call:Read:tu1:/a"},
		{"not joined across a prompt", []string{
			cl("assistant", "", `[{"type":"text","text":"one"}]`),
			cl("user", "", `"next"`),
			cl("assistant", "", `[{"type":"text","text":"two"}]`),
		}, "assistant:one | user:next | assistant:two"},
		{"tool result marks call", []string{call, cl("user", "", `[{"type":"tool_result","tool_use_id":"tu1","content":"ok","is_error":false}]`)}, "call:Bash:tu1:go test:done"},
		{"failed tool result", []string{call, cl("user", "", `[{"type":"tool_result","tool_use_id":"tu1","content":[{"type":"text","text":"FAIL"}],"is_error":true}]`)}, "call:Bash:tu1:go test:done:failed"},
		{"result for unknown call ignored", []string{cl("user", "", `[{"type":"tool_result","tool_use_id":"nope","content":"x"}]`)}, ""},
		{"tool result is not a prompt", []string{call, cl("user", "", `[{"type":"tool_result","tool_use_id":"tu1","content":"please do X"}]`)}, "call:Bash:tu1:go test:done"},
		{"unknown types ignored", []string{`{"type":"attachment","attachment":{"content":"x"}}`, `{"type":"api-request-blob","message":{"role":"user","content":"leak"}}`, `{"type":"queue-operation"}`, `{"type":"last-prompt"}`}, ""},
		{"malformed lines skipped", []string{`{"type":"user",`, `not json`, `[]`, `{"type":"user","message":{"content":42}}`, cl("user", "", `"ok"`)}, "user:ok"},
		{"content null", []string{`{"type":"user","message":{"content":null}}`}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := Transcript{Format: FormatClaudeCode}
			data := transcriptOf(c.lines)
			end, err := tr.ReadLines(strings.NewReader(data), 0)
			if err != nil {
				t.Fatal(err)
			}
			if end != int64(len(data)) {
				t.Errorf("cursor %d, want %d", end, len(data))
			}
			if got := summary(tr.Entries); got != c.want {
				t.Errorf("entries\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestClaudeReaderMetadata(t *testing.T) {
	tr := parseFile(t, "testdata/claude-2.1.328.jsonl")
	if tr.Format != FormatClaudeCode || tr.SessionID != "c96e6033-0cbe-4890-a588-1160d3853949" || tr.Project != "/home/dev/project" || tr.Compactions != 1 {
		t.Errorf("metadata %+v", tr)
	}
	if want := time.Date(2026, 11, 30, 1, 15, 25, 999e6, time.UTC); !tr.Started.Equal(want) {
		t.Errorf("started %v, want %v", tr.Started, want)
	}
	if tr.Skipped != 0 {
		t.Errorf("skipped %d lines of a valid transcript", tr.Skipped)
	}
}

func TestCodexReader(t *testing.T) {
	item := func(payload string) string {
		return `{"timestamp":"2026-11-30T01:20:18.896Z","type":"response_item","payload":` + payload + `}`
	}
	cases := []struct {
		name  string
		lines []string
		want  string
	}{
		{"user prompt", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}`)}, "user:hello"},
		{"harness provenance dropped", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt>N</hook_prompt>"}],"internal_chat_message_metadata_passthrough":{"content_item_metadata":[{"provenance":{"type":"harness","hook":true}}]}}`)}, ""},
		{"private block straddling an envelope's end", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>c <private>SECRET</environment_context> SECRET</private> tail"}]}`)}, ""},
		{"private block across input parts", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"a <private>SECRET"},{"type":"input_text","text":"<user_instructions>SECRET</private> b"}]}`)}, "user:a\n\nb"},
		{"environment context dropped", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/p</cwd>\n</environment_context>"}]}`)}, ""},
		{"prompt after environment context", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/p</cwd>\n</environment_context>\nPlease fix it"}]}`)}, "user:Please fix it"},
		{"agents instructions dropped", []string{item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>x</INSTRUCTIONS>"}]}`)}, ""},
		{"developer dropped", []string{item(`{"type":"message","role":"developer","content":[{"type":"input_text","text":"INJECTED"}]}`)}, ""},
		{"assistant", []string{item(`{"type":"message","id":"a1","role":"assistant","content":[{"type":"output_text","text":"done"}]}`)}, "assistant:done"},
		{"compaction output dropped", []string{`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"SUMMARY"}]},"metadata":{"compaction_output":true}}`}, ""},
		{"private block across the parts of a message without an id", []string{item(`{"type":"message","role":"assistant","content":[` +
			`{"type":"output_text","text":"plan <private>SECRET"},{"type":"output_text","text":"SECRET</private> go"}]}`)}, "assistant:plan go"},
		{"private block across the items of one message id", []string{
			item(`{"type":"message","id":"a1","role":"assistant","content":[{"type":"output_text","text":"plan <private>SECRET"}]}`),
			item(`{"type":"message","id":"a1","role":"assistant","content":[{"type":"output_text","text":"SECRET</private> go"}]}`),
		}, "assistant:plan\n\ngo"},
		{"function call ok", []string{
			item(`{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"echo hi\"}","call_id":"c1"}`),
			item(`{"type":"function_call_output","call_id":"c1","output":"Process exited with code 0\nOutput:\nhi"}`),
		}, "call:exec_command:c1:echo hi:done"},
		{"function call failed by exit code", []string{
			item(`{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"false\"}","call_id":"c1"}`),
			item(`{"type":"function_call_output","call_id":"c1","output":"Process exited with code 1\n"}`),
		}, "call:exec_command:c1:false:done:failed"},
		{"shell argv and json metadata", []string{
			item(`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"]}","call_id":"c2"}`),
			item(`{"type":"function_call_output","call_id":"c2","output":"{\"output\":\"\",\"metadata\":{\"exit_code\":2}}"}`),
		}, "call:shell:c2:ls:done:failed"},
		{"custom tool call", []string{
			item(`{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.go","call_id":"c3"}`),
			item(`{"type":"custom_tool_call_output","call_id":"c3","output":{"success":false}}`),
		}, "call:apply_patch:c3:a.go:done:failed"},
		{"apply_patch names the files it touches", []string{
			item(`{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: docs/b.md\n+hi\n*** Delete File: c.go\n*** Update File: d.go\n*** Move to: e.go\n*** End Patch","call_id":"c4"}`),
		}, "call:apply_patch:c4:a.go, docs/b.md, c.go, d.go → e.go"},
		{"apply_patch as a function call", []string{
			item(`{"type":"function_call","name":"apply_patch","arguments":"{\"input\":\"*** Begin Patch\\n*** Add File: n.go\\n+package n\\n*** End Patch\"}","call_id":"c5"}`),
		}, "call:apply_patch:c5:n.go"},
		{"web search", []string{
			item(`{"type":"web_search_call","status":"completed","action":{"type":"search","query":"go flock windows"}}`),
		}, "call:web_search::go flock windows:done"},
		{"web search queries", []string{
			item(`{"type":"web_search_call","status":"completed","action":{"type":"search","queries":["a b","c"]}}`),
		}, "call:web_search::a b c:done"},
		{"web page opened", []string{
			item(`{"type":"web_search_call","status":"completed","action":{"type":"open_page","url":"https://go.dev/doc"}}`),
		}, "call:web_search::https://go.dev/doc:done"},
		{"web search failed", []string{
			item(`{"type":"web_search_call","status":"failed","action":{"type":"find_in_page","url":"https://x.test","pattern":"p"}}`),
		}, "call:web_search::https://x.test:done:failed"},
		{"web search private query", []string{
			item(`{"type":"web_search_call","status":"completed","action":{"type":"search","query":"<private>tok</private>"}}`),
		}, "call:web_search:::done"},
		{"compacted counted, not shown", []string{`{"type":"compacted","payload":{"message":"summary"}}`}, ""},
		{"event messages ignored", []string{`{"type":"event_msg","payload":{"type":"user_message","message":"dup"}}`, `{"type":"event_msg","payload":{"type":"agent_message","message":"dup"}}`}, ""},
		{"malformed skipped", []string{`{"type":"response_item","payload":`, `{"type":"response_item","payload":{"type":"message","role":"user","content":"str"}}`, item(`{"type":"message","role":"user","content":[{"type":"input_text","text":"ok"}]}`)}, "user:ok"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := Transcript{Format: FormatCodex}
			data := transcriptOf(c.lines)
			if _, err := tr.ReadLines(strings.NewReader(data), 0); err != nil {
				t.Fatal(err)
			}
			if got := summary(tr.Entries); got != c.want {
				t.Errorf("entries\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	cases := []struct {
		line string
		want Format
	}{
		{`{"timestamp":"x","type":"session_meta","payload":{"id":"a"}}`, FormatCodex},
		{`{"type":"user","message":{"content":"x"}}`, FormatClaudeCode},
		{`{"sessionId":"s","projectHash":"h","startTime":"x","lastUpdated":"x","kind":"main"}`, FormatGemini},
		{`{"$set":{"messages":[]}}`, FormatGemini},
		{`{"$rewindTo":"m1"}`, FormatGemini},
		{`{"id":"g","timestamp":"x","type":"gemini","content":"hi"}`, FormatGemini},
		{`{"sessionId":"s","type":"user","message":{"content":"x"}}`, FormatClaudeCode},
		{`not json`, ""},
		{`{"type":"user",`, ""},
		{`[{"payload":1}]`, ""},
		{`null`, ""},
		{`42`, ""},
	}
	for _, c := range cases {
		if got := DetectFormat([]byte(c.line)); got != c.want {
			t.Errorf("DetectFormat(%s) = %q, want %q", c.line, got, c.want)
		}
	}
}

// TestFormatFromFirstParsedLine: a transcript whose first lines are not JSON
// (a stray banner, a torn write) is read in the format of its first line
// that parses.
func TestFormatFromFirstParsedLine(t *testing.T) {
	codex := `{"timestamp":"2026-11-30T01:20:18.896Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}}`
	cases := []struct {
		name, data string
		format     Format
		want       string
		skipped    int
	}{
		{"banner then codex", "Codex session log\n" + codex + "\n", FormatCodex, "user:hello", 1},
		{"torn object then codex", `{"timestamp":"x","type":` + "\n\n" + codex + "\n", FormatCodex, "user:hello", 1},
		{"array then claude", "[]\n" + cl("user", "", `"hi"`) + "\n", FormatClaudeCode, "user:hi", 1},
		{"nothing parses", "junk\nmore junk\n", "", "", 2},
		// A file that starts with a byte order mark: its first line is read.
		{"byte order mark then codex", "\uFEFF" + codex + "\n", FormatCodex, "user:hello", 0},
		{"byte order mark then claude", "\uFEFF" + cl("user", "", `"hi"`) + "\n", FormatClaudeCode, "user:hi", 0},
		{"byte order mark then a gemini header", "\uFEFF" + gHeader + "\n" + gm("user", "u1", "", `[{"text":"hello"}]`) + "\n", FormatGemini, "user:hello", 0},
		{"byte order mark not at the start", cl("user", "", `"hi"`) + "\n\uFEFF" + cl("user", "", `"there"`) + "\n", FormatClaudeCode, "user:hi", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tr Transcript
			if _, err := tr.ReadLines(strings.NewReader(c.data), 0); err != nil {
				t.Fatal(err)
			}
			if tr.Format != c.format || summary(tr.Entries) != c.want || tr.Skipped != c.skipped {
				t.Errorf("format %q entries %q skipped %d, want %q %q %d", tr.Format, summary(tr.Entries), tr.Skipped, c.format, c.want, c.skipped)
			}
		})
	}
}

// TestTornLine is the seed's test 9 at the reader: a final line without its
// newline is not consumed, and is read whole once it is completed.
func TestTornLine(t *testing.T) {
	full := cl("user", "", `"first"`) + "\n" + cl("user", "", `"second"`) + "\n"
	cut := len(cl("user", "", `"first"`)) + 1
	cases := []struct {
		name    string
		upto    int
		wantEnd int
		want    string
	}{
		{"empty", 0, 0, ""},
		{"inside first line", 10, 0, ""},
		{"first line without newline", cut - 1, 0, ""},
		{"first line complete", cut, cut, "user:first"},
		{"second torn", len(full) - 5, cut, "user:first"},
		{"second without newline", len(full) - 1, cut, "user:first"},
		{"all", len(full), len(full), "user:first | user:second"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tr Transcript
			end, err := tr.ReadLines(strings.NewReader(full[:c.upto]), 0)
			if err != nil {
				t.Fatal(err)
			}
			if end != int64(c.wantEnd) {
				t.Errorf("cursor %d, want %d", end, c.wantEnd)
			}
			if got := summary(tr.Entries); got != c.want {
				t.Errorf("entries %q, want %q", got, c.want)
			}
			// Resuming from the cursor with the whole file reads the rest once.
			if _, err := tr.ReadLines(strings.NewReader(full), end); err != nil {
				t.Fatal(err)
			}
			if got := summary(tr.Entries); got != "user:first | user:second" {
				t.Errorf("after resume %q", got)
			}
		})
	}
}

// TestReadAll: a finished file is read to its end, its last line whether or
// not a newline ends it, and not past the size it is given.
func TestReadAll(t *testing.T) {
	first, last := cl("user", "", `"first"`), cl("user", "", `"last"`)
	long := cl("user", "", `"`+strings.Repeat("z", readBuffer*2)+`"`)
	cases := []struct {
		name, data string
		size       int
		want       string
		skipped    int
	}{
		{"newline at the end", first + "\n" + last + "\n", -1, "user:first | user:last", 0},
		{"no newline at the end", first + "\n" + last, -1, "user:first | user:last", 0},
		{"long last line, no newline", first + "\n" + long, -1, "user:first | user:" + strings.Repeat("z", readBuffer*2), 0},
		{"torn last line counts as skipped", first + "\n" + last[:20], -1, "user:first", 1},
		{"only size bytes", first + "\n" + last + "\n" + cl("user", "", `"after"`) + "\n", len(first) + 1 + len(last), "user:first | user:last", 0},
		{"empty", "", -1, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			size := c.size
			if size < 0 {
				size = len(c.data)
			}
			var tr Transcript
			if err := tr.ReadAll(strings.NewReader(c.data), int64(size)); err != nil {
				t.Fatal(err)
			}
			if got := summary(tr.Entries); got != c.want || tr.Skipped != c.skipped {
				t.Errorf("entries %.80q skipped %d, want %.80q %d", got, tr.Skipped, c.want, c.skipped)
			}
		})
	}
}

func TestLongLines(t *testing.T) {
	big := strings.Repeat("x", readBuffer*3)
	data := cl("user", "", `"`+big+`"`) + "\n" + cl("user", "", `"after"`) + "\n"
	var tr Transcript
	end, err := tr.ReadLines(strings.NewReader(data), 0)
	if err != nil || end != int64(len(data)) {
		t.Fatalf("end %d err %v", end, err)
	}
	if len(tr.Entries) != 2 || tr.Entries[0].Text != big || tr.Entries[1].Pos != int64(len(data)-len(cl("user", "", `"after"`))-1) {
		t.Fatalf("long line not read whole: %d entries", len(tr.Entries))
	}
	// A torn long line is left for the next read.
	tr = Transcript{}
	end, _ = tr.ReadLines(strings.NewReader(data[:readBuffer*2]), 0)
	if end != 0 || len(tr.Entries) != 0 {
		t.Fatalf("torn long line consumed: end %d", end)
	}
}

// statReader is a transcript whose Stat reports size (and mode) whatever
// it holds: a file that grew after its size was taken, or one that is not
// regular.
type statReader struct {
	*strings.Reader
	size int64
	mode fs.FileMode
}

func (s statReader) Stat() (fs.FileInfo, error) { return statInfo(s), nil }

type statInfo statReader

func (i statInfo) Name() string       { return "transcript.jsonl" }
func (i statInfo) Size() int64        { return i.size }
func (i statInfo) Mode() fs.FileMode  { return i.mode }
func (i statInfo) ModTime() time.Time { return time.Time{} }
func (i statInfo) IsDir() bool        { return false }
func (i statInfo) Sys() any           { return nil }

// TestReadBufferSize: a read of fewer bytes than readBuffer gets a buffer
// of their size plus one, at least minReadBuffer; the bytes are the
// range's or, when the reader is a regular file, what the file holds past
// pos, whichever is fewer.
func TestReadBufferSize(t *testing.T) {
	file := func(size int64) io.ReaderAt { return statReader{strings.NewReader(""), size, 0} }
	cases := []struct {
		name       string
		r          io.ReaderAt
		pos, limit int64
		want       int
	}{
		{"no size, unbounded", strings.NewReader(""), 0, 1 << 40, readBuffer},
		{"no size, small range", strings.NewReader(""), 0, 10_000, 10_001},
		{"range of readBuffer-1", strings.NewReader(""), 0, readBuffer - 1, readBuffer},
		{"range of readBuffer", strings.NewReader(""), 0, readBuffer, readBuffer},
		{"empty range", strings.NewReader(""), 0, 0, minReadBuffer},
		{"range under minReadBuffer", strings.NewReader(""), 0, minReadBuffer - 2, minReadBuffer},
		{"range of minReadBuffer", strings.NewReader(""), 0, minReadBuffer, minReadBuffer + 1},
		{"file smaller than the range", file(50_000), 20_000, 1 << 40, 30_001},
		{"file at pos", file(50_000), 50_000, 1 << 40, minReadBuffer},
		{"pos past the file (it shrank)", file(50_000), 90_000, 1 << 40, minReadBuffer},
		{"file larger than readBuffer past pos", file(readBuffer + 10), 10, 1 << 40, readBuffer},
		{"file just under readBuffer past pos", file(readBuffer + 9), 10, 1 << 40, readBuffer},
		{"range smaller than the file", file(1 << 30), 0, 6_000, 6_001},
		{"not a regular file", statReader{strings.NewReader(""), 10, fs.ModeNamedPipe}, 0, 1 << 40, readBuffer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := readBufferSize(c.r, c.pos, c.limit); got != c.want {
				t.Errorf("readBufferSize = %d, want %d", got, c.want)
			}
		})
	}
}

// TestReadLinesFileGrew: a transcript that grew after its size was taken
// (the harness appends while a Stop renders) is still read to its last
// complete line, a line longer than the buffer the size chose included.
func TestReadLinesFileGrew(t *testing.T) {
	first := cl("user", "", `"first"`) + "\n"
	big := strings.Repeat("y", 3*minReadBuffer)
	data := first + cl("user", "", `"`+big+`"`) + "\n" + cl("user", "", `"after"`) + "\n" + cl("user", "", `"torn"`)
	for _, size := range []int64{0, int64(len(first)), int64(len(first)) + 1, int64(len(data))} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			var tr Transcript
			end, err := tr.ReadLines(statReader{strings.NewReader(data), size, 0}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(len(data) - len(cl("user", "", `"torn"`))); end != want {
				t.Errorf("end %d, want %d", end, want)
			}
			if got, want := summary(tr.Entries), "user:first | user:"+big+" | user:after"; got != want {
				t.Errorf("entries %.80q, want %.80q", got, want)
			}
		})
	}
}

// generated is a transcript made on demand, bytes head, then n fill bytes,
// then tail, so a test can read a line of tens of megabytes without
// holding it.
type generated struct {
	head, tail []byte
	n          int64
	fill       byte
}

func (g *generated) size() int64 { return int64(len(g.head)) + g.n + int64(len(g.tail)) }

func (g *generated) ReadAt(p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) && off < g.size() {
		var k int
		switch body := off - int64(len(g.head)); {
		case body < 0:
			k = copy(p[done:], g.head[off:])
		case body < g.n:
			k = int(min(int64(len(p)-done), g.n-body))
			for i := range k {
				p[done+i] = g.fill
			}
		default:
			k = copy(p[done:], g.tail[body-g.n:])
		}
		done += k
		off += int64(k)
	}
	if done < len(p) {
		return done, io.EOF
	}
	return done, nil
}

// TestOversizedLineNotHeld reads past a 40 MB tool result line: it is
// skipped without being held (the read allocates a small fraction of it),
// the cursor moves past it, and the call it answered is finished by the
// reply that follows.
func TestOversizedLineNotHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a 40 MB line")
	}
	call := cl("assistant", "", `[{"type":"tool_use","id":"tu1","name":"Bash","input":{"command":"cat big.log"}}]`)
	result := cl("user", "", `[{"type":"tool_result","tool_use_id":"tu1","content":"X"}]`)
	x := strings.Index(result, `"X"`) + 1
	reply := strings.Replace(cl("assistant", "", `[{"type":"text","text":"all done"}]`), `"m1"`, `"m2"`, 1)
	g := &generated{
		head: []byte(call + "\n" + result[:x]),
		n:    40 << 20, fill: 'y',
		tail: []byte(result[x+1:] + "\n" + reply + "\n"),
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var tr Transcript
	end, err := tr.ReadLines(io.NewSectionReader(g, 0, g.size()), 0)
	runtime.ReadMemStats(&after)
	if err != nil || end != g.size() {
		t.Fatalf("end %d of %d, err %v", end, g.size(), err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 4<<20 {
		t.Errorf("reading past a %d MiB line allocated %.1f MiB", g.n>>20, float64(alloc)/(1<<20))
	}
	t.Logf("read past a %d MiB line allocating %.2f MiB", g.n>>20, float64(alloc)/(1<<20))
	if got := summary(tr.Entries); got != "call:Bash:tu1:cat big.log | assistant:all done" || tr.Skipped != 1 {
		t.Errorf("entries %q skipped %d", got, tr.Skipped)
	}
	if _, tail := DeriveObservations(&tr); len(tail) != 0 {
		t.Errorf("the answered call is pending: %+v", tail)
	}
}

func TestBrief(t *testing.T) {
	cases := []struct {
		tool, input string
		want        string
		code        bool
	}{
		{"Bash", `{"command":"npm test","description":"run"}`, "npm test", true},
		{"Edit", `{"file_path":"/a/b.go","old_string":"x"}`, "/a/b.go", false},
		{"Write", `{"content":"lots","file_path":"/w.go"}`, "/w.go", false},
		{"Read", `{"file_path":"/r.go"}`, "/r.go", false},
		{"NotebookEdit", `{"notebook_path":"/n.ipynb","new_source":"x"}`, "/n.ipynb", false},
		{"Grep", `{"pattern":"func main","path":"."}`, "func main", true},
		{"Glob", `{"pattern":"**/*.go"}`, "**/*.go", true},
		{"WebFetch", `{"url":"https://x.test/a","prompt":"p"}`, "https://x.test/a", false},
		{"Task", `{"prompt":"p","description":"d","subagent_type":"s"}`, "d", false},
		{"Bash", `{"description":"no command"}`, "no command", false},
		{"Custom", `{"z":1,"a":[1,2]}`, "1 2", false},
		{"Custom", `{}`, "", false},
		{"Custom", `not json`, "not json", false},
		{"apply_patch", `"*** Begin Patch\n*** Update File: a.go\n*** Delete File: b.go\n*** End Patch"`, "a.go, b.go", false},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Add File: <private>s.go</private>\n*** Add File: ok.go\n*** End Patch"}`, "ok.go", false},
		{"apply_patch", `"not a patch\nsecond line"`, "not a patch…", false},
		{"web_search", `{"type":"search","query":"q"}`, "q", false},
		{"Bash", `{"command":"echo 1\necho 2"}`, "echo 1…", true},
		{"Bash", `{"command":"echo <private>tok</private>"}`, "echo", true},
		// A value that is not text is shown as JSON; its private blocks go
		// as a string's do, whether the harness escaped the tag or not.
		{"TodoWrite", `{"todos":[{"content":"<private>tok</private>","status":"pending"}]}`, `{"content":"","status":"pending"}`, false},
		{"Custom", `{"a":{"k":"\u003cprivate\u003etok\u003c/private\u003e"}}`, `{"k":""}`, false},
		{"Custom", `{"a":{"k":"x & <b>"}}`, `{"k":"x & <b>"}`, false},
		{"Bash", `{"command":"` + strings.Repeat("é", 200) + `"}`, strings.Repeat("é", 160) + "…", true},
	}
	for _, c := range cases {
		got, code := Brief(c.tool, []byte(c.input))
		if got != c.want || code != c.code {
			t.Errorf("Brief(%s, %s) = %q,%v want %q,%v", c.tool, c.input, got, code, c.want, c.code)
		}
	}
}

// fuzzReader checks the reader's contract on arbitrary bytes: no panic, the
// cursor on a line boundary, nothing private kept nor rendered.
func fuzzReader(t *testing.T, format Format, data []byte) {
	tr := Transcript{Format: format}
	end, err := tr.ReadLines(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	if end < 0 || end > int64(len(data)) || (end > 0 && data[end-1] != '\n') {
		t.Fatalf("cursor %d not at a line end of %d bytes", end, len(data))
	}
	if i := bytes.LastIndexByte(data, '\n'); int64(i+1) != end {
		t.Fatalf("cursor %d, last newline at %d", end, i)
	}
	for _, e := range tr.Entries {
		for _, s := range []string{e.Text, e.Brief} {
			if tag := privacy.Residue(s); tag != "" {
				t.Fatalf("<%s> survived in %+v", tag, e)
			}
		}
		for _, s := range []string{e.Text, e.Brief, e.Tool, e.ToolUseID, e.MessageID} {
			if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
				t.Fatalf("a NUL or invalid UTF-8 kept in %+v", e)
			}
		}
		if e.Pos < 0 || e.Pos >= end {
			t.Fatalf("entry position %d outside [0,%d)", e.Pos, end)
		}
	}
	md := Render(Page{SessionID: tr.SessionID, Transcript: &tr, TranscriptPath: tr.Project}, renderedAt).Markdown
	if tag := privacy.Residue(string(md)); tag != "" {
		t.Fatalf("<%s> survived in the bottle:\n%s", tag, md)
	}
	// Read whole, last line included, the same bytes keep nothing private.
	whole := Transcript{Format: format}
	if err := whole.ReadAll(bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatal(err)
	}
	for _, e := range whole.Entries {
		for _, s := range []string{e.Text, e.Brief} {
			if tag := privacy.Residue(s); tag != "" {
				t.Fatalf("<%s> survived in %+v", tag, e)
			}
		}
	}
}

func FuzzClaudeReader(f *testing.F) {
	addLines(f, "testdata/claude-2.1.328.jsonl")
	addLines(f, "testdata/claude-synthetic.jsonl")
	f.Add("\uFEFF" + cl("user", "", `"hi"`) + "\r\n" + cl("user", "", `"there"`) + "\r\n")
	f.Fuzz(func(t *testing.T, s string) { fuzzReader(t, FormatClaudeCode, []byte(s)) })
}

func FuzzCodexReader(f *testing.F) {
	addLines(f, "testdata/codex-0.169.0.jsonl")
	addLines(f, "testdata/codex-synthetic.jsonl")
	f.Add("\uFEFF" + `{"timestamp":"2026-11-30T01:20:18.896Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}}` + "\r\n")
	f.Fuzz(func(t *testing.T, s string) { fuzzReader(t, FormatCodex, []byte(s)) })
}

// TestPromptTurns renders what the reader keeps of a prompt that starts with
// an envelope and of a slash command: the first is the original request, and
// the reply to the command sits under the command's own turn.
func TestPromptTurns(t *testing.T) {
	lines := []string{
		cl("user", "", `"<system-reminder>The user opened a.go</system-reminder>\nPlease fix the bug"`),
		cl("assistant", "", `[{"type":"text","text":"Fixed."}]`),
		cl("user", "", `"<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>PR 42</command-args>"`),
		cl("user", `"isMeta":true,`, `[{"type":"text","text":"Review the pull request given in the arguments."}]`),
		strings.Replace(cl("assistant", "", `[{"type":"text","text":"Reviewing PR 42."}]`), `"m1"`, `"m2"`, 1),
	}
	var tr Transcript
	if _, err := tr.ReadLines(strings.NewReader(strings.Join(lines, "\n")+"\n"), 0); err != nil {
		t.Fatal(err)
	}
	res := Render(Page{SessionID: "s", Transcript: &tr}, renderedAt)
	md := string(res.Markdown)
	if !strings.Contains(md, "## Original request\nPlease fix the bug\n") {
		t.Errorf("original request is not the first prompt:\n%s", md)
	}
	fixed, reply := strings.Index(md, "Fixed."), strings.Index(md, "Reviewing PR 42.")
	if fixed < 0 || reply < fixed || !strings.Contains(md[fixed:reply], "**User**") || !strings.Contains(md[fixed:reply], "/review PR 42") {
		t.Errorf("the reply to /review is not under its own turn:\n%s", md)
	}
	if strings.Contains(md, "Review the pull request given") {
		t.Errorf("the command's expansion is shown:\n%s", md)
	}
	if res.Task != "/review PR 42" {
		t.Errorf("task %q, want the command", res.Task)
	}
}

// claudeRealLine is a Claude Code 2.1.328 transcript line as the CLI writes
// it (the shape of testdata/claude-2.1.328.jsonl): an assistant line
// carries one content block of the message msgID, a user line its content.
func claudeRealLine(typ, uuid, parent, msgID, content string) string {
	if typ == "user" {
		return fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"promptId":"p-1","type":"user","message":{"role":"user","content":%s},`+
			`"uuid":%q,"timestamp":"2026-11-30T01:15:25.999Z","permissionMode":"default","promptSource":"sdk","userType":"external",`+
			`"entrypoint":"sdk-cli","cwd":"/home/dev/project","sessionId":%q,"version":"2.1.328","gitBranch":"HEAD"}`, parent, content, uuid, session)
	}
	return fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"message":{"id":%q,"type":"message","role":"assistant","model":"claude-opus-5-5",`+
		`"content":[%s],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":5,"service_tier":"standard"},`+
		`"stop_details":null},"requestId":"req_1","type":"assistant","uuid":%q,"timestamp":"2026-11-30T01:15:26.108Z","userType":"external",`+
		`"entrypoint":"sdk-cli","cwd":"/home/dev/project","sessionId":%q,"version":"2.1.328","gitBranch":"HEAD"}`, parent, msgID, content, uuid, session)
}

// TestPrivateBlockAcrossLinesOfOneMessage: Claude Code writes one line per
// content block of a model message, under one message.id, so a private
// block can open in one line and close in a later one. Nothing between the
// opening and the closing tag reaches the bottle's files, the render cache
// or the render's text, whether the lines are read in one render or across
// two (the cache carrying what was left open), and the words after the
// close are kept.
func TestPrivateBlockAcrossLinesOfOneMessage(t *testing.T) {
	text := func(s string) string { return fmt.Sprintf(`{"type":"text","text":%q}`, s) }
	lines := []string{
		claudeRealLine("user", "u1", "", "", `"plan the deploy"`),
		// msg_1: the block opens after public words, a tool call sits
		// between the two text blocks, and the block closes in the third.
		claudeRealLine("assistant", "a1", "u1", "msg_1", text("Here is the plan. <private>the deploy key is SECRET-A1")),
		claudeRealLine("assistant", "a2", "a1", "msg_1", `{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make plan"}}`),
		claudeRealLine("assistant", "a3", "a2", "msg_1", text("SECRET-A2 and the host SECRET-A3</private> Deploy after lunch.")),
		claudeRealLine("user", "r1", "a3", "", `[{"tool_use_id":"toolu_1","type":"tool_result","content":"ok","is_error":false}]`),
		// msg_2: the first block keeps nothing, nested blocks close across
		// three lines.
		claudeRealLine("assistant", "b1", "r1", "msg_2", text("<private>SECRET-B1 <private>SECRET-B2")),
		claudeRealLine("assistant", "b2", "b1", "msg_2", text("SECRET-B3</private> SECRET-B4")),
		claudeRealLine("assistant", "b3", "b2", "msg_2", text("SECRET-B5</private> Public B.")),
	}
	public := []string{"Here is the plan.", "Deploy after lunch.", "Public B."}
	check := func(t *testing.T, where, s string, kept bool) {
		t.Helper()
		if strings.Contains(s, "SECRET") {
			t.Errorf("%s holds a private word:\n%s", where, s)
		}
		for _, p := range public {
			if kept && !strings.Contains(s, p) {
				t.Errorf("%s lost %q:\n%s", where, p, s)
			}
		}
	}
	whole := strings.Join(lines, "\n") + "\n"

	t.Run("render", func(t *testing.T) {
		var tr Transcript
		if _, err := tr.ReadLines(strings.NewReader(whole), 0); err != nil {
			t.Fatal(err)
		}
		res := Render(Page{SessionID: session, Transcript: &tr}, renderedAt)
		check(t, "the render's Markdown", string(res.Markdown), true)
		check(t, "the render's task", res.Task, false)
	})
	for _, cut := range []int{len(lines), 2, 6, 7} {
		t.Run(fmt.Sprintf("files, read to line %d first", cut), func(t *testing.T) {
			path := writeTranscript(t, strings.Join(lines[:cut], "\n")+"\n")
			b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
			if _, err := b.Render(context.Background(), session, path); err != nil {
				t.Fatal(err)
			}
			if cut < len(lines) {
				appendFile(t, path, strings.Join(lines[cut:], "\n")+"\n")
			}
			res, err := b.Render(context.Background(), session, path)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "the bottle", readBottleAt(t, res.Path), true)
			check(t, "the task", res.Task, false)
			err = filepath.WalkDir(b.Home, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := os.ReadFile(p)
				check(t, p, string(data), false)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReaderKeepsText: a transcript's strings reach the bottle as text the
// store keeps, in every format: a NUL (the escape \u0000, in a line or in
// the JSON a tool call's arguments hold as a string) and each run of bytes
// of invalid UTF-8 written raw (`\xff` in the lines below is the byte)
// become U+FFFD, while an escaped backslash before "u0000" is the text it spells.
func TestReaderKeepsText(t *testing.T) {
	codex := func(payload string) string {
		return `{"timestamp":"2026-11-30T01:20:18.896Z","type":"response_item","payload":` + payload + `}`
	}
	gemini := `{"sessionId":"g1","projectHash":"h","startTime":"2026-11-30T01:18:58.898Z","lastUpdated":"2026-11-30T01:18:58.898Z","kind":"main"}`
	cases := []struct {
		name   string
		format Format
		lines  []string
		want   string
	}{
		{"claude prompt of raw bytes", FormatClaudeCode, []string{cl("user", "", `"raw \xff\xfe bytes"`)}, "user:raw \uFFFD bytes"},
		{"claude prompt", FormatClaudeCode, []string{cl("user", "", `"a\u0000b \xff\xfe c"`)}, "user:a\uFFFDb \uFFFD c"},
		{"claude answer and call", FormatClaudeCode, []string{cl("assistant", "", `[{"type":"text","text":"x\u0000y"},{"type":"tool_use","id":"t\xff","name":"Ba\u0000sh","input":{"command":"echo \u0000 \xc3"}}]`)},
			"assistant:x\uFFFDy | call:Ba\uFFFDsh:t\uFFFD:echo \uFFFD \uFFFD"},
		{"an escaped backslash is text", FormatClaudeCode, []string{cl("user", "", `"a\\u0000b \\\u0000"`)}, `user:a\u0000b \` + "\uFFFD"},
		{"codex", FormatCodex, []string{
			codex(`{"type":"message","role":"user","content":[{"type":"input_text","text":"p\u0000 \xff"}]}`),
			codex(`{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"ls \\u0000\"}","call_id":"c\u0000"}`),
		}, "user:p\uFFFD \uFFFD | call:exec_command:c\uFFFD:ls \uFFFD"},
		{"gemini", FormatGemini, []string{gemini,
			`{"id":"u1","timestamp":"2026-11-30T01:18:58.976Z","type":"user","content":[{"text":"q\u0000 \xff"}]}`,
			`{"id":"m1","timestamp":"2026-11-30T01:18:59.040Z","type":"gemini","content":"r\u0000\xfe"}`,
		}, "user:q\uFFFD \uFFFD | assistant:r\uFFFD\uFFFD"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := Transcript{Format: c.format}
			data := transcriptOf(c.lines)
			if _, err := tr.ReadLines(strings.NewReader(data), 0); err != nil {
				t.Fatal(err)
			}
			if got := summary(tr.Entries); got != c.want {
				t.Errorf("entries %q\nwant    %q", got, c.want)
			}
			res := Render(Page{SessionID: "s", Transcript: &tr}, renderedAt)
			for _, s := range []string{string(res.Markdown), res.Task} {
				if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
					t.Errorf("the bottle holds a NUL or invalid UTF-8:\n%q", s)
				}
			}
		})
	}
}

// transcriptOf joins lines into a transcript, each `\xff`, `\xfe` and
// `\xc3` written in them as the raw byte it names (not UTF-8 on its own).
func transcriptOf(lines []string) string {
	return strings.NewReplacer(`\xff`, "\xff", `\xfe`, "\xfe", `\xc3`, "\xc3").Replace(strings.Join(lines, "\n") + "\n")
}
