package hook

import (
	"fmt"
	"slices"
	"strings"

	"github.com/batonhq/baton/internal/runes"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// diffOp is one line of an edit script: ' ' kept, '-' removed, '+' added.
type diffOp struct {
	op   byte
	line string // with its line ending, if it has one
}

// unifiedDiff renders the change from a to b as a unified diff, headed
// "--- from" and "+++ to"; empty when a and b are equal. It is for a
// person's terminal, and a harness's file is anyone's text: each line is
// shown as shownLine shows it, each name as runes.VisibleInLine shows it (a
// newline in a path would start a line of its own, a tab ends a unified
// diff header's name).
func unifiedDiff(from, to, a, b string) string {
	ops := diffLines(textLines(a), textLines(b))
	var out strings.Builder
	for i := 0; i < len(ops); {
		// A hunk runs from the first change found to the last change
		// followed by more than 2×diffContext kept lines.
		first := i
		for first < len(ops) && ops[first].op == ' ' {
			first++
		}
		if first == len(ops) {
			break
		}
		last := first
		for j, kept := first, 0; j < len(ops) && kept <= 2*diffContext; j++ {
			if ops[j].op == ' ' {
				kept++
			} else {
				last, kept = j, 0
			}
		}
		start, end := max(first-diffContext, 0), min(last+diffContext+1, len(ops))
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- %s\n+++ %s\n", runes.VisibleInLine(from), runes.VisibleInLine(to))
		}
		writeHunk(&out, ops, start, end)
		i = end
	}
	return out.String()
}

// writeHunk writes ops[start:end] with its @@ header; line numbers count
// the lines of a and b before start.
func writeHunk(out *strings.Builder, ops []diffOp, start, end int) {
	aLine, bLine := 1, 1
	for _, o := range ops[:start] {
		if o.op != '+' {
			aLine++
		}
		if o.op != '-' {
			bLine++
		}
	}
	var aN, bN int
	for _, o := range ops[start:end] {
		if o.op != '+' {
			aN++
		}
		if o.op != '-' {
			bN++
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aLine, aN), hunkRange(bLine, bN))
	for _, o := range ops[start:end] {
		out.WriteByte(o.op)
		out.WriteString(shownLine(o.line))
		if !strings.HasSuffix(o.line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// shownLine is a line of a file as the diff shows it: its text as
// runes.Visible shows it (each control character but the tab, each format
// character, each other invisible or blank character as its code point,
// invalid UTF-8 as U+FFFD), so that an escape sequence, a carriage return
// that would overwrite the line's start, a C1 control or a right-to-left
// override in a settings file reaches the terminal as text, and its line
// ending as it is: a newline, or a carriage return and a newline (the
// file's own, which install keeps, and which on a terminal only ends the
// line; marked, it would mark every line of a Windows file).
func shownLine(line string) string {
	end := ""
	for _, e := range []string{"\r\n", "\n"} {
		if strings.HasSuffix(line, e) {
			end = e
			break
		}
	}
	return runes.Visible(strings.TrimSuffix(line, end)) + end
}

// hunkRange is "line,count"; an empty range names the line before it.
func hunkRange(line, n int) string {
	if n == 0 {
		line--
	}
	return fmt.Sprintf("%d,%d", line, n)
}

// textLines splits s after each "\n"; a last line without one is kept.
func textLines(s string) []string {
	return slices.Collect(strings.Lines(s))
}

// diffLines is a shortest edit script from a to b (Myers' O(ND) algorithm:
// the files install edits are small and the changes few).
func diffLines(a, b []string) []diffOp {
	n, m := len(a), len(b)
	off := n + m + 1
	v := make([]int, 2*off+1)
	var trace [][]int
	var d int
search:
	for d = 0; d <= n+m; d++ {
		trace = append(trace, slices.Clone(v))
		for k := -d; k <= d; k += 2 {
			x := v[off+k-1] + 1
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = x
			if x >= n && y >= m {
				break search
			}
		}
	}
	var ops []diffOp
	x, y := n, m
	for ; d > 0; d-- {
		v := trace[d]
		k := x - y
		prev := k - 1
		if k == -d || k != d && v[off+k-1] < v[off+k+1] {
			prev = k + 1
		}
		px := v[off+prev]
		py := px - prev
		for x > px && y > py {
			x, y = x-1, y-1
			ops = append(ops, diffOp{' ', a[x]})
		}
		if x == px {
			y--
			ops = append(ops, diffOp{'+', b[y]})
		} else {
			x--
			ops = append(ops, diffOp{'-', a[x]})
		}
	}
	for x > 0 {
		x, y = x-1, y-1
		ops = append(ops, diffOp{' ', a[x]})
	}
	slices.Reverse(ops)
	return ops
}
