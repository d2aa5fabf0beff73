package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
	"github.com/google/uuid"
)

// runMainVar makes the test binary run baton's main instead of the tests, so
// a test can exec the command as a user would and read its exit status.
const runMainVar = "BATON_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainVar) == "1" {
		main()
		os.Exit(0)
	}
	keepModelNames() // every test runs the store as the binary does
	os.Exit(m.Run())
}

// userHomeVar is the variable os.UserHomeDir reads on this platform.
func userHomeVar() string {
	switch runtime.GOOS {
	case "windows":
		return "USERPROFILE"
	case "plan9":
		return "home"
	}
	return "HOME"
}

// baton execs the command in dir with the inherited environment minus every
// home and BATON_ variable, plus env, and returns its stdout, stderr and exit
// status.
func baton(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return batonIn(t, dir, env, "", args...)
}

// batonIn is baton with stdin.
func batonIn(t *testing.T, dir string, env []string, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	return batonExec(t, os.Args[0], dir, env, stdin, args...)
}

// batonExec is batonIn running this test binary by the path program.
func batonExec(t *testing.T, program, dir string, env []string, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(program, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "HOME") || strings.EqualFold(k, "USERPROFILE") || strings.HasPrefix(strings.ToUpper(k), "BATON_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(append(cmd.Env, env...), runMainVar+"=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		status = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), status
}

// run runs the command line in-process as main does, with env's streams
// captured, and returns its stdout, stderr and exit status. opts are bound
// after the defaults (see newParser).
func run(t *testing.T, env *Env, args []string, opts ...kong.Option) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut bytes.Buffer
	env.Stdout, env.Stderr = &out, &errOut
	status = execute(args, env, opts...)
	return out.String(), errOut.String(), status
}

func testEnv(t *testing.T) *Env {
	home := t.TempDir()
	return &Env{Home: home, DSN: filepath.Join(home, "baton.db"), Tenant: "local", Dir: t.TempDir()}
}

func TestDemo(t *testing.T) {
	out, stderr, status := run(t, testEnv(t), []string{"demo"})
	if status != exitOK {
		t.Fatalf("demo: status %d: %s\n%s", status, stderr, out)
	}
	for _, want := range []string{
		"epoch 1, 2 briefed rows; injected:",
		"## Open commitments",
		"session's sessionRunId is ",
		`retry: same run true, epoch still 1; from project "other": conflict`,
		"Stop 4 blocks the turn: true; triage pending",
		"the reason, the debrief prompt",
		"blocks false; triage completed, same attempt true",
		"this run's provenance events: create, create, resolve",
		"injected the pointer to the sealed bottle: true",
		"Endless Mode — session continuation",
		"points at a bottle rendered on demand: true",
		"mode: full",
		"same run true, epoch 2, 2 briefed rows kept",
		"explicitly_closed at",
		"again: same time true",
		"succeeds unattributed: true",
		"## Last handover (fresh",
		"read: implicitly_closed (no sweep ran)",
		"Stop: live again, epoch 2",
		"never opened: not_found",
		"## Last handover (aging: recorded 25h ago",
		"provider.event.failed",
		"session.resurrected",
		"record.checkpoint",
		"record.handover",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(out, "my token is abc") {
		t.Error("demo output leaks a private prompt")
	}
}

// TestDemoReceipts walks the ledger the demo wrote: every lifecycle event
// must come after a receipt, for the same conversation, of the provider event
// that causes it, because a hook records the receipt before any other work.
func TestDemoReceipts(t *testing.T) {
	causes := map[string]string{
		continuity.EventSessionStarted:                  "SessionStart",
		continuity.EventSessionReopened:                 "SessionStart",
		continuity.EventSessionResumed:                  "SessionStart",
		continuity.EventBottleClaimed:                   "SessionStart",
		continuity.EventSessionResurrect:                "Stop",
		continuity.EventTriageArmed:                     "Stop",
		continuity.EventTriageFinished:                  "Stop",
		continuity.EventBottleArmed:                     "PreCompact",
		"record." + string(continuity.RecordCheckpoint): "PreCompact",
		continuity.EventSessionClosed:                   "SessionEnd",
		"record." + string(continuity.RecordHandover):   "SessionEnd",
	}
	env := testEnv(t)
	var out bytes.Buffer
	env.Stdout, env.Stderr = &out, &out
	ctx := context.Background()
	if err := (&DemoCmd{Home: env.Home}).Run(ctx, env); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	env.Tenant = demoTenant
	api, done, err := env.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ledger, err := api.Ledger(ctx, uuid.Nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	lastReceipt := map[[2]string]string{} // (agent, session) -> provider event
	seen := map[string]bool{}
	for _, e := range ledger {
		key := [2]string{e.Fields["agent"], e.Session}
		if e.Event == continuity.EventReceived {
			lastReceipt[key] = e.Fields["provider_event"]
			continue
		}
		want, lifecycle := causes[e.Event]
		if !lifecycle {
			continue
		}
		seen[e.Event] = true
		if got, ok := lastReceipt[key]; !ok || got != want {
			t.Errorf("%s for %s/%s: the last receipt before it is %q, want %q", e.Event, key[0], key[1], got, want)
		}
	}
	for ev := range causes {
		if !seen[ev] && ev != continuity.EventSessionReopened {
			t.Errorf("the demo's ledger holds no %s", ev)
		}
	}
}

// TestCommands runs each command in-process over a real store in a
// temporary BATON_HOME, in order, and checks its output and exit status.
// "{id}" stands for the id the first remember printed.
func TestCommands(t *testing.T) {
	env := testEnv(t)
	// The working directory's base name is the project facet.
	env.Dir = filepath.Join(env.Dir, "p")
	if err := os.Mkdir(env.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, stderr, status := run(t, env, []string{"remember", "--kind", "commitment", "--topic", "ship", "ship", "it"})
	id := strings.TrimSpace(out)
	if status != exitOK || uuid.Validate(id) != nil {
		t.Fatalf("remember: status %d, printed %q, want an id: %s", status, out, stderr)
	}
	cases := []struct {
		args   []string
		status int
		stdout string // a substring, after {id} is replaced
		stderr string // a substring; "" means stderr must be empty
	}{
		{[]string{"briefing"}, exitOK, "- ship [commitment] ship it", ""},
		{[]string{"briefing", "--project", "p"}, exitOK, "# baton briefing — project p", ""},
		{[]string{"briefing", "--project", "elsewhere"}, exitOK, "# baton briefing — project elsewhere", ""},
		{[]string{"resolve", "{id}"}, exitOK, "{id} resolved\n", ""},
		{[]string{"resolve", "{id}"}, exitFailure, "", "conflict"},
		{[]string{"unresolve", "{id}"}, exitOK, "{id} open\n", ""},
		{[]string{"archive", "{id}", "--session-run", ""}, exitOK, "{id} archived\n", ""},
		{[]string{"briefing", "--json"}, exitOK, `"items": []`, ""},
		{[]string{"resolve", "nope"}, exitFailure, "", "invalid"},
		{[]string{"remember", "--topic", "t", "--session-run", "bad", "x"}, exitFailure, "", "--session-run: must be a UUID"},
		{[]string{"remember", "--topic", "t", "--kind", "idea", "x"}, exitUsage, "", `but got "idea"`},
		{[]string{"bottle", "show", "never-bottled"}, exitFailure, "", "no bottle for session never-bottled"},
		{[]string{"bottle", "show", "--agent", "Not An Agent", "s1"}, exitUsage, "", `--agent: "Not An Agent" is not an agent name`},
		{[]string{"version"}, exitOK, "baton " + Version + "\n", ""},
	}
	for _, tc := range cases {
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			args[i] = strings.ReplaceAll(a, "{id}", id)
		}
		stdout, stderr, status := run(t, env, args)
		want := strings.ReplaceAll(tc.stdout, "{id}", id)
		if status != tc.status {
			t.Errorf("%v: status %d, want %d\nstderr: %s", tc.args, status, tc.status, stderr)
		}
		if want == "" && stdout != "" || !strings.Contains(stdout, want) {
			t.Errorf("%v: stdout %q, want %q", tc.args, stdout, want)
		}
		if tc.stderr == "" && stderr != "" || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: stderr %q, want %q", tc.args, stderr, tc.stderr)
		}
	}
}

// TestBriefingShowsHandover: `baton briefing` shows what a startup in the
// working directory would, the project's newest handover included.
func TestBriefingShowsHandover(t *testing.T) {
	env := testEnv(t)
	handOver(t, env, "Wire the briefing through the API.")
	out, stderr, status := run(t, env, []string{"briefing"})
	if status != exitOK || !strings.Contains(out, "## Last handover (fresh") || !strings.Contains(out, "- Objective: Wire the briefing through the API.") {
		t.Fatalf("briefing: status %d: %s\n%s", status, stderr, out)
	}
}

// handOver runs a conversation of one prompt in env's working directory
// to its end, so that the project has a handover.
func handOver(t *testing.T, env *Env, prompt string) {
	t.Helper()
	ctx := context.Background()
	api, done, err := env.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	ep := continuity.NewEpisodes(api, defaultAgent, env.Home)
	for _, ev := range []continuity.HookEvent{
		{Kind: continuity.HookStart, Source: continuity.SourceStartup},
		{Kind: continuity.HookPrompt, Prompt: prompt},
		{Kind: continuity.HookEnd, Reason: "exit"},
	} {
		ev.Provider, ev.ProviderEvent, ev.SessionID, ev.Cwd = defaultAgent, string(ev.Kind), "s1", env.Dir
		if _, err := ep.Handle(ctx, ev); err != nil {
			t.Fatalf("%s: %v", ev.Kind, err)
		}
	}
}

// TestBriefingPrintsNoControlCharacters: `baton briefing` writes to the
// person's terminal what the memories and the handover hold, and they came
// from outside (an agent's remember, a prompt): each control character but
// the newline and the tab, and each Unicode line or paragraph separator,
// reaches it as a space, as the context a hook injects has them, so a
// memory cannot clear the screen, retitle the window or hide its own line;
// each format character (a right-to-left override, an isolate, a
// zero-width space, a byte order mark) and each other character that shows
// nothing or a blank (a Hangul filler, the blank Braille pattern, a
// variation selector, a tag) shows as its code point, so a line cannot read
// other than it is; `briefing --json` and the context the SessionStart hook
// injects carry those characters as stored, byte for byte.
func TestBriefingPrintsNoControlCharacters(t *testing.T) {
	env := testEnv(t)
	env.Dir = filepath.Join(env.Dir, "p")
	if err := os.Mkdir(env.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const invisible = "\u202eevil\u2066x\u2069\u200b\ufeff\u3164\u115f\u2800\ufe0f\U000E0041\U000E0100"
	hostile := "\x1b[2J\x1b]0;title\x07\x1b[8mhidden\x1b[0m\r\u0085\u2028\u2029\x7f\x0b" + invisible
	if _, stderr, status := run(t, env, []string{"remember", "--kind", "decision", "--topic", "topic" + hostile, "content" + hostile}); status != exitOK {
		t.Fatalf("remember: status %d: %s", status, stderr)
	}
	handOver(t, env, "objective"+hostile)
	out, stderr, status := run(t, env, []string{"briefing"})
	if status != exitOK {
		t.Fatalf("briefing: status %d: %s", status, stderr)
	}
	for _, want := range []string{"topic", "content", "hidden", "## Last handover", "objective",
		"<U+202E>evil<U+2066>x<U+2069><U+200B><U+FEFF><U+3164><U+115F><U+2800><U+FE0F><U+E0041><U+E0100>"} {
		if !strings.Contains(out, want) {
			t.Errorf("the briefing lost %q:\n%s", want, out)
		}
	}
	assertPrintable(t, "the briefing", out)
	js, stderr, status := run(t, env, []string{"briefing", "--json"})
	var b continuity.Briefing
	if status != exitOK || json.Unmarshal([]byte(js), &b) != nil || len(b.Items) != 1 || !strings.HasSuffix(b.Items[0].Content, invisible) {
		t.Errorf("briefing --json: status %d, %s; want the content as stored:\n%s", status, stderr, js)
	}
	env.Stdin = strings.NewReader(`{"session_id":"s2","cwd":` + quote(env.Dir) + `,"hook_event_name":"SessionStart","source":"startup"}`)
	hookOut, stderr, status := run(t, env, []string{"hook", "--harness", "claude-code"})
	var v struct {
		HookSpecificOutput struct{ AdditionalContext string }
	}
	if status != exitOK || json.Unmarshal([]byte(hookOut), &v) != nil ||
		strings.Count(v.HookSpecificOutput.AdditionalContext, invisible) < 2 || strings.Contains(v.HookSpecificOutput.AdditionalContext, "<U+") {
		t.Errorf("hook: status %d, %s; want the memory and the handover with their characters as stored:\n%q", status, stderr, hookOut)
	}
}

// assertPrintable fails unless out holds no character that ends a line for
// some reader or that a terminal acts on, other than newlines and tabs, and
// no format character (runes.Hidden).
func assertPrintable(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range out {
		if r != '\n' && r != '\t' && runes.Breaks(r) || runes.Hidden(r) {
			t.Fatalf("%s prints %U:\n%q", what, r, out)
		}
	}
}

// recordingAPI stands in for the store: it records the calls the commands
// make and answers them; any other call panics (the embedded API is nil).
type recordingAPI struct {
	continuity.API
	calls []string
}

var recordedID = uuid.MustParse("01900000-0000-7000-8000-000000000001")

func (r *recordingAPI) Remember(_ context.Context, p continuity.RememberParams) (continuity.WriteResult, error) {
	r.calls = append(r.calls, fmt.Sprintf("Remember %s/%s/%s/%s/%s/%s/%s", p.Kind, p.Topic, p.Content, p.Project, p.Scope, p.SessionRunID, p.Actor))
	return continuity.WriteResult{Memory: continuity.Memory{ID: recordedID, Status: continuity.StatusOpen}}, nil
}

func (r *recordingAPI) transition(verb, id string, p continuity.TransitionParams, to continuity.MemoryStatus) (continuity.WriteResult, error) {
	r.calls = append(r.calls, fmt.Sprintf("%s %s/%s/%s", verb, id, p.SessionRunID, p.Actor))
	return continuity.WriteResult{Memory: continuity.Memory{ID: recordedID, Status: to}}, nil
}

func (r *recordingAPI) Resolve(_ context.Context, id string, p continuity.TransitionParams) (continuity.WriteResult, error) {
	return r.transition("Resolve", id, p, continuity.StatusResolved)
}

func (r *recordingAPI) Unresolve(_ context.Context, id string, p continuity.TransitionParams) (continuity.WriteResult, error) {
	return r.transition("Unresolve", id, p, continuity.StatusOpen)
}

func (r *recordingAPI) Archive(_ context.Context, id string, p continuity.TransitionParams) (continuity.WriteResult, error) {
	return r.transition("Archive", id, p, continuity.StatusArchived)
}

func (r *recordingAPI) Briefing(_ context.Context, p continuity.BriefingParams) (continuity.Briefing, error) {
	r.calls = append(r.calls, "Briefing "+p.Project)
	return continuity.Briefing{Text: "recorded briefing\n"}, nil
}

func (r *recordingAPI) Records(_ context.Context, q continuity.RecordQuery) ([]continuity.Record, error) {
	r.calls = append(r.calls, "Records "+q.Project)
	return nil, nil
}

// hostileStatusAPI answers a resolve as a hostile team server may, with a
// status holding control and format characters.
type hostileStatusAPI struct{ recordingAPI }

func (h *hostileStatusAPI) Resolve(context.Context, string, continuity.TransitionParams) (continuity.WriteResult, error) {
	return continuity.WriteResult{Memory: continuity.Memory{ID: recordedID, Status: "resolved\x1b]0;pwned\x07\r\u202e\nok"}}, nil
}

// TestTransitionShowsTheStatus: resolve prints the memory's status as the
// API answered it, and a team server's answer is its text: a control or
// format character in it, a newline too, shows as its code point.
func TestTransitionShowsTheStatus(t *testing.T) {
	env := &Env{Tenant: "local", noHome: errors.New("none in this test")}
	stdout, stderr, status := run(t, env, []string{"resolve", "m1"}, kong.BindTo(&hostileStatusAPI{}, (*continuity.API)(nil)))
	if want := recordedID.String() + " resolved<U+001B>]0;pwned<U+0007><U+000D><U+202E><U+000A>ok\n"; status != exitOK || stdout != want {
		t.Errorf("status %d, stdout %q, stderr %q; want %q", status, stdout, stderr, want)
	}
}

// TestCommandsTakeTheBoundAPI binds a recording API in the store's place:
// the commands succeed with no home and no DSN, so they opened no store,
// and each made exactly the API calls listed, tenant-free.
func TestCommandsTakeTheBoundAPI(t *testing.T) {
	run1 := "01900000-0000-7000-8000-0000000000aa"
	cases := []struct {
		args   []string
		stdout string
		calls  []string
	}{
		{[]string{"remember", "--kind", "decision", "--topic", "t", "--project", "p", "--scope", "s", "--session-run", run1, "a", "b"},
			recordedID.String() + "\n", []string{"Remember decision/t/a b/p/s/" + run1 + "/user_cli"}},
		{[]string{"resolve", "m1", "--session-run", run1}, recordedID.String() + " resolved\n", []string{"Resolve m1/" + run1 + "/user_cli"}},
		{[]string{"unresolve", "m1"}, recordedID.String() + " open\n", []string{"Unresolve m1//user_cli"}},
		{[]string{"archive", "m1"}, recordedID.String() + " archived\n", []string{"Archive m1//user_cli"}},
		{[]string{"briefing", "--project", "p"}, "recorded briefing\n", []string{"Briefing p", "Records p"}},
		{[]string{"briefing", "--project", "p", "--json"}, "\"text\": \"recorded briefing\\n\"", []string{"Briefing p"}},
	}
	for _, tc := range cases {
		api := &recordingAPI{}
		env := &Env{Tenant: "local", noHome: errors.New("none in this test")}
		stdout, stderr, status := run(t, env, tc.args, kong.BindTo(api, (*continuity.API)(nil)))
		if status != exitOK || !strings.Contains(stdout, tc.stdout) {
			t.Errorf("%v: status %d, stdout %q, want %q\nstderr: %s", tc.args, status, stdout, tc.stdout, stderr)
		}
		if !slices.Equal(api.calls, tc.calls) {
			t.Errorf("%v: calls %q, want %q", tc.args, api.calls, tc.calls)
		}
	}
}

// TestExitStatus pins the statuses --help documents: usage errors exit 2
// with the error and the usage on stderr and nothing on stdout.
func TestExitStatus(t *testing.T) {
	home := []string{"BATON_HOME=" + t.TempDir()}
	cases := []struct {
		name   string
		args   []string
		status int
		stdout string // a substring; "" means stdout must be empty
		stderr []string
	}{
		{"a wrong flag", []string{"briefing", "--nope"}, 2, "", []string{"baton: error: unknown flag --nope", "Usage: baton briefing"}},
		{"an unknown command", []string{"nope"}, 2, "", []string{"baton: error: unexpected argument nope", "Usage: baton"}},
		{"a missing argument", []string{"resolve"}, 2, "", []string{`baton: error: expected "<memory-id>"`, "Usage: baton resolve <memory-id>"}},
		{"a missing flag", []string{"bottle", "render"}, 2, "", []string{"baton: error: missing flags: --transcript", "Usage: baton bottle render"}},
		{"a value outside the enum", []string{"remember", "--kind", "idea", "--topic", "t", "x"}, 2, "", []string{`but got "idea"`}},
		{"a command that fails", []string{"bottle", "show", "never-bottled"}, 1, "", []string{"baton: bottle show: no bottle for session never-bottled"}},
		{"success", []string{"version"}, 0, "baton ", nil},
		{"--help documents the statuses", []string{"--help"}, 0, "Exit status: 0 on success; 1 when a command fails; 2 on a usage error", nil},
	}
	for _, tc := range cases {
		stdout, stderr, status := baton(t, t.TempDir(), home, tc.args...)
		if status != tc.status {
			t.Errorf("%s: exit status %d, want %d\nstderr: %s", tc.name, status, tc.status, stderr)
		}
		// Help is wrapped to the terminal's width: compare words, not lines.
		if tc.stdout == "" && stdout != "" || !strings.Contains(strings.Join(strings.Fields(stdout), " "), tc.stdout) {
			t.Errorf("%s: stdout %q, want %q", tc.name, stdout, tc.stdout)
		}
		if tc.stderr == nil && stderr != "" {
			t.Errorf("%s: stderr %q, want none", tc.name, stderr)
		}
		for _, want := range tc.stderr {
			if !strings.Contains(stderr, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, want, stderr)
			}
		}
	}
}

// refusingAPI answers the doctor with an error whose message a team server
// wrote.
type refusingAPI struct {
	continuity.API
	message string
}

func (r refusingAPI) Doctor(context.Context) (continuity.DoctorReport, error) {
	return continuity.DoctorReport{}, &continuity.Error{Code: continuity.CodeForbidden, Message: r.message}
}

// TestErrorsShowFormatCharacters: a command's error reaches the person's
// terminal, on one line, with each format character, each other invisible
// character and each control character shown as its code
// point (a server's message, text a person typed), at the start, in the
// middle and at the end, beside invalid UTF-8: an escape sequence cannot
// clear the screen or retitle the window, a carriage return cannot
// overwrite the "baton:" that names the line, a newline cannot start a
// line that reads as baton's.
func TestErrorsShowFormatCharacters(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		message string
		status  int
		want    string
	}{
		{"a server's message", []string{"doctor"}, "\u202eno\u2066x\u2069 entry\u200b\xff\ufeff", exitFailure,
			"baton: forbidden: <U+202E>no<U+2066>x<U+2069> entry<U+200B>\uFFFD<U+FEFF>\n"},
		{"a server's message with controls", []string{"doctor"}, "\x1b]0;pwned\x07\rfine\u009b2J\u3164\u2028", exitFailure,
			"baton: forbidden: <U+001B>]0;pwned<U+0007><U+000D>fine<U+009B>2J<U+3164><U+2028>\n"},
		{"an argument a person typed", []string{"nosuch\x1b[2J\rx"}, "", exitUsage,
			"baton: error: unexpected argument nosuch<U+001B>[2J<U+000D>x\n"},
		{"a message that would start a line of its own", []string{"doctor"}, "no\nbaton: healthy\t", exitFailure,
			"baton: forbidden: no<U+000A>baton: healthy<U+0009>\n"},
	}
	for _, tc := range cases {
		env := &Env{Tenant: "local", noHome: errors.New("none in this test")}
		_, stderr, status := run(t, env, tc.args, kong.BindTo(refusingAPI{message: tc.message}, (*continuity.API)(nil)))
		if _, last, _ := strings.Cut(stderr, "\n\nbaton: error:"); last != "" {
			stderr = "baton: error:" + last
		}
		if status != tc.status || stderr != tc.want {
			t.Errorf("%s: status %d, stderr %q; want %d, %q", tc.name, status, stderr, tc.status, tc.want)
		}
	}
}
