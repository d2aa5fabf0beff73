// Package runes bounds text by its length in characters (runes), the unit
// every baton limit is declared in, never cutting inside a character, and
// puts text that came from outside on one line (OneLine).
package runes

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cut returns s cut to its first n characters, and whether anything was
// dropped. n below zero is zero.
func Cut(s string, n int) (string, bool) {
	if n <= 0 {
		return "", s != ""
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k], true
		}
		i++
	}
	return s, false
}

// Ellipsize returns s when it is at most n characters, else its first n-1
// characters and "…", n in all.
func Ellipsize(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	head, _ := Cut(s, n-1)
	return head + "…"
}

// OneLine renders a value that came from outside on one line: invalid UTF-8
// becomes U+FFFD, and every character Breaks (newline, carriage return,
// NEL, U+2028, U+2029, NUL, ESC) becomes a space. Placed after a prefix on a
// line baton writes, the value then cannot start a line of its own, so it
// cannot fake a heading; nor, printed on a terminal, move the cursor or set
// a window's title.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if Breaks(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, string(unicode.ReplacementChar)))
}

// Lines renders text that came from outside as lines and nothing else:
// invalid UTF-8 becomes U+FFFD, a CRLF becomes a newline, and every other
// character Breaks but the newline and the tab becomes a space, so its
// lines are exactly its newlines and, printed on a terminal, it moves no
// cursor, sets no title and links nothing.
func Lines(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, string(unicode.ReplacementChar)), "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && Breaks(r) {
			return ' '
		}
		return r
	}, s)
}

// Breaks reports whether r is a control character or a line or paragraph
// separator: a character that may end a line for some reader.
func Breaks(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
