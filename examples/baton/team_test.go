package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/continuity"
)

// teamKey is the API key of the team tenant the test servers know.
const (
	teamKey    = "team-key-0123456789"
	teamTenant = "team"
)

// startTeamServer serves a fresh store in-process with teamKey and returns
// the server and the team tenant's client of it.
func startTeamServer(t *testing.T) (*served, *httpapi.Client) {
	t.Helper()
	env := testEnv(t)
	env.APIKeys = teamKey + "=" + teamTenant
	s := startServe(t, env, ServeCmd{})
	return s, httpapi.NewClient(s.url(), teamKey, httpapi.ClientOptions{Timeout: time.Minute})
}

// TestTeamServerSameOutput runs the same commands against the local store
// and, with BATON_SERVER_URL and BATON_API_KEY, against a team server:
// each prints the same thing (ids and times aside) and exits the same way,
// the team run opens no store, and its writes are the key's tenant's.
func TestTeamServerSameOutput(t *testing.T) {
	s, team := startTeamServer(t)
	script := [][]string{
		{"remember", "--kind", "commitment", "--topic", "ship", "ship", "it"},
		{"briefing"},
		{"briefing", "--project", "elsewhere"},
		{"resolve", "{id}"},
		{"resolve", "{id}"},
		{"unresolve", "{id}"},
		{"archive", "{id}", "--session-run", ""},
		{"briefing", "--json"},
		{"resolve", "nope"},
		{"remember", "--topic", "t", "--session-run", "bad", "x"},
		{"resolve", "01900000-0000-7000-8000-000000000099"},
		{"bottle", "show", "never-bottled"},
	}
	// volatile matches what differs between two runs of the same
	// commands: ids and times. (Compiled here: a package variable would
	// count against TestInitIsCheap.)
	volatile := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	type answer struct {
		stdout, stderr string
		status         int
	}
	play := func(env *Env) []answer {
		env.Dir = filepath.Join(env.Dir, "p")
		if err := os.Mkdir(env.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var id string
		var out []answer
		for _, args := range script {
			args = append([]string(nil), args...)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "{id}", id)
			}
			stdout, stderr, status := run(t, env, args)
			if id == "" {
				id = strings.TrimSpace(stdout)
			}
			out = append(out, answer{volatile.ReplaceAllString(stdout, "<v>"), volatile.ReplaceAllString(stderr, "<v>"), status})
		}
		return out
	}
	local := play(testEnv(t))
	remote := testEnv(t)
	remote.ServerURL, remote.APIKey = s.url(), teamKey
	got := play(remote)
	for i := range script {
		if got[i] != local[i] {
			t.Errorf("%v:\nteam server: %+v\nlocal:       %+v", script[i], got[i], local[i])
		}
	}
	if local[0].status != exitOK || local[3].stdout != "<v> resolved\n" || local[4].status != exitFailure {
		t.Errorf("the script did not run as expected locally: %+v", local)
	}
	if _, err := os.Stat(remote.DSN); err == nil {
		t.Error("a command run against the team server opened the local store")
	}
	rs, err := team.Briefing(context.Background(), continuity.BriefingParams{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Items) != 0 { // the one commitment ended archived
		t.Errorf("the team tenant's briefing holds %+v, want the archived commitment gone", rs.Items)
	}
	if !strings.Contains(s.log.String(), `route="POST /api/v1/memories" status=201`) {
		t.Errorf("the server did not answer the remember:\n%s", s.log.String())
	}
}

// TestTeamServerConfig: a BATON_SERVER_URL or BATON_API_KEY baton cannot
// use fails every command, naming the variable to fix and never echoing a
// credential; the hook still exits 0 with one line.
func TestTeamServerConfig(t *testing.T) {
	cases := []struct {
		name, url, key string
		want           string
	}{
		{"space alone", " ", "k", "BATON_SERVER_URL is blank"},
		{"a tab alone, without a key", "\t", "", "BATON_SERVER_URL is blank"},
		{"no scheme", "127.0.0.1:8377", "k", "BATON_SERVER_URL is not a URL"},
		{"no scheme, a host name", "baton.example.com", "k", "BATON_SERVER_URL has no http or https scheme"},
		{"another scheme", "ftp://baton.example.com", "k", "BATON_SERVER_URL has no http or https scheme"},
		{"no host", "http://", "k", "BATON_SERVER_URL names no host"},
		{"only a port", "http://:8377", "k", "BATON_SERVER_URL names no host"},
		{"credentials", "https://me:hunter2@baton.example.com", "k", "BATON_SERVER_URL carries credentials"},
		{"a query", "https://baton.example.com/?tenant=x", "k", "BATON_SERVER_URL has a query or a fragment"},
		{"a fragment", "https://baton.example.com/#x", "k", "BATON_SERVER_URL has a query or a fragment"},
		{"no key", "https://baton.example.com", "", "BATON_SERVER_URL is set but BATON_API_KEY is not"},
		{"a blank key", "https://baton.example.com", "  ", "BATON_SERVER_URL is set but BATON_API_KEY is not"},
		{"a key with a space", "https://baton.example.com", "a b", "BATON_API_KEY holds a space"},
		{"a key with a new line", "https://baton.example.com", "a\nX-Evil: 1", "BATON_API_KEY holds a space, a control character"},
		{"a key without a server", "", "k", "BATON_API_KEY is set but BATON_SERVER_URL is not"},
		{"a key longer than any a server holds", "https://baton.example.com", strings.Repeat("k", 100<<10), "BATON_API_KEY is longer than 4096 bytes"},
	}
	for _, tc := range cases {
		env := testEnv(t)
		env.ServerURL, env.APIKey = tc.url, tc.key
		_, stderr, status := run(t, env, []string{"briefing"})
		said := strings.TrimPrefix(stderr, "baton: ")
		if status != exitFailure || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: status %d, stderr %q, want 1 and %q", tc.name, status, stderr, tc.want)
		}
		if strings.Contains(stderr, "hunter2") {
			t.Errorf("%s: the error echoes the password: %q", tc.name, stderr)
		}
		if _, err := os.Stat(env.DSN); err == nil {
			t.Errorf("%s: the local store was opened", tc.name)
		}
		env.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"SessionStart","source":"startup"}`)
		stdout, stderr, status := run(t, env, []string{"hook", "--harness", "claude-code"})
		if status != exitOK || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, ": invalid: "+strings.TrimPrefix(said, "invalid: ")) {
			t.Errorf("%s: hook: status %d, stdout %q, stderr %q, want 0, nothing, one line ending with the command's error %q, as invalid", tc.name, status, stdout, stderr, said)
		}
	}
	for raw, want := range map[string]string{
		"http://127.0.0.1:8377":            "http://127.0.0.1:8377",
		" https://baton.example.com/team/": "https://baton.example.com/team/",
		"HTTPS://[::1]:8377":               "https://[::1]:8377",
	} {
		if got, err := serverURL(raw); err != nil || got != want {
			t.Errorf("serverURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

// TestTeamServerHook runs `baton hook` as a process against a team server:
// the startup's envelope carries the run id the server opened, and the
// hook's home holds no store. Against a server that is not there, the hook
// exits 0 at once with one line saying so.
func TestTeamServerHook(t *testing.T) {
	s, team := startTeamServer(t)
	home, cwd := t.TempDir(), t.TempDir()
	start := `{"session_id":"s1","cwd":` + quote(cwd) + `,"hook_event_name":"SessionStart","source":"startup"}`
	env := []string{"BATON_HOME=" + home, "BATON_SERVER_URL=" + s.url(), "BATON_API_KEY=" + teamKey}
	out, stderr, status := batonIn(t, cwd, env, start, "hook", "--harness", "claude-code")
	if status != exitOK || stderr != "" {
		t.Fatalf("hook against the server: status %d, stderr %q", status, stderr)
	}
	row, err := team.Session(context.Background(), defaultAgent, "s1")
	if err != nil {
		t.Fatalf("the server holds no session s1: %v", err)
	}
	if !strings.Contains(out, "sessionRunId is "+row.ID.String()) {
		t.Errorf("the envelope does not carry the server's run id %s: %s", row.ID, out)
	}
	if _, err := os.Stat(filepath.Join(home, "baton.db")); err == nil {
		t.Error("the hook opened a local store")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	begun := time.Now()
	env = []string{"BATON_HOME=" + home, "BATON_SERVER_URL=" + gone, "BATON_API_KEY=" + teamKey}
	out, stderr, status = batonIn(t, cwd, env, start, "hook", "--harness", "claude-code")
	if status != exitOK || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "baton hook: ") || !strings.Contains(stderr, httpapi.ErrUnreachable.Error()) {
		t.Errorf("hook against no server: status %d, stderr %q, want 0 and one line saying it is unreachable", status, stderr)
	}
	t.Logf("against no server: %s, stdout %q", time.Since(begun).Round(time.Millisecond), out)
}
