package bottle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileTranscriptIncremental: whatever happens to a transcript
// between renders (a last line completed later, CRLF, NUL and invalid
// UTF-8 lines, deep nesting, a line over maxLine, truncation, a file
// renamed over it, a symbolic link swapped in), the bottle the incremental
// renders leave is the one a fresh render of the final transcript writes,
// and no render fails.
func TestHostileTranscriptIncremental(t *testing.T) {
	turn := func(min int, p, a string) string {
		var l transcriptLines
		l.min = min
		return l.user(p).assistant("id-"+p, a).String()
	}
	deep := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000) + "\n"
	huge := `{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", maxLine+10) + `"}}` + "\n"
	t1, t2, t3 := turn(0, "p-one", "a-one"), turn(4, "p-two", "a-two"), turn(8, "p-three", "a-three")
	crlf := strings.ReplaceAll(t2, "\n", "\r\n")
	type step func(t *testing.T, path string)
	app := func(s string) step { return func(t *testing.T, p string) { appendFile(t, p, s) } }
	replace := func(s string) step {
		return func(t *testing.T, p string) {
			tmp := p + ".tmp"
			if err := os.WriteFile(tmp, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	trunc := func(s string) step {
		return func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	symlink := func(s string) step {
		return func(t *testing.T, p string) {
			other := filepath.Join(t.TempDir(), "other.jsonl")
			if err := os.WriteFile(other, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, p); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
		}
	}
	half := len(t2) / 2
	t2u := turn(4, "p-two", "a-two é")
	mid := strings.Index(t2u, "é") + 1 // between the two bytes of é
	cases := []struct {
		name  string
		steps []step
		final string
		holds []string // what the bottle must show
	}{
		{"partial last line completed", []step{app(t1), app(t2[:half]), app(t2[half:]), app(t3)}, t1 + t2 + t3, []string{"p-one", "a-two", "p-three"}},
		{"partial line ending mid-utf8", []step{app(t1), app(t2u[:mid]), app(t2u[mid:])}, t1 + t2u, []string{"p-one", "a-two é"}},
		{"crlf", []step{app(t1), app(crlf), app(t3)}, t1 + crlf + t3, []string{"p-one", "p-two", "a-two", "a-three"}},
		{"nul and invalid utf8", []step{app(t1), app("\x00\x00\x00\n"), app("\xff\xfe{\n"), app(t2)}, t1 + "\x00\x00\x00\n\xff\xfe{\n" + t2, []string{"p-one", "a-two"}},
		{"deep nesting", []step{app(t1), app(deep), app(t2)}, t1 + deep + t2, []string{"p-one", "a-two"}},
		{"over maxLine", []step{app(t1), app(huge), app(t2)}, t1 + huge + t2, []string{"p-one", "a-two"}},
		{"truncated", []step{app(t1 + t2), trunc(t1), app(t3)}, t1 + t3, []string{"p-one", "a-three"}},
		{"truncated same length other bytes", []step{app(t1 + t2), trunc(t1 + strings.Replace(t2, "p-two", "p-TWO", 1))}, t1 + strings.Replace(t2, "p-two", "p-TWO", 1), []string{"p-TWO"}},
		{"renamed over", []step{app(t1 + t2), replace(t3)}, t3, []string{"a-three"}},
		{"renamed over, longer, same head", []step{app(t1), replace(t1 + t2 + t3)}, t1 + t2 + t3, []string{"p-one", "a-two", "a-three"}},
		{"symlink swapped in", []step{app(t1 + t2), symlink(t1 + t3)}, t1 + t3, []string{"p-one", "a-three"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := writeTranscript(t, "")
			b := &Bottler{Home: t.TempDir(), Agent: "claude-code", Clock: newFakeClock()}
			for _, s := range tc.steps {
				s(t, path)
				if _, err := b.Render(ctx, session, path); err != nil {
					t.Fatal(err)
				}
			}
			got, err := b.Read(session)
			if err != nil {
				t.Fatal(err)
			}
			fp := writeTranscript(t, tc.final)
			f := &Bottler{Home: t.TempDir(), Agent: "claude-code", Clock: newFakeClock()}
			if _, err := f.Render(ctx, session, fp); err != nil {
				t.Fatal(err)
			}
			want, err := f.Read(session)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.holds {
				if !strings.Contains(string(got), s) {
					t.Errorf("the bottle lacks %q:\n%s", s, got)
				}
			}
			for _, s := range []string{"p-two", "a-two"} {
				if !strings.Contains(tc.final, s) && strings.Contains(string(got), s) {
					t.Errorf("the bottle holds %q, gone from the transcript:\n%s", s, got)
				}
			}
			g := strings.ReplaceAll(string(got), path, "T")
			w := strings.ReplaceAll(string(want), fp, "T")
			if g != w {
				t.Errorf("incremental bottle differs from fresh:\n--- got\n%s\n--- want\n%s", g, w)
			}
		})
	}
}
