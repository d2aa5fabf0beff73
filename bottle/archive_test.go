package bottle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestArchivedAtReadsWhatArchiveWrites: the time in an archive's name is
// Archive's clock to the second, for the first archive of a second and the
// numbered ones after it; other names are not archives.
func TestArchivedAtReadsWhatArchiveWrites(t *testing.T) {
	clk := newFakeClock()
	b := &Bottler{Home: t.TempDir(), Agent: "codex", Clock: clk}
	ctx := context.Background()
	for range 2 {
		if _, err := b.Seal(ctx, session, writeTranscript(t, midTurn()), 0); err != nil {
			t.Fatal(err)
		}
		dst, err := b.Archive(ctx, session, "")
		if err != nil {
			t.Fatal(err)
		}
		at, ok := ArchivedAt(filepath.Base(dst))
		if want := clk.Now().UTC().Truncate(time.Second); !ok || !at.Equal(want) {
			t.Errorf("ArchivedAt(%s) = %v %v, want %v", filepath.Base(dst), at, ok, want)
		}
	}
	for _, name := range []string{"notes.txt", "20261130T020000Z", "20261130T020000Z-s.md", "yesterday-s.bottle", "-s.bottle"} {
		if at, ok := ArchivedAt(name); ok {
			t.Errorf("ArchivedAt(%q) = %v, want no archive", name, at)
		}
	}
}

// TestArchiveDropsTheCache: after an archive the session's lock file holds
// no render cache, a cache file of an earlier version is gone, and the
// next render lays the bottle out anew.
func TestArchiveDropsTheCache(t *testing.T) {
	b := &Bottler{Home: t.TempDir(), Agent: "codex", Clock: newFakeClock()}
	ctx := context.Background()
	path := writeTranscript(t, midTurn())
	if _, err := b.Render(ctx, session, path); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(b.Dir(), session+".lock")
	if stateAt(t, lock) == nil {
		t.Fatal("no cache after a render")
	}
	legacy := filepath.Join(b.Dir(), session+".state.gob")
	if err := os.WriteFile(legacy, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Archive(ctx, session, ""); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(lock); err != nil || fi.Size() != 0 {
		t.Errorf("lock file after archive: %v, %v; want empty", fi, err)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("earlier version's cache after archive: %v, want gone", err)
	}
	r, err := b.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.Path); err != nil || stateAt(t, lock) == nil {
		t.Errorf("render after archive: %v, cache %v", err, stateAt(t, lock))
	}
}

// TestPruneArchives: an archive is removed when its time is before the
// instant, a microsecond either side of it included, in every agent's
// archive and the agentless one; what Archive did not name is left.
func TestPruneArchives(t *testing.T) {
	stamp := time.Date(2026, 10, 31, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		before time.Time
		pruned bool
	}{
		{"the instant a microsecond after the archive", stamp.Add(time.Microsecond), true},
		{"the instant of the archive", stamp, false},
		{"the instant a microsecond before", stamp.Add(-time.Microsecond), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			name := stamp.Format(ArchiveStampLayout) + "-s1.bottle"
			dirs := []string{
				filepath.Join(home, "bottles", "archive"),
				filepath.Join(home, "bottles", "codex", "archive"),
				filepath.Join(home, "bottles", "claude-code", "archive"),
			}
			for _, d := range dirs {
				for _, p := range []string{filepath.Join(d, name, IndexName), filepath.Join(d, "kept-by-hand", "x")} {
					if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			n, err := PruneArchives(home, tc.before)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if tc.pruned {
				want = len(dirs)
			}
			if n != want {
				t.Errorf("pruned %d, want %d", n, want)
			}
			for _, d := range dirs {
				var left []string
				entries, _ := os.ReadDir(d)
				for _, e := range entries {
					left = append(left, e.Name())
				}
				if slices.Contains(left, name) == tc.pruned || !slices.Contains(left, "kept-by-hand") {
					t.Errorf("%s holds %v", d, left)
				}
			}
		})
	}
	if n, err := PruneArchives(t.TempDir(), time.Now()); n != 0 || err != nil {
		t.Errorf("a home with no bottles: %d, %v", n, err)
	}
}

// TestArchiveRestartsAContinuedTranscript: a harness that keeps the
// session's id across a /clear goes on writing the transcript it had. The
// bottle rendered after the archive holds only what the transcript gained
// since, however its parse cache fares later (dropped by a degraded
// render, a version change or a torn write), through a second clear, and
// while the transcript stays the file the clear saw; the archive keeps
// what came before, including the lines written since the last render
// (every line is in one of the two bottles). A clear before the transcript
// held a line, or one the transcript was replaced after, hides nothing. A
// transcript that shrank or went away by the clear leaves the bottle
// archived as it stands; one cut off mid-line has the line's rest read
// after the clear, in the post-clear bottle.
func TestArchiveRestartsAContinuedTranscript(t *testing.T) {
	pre := (&transcriptLines{}).user("question before the clear").assistant("m1", "answer before the clear").String()
	post := (&transcriptLines{min: 10}).user("question after the clear").assistant("m3", "answer after the clear").String()
	between := (&transcriptLines{min: 5}).user("question between the clears").assistant("m2", "answer between the clears").String()
	torn := (&transcriptLines{min: 20}).user("question torn at the clear").String()
	type env struct {
		b    *Bottler
		path string
	}
	render := func(t *testing.T, e env) {
		t.Helper()
		if _, err := e.b.Render(context.Background(), session, e.path); err != nil {
			t.Fatal(err)
		}
	}
	archive := func(t *testing.T, e env) {
		t.Helper()
		if _, err := e.b.Archive(context.Background(), session, e.path); err != nil {
			t.Fatal(err)
		}
	}
	add := func(s string) func(*testing.T, env) { return func(t *testing.T, e env) { appendFile(t, e.path, s) } }
	dropCache := func(t *testing.T, e env) {
		t.Helper()
		if err := os.Truncate(filepath.Join(e.b.Dir(), session+".lock"), 0); err != nil {
			t.Fatal(err)
		}
	}
	replace := func(s string) func(*testing.T, env) {
		return func(t *testing.T, e env) {
			if err := os.WriteFile(e.path, []byte(s), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	otherLimits := func(_ *testing.T, e env) {
		l := ReadLimitsFor(e.b.Agent)
		l.MaxLines *= 2
		e.b.Limits = l
	}
	remove := func(t *testing.T, e env) {
		if err := os.Remove(e.path); err != nil {
			t.Fatal(err)
		}
	}
	type holds struct{ want, not []string }
	preOnly := holds{[]string{"question before the clear", "answer before the clear"}, []string{"between the clears", "after the clear"}}
	cases := []struct {
		name     string
		steps    []func(*testing.T, env)
		bottle   holds
		archived []holds // oldest first
	}{
		{"the transcript goes on after the clear", []func(*testing.T, env){add(pre), render, archive, add(post), render},
			holds{[]string{"question after the clear", "answer after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
		{"the clear with no render since the last line", []func(*testing.T, env){add(pre), render, add(between), archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear", "between the clears"}},
			[]holds{{[]string{"before the clear", "question between the clears", "answer between the clears"}, []string{"after the clear"}}}},
		{"the clear with no render before it", []func(*testing.T, env){add(pre), archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
		{"the cache dropped after the clear", []func(*testing.T, env){add(pre), render, archive, add(post), render, dropCache, render},
			holds{[]string{"after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
		{"the cache dropped before the first render after the clear", []func(*testing.T, env){add(pre), render, archive, dropCache, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
		{"the cache of other limits at the clear", []func(*testing.T, env){add(pre), render, add(between), otherLimits, archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear", "between the clears"}},
			[]holds{{[]string{"before the clear", "between the clears"}, []string{"after the clear"}}}},
		{"the cache dropped before the clear", []func(*testing.T, env){add(pre), render, dropCache, add(between), archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear", "between the clears"}},
			[]holds{{[]string{"before the clear", "between the clears"}, []string{"after the clear"}}}},
		{"a second clear", []func(*testing.T, env){add(pre), render, archive, add(between), render, archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear", "between the clears"}},
			[]holds{preOnly, {[]string{"question between the clears", "answer between the clears"}, []string{"before the clear", "after the clear"}}}},
		{"a second clear with no render since the first", []func(*testing.T, env){add(pre), render, archive, add(between), archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear", "between the clears"}},
			[]holds{preOnly, {[]string{"question between the clears", "answer between the clears"}, []string{"before the clear", "after the clear"}}}},
		{"the clear before the transcript held a line", []func(*testing.T, env){archive, add(pre), render},
			holds{[]string{"question before the clear", "answer before the clear"}, nil}, nil},
		{"the transcript replaced after the clear", []func(*testing.T, env){add(pre), render, archive, replace(between + post), render},
			holds{[]string{"between the clears", "after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
		{"the transcript replaced before the clear", []func(*testing.T, env){add(pre), render, replace(between), archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear", "between the clears"}}, []holds{preOnly}},
		{"the transcript shrunk before the clear", []func(*testing.T, env){add(pre), render, replace(pre[:strings.IndexByte(pre, '\n')+1]), archive, add(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
		{"the transcript gone at the clear", []func(*testing.T, env){add(pre), render, remove, archive, replace(post), render},
			holds{[]string{"after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
		{"the clear with the last line torn", []func(*testing.T, env){add(pre), render, add(torn[:len(torn)/2]), archive, add(torn[len(torn)/2:] + post), render},
			holds{[]string{"question torn at the clear", "after the clear"}, []string{"before the clear"}}, []holds{preOnly}},
	}
	check := func(t *testing.T, what, got string, h holds) {
		t.Helper()
		for _, w := range h.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", what, w, got)
			}
		}
		for _, n := range h.not {
			if strings.Contains(got, n) {
				t.Errorf("%s holds %q:\n%s", what, n, got)
			}
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := env{b: &Bottler{Home: t.TempDir(), Agent: "claude-code", Clock: newFakeClock()}, path: writeTranscript(t, "")}
			for _, step := range tc.steps {
				step(t, e)
			}
			got, err := e.b.Read(session)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "the bottle", string(got), tc.bottle)
			archived, _ := filepath.Glob(filepath.Join(e.b.Dir(), "archive", "*-"+session+".bottle"))
			if len(archived) != len(tc.archived) {
				t.Fatalf("archives %v, want %d", archived, len(tc.archived))
			}
			slices.Sort(archived)
			for i, h := range tc.archived {
				check(t, "archive "+strconv.Itoa(i+1), readBottleAt(t, filepath.Join(archived[i], IndexName)), h)
			}
		})
	}
}

// TestArchiveClearsWhenTheTailFails: the render of the lines written since
// the last render never keeps a clear from happening. When ctx ends it
// part-way, or the transcript cannot be read at all, the bottle is still
// archived (with what was rendered) and the error returned, and the bottle
// after the clear never holds a line from before it.
func TestArchiveClearsWhenTheTailFails(t *testing.T) {
	pre := (&transcriptLines{}).user("question before the clear").assistant("m1", "answer before the clear").String()
	post := (&transcriptLines{min: 10}).user("question after the clear").assistant("m3", "answer after the clear").String()
	var long strings.Builder // past readCheckEvery, so a read looks at ctx part-way
	for l := (&transcriptLines{min: 5}); long.Len() <= 2*readCheckEvery; {
		l.b.Reset()
		long.WriteString(l.user("unread before the clear " + strings.Repeat("x", 4000)).String())
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	// dir makes the transcript a directory until the clear is over, when a
	// file is there again.
	dir := func(t *testing.T, p string) func() {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return func() {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name    string
		ctx     context.Context
		tail    string                              // written after the last render
		hostile func(t *testing.T, p string) func() // makes the transcript unreadable until the func it returns runs
		wantErr error
	}{
		{"ctx ended during the tail's read", cancelled, long.String(), nil, ErrReadCut},
		{"the transcript a directory", context.Background(), "", dir, ErrNotRegular},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := &Bottler{Home: t.TempDir(), Agent: "claude-code", Clock: newFakeClock()}
			p := writeTranscript(t, pre)
			if _, err := b.Render(context.Background(), session, p); err != nil {
				t.Fatal(err)
			}
			appendFile(t, p, tc.tail)
			restore := func() {}
			if tc.hostile != nil {
				restore = tc.hostile(t, p)
			}
			dst, err := b.Archive(tc.ctx, session, p)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Archive: %v, want %v", err, tc.wantErr)
			}
			if dst == "" {
				t.Fatal("the bottle was not archived")
			}
			if got := readBottleAt(t, filepath.Join(dst, IndexName)); !strings.Contains(got, "question before the clear") {
				t.Errorf("the archive lacks the turn before the clear:\n%s", got)
			}
			if _, err := b.Read(session); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a bottle is left after the clear: %v", err)
			}
			restore()
			appendFile(t, p, post)
			if _, err := b.Render(context.Background(), session, p); err != nil {
				t.Fatal(err)
			}
			got, err := b.Read(session)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), "question after the clear") || strings.Contains(string(got), "before the clear") {
				t.Errorf("the bottle after the clear:\n%s", got)
			}
		})
	}
}

// TestArchiveStartsTheConversationOverAtTheClear: the bottle rendered from
// a transcript continued under the id after a /clear reads as a
// conversation that began at the clear. Its header's start is its first
// line's time, never a time before the clear (a header line the harness
// writes again, a message record written again under its id, a line
// stamped by a clock behind baton's), its project is the one the clear
// found, and a message the harness writes again after the clear (a
// rewrite under its id, a replacement listing it) is none of its turns.
func TestArchiveStartsTheConversationOverAtTheClear(t *testing.T) {
	at := func(m int) string { return renderedAt.Add(time.Duration(m) * time.Minute).UTC().Format(time.RFC3339) }
	gmsg := func(typ, id string, m int, content string) string {
		return fmt.Sprintf(`{"id":%q,"timestamp":%q,"type":%q,"content":%s}`, id, at(m), typ, content)
	}
	ghead := func(m int) string {
		return fmt.Sprintf(`{"sessionId":"s-gem-1","projectHash":"abc","startTime":%q,"lastUpdated":%q,"kind":"main"}`, at(m), at(m))
	}
	claude := func(typ string, m int, text string) string {
		if typ == "user" {
			return fmt.Sprintf(`{"type":"user","timestamp":%q,"sessionId":"s","cwd":"/work/proj","message":{"role":"user","content":%q}}`, at(m), text)
		}
		return fmt.Sprintf(`{"type":"assistant","timestamp":%q,"message":{"id":"m%d","role":"assistant","content":[{"type":"text","text":%q}]}}`, at(m), m, text)
	}
	u1, g1 := gmsg("user", "u1", 1, `[{"text":"question before the clear"}]`), gmsg("gemini", "g1", 2, `"answer before the clear"`)
	u2, g2 := gmsg("user", "u2", 20, `[{"text":"question after the clear"}]`), gmsg("gemini", "g2", 21, `"answer after the clear"`)
	gemPre := []string{ghead(0), gset(gm("user", "ctx", "", gContext)), u1, g1}
	claudePre := []string{claude("user", 1, "question before the clear"), claude("assistant", 2, "answer before the clear")}
	cases := []struct {
		name    string
		agent   string
		pre     []string
		post    []string
		started string // the header's start after the clear
	}{
		{"claude: the first line after the clear", "claude-code", claudePre,
			[]string{claude("user", 20, "question after the clear"), claude("assistant", 21, "answer after the clear")}, at(20)},
		{"claude: a line stamped before the clear", "claude-code", claudePre,
			[]string{claude("user", 5, "question after the clear"), claude("assistant", 21, "answer after the clear")}, at(10)},
		{"gemini: the first message after the clear", "gemini", gemPre, []string{u2, g2}, at(20)},
		{"gemini: the header written again with the first start", "gemini", gemPre, []string{u2, g2, ghead(0)}, at(10)},
		{"gemini: a message before the clear written again", "gemini", gemPre, []string{u2, g1, g2}, at(20)},
		{"gemini: a replacement listing the messages before the clear", "gemini", gemPre,
			[]string{u2, g2, gset(gm("user", "ctx", "", gContext), u1, g1, u2, g2)}, at(20)},
		{"gemini: a resume's replacement replaying them under new ids", "gemini", gemPre,
			[]string{u2, g2, gset(gm("user", "ctx2", "", gContext), strings.Replace(u1, `"u1"`, `"u1b"`, 1), strings.Replace(g1, `"g1"`, `"g1b"`, 1), u2, g2)}, at(20)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := newFakeClock()
			b := &Bottler{Home: t.TempDir(), Agent: tc.agent, Clock: clk}
			ctx := context.Background()
			p := writeTranscript(t, strings.Join(tc.pre, "\n")+"\n")
			if _, err := b.Render(ctx, session, p); err != nil {
				t.Fatal(err)
			}
			clk.now = renderedAt.Add(10 * time.Minute) // the clear
			if _, err := b.Archive(ctx, session, p); err != nil {
				t.Fatal(err)
			}
			clk.now = renderedAt.Add(30 * time.Minute)
			appendFile(t, p, strings.Join(tc.post, "\n")+"\n")
			for _, step := range []string{"the render after the clear", "a render from a dropped cache"} {
				if _, err := b.Render(ctx, session, p); err != nil {
					t.Fatal(err)
				}
				got, err := b.Read(session)
				if err != nil {
					t.Fatal(err)
				}
				head := strings.SplitN(string(got), "\n", 3)[1]
				if !strings.Contains(head, "started: "+tc.started) || strings.Contains(head, "(unknown)") {
					t.Errorf("%s: header %q, want started %s and the project", step, head, tc.started)
				}
				if !strings.Contains(string(got), "question after the clear") || strings.Contains(string(got), "before the clear") {
					t.Errorf("%s:\n%s", step, got)
				}
				if err := os.Truncate(filepath.Join(b.Dir(), session+".lock"), 0); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
