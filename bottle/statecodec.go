package bottle

import (
	"encoding/binary"
	"errors"
	"time"
)

// The render cache's encoding. A routine render decodes the cache whole and
// writes it back, in a process that runs once: encoding/gob spent most of
// its time there building its coders by reflection (every process, for the
// same few types), so the cache has its own encoding instead. Every field is
// written in declaration order: unsigned and signed varints, a string as
// its length and its bytes (any bytes: a transcript's invalid UTF-8 is kept
// as read), a bool as one byte, a time in time.Time's binary form, a
// pointer or a map as a presence flag or a count first. A decoded empty
// slice or map is nil. TestStateCodecRoundTrip fills every exported field
// of the state by reflection, so a field added to one of these types and
// not to the codec fails it.

// errStateCodec is a cache that does not decode: the render reparses.
var errStateCodec = errors.New("bottle: malformed render cache")

type stateWriter struct{ b []byte }

func (w *stateWriter) uint(v uint64)  { w.b = binary.AppendUvarint(w.b, v) }
func (w *stateWriter) int(v int64)    { w.b = binary.AppendVarint(w.b, v) }
func (w *stateWriter) str(s string)   { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *stateWriter) bytes(p []byte) { w.uint(uint64(len(p))); w.b = append(w.b, p...) }

func (w *stateWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *stateWriter) time(t time.Time) error {
	data, err := t.MarshalBinary()
	if err != nil {
		return err
	}
	w.bytes(data)
	return nil
}

// stateReader reads what stateWriter wrote; the first malformed read sets
// err, and every read after it returns a zero value.
type stateReader struct {
	b   []byte
	err error
}

func (r *stateReader) fail() { r.err, r.b = errStateCodec, nil }

func (r *stateReader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *stateReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// n reads an int that must fit the platform's int.
func (r *stateReader) n() int {
	v := r.int()
	if int64(int(v)) != v {
		r.fail()
		return 0
	}
	return int(v)
}

// Each item's fewest bytes, for count: an entry's (a kind, a position, a
// time, five strings, four bools), a page's, a map entry's.
const (
	minEntryBytes  = 1 + 1 + 16 + 5 + 4
	minPageBytes   = 5 + 3 + 1 + 2*16 + 1
	minGeminiBytes = 1 + 1 + 3
	minSetBytes    = 1 + 1
)

// count reads a length of items that take at least min bytes each, so a
// corrupt count cannot ask for more than what is left would hold.
func (r *stateReader) count(min int) int {
	v := r.uint()
	if v > uint64(len(r.b)/min) {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *stateReader) bytes() []byte {
	n := r.count(1)
	if r.err != nil {
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

func (r *stateReader) str() string { return string(r.bytes()) }

func (r *stateReader) bool() bool {
	if r.err != nil {
		return false
	}
	if len(r.b) == 0 || r.b[0] > 1 {
		r.fail()
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

func (r *stateReader) time() time.Time {
	data := r.bytes()
	if r.err != nil {
		return time.Time{}
	}
	var t time.Time
	// UnmarshalBinary takes a nanosecond field of a billion or more (bytes
	// 9-12 of its form), which no time writes, as it is; and its second
	// version (a zone offset with seconds, which no transcript's time
	// carries) does not read back what MarshalBinary writes for a negative
	// one, so a cache holding one would change as it is rewritten.
	if len(data) > 0 && data[0] != 1 {
		r.fail()
		return time.Time{}
	}
	if err := t.UnmarshalBinary(data); err != nil || binary.BigEndian.Uint32(data[9:13]) >= 1e9 {
		r.fail()
		return time.Time{}
	}
	return t
}

// encodeState appends st's encoding to buf.
func encodeState(buf []byte, st *state) ([]byte, error) {
	w := &stateWriter{b: buf}
	w.int(int64(st.Version))
	w.str(st.Cursor.Transcript)
	w.int(st.Cursor.Offset)
	w.int(int64(st.Cursor.PrefixLen))
	w.str(st.Cursor.PrefixSum)
	w.str(st.Cursor.TailSum)
	w.int(int64(st.Limits.MaxLines))
	w.int(int64(st.Limits.MaxLineChars))
	w.int(int64(st.Limits.MaxBytes))
	if err := w.transcript(&st.Transcript); err != nil {
		return nil, err
	}
	w.bool(st.Past != nil)
	if st.Past != nil {
		w.set(st.Past.Open)
		w.set(st.Past.Msgs)
	}
	w.uint(uint64(len(st.Pages)))
	for i := range st.Pages {
		if err := w.page(&st.Pages[i]); err != nil {
			return nil, err
		}
	}
	w.int(int64(st.Frozen))
	w.int(int64(st.Turns))
	w.str(st.Task)
	w.bool(st.Request.Known)
	w.uint(uint64(len(st.Request.Lines)))
	for _, l := range st.Request.Lines {
		w.str(l)
	}
	w.int(int64(st.Request.Total))
	w.int(int64(st.Request.Page))
	w.int(int64(st.Request.Line))
	w.int(int64(st.Synced))
	w.str(st.Index)
	return w.b, nil
}

func (w *stateWriter) transcript(t *Transcript) error {
	w.str(string(t.Format))
	w.str(t.SessionID)
	w.str(t.Project)
	if err := w.time(t.Started); err != nil {
		return err
	}
	if err := w.time(t.Cleared); err != nil {
		return err
	}
	w.int(int64(t.Compactions))
	w.uint(uint64(len(t.Boundaries)))
	for _, b := range t.Boundaries {
		w.int(b)
	}
	w.uint(uint64(len(t.Entries)))
	for i := range t.Entries {
		e := &t.Entries[i]
		w.uint(uint64(e.Kind))
		w.int(e.Pos)
		if err := w.time(e.Time); err != nil {
			return err
		}
		w.str(e.MessageID)
		w.str(e.Text)
		w.str(e.Tool)
		w.str(e.ToolUseID)
		w.str(e.Brief)
		w.bool(e.Code)
		w.bool(e.Done)
		w.bool(e.Failed)
		w.bool(e.Command)
	}
	w.int(int64(t.Skipped))
	w.bool(t.Gemini != nil)
	if t.Gemini != nil {
		w.uint(uint64(len(t.Gemini.Messages)))
		for id, m := range t.Gemini.Messages {
			w.str(id)
			w.uint(m.Sum)
			w.bool(m.Replay)
			w.bool(m.Text)
			w.bool(m.Cleared)
		}
		w.uint(t.Gemini.Prompt)
	}
	w.uint(uint64(len(t.Unclosed)))
	for id, open := range t.Unclosed {
		w.str(id)
		w.str(open)
	}
	return nil
}

func (w *stateWriter) set(m map[string]bool) {
	w.uint(uint64(len(m)))
	for k, v := range m {
		w.str(k)
		w.bool(v)
	}
}

func (w *stateWriter) page(p *pageMeta) error {
	w.int(int64(p.Lines))
	w.str(p.Sum)
	w.int(int64(p.Leg))
	w.int(int64(p.FirstTurn))
	w.int(int64(p.LastTurn))
	w.bool(p.Continued)
	w.bool(p.MidBlock)
	w.bool(p.Clean)
	w.int(p.StartPos)
	if err := w.time(p.From); err != nil {
		return err
	}
	if err := w.time(p.To); err != nil {
		return err
	}
	w.str(p.Row)
	return nil
}

// decodeState decodes what encodeState wrote, all of it: anything else,
// trailing bytes included, is errStateCodec.
func decodeState(data []byte) (*state, error) {
	r := &stateReader{b: data}
	st := &state{Version: r.n()}
	st.Cursor = Cursor{Transcript: r.str(), Offset: r.int(), PrefixLen: r.n(), PrefixSum: r.str(), TailSum: r.str()}
	st.Limits = ReadLimits{MaxLines: r.n(), MaxLineChars: r.n(), MaxBytes: r.n()}
	r.transcript(&st.Transcript)
	if r.bool() {
		st.Past = &past{Open: r.set(), Msgs: r.set()}
	}
	if n := r.count(minPageBytes); n > 0 {
		st.Pages = make([]pageMeta, n)
		for i := range st.Pages {
			r.page(&st.Pages[i])
		}
	}
	st.Frozen, st.Turns, st.Task = r.n(), r.n(), r.str()
	st.Request.Known = r.bool()
	if n := r.count(1); n > 0 {
		st.Request.Lines = make([]string, n)
		for i := range st.Request.Lines {
			st.Request.Lines[i] = r.str()
		}
	}
	st.Request.Total, st.Request.Page, st.Request.Line = r.n(), r.n(), r.n()
	st.Synced, st.Index = r.n(), r.str()
	if r.err == nil && len(r.b) > 0 {
		r.fail()
	}
	if r.err != nil {
		return nil, r.err
	}
	return st, nil
}

func (r *stateReader) transcript(t *Transcript) {
	t.Format, t.SessionID, t.Project = Format(r.str()), r.str(), r.str()
	t.Started, t.Cleared = r.time(), r.time()
	t.Compactions = r.n()
	if n := r.count(1); n > 0 {
		t.Boundaries = make([]int64, n)
		for i := range t.Boundaries {
			t.Boundaries[i] = r.int()
		}
	}
	if n := r.count(minEntryBytes); n > 0 {
		t.Entries = make([]Entry, n)
		for i := range t.Entries {
			e := &t.Entries[i]
			k := r.uint()
			if k > uint64(^Kind(0)) {
				r.fail()
			}
			e.Kind, e.Pos, e.Time = Kind(k), r.int(), r.time()
			e.MessageID, e.Text, e.Tool, e.ToolUseID, e.Brief = r.str(), r.str(), r.str(), r.str(), r.str()
			e.Code, e.Done, e.Failed, e.Command = r.bool(), r.bool(), r.bool(), r.bool()
		}
	}
	t.Skipped = r.n()
	if r.bool() {
		g := &GeminiState{}
		if n := r.count(minGeminiBytes); n > 0 {
			g.Messages = make(map[string]GeminiMessage, n)
			for range n {
				id := r.str()
				g.Messages[id] = GeminiMessage{Sum: r.uint(), Replay: r.bool(), Text: r.bool(), Cleared: r.bool()}
			}
		}
		g.Prompt = r.uint()
		t.Gemini = g
	}
	if n := r.count(minSetBytes); n > 0 {
		t.Unclosed = make(map[string]string, n)
		for range n {
			id := r.str()
			t.Unclosed[id] = r.str()
		}
	}
}

func (r *stateReader) set() map[string]bool {
	n := r.count(minSetBytes)
	if n == 0 {
		return nil
	}
	m := make(map[string]bool, n)
	for range n {
		k := r.str()
		m[k] = r.bool()
	}
	return m
}

func (r *stateReader) page(p *pageMeta) {
	p.Lines, p.Sum = r.n(), r.str()
	p.Leg, p.FirstTurn, p.LastTurn = r.n(), r.n(), r.n()
	p.Continued, p.MidBlock, p.Clean = r.bool(), r.bool(), r.bool()
	p.StartPos = r.int()
	p.From, p.To = r.time(), r.time()
	p.Row = r.str()
}
