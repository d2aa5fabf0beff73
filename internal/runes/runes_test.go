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
// character (beyond the Basic Multilingual Plane); the Hangul fillers, the
// blank Braille pattern, the Mongolian vowel separator, the combining
// grapheme joiner, variation selectors, the first reserved ignorable.
var hiddenCases = []struct {
	r    rune
	mark string
}{
	{'\u202A', "<U+202A>"}, {'\u202B', "<U+202B>"}, {'\u202C', "<U+202C>"}, {'\u202D', "<U+202D>"}, {'\u202E', "<U+202E>"},
	{'\u2066', "<U+2066>"}, {'\u2067', "<U+2067>"}, {'\u2068', "<U+2068>"}, {'\u2069', "<U+2069>"},
	{'\u200B', "<U+200B>"}, {'\u200C', "<U+200C>"}, {'\u200D', "<U+200D>"}, {'\u200E', "<U+200E>"}, {'\u200F', "<U+200F>"},
	{'\uFEFF', "<U+FEFF>"}, {'\u00AD', "<U+00AD>"}, {'\u061C', "<U+061C>"}, {'\u2060', "<U+2060>"}, {'\u2064', "<U+2064>"},
	{'\U000E0041', "<U+E0041>"},
	{'\u3164', "<U+3164>"}, {'\u115F', "<U+115F>"}, {'\u1160', "<U+1160>"}, {'\uFFA0', "<U+FFA0>"}, {'\u2800', "<U+2800>"},
	{'\u180E', "<U+180E>"}, {'\u034F', "<U+034F>"}, {'\uFE0F', "<U+FE0F>"}, {'\U000E0100', "<U+E0100>"}, {'\U000E0000', "<U+E0000>"},
}

// TestVisible: every Hidden character becomes its mark, at the start, in
// the middle and at the end of a text, beside invalid UTF-8 (U+FFFD) and
// beside another; the line and paragraph separators and the controls are
// not Hidden (they are Breaks, which OneLine and Lines make spaces);
// visible text, a replacement character it holds, the newline and the tab,
// and non-Latin scripts are kept.
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
	for _, keep := range []string{"", "plain", "日本語 é ü", "a\uFFFDb", "emoji 👍", "tab\tand\nline",
		"한국어 العربية עברית हिन्दी ไทย ελληνικά кириллица", "no\u00a0break\u3000ideographic space"} {
		if got := Visible(keep); got != keep {
			t.Errorf("Visible(%q) = %q, want it kept", keep, got)
		}
	}
	if Hidden('\u2028') || Hidden('\u2029') || Hidden('a') || Hidden('\n') || Hidden('\x1b') {
		t.Error("a separator, a letter or a control character is Hidden")
	}
}

// TestMarkedBoundaries: each range Visible marks, by the code point just
// outside it, its first and its last, and the next one outside: the
// controls but the tab and the newline, the separators, the format
// characters, the variation selectors, the other default-ignorable code
// points (the Hangul fillers among them) and the blank Braille pattern;
// the spaces, letters and marks beside them are kept.
func TestMarkedBoundaries(t *testing.T) {
	cases := []struct {
		r      rune
		marked bool
	}{
		{0x0000, true}, {0x0008, true}, {'\t', false}, {'\n', false}, {0x000B, true}, {'\r', true}, {0x001B, true}, {0x001F, true}, {' ', false},
		{'~', false}, {0x007F, true}, {0x0080, true}, {0x0085, true}, {0x009B, true}, {0x009F, true}, {0x00A0, false},
		{0x00AC, false}, {0x00AD, true}, {0x00AE, false},
		{0x034E, false}, {0x034F, true}, {0x0350, false},
		{0x115E, false}, {0x115F, true}, {0x1160, true}, {0x1161, false},
		{0x17B3, false}, {0x17B4, true}, {0x17B5, true}, {0x17B6, false},
		{0x180A, false}, {0x180B, true}, {0x180E, true}, {0x180F, true}, {0x1810, false},
		{0x200A, false}, {0x200B, true}, {0x200F, true}, {0x2010, false},
		{0x2027, false}, {0x2028, true}, {0x2029, true}, {0x202A, true}, {0x202E, true}, {0x202F, false},
		{0x205F, false}, {0x2060, true}, {0x2065, true}, {0x206F, true}, {0x2070, false},
		{0x27FF, false}, {0x2800, true}, {0x2801, false},
		{0x3163, false}, {0x3164, true}, {0x3165, false},
		{0xFDFD, false}, {0xFE00, true}, {0xFE0F, true}, {0xFE10, false},
		{0xFEFC, false}, {0xFEFF, true}, {0xFF01, false},
		{0xFF9F, false}, {0xFFA0, true}, {0xFFA1, false},
		{0xFFEE, false}, {0xFFF0, true}, {0xFFF8, true}, {0xFFF9, true}, {0xFFFB, true}, {0xFFFC, false}, {0xFFFD, false},
		{0xDFFFF, false}, {0xE0000, true}, {0xE0001, true}, {0xE007F, true}, {0xE00FF, true},
		{0xE0100, true}, {0xE01EF, true}, {0xE01F0, true}, {0xE0FFF, true}, {0xE1000, false},
	}
	for _, c := range cases {
		in := "a" + string(c.r) + "b"
		want := in
		if c.marked {
			want = "a" + Mark(c.r) + "b"
		}
		if got := Visible(in); Marked(c.r) != c.marked || got != want {
			t.Errorf("%U: Marked %v, Visible %q; want %v, %q", c.r, Marked(c.r), got, c.marked, want)
		}
	}
}

// TestVisibleEmojiAndInLine: the joiners and selectors of an emoji
// sequence are Hidden, so a person sees its parts, and an emoji without
// them is kept; VisibleInLine marks newlines and tabs as well as all
// Visible marks, and keeps the rest.
func TestVisibleEmojiAndInLine(t *testing.T) {
	for _, tc := range []struct {
		f        func(string) string
		in, want string
	}{
		{Visible, "👍", "👍"},
		{Visible, "👨\u200d👩\u200d👧", "👨<U+200D>👩<U+200D>👧"},
		{Visible, "❤\ufe0f", "❤<U+FE0F>"},
		{Visible, "🏳\ufe0f\u200d🌈", "🏳<U+FE0F><U+200D>🌈"},
		{VisibleInLine, "/home/dev/.codex", "/home/dev/.codex"},
		{VisibleInLine, "/home/世界/é", "/home/世界/é"},
		{VisibleInLine, "a\nb\tc", "a<U+000A>b<U+0009>c"},
		{VisibleInLine, "\x1b]0;t\x07\r\u202e\u3164", "<U+001B>]0;t<U+0007><U+000D><U+202E><U+3164>"},
		{VisibleInLine, "\xff", "\uFFFD"},
	} {
		if got := tc.f(tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
