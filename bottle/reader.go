package bottle

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"strings"
	"time"
	"unicode/utf8"

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
// without being held, and the cursor still moves past it.
const maxLine = 32 << 20

// readBuffer is the streaming read size: memory per read is this plus the
// longest kept line, whatever the transcript's length. A read of less than
// readBuffer bytes (an incremental render reads one turn) uses a buffer of
// its size, at least minReadBuffer: a hook process pays for every page of
// memory it touches.
const (
	readBuffer    = 256 << 10
	minReadBuffer = 4 << 10
)

// readBufferSize is the buffer for reading [pos, pos+limit) of r: the
// bytes r holds there when r can say how many (an *os.File's size), plus
// one so that the read meets the end; a file that grows during the read
// only makes a line longer than the buffer, which is read again whole.
func readBufferSize(r io.ReaderAt, pos, limit int64) int {
	n := limit
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			n = min(n, max(fi.Size()-pos, 0))
		}
	}
	if n >= readBuffer {
		return readBuffer
	}
	return max(int(n)+1, minReadBuffer)
}

// DetectFormat guesses the format of a transcript from one of its lines:
// Codex wraps every line in {timestamp, type, payload}; Gemini CLI's lines
// are a header with a projectHash, a $set or $rewindTo update, or a message
// record of type gemini; any other JSON object is Claude Code's. A line that
// is not a JSON object tells nothing and returns "".
func DetectFormat(line []byte) Format {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
		return ""
	}
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
	f, err := OpenRegular(path)
	if err != nil {
		return path
	}
	format := headFormat(f)
	f.Close()
	if r := readerOf(format); r.resolve != nil {
		return r.resolve(path)
	}
	return path
}

// headFormat is the format the first line of the transcript r tells, or ""
// when it tells none or is longer than maxHead.
func headFormat(r io.ReaderAt) Format {
	var head [maxHead]byte
	n, err := r.ReadAt(head[:], 0)
	line, _, complete := bytes.Cut(head[:n], []byte{'\n'})
	if !complete && err == nil {
		return ""
	}
	return DetectFormat(bytes.TrimSpace(bytes.TrimPrefix(line, byteOrderMark)))
}

// ReadLines parses the complete lines of the transcript r (whose offsets are
// the transcript's, as an *os.File's are), from byte offset pos on, into t,
// and returns the offset just past the last complete
// (newline-terminated) line. It is the live path, reading a transcript the
// harness is still appending to: a torn final line is not consumed, so the
// next read starts at its beginning. Lines that are not JSON, and entry
// types or fields ReadLines does not know, are skipped. A line longer than
// the read buffer is measured first and read again whole only when it is
// short enough to keep, so a line of tens of megabytes is skipped without
// being held. When t.Format is empty it is detected from the first line that
// is a JSON object.
func (t *Transcript) ReadLines(r io.ReaderAt, pos int64) (int64, error) {
	return t.read(context.Background(), r, pos, math.MaxInt64-pos, false)
}

// ErrReadCut says a render read its transcript only part of the way: the
// event's budget ended first. What was read is rendered and its cursor
// kept, so the next render reads on from there.
var ErrReadCut = errors.New("bottle: the event's budget ended before the transcript was read to its end; the next render reads on")

// readCheckEvery is how many transcript bytes a read parses between looks
// at its context.
const readCheckEvery = 1 << 20

// readLinesUntil is ReadLines that stops at a line's end once ctx is done,
// after at least readCheckEvery bytes, with ErrReadCut and the offset it
// reached.
func (t *Transcript) readLinesUntil(ctx context.Context, r io.ReaderAt, pos int64) (int64, error) {
	return t.read(ctx, r, pos, math.MaxInt64-pos, false)
}

// ReadAll parses the first size bytes of a finished transcript into t, as
// ReadLines does, and its last line too, whether or not a newline ends it:
// a one-off render of a file reads it all.
func (t *Transcript) ReadAll(r io.ReaderAt, size int64) error {
	_, err := t.read(context.Background(), r, 0, size, true)
	return err
}

// read parses the lines of r in [pos, pos+limit); all says the end of that
// range ends the last line. Once ctx is done it stops within
// readCheckEvery bytes with ErrReadCut, at a line's end, or at the start of
// a line too long to end within them.
func (t *Transcript) read(ctx context.Context, r io.ReaderAt, pos, limit int64, all bool) (int64, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(r, pos, limit), readBufferSize(r, pos, limit))
	start := pos   // offset of the line being read
	var n int64    // bytes of that line read so far
	checked := pos // where ctx was last looked at
	// cut looks at ctx once at least readCheckEvery bytes were read since
	// it last did, at offset at, and says whether the read must stop.
	cut := func(at int64) bool {
		if at-checked < readCheckEvery {
			return false
		}
		checked = at
		return ctx.Err() != nil
	}
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			long = true // measured, not held
			if cut(start + n) {
				// A line of gigabytes is measured within the budget too; the
				// next read starts at it again.
				return start, ErrReadCut
			}
			continue
		}
		end := errors.Is(err, io.EOF)
		if err != nil && !end {
			return start, err
		}
		if end && (!all || n == 0) {
			// What was read since start is a torn line: leave it for next time.
			return start, nil
		}
		switch {
		case !long:
			t.ParseLine(start, chunk)
		case n > maxLine:
			t.Skipped++
		default:
			line := make([]byte, n)
			if k, err := r.ReadAt(line, start); k < len(line) {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF // the file shrank under the read
				}
				return start, err
			}
			t.ParseLine(start, line)
		}
		start += n
		n, long = 0, false
		if end {
			return start, nil
		}
		if cut(start) {
			return start, ErrReadCut
		}
	}
}

// byteOrderMark is UTF-8's byte order mark. An editor or a tool on Windows
// may start a file with it; JSON does not allow it, so unless it is dropped
// the first line does not parse: a Claude Code transcript loses its first
// prompt, and a Gemini CLI recording its header and with it its format
// (read as Claude Code's).
var byteOrderMark = []byte("\uFEFF")

// ParseLine parses one transcript line that starts at byte offset pos into t.
// It never fails: a line that is not JSON counts as skipped, and an entry it
// does not recognise is ignored. The line at offset 0 may start with a byte
// order mark, which is not part of it.
func (t *Transcript) ParseLine(pos int64, line []byte) {
	if pos == 0 {
		line = bytes.TrimPrefix(line, byteOrderMark)
	}
	line = keepableLine(bytes.TrimSpace(line))
	if len(line) == 0 {
		return
	}
	if t.Format == "" {
		if t.Format = DetectFormat(line); t.Format == "" {
			t.Skipped++ // the format is guessed from the first line that parses
			return
		}
	}
	if !readerOf(t.Format).parse(t, pos, line) {
		t.Skipped++
	}
}

// nulEscape is the JSON escape of a NUL; replacement that of U+FFFD, of the
// same length.
var nulEscape, replacement = []byte(`\u0000`), []byte(`\ufffd`)

// keepableLine makes every string a JSON line holds text the store keeps
// and a bottle file may hold: each run of bytes of invalid UTF-8 and each
// NUL escape become U+FFFD, as the hook does with a payload's text (the
// readers skim most strings without decoding them, so encoding/json does
// not replace their invalid UTF-8). The store refuses both,
// so a sealed bottle whose current task held one would cost the event its
// seal. An escaped backslash followed by "u0000" is text and stays.
func keepableLine(line []byte) []byte {
	if utf8.Valid(line) && !bytes.Contains(line, nulEscape) {
		return line
	}
	line = bytes.ToValidUTF8(line, []byte("\uFFFD")) // a copy: line is the reader's buffer
	for i := 0; i < len(line); i++ {
		if line[i] != '\\' {
			continue
		}
		if bytes.HasPrefix(line[i:], nulEscape) {
			copy(line[i:], replacement)
		}
		i++ // the escaped byte, a backslash too
	}
	return line
}

// KeepableText is s with each NUL and each run of invalid UTF-8 as U+FFFD:
// text the store keeps (it refuses both), and keepableLine's rule for text
// decoded from JSON that a line holds as a string.
func KeepableText(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
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

// unwrapPart is unwrap of one part of user-role text (a content block),
// privacy filtered first: a private block may straddle an envelope's end
// ("<command-args>a <private>b</command-args> c</private>"), and walking
// the envelope first would leave c outside any block. open is what the
// parts before left open and the result's what this one leaves, as
// privacy.ScrubPart has them, so a block one part opens hides what the
// next part holds up to its close.
func unwrapPart(open, text string) (userText, string) {
	kept, open := privacy.ScrubPart(open, text)
	return unwrap(kept), open
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
