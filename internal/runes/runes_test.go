package runes

import "testing"

func TestCut(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
		cut  bool
	}{
		{"", 0, "", false},
		{"", 3, "", false},
		{"abc", -1, "", true},
		{"abc", 0, "", true},
		{"abc", 2, "ab", true},
		{"abc", 3, "abc", false},
		{"abc", 4, "abc", false},
		{"héllo", 2, "hé", true},
		{"日本語", 2, "日本", true},
		{"日本語", 3, "日本語", false},
		{"a\xffb", 2, "a\xff", true}, // an invalid byte counts as one character, as utf8 does
	}
	for _, tc := range cases {
		got, cut := Cut(tc.s, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Cut(%q, %d) = %q, %v; want %q, %v", tc.s, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}

func TestEllipsize(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"日本語です", 4, "日本語…"},
		{"日本語", 3, "日本語"},
	}
	for _, tc := range cases {
		if got := Ellipsize(tc.s, tc.n); got != tc.want {
			t.Errorf("Ellipsize(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestOneLine: every character that may end a line, or drive a terminal,
// becomes a space; invalid UTF-8 becomes U+FFFD; the rest is kept.
// TestOneLineAndLines: OneLine puts text on one line; Lines keeps its
// newlines (a CRLF is one) and tabs and makes the rest of what Breaks a
// space.
func TestOneLineAndLines(t *testing.T) {
	cases := []struct{ in, oneLine, lines string }{
		{"plain é\n", "plain é ", "plain é\n"},
		{"a\nb\r\nc\rd", "a b  c d", "a\nb\nc d"},
		{"\x1b[2J\x1b]0;t\a\b", " [2J ]0;t  ", " [2J ]0;t  "},
		{"a\u2028b\u2029c", "a b c", "a b c"},
		{"a\x00b\u0085c\td\x7f", "a b c d ", "a b c\td "},
		{"\u009b2J", " 2J", " 2J"},
		{"a\xffb", "a\uFFFDb", "a\uFFFDb"},
	}
	for _, c := range cases {
		if got := OneLine(c.in); got != c.oneLine {
			t.Errorf("OneLine(%q) = %q, want %q", c.in, got, c.oneLine)
		}
		if got := Lines(c.in); got != c.lines {
			t.Errorf("Lines(%q) = %q, want %q", c.in, got, c.lines)
		}
	}
}

// hiddenCases are format characters a hostile text may carry, each with
// its mark: the bidirectional embeddings, overrides and isolates and their
// terminators, the marks, the zero-width characters, the byte order mark,
// the soft hyphen, Arabic's letter mark, the invisible operators, a tag
// character (beyond the Basic Multilingual Plane).
var hiddenCases = []struct {
	r    rune
	mark string
}{
	{'\u202A', "<U+202A>"}, {'\u202B', "<U+202B>"}, {'\u202C', "<U+202C>"}, {'\u202D', "<U+202D>"}, {'\u202E', "<U+202E>"},
	{'\u2066', "<U+2066>"}, {'\u2067', "<U+2067>"}, {'\u2068', "<U+2068>"}, {'\u2069', "<U+2069>"},
	{'\u200B', "<U+200B>"}, {'\u200C', "<U+200C>"}, {'\u200D', "<U+200D>"}, {'\u200E', "<U+200E>"}, {'\u200F', "<U+200F>"},
	{'\uFEFF', "<U+FEFF>"}, {'\u00AD', "<U+00AD>"}, {'\u061C', "<U+061C>"}, {'\u2060', "<U+2060>"}, {'\u2064', "<U+2064>"},
	{'\U000E0041', "<U+E0041>"},
}

// TestVisible: every Hidden character becomes its mark, at the start, in
// the middle and at the end of a text, beside invalid UTF-8 (U+FFFD) and
// beside another; the line and paragraph separators are not Hidden (they
// are Breaks, which OneLine and Lines make spaces); visible text, a
// replacement character it holds, and non-Latin scripts are kept.
func TestVisible(t *testing.T) {
	for _, c := range hiddenCases {
		h := string(c.r)
		if !Hidden(c.r) || Mark(c.r) != c.mark {
			t.Errorf("%U: Hidden %v, Mark %q; want true, %q", c.r, Hidden(c.r), Mark(c.r), c.mark)
		}
		for _, tc := range []struct{ in, want string }{
			{h + "abc", c.mark + "abc"},
			{"ab" + h + "c", "ab" + c.mark + "c"},
			{"abc" + h, "abc" + c.mark},
			{h, c.mark},
			{h + h, c.mark + c.mark},
			{"\xff" + h + "\xfe", "\uFFFD" + c.mark + "\uFFFD"},
			{h + "\xe2\x80", c.mark + "\uFFFD"}, // a torn U+202E
			{"if x " + h + "{ } \xc3", "if x " + c.mark + "{ } \uFFFD"},
		} {
			if got := Visible(tc.in); got != tc.want {
				t.Errorf("Visible(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if got := Visible(OneLine(tc.in)); got != tc.want {
				t.Errorf("Visible(OneLine(%q)) = %q, want %q", tc.in, got, tc.want)
			}
		}
	}
	for _, keep := range []string{"", "plain", "日本語 é ü", "a\uFFFDb", "emoji 👍", "a\u2028b\u2029c", "tab\tand\nline"} {
		if got := Visible(keep); got != keep {
			t.Errorf("Visible(%q) = %q, want it kept", keep, got)
		}
	}
	if Hidden('\u2028') || Hidden('\u2029') || Hidden('a') || Hidden('\n') || Hidden('\x1b') {
		t.Error("a separator, a letter or a control character is Hidden")
	}
}
