package hook

import (
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(strings.Repeat("x", i) + "\n")
		}
		return b.String()
	}
	long := lines(20)
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"new file", "", "a\nb\n", "--- A\n+++ B\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"removed file", "a\n", "", "--- A\n+++ B\n@@ -1,1 +0,0 @@\n-a\n"},
		{"a line changed, with context", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n",
			"--- A\n+++ B\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"no final newline", "a\n}", "a\n},\nb", "--- A\n+++ B\n@@ -1,2 +1,3 @@\n a\n-}\n\\ No newline at end of file\n+},\n+b\n\\ No newline at end of file\n"},
		{"two hunks far apart", long, strings.Replace(strings.Replace(long, "x\n", "y\n", 1), strings.Repeat("x", 20)+"\n", "z\n", 1),
			"--- A\n+++ B\n@@ -1,4 +1,4 @@\n-x\n+y\n xx\n xxx\n xxxx\n@@ -17,4 +17,4 @@\n " + strings.Repeat("x", 17) + "\n " + strings.Repeat("x", 18) + "\n " + strings.Repeat("x", 19) + "\n-" + strings.Repeat("x", 20) + "\n+z\n"},
		{"controls and invisible characters shown", "a\x1b]0;t\x07\n\u202eb\r\x00\n", "a\x1b]0;t\x07\n\u202eb\u009b2J\u3164\n",
			"--- A\n+++ B\n@@ -1,2 +1,2 @@\n a<U+001B>]0;t<U+0007>\n-<U+202E>b<U+000D><U+0000>\n+<U+202E>b<U+009B>2J<U+3164>\n"},
		{"a CRLF ending kept, a carriage return elsewhere shown", "a\r\nb\r\n", "a\r\nb\rc\r\nd\r",
			"--- A\n+++ B\n@@ -1,2 +1,3 @@\n a\r\n-b\r\n+b<U+000D>c\r\n+d<U+000D>\n\\ No newline at end of file\n"},
		{"a tab kept, invalid UTF-8 replaced", "\tx\n", "\tx\xff\n", "--- A\n+++ B\n@@ -1,1 +1,1 @@\n-\tx\n+\tx\uFFFD\n"},
	}
	for _, tt := range tests {
		if got := unifiedDiff("A", "B", tt.a, tt.b); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// TestUnifiedDiffNames: a file's name heads the diff as text: its control
// characters, its newline and tab and its invisible characters are shown as
// code points, so it cannot start a line of its own or drive the terminal.
func TestUnifiedDiffNames(t *testing.T) {
	for name, want := range map[string]string{
		"/home/dev/.claude/settings.json": "/home/dev/.claude/settings.json",
		"/home/d\x1b[2Jev/\u202ex\ny\tz":  "/home/d<U+001B>[2Jev/<U+202E>x<U+000A>y<U+0009>z",
		"/home/\u4e16\u754c/\u3164\r":     "/home/\u4e16\u754c/<U+3164><U+000D>",
	} {
		got := unifiedDiff(name, name, "", "a\n")
		if w := "--- " + want + "\n+++ " + want + "\n@@ -0,0 +1,1 @@\n+a\n"; got != w {
			t.Errorf("%q: diff\n%q\nwant\n%q", name, got, w)
		}
	}
}
