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

// Hidden reports whether r is a character that shows nothing, or only a
// blank, where a person reads it, yet is not a space: a display would let
// it hide or spoof text. The set is Unicode's default-ignorable code points
// (the characters a renderer "should render invisibly" by default), taken
// whole, and the one blank pattern among the symbols:
//
//   - the format characters (category Cf): the bidirectional embeddings,
//     overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder
//     the text around them (Trojan Source), the zero-width space, joiners
//     and marks (U+200B–U+200F), the word joiner and invisible operators
//     (U+2060–U+2064), the byte order mark (U+FEFF), the Mongolian vowel
//     separator (U+180E), the soft hyphen, the tag characters;
//   - the variation selectors (U+180B–U+180D, U+180F, U+FE00–U+FE0F,
//     U+E0100–U+E01EF): 259 invisible characters, enough to carry any
//     byte after a visible one, so a line can hold a message its reader
//     never sees;
//   - the other default-ignorable code points: the combining grapheme
//     joiner U+034F, the Hangul fillers U+115F, U+1160, U+3164 and U+FFA0
//     (letters that draw as a blank, used to make a name or a line look
//     empty), the Khmer inherent vowels U+17B4–U+17B5, U+2065, and the
//     code points Unicode reserves as ignorable (U+FFF0–U+FFF8, and
//     U+E0000–U+E0FFF beside the tags and selectors, U+E0000 among them);
//   - U+2800 BRAILLE PATTERN BLANK, a symbol drawn as a blank cell, the
//     common stand-in for an empty name where a space is refused.
//
// The spaces (category Zs: the no-break space, U+3000) are not Hidden: they
// show as what they are, a space. Nor is a letter of any script, a
// combining mark (but the selectors and U+034F), private use or an
// unassigned code point outside the reserved ranges. The control
// characters and the line and paragraph separators are Breaks, not Hidden.
func Hidden(r rune) bool {
	return r == '\u2800' || unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// VisibleInLine renders s as Visible does, its newlines and tabs marked
// too: a value (a path, a name) shown within a line baton writes, which
// then can neither start a line of its own nor end a field at a tab, and
// shows every character it holds.
func VisibleInLine(s string) string {
	return inLine.Replace(Visible(s))
}

var inLine = strings.NewReplacer("\n", Mark('\n'), "\t", Mark('\t'))

// Marked reports whether Visible shows r as its Mark: r is Hidden, or it
// Breaks and is neither the newline nor the tab, the two a display of
// lines keeps (a text on one line has had its newlines made spaces by
// OneLine before it is shown).
func Marked(r rune) bool {
	return Hidden(r) || r != '\n' && r != '\t' && Breaks(r)
}

// Mark is how Visible shows the Marked character r: its code point, as
// "<U+202E>".
func Mark(r rune) string { return fmt.Sprintf("<U+%04X>", r) }

// Visible renders text for a person to read: invalid UTF-8 becomes U+FFFD
// (one for each run of invalid bytes, as in OneLine) and each Marked
// character its Mark (an escape, a carriage return, a C1 control, a line
// separator, a right-to-left override, a Hangul filler), so that what the
// person reads is what the text holds and a terminal is driven by none of
// it. It is for displays (a terminal, a page), after OneLine or Lines, or
// alone where a text's controls are to be seen rather than made spaces: the
// text itself, as stored, exported or given to a model, keeps its
// characters. Emoji sequences are text a person reads, yet their joiners
// (U+200D) and presentation selectors (U+FE0F) are Hidden, so a family or
// a red heart shows as its parts and marks ("👨<U+200D>👩"): the price of
// showing every character that could carry a message nobody sees.
func Visible(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, Marked) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, string(unicode.ReplacementChar)) {
		if Marked(r) {
			b.WriteString(Mark(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
