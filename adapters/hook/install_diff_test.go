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
	}
	for _, tt := range tests {
		if got := unifiedDiff("A", "B", tt.a, tt.b); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
