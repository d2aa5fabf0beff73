package privacy

import (
	"bytes"
	"strings"
)

// ContextTag is the tag baton wraps around every block of context it injects
// into a session. Scrub strips it, so text baton injected never reaches a
// bottle or a stored prompt when the harness echoes it back.
const ContextTag = "baton-context"

// scrubbedTags are the tags whose whole content Scrub removes: the user's
// private blocks, harness-injected reminders and instructions, persisted tool
// output, and baton's own injected context. They are lower-case ASCII, and
// no name is a prefix of another.
var scrubbedTags = [...]string{
	"private",
	"system-reminder",
	"system_instruction",
	"system-instruction",
	"persisted-output",
	ContextTag,
}

// maxName is the length of the longest scrubbed tag's name.
var maxName = func() int {
	n := 0
	for _, tag := range scrubbedTags {
		n = max(n, len(tag))
	}
	return n
}()

// A tag is '<', a scrubbed tag's name, and a byte that ends the name: white
// space or '>' for an opening tag (whose attributes run to the next '>'),
// optional white space and '>' for a closing tag "</name>". Names match
// ASCII case-insensitively and nothing else (no Unicode folding of 'ſ' to
// 's'): Scrub and Residue must agree on what a tag is. A name followed by
// anything else ("<private/>", "<privateer>", "<private" at the very end)
// is no tag.

// endsName reports whether c ends a tag name in an opening tag. The white
// space is that of regular expressions' \s.
func endsName(c byte) bool {
	return c == '>' || isSpace(c)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// hasName reports whether s starts with tag, ASCII case-insensitively.
func hasName[T string | []byte](s T, tag string) bool {
	if len(s) < len(tag) {
		return false
	}
	for i := range len(tag) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != tag[i] {
			return false
		}
	}
	return true
}

// nameAt returns the index in scrubbedTags of the tag whose name s starts
// with, followed by a byte that ends an opening tag's name, or -1.
func nameAt(s string) int {
	for i, tag := range scrubbedTags {
		if len(s) > len(tag) && endsName(s[len(tag)]) && hasName(s, tag) {
			return i
		}
	}
	return -1
}

// openingAt returns the tag of the opening tag that s starts with, or -1.
func openingAt(s string) int {
	if len(s) < 2 || s[0] != '<' {
		return -1
	}
	return nameAt(s[1:])
}

// closingAt returns the tag of the closing tag that s starts with and the
// tag's length, or -1 and 0.
func closingAt(s string) (tag, n int) {
	if len(s) < 3 || s[0] != '<' || s[1] != '/' {
		return -1, 0
	}
	for i, name := range scrubbedTags {
		if !hasName(s[2:], name) {
			continue
		}
		j := 2 + len(name)
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '>' {
			return i, j + 1
		}
		return -1, 0 // no other name matches: none is a prefix of another
	}
	return -1, 0
}

// openingTail returns where the opening tag that out ends with starts, and
// its tag, or -1 and -1. out's last byte is one that ends a name, so only
// the last longest-name-plus-two bytes are looked at.
func openingTail(out []byte) (start, tag int) {
	end := len(out) - 1
	for i, name := range scrubbedTags {
		if at := end - len(name) - 1; at >= 0 && out[at] == '<' && hasName(out[at+1:end], name) {
			return at, i
		}
	}
	return -1, -1
}

// scrubber is one pass of Scrub over a text: the bytes kept so far, and the
// tags of the blocks open at the scan's position, outermost first.
type scrubber struct {
	out   []byte
	open  []uint8 // indices in scrubbedTags
	blank bool    // the outermost open block began right after a blank
	// lt is the index in out of its last '<' if that is among its last
	// maxName+1 bytes, where a name kept next may still finish a tag, else -1.
	lt int
	// opened counts the open blocks of each tag: a closing tag of a tag
	// with none open is ignored without walking the stack.
	opened [len(scrubbedTags)]int
}

func newScrubber(n int) *scrubber {
	return &scrubber{out: make([]byte, 0, n), lt: -1}
}

// scrub scans s once. Outside a block every byte is kept, and an opening
// tag is looked for where it would be read, in the kept text's tail: a tag
// formed by the text on the two sides of a removed block
// ("<pri<private>x</private>vate>") is found in the same pass, so the pass
// never has to be repeated and its cost is linear. Inside a block bytes are
// dropped, opening tags nest and closing tags unnest, and the block ends
// when its outermost tag closes. An opening tag that never finishes, and a
// block that never ends, take the rest of s.
func (sc *scrubber) scrub(s string) {
	for i := 0; i < len(s); {
		if len(sc.open) == 0 {
			i = sc.keep(s, i)
			continue
		}
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return // the block never ends
		}
		i += j
		if tag, n := closingAt(s[i:]); tag >= 0 {
			i += n
			if sc.close(tag) && sc.blank && i < len(s) && isBlank(s[i]) {
				i++ // blanks on both sides of the block: keep the one before
			}
			continue
		}
		if tag := openingAt(s[i:]); tag >= 0 {
			i += 1 + len(scrubbedTags[tag])
			i = sc.enter(s, i+1, s[i], tag)
			continue
		}
		i++
	}
}

// keep keeps the bytes of s from i on, outside any block, until one
// completes an opening tag in out, and returns where that tag's block
// starts, or len(s).
func (sc *scrubber) keep(s string, i int) int {
	for i < len(s) {
		if sc.lt < len(sc.out)-maxName-1 {
			// No byte before the next '<' can finish a tag: keep them whole.
			j := strings.IndexByte(s[i:], '<')
			if j < 0 {
				sc.out = append(sc.out, s[i:]...)
				return len(s)
			}
			sc.out = append(sc.out, s[i:i+j]...)
			i += j
		}
		c := s[i]
		sc.out = append(sc.out, c)
		i++
		if c == '<' {
			sc.lt = len(sc.out) - 1
			continue
		}
		if !endsName(c) {
			continue
		}
		start, tag := openingTail(sc.out)
		if tag < 0 {
			continue
		}
		sc.blank = start > 0 && isBlank(sc.out[start-1])
		sc.out = sc.out[:start]
		from := max(0, start-maxName-1)
		sc.lt = -1
		if k := bytes.LastIndexByte(sc.out[from:], '<'); k >= 0 {
			sc.lt = from + k
		}
		return sc.enter(s, i, c, tag)
	}
	return i
}

// enter opens a block of tag whose name was ended by c at s[i-1], and
// returns where its content starts: after the opening tag's attributes, or
// at the end of s when no '>' ends them.
func (sc *scrubber) enter(s string, i int, c byte, tag int) int {
	sc.open = append(sc.open, uint8(tag))
	sc.opened[tag]++
	if c == '>' {
		return i
	}
	if j := strings.IndexByte(s[i:], '>'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// close ends the innermost open block of tag and every block opened inside
// it; a closing tag of a tag not open is text inside the block. It reports
// whether that ended the outermost block.
func (sc *scrubber) close(tag int) bool {
	if sc.opened[tag] == 0 {
		return false
	}
	for {
		k := len(sc.open) - 1
		t := sc.open[k]
		sc.open = sc.open[:k]
		sc.opened[t]--
		if int(t) == tag {
			return k == 0
		}
	}
}

// Scrub removes every private and injected block from s and trims the
// surrounding white space. It is the one privacy filter of baton: every
// rendered message and every persisted piece of user text passes through it.
// Blocks nest: a block ends at the closing tag of its own opening tag, not
// at the first closing tag of its name. An opening tag that no closing tag
// ends removes everything after it. A block that stood between two blanks
// leaves one of them: "a <private>x</private> b" reads "a b", never with a
// double space the person did not type. Every other byte of s is kept as it
// was, and a closing tag outside any block is kept as text. A result that is
// empty means the text held nothing that may be kept.
func Scrub(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return strings.TrimSpace(s)
	}
	sc := newScrubber(len(s))
	sc.scrub(s)
	return sc.kept()
}

// kept is the text the scan kept, trimmed, without a bare tag name at its
// end ("… <private"): nothing ends that name yet, but the white space or
// text that a reader or a store puts after the kept text would make it an
// opening tag, so it goes (the filter fails closed). Removing one may leave
// another at the end ("<private<private"), which goes too.
func (sc *scrubber) kept() string {
	s := strings.TrimSpace(string(sc.out))
	for cut := true; cut; {
		cut = false
		for _, name := range scrubbedTags {
			if at := len(s) - len(name) - 1; at >= 0 && s[at] == '<' && hasName(s[at+1:], name) {
				s, cut = strings.TrimSpace(s[:at]), true
				break
			}
		}
	}
	return s
}

// ScrubPart scrubs s, one part of a text that a reader keeps as parts
// joined by line breaks (one model message that a harness writes as
// several transcript lines, one content block each), so that no part keeps
// anything between an opening tag and its closing tag, whichever parts they
// fall in. open is what the parts before s left open, as ScrubPart returned
// it ("" for a first part); the result's open is what s leaves open for the
// next part: the opening tags of the blocks still unclosed, outermost first
// ("<private>"), and no text. The line break that will follow s ends a tag
// name at s's end, as it would in the joined text.
func ScrubPart(open, s string) (kept, stillOpen string) {
	if open == "" && strings.IndexByte(s, '<') < 0 {
		return strings.TrimSpace(s), ""
	}
	sc := newScrubber(len(open) + len(s) + 1)
	sc.scrub(open + s + "\n")
	var b strings.Builder
	for _, tag := range sc.open {
		b.WriteString("<" + scrubbedTags[tag] + ">")
	}
	return sc.kept(), b.String()
}

// Residue returns a scrubbed tag of which s still holds an opening tag (as
// every complete element does), or "" when it holds none. A closing tag
// alone hides nothing and is not residue. Scrub's output always answers
// "": every path that stores or renders text checks that invariant with it
// (the fuzz targets of this package and of the bottle readers).
func Residue(s string) string {
	for i := strings.IndexByte(s, '<'); i >= 0; {
		if tag := openingAt(s[i:]); tag >= 0 {
			return scrubbedTags[tag]
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}
