package privacy

import (
	"regexp"
	"strings"
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

// scrubPatterns match one complete element of a scrubbed tag. The match is
// non-greedy so two private blocks do not swallow the text between them, the
// opening tag may carry attributes, and an opening tag with no closing tag
// does not match at all: an unclosed tag is left alone rather than eating the
// rest of the message.
var scrubPatterns = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(scrubbedTags))
	for i, tag := range scrubbedTags {
		q := regexp.QuoteMeta(tag)
		out[i] = regexp.MustCompile(`(?is)<` + q + `(?:\s[^>]*)?>.*?</` + q + `\s*>`)
	}
	return out
}()

// Scrub removes every private and injected block from s and trims the
// surrounding white space. It is the one privacy filter of baton: every
// rendered message and every persisted piece of user text passes through it.
// A result that is empty means the text held nothing that may be kept.
func Scrub(s string) string {
	if !strings.Contains(s, "<") {
		return strings.TrimSpace(s)
	}
	// Repeat until nothing matches: removing one element can join the text
	// around it into a new one ("<pri<private>x</private>vate>y</private>"),
	// and that must not survive. Every pass shortens s, so this ends.
	for changed := true; changed; {
		changed = false
		lower := strings.ToLower(s)
		for i, tag := range scrubbedTags {
			if !strings.Contains(lower, "<"+tag) {
				continue
			}
			if out := scrubPatterns[i].ReplaceAllString(s, ""); len(out) != len(s) {
				s, changed = out, true
				lower = strings.ToLower(s)
			}
		}
	}
	return strings.TrimSpace(s)
}

// Residue returns a scrubbed tag of which s still holds a complete element,
// or "" when it holds none. Scrub's output always answers "": every path
// that stores or renders text checks that invariant with it (the fuzz
// targets of this package and of the bottle readers).
func Residue(s string) string {
	for i, re := range scrubPatterns {
		if re.MatchString(s) {
			return scrubbedTags[i]
		}
	}
	return ""
}
