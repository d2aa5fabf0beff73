package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
)

// TestCodexTrustRecipe recomputes the eight trust entries of the real
// config.toml from the real hooks.json they trust (Codex 0.169.0 ran those
// hooks, so its hashes are Codex's own): keys, event names, matcher, the
// SessionEnd clamp (timeout 30 hashed as 3).
func TestCodexTrustRecipe(t *testing.T) {
	var cfg struct {
		Hooks map[string][]struct {
			Matcher *string        `json:"matcher"`
			Hooks   []codexHandler `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(readFixture(t, "codex-hooks.json"), &cfg); err != nil {
		t.Fatal(err)
	}
	snake := map[string]string{"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use", "PostCompact": "post_compact"}
	for _, ev := range tableHarness(t, "codex").registered() {
		snake[ev.Name] = ev.TrustName
	}
	got := map[string]string{}
	for event, groups := range cfg.Hooks {
		for gi, g := range groups {
			for hi, h := range g.Hooks {
				got[fmt.Sprintf("/home/dev/.codex/hooks.json:%s:%d:%d", snake[event], gi, hi)] = codexTrustHash(snake[event], g.Matcher, h)
			}
		}
	}
	stanzas := scanTrust(textLines(string(readFixture(t, "codex-config.toml"))))
	if len(stanzas) != 8 || len(got) != 8 {
		t.Fatalf("%d trust tables in config.toml, %d hooks in hooks.json; want 8 each", len(stanzas), len(got))
	}
	for _, s := range stanzas {
		if s.mine {
			t.Errorf("%s: taken for baton's", s.entry.key)
		}
		if got[s.entry.key] != s.entry.hash {
			t.Errorf("%s: computed %s, Codex's %s", s.entry.key, got[s.entry.key], s.entry.hash)
		}
	}
}

// codexCase is a Codex home with config.toml holding extra, and no
// hooks.json yet.
func codexCase(t *testing.T, extra string) (home, tomlPath string, o InstallOptions) {
	t.Helper()
	home = t.TempDir()
	tomlPath = filepath.Join(home, ".codex", "config.toml")
	writeFile(t, tomlPath, []byte(extra))
	return home, tomlPath, InstallOptions{Harness: "codex", Binary: testBinary, Home: home}
}

// TestCodexTrustTheUsersOwn: a table the user already has for baton's slot
// is theirs: with baton's hash it is used and kept by uninstall; with another
// hash install refuses, since Codex would read a table defined twice.
func TestCodexTrustTheUsersOwn(t *testing.T) {
	_, tomlPath, o := codexCase(t, "")
	hooks := mustPlan(t, PlanInstall, o).Changes[1]
	want, err := tableHarness(t, "codex").trustEntries(hooks.Path, hooks.After)
	if err != nil {
		t.Fatal(err)
	}
	stop := want[2]
	users := fmt.Sprintf("model = \"gpt-5\"\n\n[hooks.state.%s]\ntrusted_hash = %s\n", quoteTOML(stop.key), quoteTOML(stop.hash))
	writeFile(t, tomlPath, []byte(users))
	p := mustPlan(t, PlanInstall, o)
	toml := string(p.Changes[0].After)
	if n := strings.Count(toml, trustMarker); n != 4 {
		t.Errorf("baton wrote %d trust tables beside the user's, want 4:\n%s", n, toml)
	}
	if strings.Count(toml, stop.key) != 1 {
		t.Errorf("the Stop slot is trusted twice:\n%s", toml)
	}
	if err := p.Apply(installNow); err != nil {
		t.Fatal(err)
	}
	if err := mustPlan(t, PlanUninstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(tomlPath); string(got) != users {
		t.Errorf("after uninstall:\n%s\nwant the user's file:\n%s", got, users)
	}

	other := strings.Replace(users, stop.hash, "sha256:"+strings.Repeat("0", 64), 1)
	writeFile(t, tomlPath, []byte(other))
	_, err = PlanInstall(o)
	if continuity.ErrorCode(err) != continuity.CodeConflict || !strings.Contains(err.Error(), stop.key) {
		t.Fatalf("install over another hash for baton's slot: %v, want a conflict naming the key", err)
	}
}

// TestCodexTrustKeepsWhatCodexWrites: Codex rewrites config.toml (toml_edit,
// when a person trusts a folder) and may append its tables after baton's;
// uninstall takes out baton's stanzas and leaves Codex's, wherever they are.
func TestCodexTrustKeepsWhatCodexWrites(t *testing.T) {
	_, tomlPath, o := codexCase(t, "model = \"gpt-5\"\n")
	if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadFile(tomlPath)
	projects := "\n[projects.\"/home/dev/project\"]\ntrust_level = \"trusted\"\n"
	writeFile(t, tomlPath, append(installed, projects...))
	if err := mustPlan(t, PlanUninstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(tomlPath); string(got) != "model = \"gpt-5\"\n"+projects {
		t.Errorf("after uninstall:\n%s", got)
	}
}

// TestCodexProjectTrustIsSeparate: the user's and a project's hooks.json
// are trusted under their own paths; uninstalling one leaves the other's.
func TestCodexProjectTrustIsSeparate(t *testing.T) {
	home, tomlPath, o := codexCase(t, "")
	o.Project = filepath.Join(home, "project")
	if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	userOnly, _ := os.ReadFile(tomlPath)
	po := o
	po.Scope = ScopeProject
	if err := mustPlan(t, PlanInstall, po).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	both, _ := os.ReadFile(tomlPath)
	if strings.Count(string(both), trustMarker) != 10 {
		t.Fatalf("want both scopes trusted:\n%s", both)
	}
	if err := mustPlan(t, PlanUninstall, po).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(tomlPath); string(got) != string(userOnly) {
		t.Errorf("uninstalling the project's hooks changed the user's trust:\n%s", got)
	}
}

// TestStateHeader reads the table headers Codex and people write.
func TestStateHeader(t *testing.T) {
	tests := []struct {
		line, key string
		ok        bool
	}{
		{`[hooks.state."/h/.codex/hooks.json:stop:0:0"]`, "/h/.codex/hooks.json:stop:0:0", true},
		{"  [ hooks . state . \"a:b\" ]  # mine\r\n", "a:b", true},
		{`[hooks.state.'C:\Users\me\.codex\hooks.json:stop:0:0']`, `C:\Users\me\.codex\hooks.json:stop:0:0`, true},
		{`[hooks.state."C:\\Users\\me\u0041"]`, `C:\Users\meA`, true},
		{`[hooks.state."a\"b"]`, `a"b`, true},
		{`[[hooks.state."a"]]`, "", false},
		{`[hooks.states."a"]`, "", false},
		{`[hooks.state]`, "", false},
		{`[hooks.state."a"] x = 1`, "", false},
		{`[hooks.state."a\q"]`, "", false},
		{`[hooks.state."unterminated]`, "", false},
		{`hooks.state."a".trusted_hash = "x"`, "", false},
	}
	for _, tt := range tests {
		key, ok := stateHeader(tt.line)
		if key != tt.key || ok != tt.ok {
			t.Errorf("stateHeader(%q) = %q, %v; want %q, %v", tt.line, key, ok, tt.key, tt.ok)
		}
	}
	for _, key := range []string{`C:\Users\me\.codex\hooks.json:stop:0:0`, "a\"b\tc\x7f", "/h/.codex/hooks.json:stop:0:0"} {
		if got, ok := stateHeader("[hooks.state." + quoteTOML(key) + "]"); !ok || got != key {
			t.Errorf("quoteTOML(%q) reads back as %q, %v", key, got, ok)
		}
	}
}
