// Package runes bounds text by its length in characters (runes), the unit
// every baton limit is declared in, never cutting inside a character, puts
// text that came from outside on one line (OneLine) or on its own lines
// (Lines), and shows a person the characters that would make it read other
// than it is (Visible).
package runes

import (
	"fmt"
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

// Hidden reports whether r is a format character (Unicode category Cf):
// the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
// U+2066–U+2069), the zero-width space, joiners and marks (U+200B–U+200F),
// the byte order mark (U+FEFF), the soft hyphen, the tag characters. Each
// shows nothing itself, yet may reorder the text around it or hide text,
// so that a line displayed with it reads other than it is (Trojan Source).
// Line and paragraph separators are Breaks, not Hidden.
func Hidden(r rune) bool { return unicode.Is(unicode.Cf, r) }

// Mark is how Visible shows the Hidden character r: its code point, as
// "<U+202E>".
func Mark(r rune) string { return fmt.Sprintf("<U+%04X>", r) }

// Visible renders text for a person to read: invalid UTF-8 becomes U+FFFD
// (one for each run of invalid bytes, as in OneLine) and each Hidden
// character its Mark, so that what the person reads is
// what the text holds. It is for displays (a terminal, a page), after
// OneLine or Lines: the text itself, as stored, exported or given to a
// model, keeps its characters.
func Visible(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, Hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, string(unicode.ReplacementChar)) {
		if Hidden(r) {
			b.WriteString(Mark(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
