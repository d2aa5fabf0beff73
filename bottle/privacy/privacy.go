package privacy

import (
	"regexp"
	"strings"
	"sync"
)

// ContextTag is the tag baton wraps around every block of context it injects
// into a session. Scrub strips it, so text baton injected never reaches a
// bottle or a stored prompt when the harness echoes it back.
const ContextTag = "baton-context"

// scrubbedTags are the tags whose whole content Scrub removes: the user's
// private blocks, harness-injected reminders and instructions, persisted tool
// output, and baton's own injected context.
var scrubbedTags = []string{
	"private",
	"system-reminder",
	"system_instruction",
	"system-instruction",
	"persisted-output",
	ContextTag,
}

// tagPatterns are a scrubbed tag's two patterns, at the same index as the
// tag in scrubbedTags.
//
// scrub matches one complete element of the tag. The match is non-greedy so
// two private blocks do not swallow the text between them, and the opening
// tag may carry attributes.
//
// open matches the start of an opening tag: the name followed by '>' or by
// white space (attributes, possibly never finished). Whatever such a tag
// opens and no closing tag ends runs to the end of the text, so Scrub
// removes it all: the filter fails closed.
//
// A tag's patterns are compiled the first time a text holds the tag: a
// process that filters none (most hook processes) compiles none, one that
// meets a private block compiles its two.
type tagPatterns struct{ scrub, open *regexp.Regexp }

var patterns = func() []func() tagPatterns {
	out := make([]func() tagPatterns, len(scrubbedTags))
	for i, tag := range scrubbedTags {
		out[i] = sync.OnceValue(func() tagPatterns {
			name := tagName(tag)
			return tagPatterns{
				scrub: regexp.MustCompile(`(?s)<` + name + `(?:\s[^>]*)?>.*?</` + name + `\s*>`),
				open:  regexp.MustCompile(`<` + name + `(?:\s|>)`),
			}
		})
	}
	return out
}()

// tagName is the pattern of a tag's name. Tag names match ASCII
// case-insensitively and nothing else: Go's (?i) would also fold 'ſ' to 's',
// which the cheap strings.ToLower pre-check in Scrub cannot see, and the
// filter and Residue must agree on what a tag is.
func tagName(tag string) string {
	var name strings.Builder
	for _, c := range []byte(tag) { // the tags are lower-case ASCII
		if 'a' <= c && c <= 'z' {
			name.WriteString("[" + string(c) + string(c-'a'+'A') + "]")
		} else {
			name.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return name.String()
}

// Scrub removes every private and injected block from s and trims the
// surrounding white space. It is the one privacy filter of baton: every
// rendered message and every persisted piece of user text passes through it.
// An opening tag that no closing tag ends removes everything after it. A
// result that is empty means the text held nothing that may be kept.
func Scrub(s string) string {
	if !strings.Contains(s, "<") {
		return strings.TrimSpace(s)
	}
	// Repeat until nothing matches: removing one element can join the text
	// around it into a new one ("<pri<private>x</private>vate>y</private>"),
	// and that must not survive. Every pass shortens s, so this ends.
	lower := strings.ToLower(s)
	for changed := true; changed; {
		changed = false
		for i, tag := range scrubbedTags {
			if !strings.Contains(lower, "<"+tag) {
				continue
			}
			if out := remove(s, patterns[i]().scrub.FindAllStringIndex(s, -1)); len(out) != len(s) {
				s, changed = out, true
				lower = strings.ToLower(s)
			}
		}
	}
	// What is left of an opening tag is unclosed: cut at the earliest.
	if i := openTag(s, lower); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// remove cuts the matched elements out of s. An element that stood between
// two blanks leaves one of them, not both: "a <private>x</private> b" reads
// "a b", never with a double space the person did not type. Every other byte
// of s is kept as it was.
func remove(s string, locs [][]int) string {
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, loc := range locs {
		start, end := loc[0], loc[1]
		b.WriteString(s[last:start])
		if start > 0 && end < len(s) && isBlank(s[start-1]) && isBlank(s[end]) {
			end++ // both sides blank: keep the one before
		}
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// openTag returns the index of the earliest opening tag of a scrubbed tag in
// s, or -1; lower is strings.ToLower(s).
func openTag(s, lower string) int {
	first := -1
	for i, tag := range scrubbedTags {
		if !strings.Contains(lower, "<"+tag) {
			continue
		}
		if loc := patterns[i]().open.FindStringIndex(s); loc != nil && (first < 0 || loc[0] < first) {
			first = loc[0]
		}
	}
	return first
}

// Residue returns a scrubbed tag of which s still holds a complete element
// or an opening tag, or "" when it holds neither. Scrub's output always
// answers "": every path that stores or renders text checks that invariant
// with it (the fuzz targets of this package and of the bottle readers).
func Residue(s string) string {
	for i := range scrubbedTags {
		if p := patterns[i](); p.scrub.MatchString(s) || p.open.MatchString(s) {
			return scrubbedTags[i]
		}
	}
	return ""
}
