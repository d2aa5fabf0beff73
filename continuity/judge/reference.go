package judge

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// Reference is the deterministic judge: it finds a briefed commitment done
// only when the run's excerpt or its events say so in a form it can check,
// and never guesses. Its recall is low by design; what it resolves, a
// person can read off the excerpt. It costs nothing.
//
// A commitment is done by its events when the run's last resolve, unresolve,
// archive or supersede event of it (events are oldest first) is a resolve,
// and the commitment was not updated after that event (a later update is a
// reopen by someone else, which a judge must not undo; a commitment with no
// update time reads as not updated).
//
// A commitment is done by the excerpt when a line of it holds a completion
// marker followed by a reference to the commitment. Matching ignores case
// and reads runs of white space as one space.
//
//   - A marker is one of the words in CompletionWords, followed by an
//     optional separator (":", "-", "–" or "—", markdown emphasis around
//     either allowed), or a task-list box "[x]" opening the line after an
//     optional bullet ("- [x] docs"). "Done." or "done with" are not
//     markers: the reference must follow at once.
//   - A reference is either a commitment id, whole or as a prefix of its
//     canonical form of at least MinIDPrefix characters, that names exactly
//     one commitment of the case; or a commitment's exact topic, ending the
//     item (the end of the line, closing punctuation before a space or the
//     end, or " and " / " & " before the next item). When topics nest, the
//     longest one that matches is the one meant; a topic two commitments
//     share, or a prefix two ids share, names neither. An id of no briefed
//     commitment names nothing.
//   - References may be listed: "done: lease, docs and `ship`". Each item may
//     be quoted.
//   - A marker is negated, and counts for nothing, when a word of its clause
//     before it (the clause runs back to the last ".", ",", ";", "!" or "?")
//     is one of NonAssertiveWords or ends in "n't": "not done: docs", "will
//     be completed: docs", "haven't finished: docs", "once done: docs".
//
// So "Done: lease" and "resolved 0190f1c2" resolve, "Finished the lease
// rules" resolves only a commitment whose topic is "the lease rules", and
// "I still need to finish lease" resolves nothing.
type Reference struct{}

var _ continuity.Judge = Reference{}

// CompletionWords are the words that open a completion marker.
var CompletionWords = []string{"done", "completed", "resolved", "finished", "closed", "shipped", "fixed", "fulfilled"}

// NonAssertiveWords negate a completion marker that follows them in the same
// clause: negation, the future, modality, condition and hedging.
var NonAssertiveWords = []string{
	"not", "no", "never", "nothing", "none", "nor", "cannot", "without", "yet",
	"will", "would", "should", "could", "shall", "must", "might", "may", "need", "needs", "to",
	"todo", "pending", "remaining", "unless", "if", "once", "when", "almost", "nearly", "partially", "half",
}

// MinIDPrefix is the shortest id prefix the excerpt may name a commitment
// by: the first group of its canonical form.
const MinIDPrefix = 8

var (
	completionWord   = set(CompletionWords)
	nonAssertiveWord = set(NonAssertiveWords)
)

func set(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// Judge returns the commitments of c the excerpt or the events show done,
// in the order c lists them.
//
// Errors: invalid (c is out of bounds; see CheckCase).
func (Reference) Judge(_ context.Context, c continuity.JudgeCase) (continuity.Verdict, error) {
	if err := CheckCase(c); err != nil {
		return continuity.Verdict{}, err
	}
	done := excerptDone(c.Excerpt, c.Commitments)
	for id := range eventsDone(c.Events, c.Commitments) {
		done[id] = true
	}
	var out []uuid.UUID
	for _, m := range c.Commitments {
		if done[m.ID] {
			out = append(out, m.ID)
		}
	}
	return continuity.Verdict{Completed: out}, nil
}

// eventsDone returns the commitments whose last state-changing event in the
// run is a resolve that no later update overrode.
func eventsDone(events []provenance.Item, cs []continuity.Memory) map[uuid.UUID]bool {
	last := map[uuid.UUID]provenance.Item{}
	for _, e := range events {
		switch continuity.EventKind(e.EventKind) {
		case continuity.EventResolve, continuity.EventUnresolve, continuity.EventArchive, continuity.EventSupersede:
			last[e.MemoryID] = e
		}
	}
	done := map[uuid.UUID]bool{}
	for _, m := range cs {
		if e, ok := last[m.ID]; ok && continuity.EventKind(e.EventKind) == continuity.EventResolve && !m.UpdatedAt.After(e.CreatedAt) {
			done[m.ID] = true
		}
	}
	return done
}

// target is a commitment as the excerpt may name it.
type target struct {
	id    uuid.UUID
	canon string // the canonical id, lower case
	topic string // the normalized topic
}

// excerptDone returns the commitments the excerpt's markers name.
func excerptDone(excerpt string, cs []continuity.Memory) map[uuid.UUID]bool {
	ts := make([]target, len(cs))
	for i, m := range cs {
		ts[i] = target{id: m.ID, canon: m.ID.String(), topic: normalize(m.Topic)}
	}
	done := map[uuid.UUID]bool{}
	for _, line := range strings.Split(excerpt, "\n") {
		l := normalize(line)
		if p, ok := checkbox(l); ok {
			refs(l, p, ts, done)
		}
		ws := words(l)
		for i, w := range ws {
			if completionWord[l[w.start:w.end]] && !negated(l, ws, i) {
				refs(l, afterMarker(l, w.end), ts, done)
			}
		}
	}
	return done
}

// normalize lowers s and reads each run of white space as one space.
func normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// span is a word's byte range in a line.
type span struct{ start, end int }

// words returns the line's words: runs of letters, digits and apostrophes.
func words(l string) []span {
	var ws []span
	start := -1
	for i, r := range l {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’'
		switch {
		case in && start < 0:
			start = i
		case !in && start >= 0:
			ws = append(ws, span{start, i})
			start = -1
		}
	}
	if start >= 0 {
		ws = append(ws, span{start, len(l)})
	}
	return ws
}

// negated reports whether a non-assertive word precedes the marker ws[i] in
// its clause.
func negated(l string, ws []span, i int) bool {
	clause := strings.LastIndexAny(l[:ws[i].start], ".,;!?") + 1
	for _, w := range ws[:i] {
		if w.start < clause {
			continue
		}
		word := l[w.start:w.end]
		if nonAssertiveWord[word] || strings.HasSuffix(word, "n't") || strings.HasSuffix(word, "n’t") {
			return true
		}
	}
	return false
}

// checkbox returns where the references of a line opening with a ticked
// task-list box start.
func checkbox(l string) (int, bool) {
	p := 0
	if len(l) > 1 && strings.ContainsRune("-*+", rune(l[0])) && l[1] == ' ' {
		p = 2
	}
	if !strings.HasPrefix(l[p:], "[x]") {
		return 0, false
	}
	return skipSpace(l, p+3), true
}

// afterMarker skips a marker's separator and returns where its references
// start.
func afterMarker(l string, p int) int {
	p = skipEmphasis(l, p)
	p = skipSpace(l, p)
	for _, sep := range []string{":", "-", "–", "—"} {
		if strings.HasPrefix(l[p:], sep) {
			p = skipEmphasis(l, p+len(sep))
			break
		}
	}
	return skipSpace(l, p)
}

func skipSpace(l string, p int) int {
	for p < len(l) && l[p] == ' ' {
		p++
	}
	return p
}

func skipEmphasis(l string, p int) int {
	for p < len(l) && (l[p] == '*' || l[p] == '_') {
		p++
	}
	return p
}

// quotes open and close a quoted reference.
const quotes = "\"'`“”‘’"

// refs marks the commitments a list of references starting at p names.
func refs(l string, p int, ts []target, done map[uuid.UUID]bool) {
	for p < len(l) {
		if r, n := utf8.DecodeRuneInString(l[p:]); strings.ContainsRune(quotes, r) {
			p += n
		}
		id, n := ref(l[p:], ts)
		if n == 0 {
			return
		}
		done[id] = true
		p += n
		if r, n := utf8.DecodeRuneInString(l[p:]); strings.ContainsRune(quotes, r) {
			p += n
		}
		next := -1
		for _, sep := range []string{", and ", ", ", " and ", " & "} {
			if strings.HasPrefix(l[p:], sep) {
				next = p + len(sep)
				break
			}
		}
		if next < 0 {
			return
		}
		p = next
	}
}

// ref returns the commitment s opens with a reference to, and the
// reference's length; 0 when s names none.
func ref(s string, ts []target) (uuid.UUID, int) {
	if id, n := idRef(s, ts); n > 0 {
		return id, n
	}
	var (
		best  uuid.UUID
		n     int
		twice bool
	)
	for _, t := range ts {
		if t.topic == "" || len(t.topic) < n || !strings.HasPrefix(s, t.topic) || !endsItem(s[len(t.topic):]) {
			continue
		}
		if len(t.topic) == n {
			twice = true
			continue
		}
		best, n, twice = t.id, len(t.topic), false
	}
	if twice {
		return uuid.Nil, 0
	}
	return best, n
}

// idRef returns the one commitment whose canonical id the hex token s opens
// with is a prefix of, and the token's length.
func idRef(s string, ts []target) (uuid.UUID, int) {
	n := 0
	for n < len(s) && (s[n] == '-' || ('0' <= s[n] && s[n] <= '9') || ('a' <= s[n] && s[n] <= 'f')) {
		n++
	}
	if n < MinIDPrefix || n > len(uuid.Nil.String()) {
		return uuid.Nil, 0
	}
	if r, _ := utf8.DecodeRuneInString(s[n:]); n < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return uuid.Nil, 0
	}
	var found []uuid.UUID
	for _, t := range ts {
		if strings.HasPrefix(t.canon, s[:n]) {
			found = append(found, t.id)
		}
	}
	if len(found) != 1 {
		return uuid.Nil, 0
	}
	return found[0], n
}

// endsItem reports whether a topic followed by rest ends its item: rest is
// empty, opens the next item, or is closing punctuation before a space or
// the end.
func endsItem(rest string) bool {
	if strings.HasPrefix(rest, " and ") || strings.HasPrefix(rest, " & ") {
		return true
	}
	closed := strings.TrimLeft(rest, ".,;:!?)"+quotes)
	return closed == "" || (len(closed) < len(rest) && closed[0] == ' ')
}
