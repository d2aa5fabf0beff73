package bottle

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSessionIDShape: the rule written out accepts exactly what the
// regexp it replaced matches, over every string of one and two bytes and
// around the length bound.
func TestSessionIDShape(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,` + strconv.Itoa(MaxSessionIDLen-1) + `}$`)
	var ids []string
	for a := range 256 {
		ids = append(ids, string([]byte{byte(a)}))
		for b := range 256 {
			ids = append(ids, string([]byte{byte(a), byte(b)}))
		}
	}
	for _, n := range []int{MaxSessionIDLen - 1, MaxSessionIDLen, MaxSessionIDLen + 1} {
		ids = append(ids, strings.Repeat("a", n), "a"+strings.Repeat("-", n-1), "_"+strings.Repeat("a", n-1))
	}
	for _, id := range ids {
		if got, want := sessionIDShape(id), re.MatchString(id); got != want {
			t.Errorf("sessionIDShape(%q) = %v, the regexp says %v", id, got, want)
		}
	}
}

func TestValidateSessionID(t *testing.T) {
	cases := []struct {
		id string
		ok bool
	}{
		{"c96e6033-0cbe-4890-a588-1160d3853949", true},
		{"a", true},
		{"A.b_c-1", true},
		{strings.Repeat("a", MaxSessionIDLen), true},
		{strings.Repeat("a", MaxSessionIDLen+1), false},
		{"", false},
		{".", false},
		{"..", false},
		{"a..b", false},
		{".hidden", false},
		{"-flag", false},
		{"a/b", false},
		{`a\b`, false},
		{"../etc", false},
		{"C:x", false},
		{"a b", false},
		{"a\x00", false},
		{"é", false},
		// Windows' devices, whatever follows a '.': a bottle's files
		// named so would be the device there.
		{"CON", false},
		{"con", false},
		{"nul.x", false},
		{"Aux", false},
		{"PRN.lock", false},
		{"COM1", false},
		{"lpt9.a.b", false},
		{"COM0", false},
		{"CONX", true},
		{"CO", true},
		{"COM10", true},
		{"COMA", true},
		{"a.CON", true},
		{"nul-1", true},
		{"LPT", true},
	}
	for _, c := range cases {
		err := ValidateSessionID(c.id)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrInvalidSession)) {
			t.Errorf("ValidateSessionID(%q) = %v, want ok=%v", c.id, err, c.ok)
		}
	}
	b := &Bottler{Home: t.TempDir()}
	if _, err := b.Render(context.Background(), "../escape", "x"); !errors.Is(err, ErrInvalidSession) {
		t.Errorf("Render accepted a path-escaping id: %v", err)
	}
}

// TestRenderMutex is the seed's test 7: renders of one session never
// overlap, even while the transcript grows under them, and the last render
// leaves cursor and bottle exactly as a fresh full render would.
func TestRenderMutex(t *testing.T) {
	var l transcriptLines
	l.user("prompt 0").assistant("a0", "answer 0")
	path := writeTranscript(t, l.String())
	home := t.TempDir()
	var active, overlaps int32
	hook := func(string) {
		if atomic.AddInt32(&active, 1) > 1 {
			atomic.AddInt32(&overlaps, 1)
		}
		time.Sleep(2 * time.Millisecond)
		atomic.AddInt32(&active, -1)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the harness appending turns
		defer wg.Done()
		for i := 1; i <= 20; i++ {
			var m transcriptLines
			m.user(fmt.Sprintf("prompt %d", i)).assistant(fmt.Sprintf("a%d", i), fmt.Sprintf("answer %d", i))
			appendFile(t, path, m.String())
			time.Sleep(time.Millisecond)
		}
	}()
	for w := range 6 { // Stop renders and seals racing, each its own Bottler
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &Bottler{Home: home, Clock: newFakeClock(), locked: hook, Marker: newMemMarkers()}
			for range 8 {
				var err error
				if w%2 == 0 {
					_, err = b.Render(ctx, session, path)
				} else {
					_, err = b.Seal(ctx, session, path, 0)
				}
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if overlaps != 0 {
		t.Fatalf("%d renders overlapped", overlaps)
	}
	b := &Bottler{Home: home, Clock: newFakeClock()}
	got, err := b.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	fresh := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
	want, err := fresh.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	if readBottleAt(t, got.Path) != readBottleAt(t, want.Path) {
		t.Error("bottle after racing renders differs from a fresh render")
	}
	if !strings.Contains(readBottleAt(t, got.Path), "answer 20") {
		t.Error("last turn missing")
	}
	st := stateAt(t, filepath.Join(b.Dir(), session+".lock"))
	if fi, _ := os.Stat(path); st == nil || st.Cursor.Offset != fi.Size() {
		t.Errorf("cursor %+v, file size %d", st, fi.Size())
	}
}

// stateAt reads the render cache held in the lock file at path; nil when
// there is none (no file yet included).
func stateAt(t *testing.T, path string) *state {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readState(f)
}

// TestLockAcrossProcesses holds the render lock in a child process and
// checks that this process cannot take it until the child lets go.
func TestLockAcrossProcesses(t *testing.T) {
	if os.Getenv("BOTTLE_LOCK_HELPER") != "" {
		t.Skip("helper process")
	}
	lockPath := filepath.Join(t.TempDir(), "s.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$")
	cmd.Env = append(os.Environ(), "BOTTLE_LOCK_HELPER="+lockPath)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if l, err := lockFile(ctx, lockPath); err == nil {
		_ = l.unlock()
		t.Fatal("took a lock another process holds")
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for the lock: %v", err)
	}
	_ = stdin.Close() // the helper unlocks and exits
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	l, err := lockFile(ctx2, lockPath)
	if err != nil {
		t.Fatalf("lock not released by the exited holder: %v", err)
	}
	_ = l.unlock()
}

// TestLockHelperProcess is the child of TestLockAcrossProcesses.
func TestLockHelperProcess(t *testing.T) {
	path := os.Getenv("BOTTLE_LOCK_HELPER")
	if path == "" {
		t.Skip("run by TestLockAcrossProcesses")
	}
	l, err := lockFile(context.Background(), path)
	if err != nil {
		os.Exit(3)
	}
	fmt.Println("locked")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
	_ = l.unlock()
	os.Exit(0)
}

const secret = "secret-token-123"

// TestPrivacyOnEveryPath is the seed's test 8: private content in user and
// assistant messages reaches no bottle, whichever path renders it, nor the
// parse cache kept beside it.
func TestPrivacyOnEveryPath(t *testing.T) {
	var l transcriptLines
	l.user("deploy with <private>"+secret+"</private> please").
		assistant("a1", "Using the key <private>"+secret+"</private> now.").
		call("tu1", "Bash", `{"command":"deploy --token <private>`+secret+`</private>"}`).
		result("tu1", false).
		assistant("a2", "<private>"+secret+"</private>")
	path := writeTranscript(t, l.String())
	ctx := context.Background()
	rec := Record{Prompts: []Prompt{{Number: 1, Text: "deploy with <private>" + secret + "</private> please"}},
		StopExcerpts: []StopExcerpt{{PromptNumber: 1, Text: "key <private>" + secret + "</private>"}},
		Summaries:    []Summary{{PromptNumber: 1, Text: "used <system-reminder>" + secret + "</system-reminder>"}}}
	paths := map[string]func(t *testing.T, b *Bottler) string{
		"stop render": func(t *testing.T, b *Bottler) string {
			r, err := b.Render(ctx, session, path)
			if err != nil {
				t.Fatal(err)
			}
			return readBottleAt(t, r.Path) + readString(t, filepath.Join(b.Dir(), session+".lock"))
		},
		"seal": func(t *testing.T, b *Bottler) string {
			r, err := b.Seal(ctx, session, path, 0)
			if err != nil {
				t.Fatal(err)
			}
			return readBottleAt(t, r.Path)
		},
		"on demand": func(t *testing.T, b *Bottler) string {
			return string(Render(Page{SessionID: session, Transcript: parseFile(t, path)}, renderedAt).Markdown)
		},
		"reconstructed": func(t *testing.T, b *Bottler) string {
			b.History = fakeHistory{rec: rec}
			r, err := b.Render(ctx, session, filepath.Join(t.TempDir(), "gone.jsonl"))
			if err != nil || r.Mode != ModeReconstructed {
				t.Fatalf("%+v %v", r, err)
			}
			return readBottleAt(t, r.Path)
		},
	}
	for name, render := range paths {
		t.Run(name, func(t *testing.T) {
			out := render(t, &Bottler{Home: t.TempDir(), Clock: newFakeClock()})
			if strings.Contains(out, secret) || strings.Contains(out, "<private>") {
				t.Errorf("private content leaked:\n%s", out)
			}
			if !strings.Contains(out, "deploy with") {
				t.Errorf("public text lost:\n%s", out)
			}
		})
	}
}

// TestTornLineAcrossRenders is the seed's test 9 through the Bottler: a
// render skips the torn line and the next render picks it up.
func TestTornLineAcrossRenders(t *testing.T) {
	var l transcriptLines
	l.user("first prompt").assistant("a1", "first answer").user("second prompt that is torn")
	full := l.String()
	cut := len(full) - 12
	path := writeTranscript(t, full[:cut])
	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
	ctx := context.Background()
	r, err := b.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	if out := readBottleAt(t, r.Path); strings.Contains(out, "second prompt") || !strings.Contains(out, "first answer") {
		t.Fatalf("torn render:\n%s", out)
	}
	appendFile(t, path, full[cut:])
	r, err = b.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	if out := readBottleAt(t, r.Path); strings.Count(out, "\nsecond prompt that is torn") != 1 {
		t.Fatalf("completed line not picked up once:\n%s", out)
	}
}

// TestIncrementalCursor is part of the seed's test 12: a routine re-render
// parses only bytes after the cursor, a shrunk or replaced transcript is
// reparsed from zero, and either way the bottle equals a fresh render.
func TestIncrementalCursor(t *testing.T) {
	var l transcriptLines
	for i := range 40 {
		l.user(fmt.Sprintf("prompt %03d", i)).assistant(fmt.Sprintf("a%d", i), fmt.Sprintf("answer %03d", i))
	}
	original := l.String()
	ctx := context.Background()
	render := func(b *Bottler, path string) string {
		t.Helper()
		r, err := b.Render(ctx, session, path)
		if err != nil {
			t.Fatal(err)
		}
		return readBottleAt(t, r.Path)
	}
	fresh := func(path string) string {
		return render(&Bottler{Home: t.TempDir(), Clock: newFakeClock()}, path)
	}

	t.Run("only new bytes are parsed", func(t *testing.T) {
		path := writeTranscript(t, original)
		b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
		render(b, path)
		// Rewrite an already-parsed line between the fingerprinted head and
		// the fingerprinted bytes before the cursor, same length: an
		// incremental render must not see it.
		if at := strings.Index(original, "answer 020"); at < prefixLen || at > len(original)-prefixLen {
			t.Fatalf("answer 020 at %d is inside a fingerprint of the %d-byte transcript", at, len(original))
		}
		data := strings.Replace(original, "answer 020", "ANSWER 020", 1)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		var m transcriptLines
		m.user("appended prompt")
		appendFile(t, path, m.String())
		out := render(b, path)
		if !strings.Contains(out, "answer 020") || strings.Contains(out, "ANSWER 020") || !strings.Contains(out, "appended prompt") {
			t.Fatal("re-render reparsed old bytes or missed new ones")
		}
	})
	resets := []struct {
		name    string
		replace string
	}{
		{"shrunk", original[:len(original)/2]},
		{"replaced, same length, new head", strings.Replace(original, "prompt 000", "PROMPT 000", 1)},
		{"replaced by a longer file", strings.Replace(original, "prompt 000", "PROMPT 000", 1) + original},
		// The same head, then other lines past the old end: read on from
		// the old offset, the render spliced the two files (a line read
		// from its middle, the old file's turns before the new one's).
		{"replaced by a longer file, same head", original[:len(original)/2] + strings.ReplaceAll(original[len(original)/2:], "answer", "ANSWER, longer,")},
		{"truncated and written again past the old end, same head", original[:len(original)-1000] + strings.Repeat(strings.ReplaceAll(original[len(original)-1000:], "prompt", "PROMPT"), 2)},
	}
	for _, c := range resets {
		t.Run(c.name, func(t *testing.T) {
			path := writeTranscript(t, original)
			b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
			render(b, path)
			if err := os.WriteFile(path, []byte(c.replace), 0o600); err != nil {
				t.Fatal(err)
			}
			if got, want := render(b, path), fresh(path); got != want {
				t.Errorf("after reset the bottle differs from a fresh render")
			}
		})
	}
	t.Run("lost cache reparses from zero", func(t *testing.T) {
		path := writeTranscript(t, original)
		b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
		first := render(b, path)
		if err := os.WriteFile(filepath.Join(b.Dir(), session+".lock"), []byte("{corrupt"), 0o600); err != nil {
			t.Fatal(err)
		}
		if render(b, path) != first {
			t.Error("corrupt cache changed the bottle")
		}
	})
}

// TestRewrittenTranscript: a transcript the harness (or anything else)
// truncates and writes again, or replaces by another file, between two
// renders leaves the bottle a fresh render writes, whatever it keeps of the
// old head: the cursor's fingerprints notice it, and the next render does not
// read on from an offset of the old file (in the middle of a line of the
// new one) and splice the two.
func TestRewrittenTranscript(t *testing.T) {
	ctx := context.Background()
	lim := ReadLimits{MaxLines: 40, MaxLineChars: 200, MaxBytes: 4096}
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			lines, other := growth(seed, 150), growth(seed+100, 150)
			path := filepath.Join(t.TempDir(), "t.jsonl")
			b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Limits: lim}
			dir, _ := b.bottleDir(session)
			content, next := "", 0
			for range 30 {
				switch k := r.IntN(10); {
				case k < 6 && next < len(lines): // the harness appends
					n := 1 + r.IntN(10)
					content += strings.Join(lines[next:min(next+n, len(lines))], "")
					next += n
				case k < 8: // truncated anywhere, then written on with other lines
					j := r.IntN(len(other))
					content = content[:r.IntN(len(content)+1)] + strings.Join(other[j:min(j+1+r.IntN(20), len(other))], "")
				default: // replaced by another file
					content = strings.Join(other[:r.IntN(len(other))], "")
				}
				tmp := path + ".new"
				if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, path); err != nil {
					t.Fatal(err)
				}
				if _, err := b.Render(ctx, session, path); err != nil {
					t.Fatal(err)
				}
				fresh := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Limits: lim}
				if res, err := fresh.Render(ctx, session, path); err != nil || res.Mode == ModeTimeline {
					continue
				}
				freshDir, _ := fresh.bottleDir(session)
				sameBottle(t, dir, freshDir)
			}
		})
	}
}

// TestCacheWrittenWrong: a cache whose sum holds but whose numbers cannot
// be (a negative fingerprint length or cursor, more pages synced than it
// has, or fewer) reads as no cache: the render and the seal reparse and
// write the bottle a fresh render writes. Before, a negative fingerprint
// length panicked the render (and one of a terabyte crashed the process,
// out of memory), a negative count of synced pages panicked the seal, and
// the cache, never rewritten, did so on every event of the session.
func TestCacheWrittenWrong(t *testing.T) {
	var l transcriptLines
	for i := range 20 {
		l.user(fmt.Sprintf("prompt %03d", i)).assistant(fmt.Sprintf("a%d", i), fmt.Sprintf("answer %03d", i))
	}
	path := writeTranscript(t, l.String())
	ctx := context.Background()
	fresh := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
	r, err := fresh.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	want := readBottleAt(t, r.Path)
	for _, c := range []struct {
		name  string
		wrong func(*state)
	}{
		{"negative fingerprint length", func(st *state) { st.Cursor.PrefixLen = -1 }},
		{"fingerprint longer than the head", func(st *state) { st.Cursor.PrefixLen = prefixLen + 1 }},
		{"negative cursor", func(st *state) { st.Cursor.Offset, st.Cursor.PrefixLen = -1, 0 }},
		{"negative pages synced", func(st *state) { st.Synced = -1 }},
		{"more pages synced than there are", func(st *state) { st.Synced = len(st.Pages) + 1 }},
	} {
		for _, seal := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, seal %v", c.name, seal), func(t *testing.T) {
				b := &Bottler{Home: t.TempDir(), Clock: newFakeClock()}
				if _, err := b.Render(ctx, session, path); err != nil {
					t.Fatal(err)
				}
				lock := filepath.Join(b.Dir(), session+".lock")
				st := stateAt(t, lock)
				if st == nil {
					t.Fatal("the first render left no cache")
				}
				c.wrong(st)
				f, err := os.OpenFile(lock, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				err = writeState(f, st)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panicked: %v", p)
					}
				}()
				if seal {
					_, err = b.Seal(ctx, session, path, 0)
				} else {
					_, err = b.Render(ctx, session, path)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got := readBottleAt(t, filepath.Join(filepath.Dir(lock), session+bottleSuffix, IndexName)); got != want {
					t.Errorf("the bottle differs from a fresh render:\n%s\n--- fresh\n%s", got, want)
				}
			})
		}
	}
}

// TestFailedRenderKeepsBottle: a render that fails midway leaves the
// previous bottle byte for byte, and no temporary file behind.
func TestFailedRenderKeepsBottle(t *testing.T) {
	path := writeTranscript(t, midTurn())
	src := &fakeObservations{}
	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), Observations: src}
	ctx := context.Background()
	r, err := b.Render(ctx, session, path)
	if err != nil {
		t.Fatal(err)
	}
	before := readBottleAt(t, r.Path)
	src.err = errors.New("observation store down")
	appendFile(t, path, (&transcriptLines{}).user("more").String())
	if _, err := b.Render(ctx, session, path); err == nil {
		t.Fatal("render succeeded with a failing source")
	}
	if readBottleAt(t, r.Path) != before {
		t.Error("failed render changed the bottle")
	}
	entries, _ := os.ReadDir(b.Dir())
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	// A write that cannot complete leaves no temporary file either.
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(target, []byte("x"), 0o600); err == nil {
		t.Error("renamed over a non-empty directory")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %d entries, want only the target", len(entries))
	}
}

// TestDegradedBottle is the seed's test 11: the transcript is gone, the
// store has prompts, observations, Stop excerpts and summaries.
func TestDegradedBottle(t *testing.T) {
	at := func(m int) time.Time { return renderedAt.Add(-time.Hour + time.Duration(m)*time.Minute) }
	long := strings.Repeat("x", MaxPromptChars)
	rec := Record{
		SessionID: session, Project: "proj", Started: at(0), Compactions: 2,
		Prompts: []Prompt{
			{Number: 2, Text: "now make the interval configurable", Time: at(20)},
			{Number: 1, Text: "add a heartbeat writer " + long, Truncated: true, Time: at(1)},
		},
		StopExcerpts: []StopExcerpt{{PromptNumber: 1, Text: "Added heartbeat.go; tests pass.", Time: at(15)}},
		Summaries: []Summary{
			{PromptNumber: 2, Text: "Interval option half done: Options struct added, not wired.\nNext: wire it.", Time: at(30)},
			{PromptNumber: 1, Text: "Heartbeat writer added.", Time: at(16)},
		},
	}
	obs := []Observation{
		{ID: "102402", Title: "Added Options", Narrative: "Options struct holds Interval. Not yet wired.", PromptNumber: 2, Time: at(25)},
		{ID: "102401", Title: "Wrote heartbeat.go", Narrative: "WriteHeartbeat flushes after each write; covered by tests", Time: at(5)},
	}
	markers := newMemMarkers()
	b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), History: fakeHistory{rec: rec},
		Observations: fakeObservations{obs: obs}, Marker: markers}
	ctx := context.Background()
	res, err := b.Seal(ctx, session, filepath.Join(t.TempDir(), "deleted.jsonl"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ModeReconstructed || !res.Sealed || !res.Armed {
		t.Fatalf("result %+v", res)
	}
	out := readBottleAt(t, res.Path)
	if strings.Contains(out, "**Assistant**") {
		t.Error("a reconstructed bottle has an assistant slot")
	}
	order := []string{"mode: reconstructed", "(prompt 1,", "[truncated at 4000 chars]", "[#102401] Wrote heartbeat.go — WriteHeartbeat flushes after each write",
		"> Added heartbeat.go; tests pass.", "> Session summary (generated", "> Heartbeat writer added.", "(prompt 2,", "[#102402] Added Options — Options struct holds Interval",
		"> Interval option half done"}
	rest := out
	for _, s := range order {
		i := strings.Index(rest, s)
		if i < 0 {
			t.Errorf("%q missing or out of order", s)
			continue
		}
		rest = rest[i+len(s):]
	}
	golden(t, "bottle-reconstructed.golden.md", []byte(out))
	m, ok, err := b.Continuation(ctx, markers, session)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if m.Task != "Interval option half done: Options struct added, not wired.…" || m.Mode != ModeReconstructed || m.Path != res.Path {
		t.Errorf("claimed marker of a reconstructed bottle: %+v", m)
	}

	// Nothing stored: the timeline rung. No file, no marker.
	empty := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), History: fakeHistory{}, Marker: newMemMarkers()}
	res, err = empty.Seal(ctx, session, "", 0)
	if err != nil || res.Mode != ModeTimeline || res.Sealed || res.Armed || res.Path != "" {
		t.Fatalf("timeline seal %+v %v", res, err)
	}
	if _, err := empty.Read(session); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a timeline seal wrote a bottle: %v", err)
	}
}

// TestAgentDirectories pins that a conversation's bottle is keyed by agent
// and session id: two harnesses reusing one session id never share a
// bottle, and an agent name that could leave the bottles directory is
// refused.
func TestAgentDirectories(t *testing.T) {
	home := t.TempDir()
	cases := []struct {
		agent string
		want  string
		ok    bool
	}{
		{"", filepath.Join(home, "bottles", "s-1.bottle", IndexName), true},
		{"claude-code", filepath.Join(home, "bottles", "claude-code", "s-1.bottle", IndexName), true},
		{"codex", filepath.Join(home, "bottles", "codex", "s-1.bottle", IndexName), true},
		{"../x", "", false},
		{"-x", "", false},
		{"Codex", "", false},
		{strings.Repeat("a", 65), "", false},
	}
	for _, c := range cases {
		got, err := (&Bottler{Home: home, Agent: c.agent}).Path("s-1")
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("agent %q: Path = %q, %v; want %q ok=%v", c.agent, got, err, c.want, c.ok)
		}
	}
}

// TestTranscriptGoneKeepsTheFullBottle: once a session's transcript is
// gone, a render or a seal keeps the full bottle the cache describes (byte
// for byte) rather than rebuilding a weaker one from History; a transcript
// the cache never read, or read under other limits, is still reconstructed.
func TestTranscriptGoneKeepsTheFullBottle(t *testing.T) {
	ctx := context.Background()
	rec := Record{Prompts: []Prompt{{Number: 1, Text: "first prompt"}}}
	for _, tc := range []struct {
		name string
		// after makes the second render's case: the path it renders and
		// the limits it renders under.
		after func(b *Bottler, path string) string
		want  Mode
	}{
		{"the cache's transcript removed", func(b *Bottler, path string) string { return path }, ModeFull},
		{"another transcript, never read", func(b *Bottler, path string) string { return path + ".other" }, ModeReconstructed},
		{"other read limits", func(b *Bottler, path string) string {
			b.Limits = ReadLimits{MaxLines: 500, MaxLineChars: 500, MaxBytes: 5000}
			return path
		}, ModeReconstructed},
	} {
		for _, seal := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/seal=%v", tc.name, seal), func(t *testing.T) {
				var l transcriptLines
				l.user("first prompt").assistant("a1", "the first answer, verbatim")
				path := writeTranscript(t, l.String())
				b := &Bottler{Home: t.TempDir(), Clock: newFakeClock(), History: fakeHistory{rec: rec}}
				first, err := b.Render(ctx, session, path)
				if err != nil || first.Mode != ModeFull {
					t.Fatalf("first render %+v, %v", first, err)
				}
				before := readBottleAt(t, first.Path)
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				again := tc.after(b, path)
				var got Bottle
				if seal {
					r, err := b.Seal(ctx, session, again, 0)
					if err != nil || !r.Sealed {
						t.Fatalf("seal %+v, %v", r, err)
					}
					got = Bottle{Path: r.Path, Mode: r.Mode}
				} else if got, err = b.Render(ctx, session, again); err != nil {
					t.Fatal(err)
				}
				if got.Mode != tc.want {
					t.Fatalf("mode %s, want %s", got.Mode, tc.want)
				}
				out := readBottleAt(t, got.Path)
				if tc.want == ModeFull && out != before {
					t.Errorf("the kept bottle changed:\n%s\nwant\n%s", out, before)
				}
				if tc.want == ModeReconstructed && strings.Contains(out, "the first answer, verbatim") {
					t.Errorf("a reconstructed bottle holds the assistant's words:\n%s", out)
				}
			})
		}
	}
}
