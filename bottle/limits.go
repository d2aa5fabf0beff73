package bottle

import (
	"strings"
	"unicode/utf8"
)

// ReadLimits are what one read of a harness's file tool returns whole. A
// bottle is laid out so that every read its pointer asks for stays within
// them: pages of at most MaxLines lines and MaxBytes bytes, and no line
// longer than MaxLineChars.
type ReadLimits struct {
	// MaxLines is the most lines one read returns.
	MaxLines int
	// MaxLineChars is the longest line a read returns uncut, in characters
	// as JavaScript counts them (UTF-16 code units).
	MaxLineChars int
	// MaxBytes bounds what one read returns, in bytes: a size limit, and a
	// conservative stand-in for a limit in tokens.
	MaxBytes int
}

// readLimits are the harnesses' file-read limits, keyed by harness (agent)
// name, the names transcripts are read as. Claude Code's Read refuses more
// than about 25,000 tokens of output (and a whole file over 256 KB), reads
// 2,000 lines by default and cuts lines over 2,000 characters; 32 KiB stays
// under 25,000 tokens even at 1.3 bytes a token. Gemini CLI's read_file has
// the same line and line-length limits (DEFAULT_MAX_LINES_TEXT_FILE,
// MAX_LINE_LENGTH_TEXT_FILE) and gets the same byte bound. Codex CLI reads
// files through its shell tool, whose output reaches the model cut to 10 KiB
// and 256 lines (head and tail kept, the middle dropped); 8 KiB and 200
// lines leave room for the command's own framing.
var readLimits = map[string]ReadLimits{
	"claude-code": {MaxLines: 2000, MaxLineChars: 2000, MaxBytes: 32 << 10},
	"gemini":      {MaxLines: 2000, MaxLineChars: 2000, MaxBytes: 32 << 10},
	"codex":       {MaxLines: 200, MaxLineChars: 1000, MaxBytes: 8 << 10},
}

// DefaultReadLimits are the limits for a harness with no entry in the
// table: the strictest of every harness's, so its bottle is readable by any.
var DefaultReadLimits = ReadLimits{MaxLines: 200, MaxLineChars: 1000, MaxBytes: 8 << 10}

// ReadLimitsFor returns the file-read limits of the named harness ("claude-code",
// "codex", "gemini"), or DefaultReadLimits for any other name.
func ReadLimitsFor(harness string) ReadLimits {
	if l, ok := readLimits[harness]; ok {
		return l
	}
	return DefaultReadLimits
}

// orDefault returns l, or DefaultReadLimits when l cannot lay out a
// bottle: zero, or too small for the index (its facts, the reference to a
// long request and two rows of its table), for a table row, page header or
// the last page's task line without wrapping them (up to 175 characters),
// or for a page's header, footer and two wrapped lines.
func (l ReadLimits) orDefault() ReadLimits {
	if l.MaxLines < MinReadLimits.MaxLines || l.MaxLineChars < MinReadLimits.MaxLineChars || l.MaxBytes < l.minBytes() {
		return DefaultReadLimits
	}
	return l
}

// MinReadLimits are the smallest limits a bottle is laid out in; smaller
// ones are replaced by DefaultReadLimits. MaxBytes here is a floor: wider
// lines need more (two wrapped lines of the widest characters besides a
// page's header and footer).
var MinReadLimits = ReadLimits{MaxLines: 40, MaxLineChars: 400, MaxBytes: 3 << 10}

// minBytes is the smallest byte bound that holds a page's header and
// footer and two wrapped lines of the widest characters.
func (l ReadLimits) minBytes() int {
	return max(MinReadLimits.MaxBytes, pageReserveBytes+2*(lineCost+utf8.UTFMax*(l.wrapWidth()+1)))
}

// lineCost is what each line costs beyond its bytes: the newline, and the
// line number a file tool puts before it ("    12→").
const lineCost = 1 + 8

// ContinuationMark ends a line of a bottle that was wrapped because it was
// longer than a reader's line limit: the text goes on, unaltered, on the next
// line. Removing each mark together with the newline after it restores the
// text exactly (see wrapLine).
const ContinuationMark = "↵"

// wrapWidth is how many runes of text a wrapped line carries before its
// mark. A rune is at most two UTF-16 code units, so a wrapped line (the
// runes and the one-rune mark) is at most MaxLineChars code units long.
func (l ReadLimits) wrapWidth() int {
	return l.MaxLineChars/2 - 1
}

// wrapLine appends line to out, split into pieces of exactly w runes each
// followed by ContinuationMark, and a last piece of 1 to w runes with no
// mark. A line of at most w runes is appended as it is. The wrapping is
// reversible without ambiguity: a line of exactly w+1 runes that ends in the
// mark is a wrapped piece, and no unwrapped line is that long.
func wrapLine(out []string, line string, w int) []string {
	if utf8.RuneCountInString(line) <= w {
		return append(out, line)
	}
	for utf8.RuneCountInString(line) > w {
		i, n := 0, 0
		for n < w {
			_, size := utf8.DecodeRuneInString(line[i:])
			i += size
			n++
		}
		out = append(out, line[:i]+ContinuationMark)
		line = line[i:]
	}
	return append(out, line)
}

// wrapText appends the lines of text (split at newlines), each wrapped to w
// runes.
func wrapText(out []string, text string, w int) []string {
	for line := range strings.SplitSeq(text, "\n") {
		out = wrapLine(out, line, w)
	}
	return out
}
