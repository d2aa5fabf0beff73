package hook

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/batonhq/baton/bottle"
)

// lastMessageReaders read a transcript's last model message, per transcript
// format: a harness whose payload garbles it (Transcript.
// LastMessageFromTranscript) names one of these formats. Each reads the
// lines among the last tail bytes of a regular file (and the byte before
// them, to tell whether the first is whole) and reports false when it finds
// no message there.
var lastMessageReaders = map[string]func(path string, tail int64) (string, bool){
	"gemini": geminiLastMessage,
}

// tailLines returns the complete JSON lines among the last tail bytes of
// the regular file at path: the first line is dropped when the read starts
// in the middle of a line (the byte before it, read too, is no newline),
// and a last line without its newline is kept only when it is whole JSON
// (the writer may be mid-line).
func tailLines(path string, tail int64) [][]byte {
	// Only a regular file is opened: opening a FIFO would block.
	f, err := bottle.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	// One byte before the tail is read too: a newline there says the
	// tail's first line is whole.
	start := max(fi.Size()-tail-1, 0)
	buf := make([]byte, fi.Size()-start)
	n, err := f.ReadAt(buf, start)
	if err != nil && err != io.EOF {
		return nil
	}
	buf = buf[:n]
	if start > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil
		}
		buf = buf[i+1:]
	}
	lines := bytes.Split(buf, []byte{'\n'})
	if last := lines[len(lines)-1]; !json.Valid(last) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// geminiLastMessage reads Gemini CLI's chat recording (gemini/NOTES.md):
// JSONL of a header, message records, and {"$set": {...}} updates of which
// {"$set": {"messages": [...]}} replaces the whole history (at creation,
// resume and compression). The last model message with text, in file
// order, is the turn's reply; the bottle's parser reads each line
// (bottle.GeminiReply), so the two agree on what a reply is.
func geminiLastMessage(path string, tail int64) (string, bool) {
	last := ""
	for _, line := range tailLines(path, tail) {
		if t, ok := bottle.GeminiReply(line); ok {
			last = t
		}
	}
	return last, last != ""
}
