package bottle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
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
	// FormatGemini is Gemini CLI's chat recording JSONL
	// (~/.gemini/tmp/<project>/chats/session-*.jsonl).
	FormatGemini Format = "gemini"
)

// reader is one row of the format table: how a format is recognised from a
// line, how its lines are parsed, and, optionally, how a transcript path the
// harness gave is resolved to the file that holds the conversation.
type reader struct {
	format  Format
	detect  func(line []byte) bool // nil in the last row, the fallback
	parse   func(t *Transcript, pos int64, line []byte) bool
	resolve func(path string) string
}

// formats is the format table, in detection order. A parse function reports
// false only when the line is not a JSON object.
var formats = []reader{
	{format: FormatCodex, detect: isCodexLine, parse: (*Transcript).parseCodex},
	{format: FormatGemini, detect: isGeminiLine, parse: (*Transcript).parseGemini, resolve: resolveGemini},
	{format: FormatClaudeCode, parse: (*Transcript).parseClaude},
}

// readerOf returns the table row of f; an unknown format reads as the
// fallback.
func readerOf(f Format) reader {
	for _, r := range formats {
		if r.format == f {
			return r
		}
	}
	return formats[len(formats)-1]
}

// maxLine bounds one transcript line. A longer line (a tool result of tens of
// megabytes) cannot hold anything a bottle keeps in full, so it is skipped
// without being buffered, and the cursor still moves past it.
const maxLine = 32 << 20

// readBuffer is the streaming read size: memory per read is this plus the
// longest kept line, whatever the transcript's length.
const readBuffer = 256 << 10

// DetectFormat guesses the format of a transcript from one of its lines:
// Codex wraps every line in {timestamp, type, payload}; Gemini CLI's lines
// are a header with a projectHash, a $set or $rewindTo update, or a message
// record of type gemini; anything else is Claude Code's.
func DetectFormat(line []byte) Format {
	for _, r := range formats {
		if r.detect == nil || r.detect(line) {
			return r.format
		}
	}
	return formats[len(formats)-1].format
}

func isCodexLine(line []byte) bool {
	var probe struct {
		Payload json.RawMessage `json:"payload"`
	}
	return json.Unmarshal(line, &probe) == nil && len(probe.Payload) > 0
}

// maxHead bounds the first line ResolveTranscript reads to tell the format;
// a longer one is no file a format resolves (Gemini CLI's header is short).
const maxHead = 4 << 10

// ResolveTranscript returns the path of the file that holds the conversation
// of the transcript the harness named: path itself, except where a format
// knows the harness can name the wrong file (Gemini CLI's stray resume file,
// see resolveGemini). It never fails: when in doubt it returns path. Only a
// regular file is read.
func ResolveTranscript(path string) string {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return path
	}
	f, err := os.Open(path)
	if err != nil {
		return path
	}
	var head [maxHead]byte
	n, err := io.ReadFull(f, head[:])
	f.Close()
	line, _, complete := bytes.Cut(head[:n], []byte{'\n'})
	if !complete && err == nil {
		return path // a first line longer than maxHead
	}
	if r := readerOf(DetectFormat(bytes.TrimSpace(line))); r.resolve != nil {
		return r.resolve(path)
	}
	return path
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
	if !readerOf(t.Format).parse(t, pos, line) {
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
