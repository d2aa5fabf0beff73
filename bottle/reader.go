package bottle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle/privacy"
)

// Format names a transcript format.
type Format string

// The transcript formats baton reads.
const (
	// FormatClaudeCode is Claude Code's session JSONL
	// (~/.claude/projects/<project>/<session>.jsonl).
	FormatClaudeCode Format = "claude-code"
	// FormatCodex is Codex CLI's rollout JSONL
	// (~/.codex/sessions/.../rollout-*.jsonl).
	FormatCodex Format = "codex"
)

// maxLine bounds one transcript line. A longer line (a tool result of tens of
// megabytes) cannot hold anything a bottle keeps in full, so it is skipped
// without being buffered, and the cursor still moves past it.
const maxLine = 32 << 20

// readBuffer is the streaming read size: memory per read is this plus the
// longest kept line, whatever the transcript's length.
const readBuffer = 256 << 10

// DetectFormat guesses the format of a transcript from one of its lines:
// Codex wraps every line in {timestamp, type, payload}; Claude Code does not.
// A line that is not a JSON object tells nothing and returns "".
func DetectFormat(line []byte) Format {
	var probe struct {
		Payload json.RawMessage `json:"payload"`
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &probe) != nil {
		return ""
	}
	if len(probe.Payload) > 0 {
		return FormatCodex
	}
	return FormatClaudeCode
}

// ReadLines parses the complete lines of r into t. r must be positioned at
// byte offset pos of the transcript; ReadFrom returns the offset just past
// the last complete (newline-terminated) line. A torn final line is not
// consumed, so the next read starts at its beginning. Lines that are not
// JSON, and entry types or fields ReadFrom does not know, are skipped.
// When t.Format is empty it is detected from the first line that is a JSON
// object.
func (t *Transcript) ReadLines(r io.Reader, pos int64) (int64, error) {
	br := bufio.NewReaderSize(r, readBuffer)
	start := pos    // offset of the line being read
	var n int64     // bytes of that line read so far
	var long []byte // a line longer than the buffer, being assembled
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				if len(long)+len(chunk) > maxLine {
					tooLong, long = true, nil
				} else {
					long = append(long, chunk...)
				}
			}
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				// What was read since start is a torn line: leave it for next time.
				return start, nil
			}
			return start, err
		}
		if tooLong || n > maxLine {
			t.Skipped++
		} else {
			line := chunk
			if len(long) > 0 {
				long = append(long, chunk...)
				line = long
			}
			t.ParseLine(start, line)
		}
		start += n
		n, tooLong, long = 0, false, long[:0]
	}
}

// ParseLine parses one transcript line that starts at byte offset pos into t.
// It never fails: a line that is not JSON counts as skipped, and an entry it
// does not recognise is ignored.
func (t *Transcript) ParseLine(pos int64, line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if t.Format == "" {
		if t.Format = DetectFormat(line); t.Format == "" {
			t.Skipped++ // the format is guessed from the first line that parses
			return
		}
	}
	var ok bool
	switch t.Format {
	case FormatCodex:
		ok = t.parseCodex(pos, line)
	default:
		ok = t.parseClaude(pos, line)
	}
	if !ok {
		t.Skipped++
	}
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return ts.UTC()
}

// envelopeTags are the elements a harness wraps around user-role text that
// it wrote, not the person: slash-command wrappers, local command output,
// reminders, background task notices, hook prompts and environment blocks.
var envelopeTags = []string{
	"command-name",
	"command-message",
	"command-args",
	"command-contents",
	"local-command-stdout",
	"local-command-stderr",
	"local-command-caveat",
	"system-reminder",
	"task-notification",
	"context_guidance",
	"tool-result",
	"bash-input",
	"bash-stdout",
	"bash-stderr",
	"user-prompt-submit-hook",
	"environment_context",
	"user_instructions",
	"hook_prompt",
	"turn_aborted",
	"user_shell_command",
	privacy.ContextTag,
}

// envelopeMarkers start user-role text that the harness wrote whole.
var envelopeMarkers = []string{
	"# AGENTS.md instructions",
	"[Request interrupted by user",
}

// userText is user-role text once the envelopes it starts with are walked.
type userText struct {
	// said is what follows the envelopes: the person's words, or "".
	said string
	// command is the slash command the envelopes record, as the person
	// typed it ("/review PR 42"), or "".
	command string
	// output says the envelopes carry a local command's output.
	output bool
}

// unwrap walks the envelopes that user-role text starts with. Only leading
// envelopes are the harness's: an envelope tag later in a prompt is the
// person's words. An envelope that never closes holds the rest of the text,
// and a text that starts with a marker is the harness's whole.
func unwrap(text string) userText {
	var u userText
	var name, args string
	s := strings.TrimSpace(text)
	for tag := leadingEnvelope(s); tag != ""; tag = leadingEnvelope(s) {
		end := strings.Index(s, "</"+tag+">")
		if end < 0 {
			s = ""
			break
		}
		body := ""
		if open := strings.IndexByte(s, '>'); open < end {
			body = strings.TrimSpace(s[open+1 : end])
		}
		switch tag {
		case "command-name":
			name = body
		case "command-args":
			args = body
		case "local-command-stdout", "local-command-stderr":
			u.output = true
		}
		s = strings.TrimSpace(s[end+len(tag)+3:])
	}
	for _, m := range envelopeMarkers {
		if strings.HasPrefix(s, m) {
			s = ""
		}
	}
	u.said = s
	if name != "" {
		u.command = strings.TrimSpace("/" + strings.TrimPrefix(name, "/") + " " + args)
	}
	return u
}

// leadingEnvelope returns the envelope tag s starts with, or "".
func leadingEnvelope(s string) string {
	if !strings.HasPrefix(s, "<") {
		return ""
	}
	for _, tag := range envelopeTags {
		if rest, ok := strings.CutPrefix(s[1:], tag); ok && rest != "" && (rest[0] == '>' || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r') {
			return tag
		}
	}
	return ""
}
