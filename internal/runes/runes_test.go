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
