package inject

import (
	"strings"
	"unicode"
)

// OneLine renders a value that came from outside on one line: invalid UTF-8
// becomes U+FFFD, and every control character and every Unicode line or
// paragraph separator (newline, carriage return, NEL, U+2028, U+2029, NUL)
// becomes a space. Placed after a prefix on a line baton writes, the value
// then cannot start a line of its own, so it cannot fake a heading; nor,
// printed on a terminal, move the cursor or set a window's title (the
// HTTP client reads a server's error text through it).
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if breaks(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, string(unicode.ReplacementChar)))
}

// clean makes a block rendered elsewhere safe to pass on: invalid UTF-8
// becomes U+FFFD, a CRLF becomes a newline, and every control character
// other than newline and tab, and every Unicode line or paragraph
// separator, becomes a space, so the block's lines are exactly its
// newlines. Trailing blank lines are dropped and the block ends with one
// newline; a blank block is "".
func clean(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, string(unicode.ReplacementChar)), "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && breaks(r) {
			return ' '
		}
		return r
	}, s)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return strings.TrimRight(s, " \t\n") + "\n"
}

// breaks reports whether r is a control character or a line or paragraph
// separator: a character that may end a line for some reader.
func breaks(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
