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
func DetectFormat(line []byte) Format {
	var probe struct {
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(line, &probe) == nil && len(probe.Payload) > 0 {
		return FormatCodex
	}
	return FormatClaudeCode
}

// ReadLines parses the complete lines of r into t. r must be positioned at
// byte offset pos of the transcript; ReadFrom returns the offset just past
// the last complete (newline-terminated) line. A torn final line is not
// consumed, so the next read starts at its beginning. Lines that are not
// JSON, and entry types or fields ReadFrom does not know, are skipped.
// When t.Format is empty it is detected from the first line.
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
		t.Format = DetectFormat(line)
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

// envelopes are the prefixes of user-role text that a harness wrote, not the
// person: slash-command wrappers, local command output, reminders, background
// task notices, hook prompts and environment blocks.
var envelopes = []string{
	"<command-name>",
	"<command-message>",
	"<command-args>",
	"<command-contents>",
	"<local-command-stdout>",
	"<local-command-stderr>",
	"<local-command-caveat>",
	"<system-reminder>",
	"<task-notification>",
	"<context_guidance>",
	"<tool-result>",
	"<bash-input>",
	"<bash-stdout>",
	"<bash-stderr>",
	"<user-prompt-submit-hook>",
	"<environment_context>",
	"<user_instructions>",
	"<hook_prompt",
	"<turn_aborted>",
	"<user_shell_command>",
	"# AGENTS.md instructions",
	"[Request interrupted by user",
	"<" + privacy.ContextTag,
}

// isEnvelope reports whether user-role text was written by the harness.
func isEnvelope(text string) bool {
	s := strings.TrimSpace(text)
	for _, p := range envelopes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
