package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
	f, err := parseTrustFile("config.toml", readFixture(t, "codex-config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	stanzas := f.stanzas
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
	want, err := tableHarness(t, "codex").trustEntries(codexKeyPath(hooks.Path), hooks.After)
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
		{`[hooks.state."a".b]`, "", false},
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

// stateHeader returns the key of line when it is a trust table's header.
func stateHeader(line string) (string, bool) {
	f, err := parseTrustFile("config.toml", []byte(line))
	if err != nil || len(f.stanzas) != 1 {
		return "", false
	}
	return f.stanzas[0].entry.key, true
}

// TestCodexConfigRefused: a config.toml baton would break by appending its
// trust tables, or that is not TOML, is refused by install and uninstall
// alike with an invalid error naming the file and the line; nothing is
// planned.
func TestCodexConfigRefused(t *testing.T) {
	tests := []struct {
		name, content, msg string
	}{
		{"hooks.state an inline table", "model = \"x\"\n[hooks]\nstate = { }\n", "line 3: state = … defines hooks.state"},
		{"hooks.state a dotted key", "hooks.state.\"k\".trusted_hash = \"x\"\n", "line 1: hooks.state.k.trusted_hash = … defines hooks.state"},
		{"a dotted key under [hooks]", "[hooks]\nstate.\"k\".trusted_hash = \"x\"\n", "line 2: state.k.trusted_hash = …"},
		{"a key under [hooks.state]", "[hooks.state]\n\"/h/hooks.json:stop:0:0\" = { trusted_hash = \"x\" }\n", "line 2: \"/h/hooks.json:stop:0:0\" = …"},
		{"hooks a value", "hooks = { state = {} }\n", "line 1: hooks = … defines hooks"},
		{"hooks an array of tables", "[[hooks]]\nx = 1\n", "line 1: [[hooks]]"},
		{"trust an array of tables", "[[hooks.state.\"k\"]]\nx = 1\n", "line 1: [[hooks.state.k]]"},
		{"unterminated basic string", "model = \"x\n", "line 1: a string is not terminated"},
		{"unterminated literal string", "a = 1\nmodel = 'x\n[features]\n", "line 2: a string is not terminated"},
		{"a table defined twice", "[features]\nhooks = true\n\n[features]\nx = 1\n", "line 4: the table [features] is defined twice (lines 1 and 4)"},
		{"an unclosed array", "a = [1,\n2\n", "line 1: this [ is never closed"},
		{"an unclosed multi-line string", "a = 1\nb = \"\"\"x\n", "line 2: a multi-line string is never closed"},
		{"a multi-line string ending the file in a backslash", "a = 1\nb = \"\"\"x\\", "line 2: a multi-line string is never closed"},
		{"a bare word", "model\n", "line 1: expected = after the key model"},
		{"text after a value", "a = \"x\" y\n", "line 1: unexpected text \"y\""},
		{"byte order mark", "\ufeffmodel = \"x\"\n", "byte order mark"},
		{"a table quoted two ways", "[projects.\"/p\"]\ntrust_level = \"trusted\"\n[projects.'/p']\ntrust_level = \"untrusted\"\n", "line 3: the table [projects.\"/p\"] is defined twice (lines 1 and 3)"},
		{"a trust table quoted two ways", "[hooks.state.\"/h:stop:0:0\"]\ntrusted_hash = \"x\"\n[hooks.state.'/h:stop:0:0']\ntrusted_hash = \"x\"\n", "line 3: the table [hooks.state.\"/h:stop:0:0\"] is defined twice"},
		{"a Windows path unescaped in a basic string", "[projects.\"C:\\Users\\x\"]\ntrust_level = \"trusted\"\n", "line 1: a string is not terminated on its line, or holds an escape TOML does not have"},
		{"not UTF-8", "a = \"\xff\"\n", "is not UTF-8 text"},
		{"a NUL between statements", "a = 1\n\x00\n", "line 2: expected a key or a [table] header"},
		{"a carriage return ending the file", "a = 1\n# c\r", "line 2: a carriage return not followed by a newline"},
		{"a carriage return in a comment", "a = 1 # c\rd\n", "line 1: a carriage return not followed by a newline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, tomlPath, o := codexCase(t, tt.content)
			for name, plan := range map[string]func(InstallOptions) (*InstallPlan, error){"install": PlanInstall, "uninstall": PlanUninstall} {
				p, err := plan(o)
				if p != nil || !errors.Is(err, errMalformed) {
					t.Fatalf("%s: %v, %v; want a malformed error", name, p, err)
				}
				if msg := err.Error(); !strings.Contains(msg, tomlPath) || !strings.Contains(msg, tt.msg) {
					t.Errorf("%s: error %q does not name the file and %q", name, msg, tt.msg)
				}
			}
			if got, _ := os.ReadFile(tomlPath); string(got) != tt.content {
				t.Error("config.toml changed")
			}
		})
	}
}

// TestCodexConfigRoundTrip: whatever valid TOML config.toml holds (strings
// over lines that look like tables, arrays over lines, dates, CRLF, no final
// newline), install writes a file TOML reads (checked with Python's tomllib
// where there is one), a second install changes nothing, and uninstall gives
// back the bytes.
func TestCodexConfigRoundTrip(t *testing.T) {
	for name, content := range map[string]string{
		"no final newline":           "model = \"x\"",
		"no final newline, comment":  "model = \"x\" # the model",
		"a header in a string":       "notes = \"\"\"\n[hooks.state.\"x\"]\ntrusted_hash = \"\"\"\"\nmodel = 'y'\n",
		"an array over lines":        "a = [\n  1, # one\n  \"]\", { b = [2] },\n]\n",
		"a date with a space":        "d = 1979-05-27 07:32:00Z\n",
		"a hooks table":              "[hooks]\nother = 1\n",
		"another hooks.json's trust": "[hooks.state.\"/elsewhere/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:x\"\n",
		"CRLF":                       "model = \"x\"\r\n[features]\r\nhooks = true\r\n",
		"CRLF, no final newline":     "model = \"x\"\r\n[features]\r\nhooks = true",
		"a header in a literal":      "notes = '''\n[hooks.state.\"x\"]\ntrusted_hash = 'y'\n'''\n",
		"baton's stanza in a string": "notes = \"\"\"\n" + trustMarker + "\n[hooks.state.\"x\"]\ntrusted_hash = \"y\"\n\"\"\"\n",
		"inline tables":              "a = { b = 1, c = { d = [1, '2'] } }\n",
		"arrays of tables":           "[[x]]\na = 1\n\n[[x]]\na = 2\n",
		"dotted keys":                "projects.\"/p\".trust_level = \"trusted\"\nhooks.other = 1\n",
		"quoted keys with escapes":   "\"a\\u0022b\" = 1\n\"c\\\\d\" = 2\n",
		"comments after values":      "a = 1 # one\nb = \"#\" # \"two\"\n[c] # three\n",
		"tabs":                       "\ta\t=\t1\t# c\n[\tb\t]\n",
		"projects trusted or not":    "[projects.\"/p\"]\ntrust_level = \"untrusted\"\n\n[projects.'C:\\Users\\x']\ntrust_level = \"trusted\"\n\n[projects.\"C:\\\\Users\\\\y\"]\ntrust_level = \"trusted\"\n",
		"empty":                      "",
	} {
		t.Run(name, func(t *testing.T) {
			_, tomlPath, o := codexCase(t, content)
			if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
				t.Fatal(err)
			}
			installed, _ := os.ReadFile(tomlPath)
			checkTOML(t, tomlPath)
			if again := mustPlan(t, PlanInstall, o); again.Changed() {
				t.Errorf("a second install changes")
			}
			if err := mustPlan(t, PlanUninstall, o).Apply(installNow.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(tomlPath); string(got) != content {
				t.Errorf("after install and uninstall:\n%q\nwant\n%q\ninstalled:\n%s", got, content, installed)
			}
		})
	}
}

// checkTOML fails t when Python's tomllib cannot read the file at path; it
// checks nothing where there is no python3 with tomllib.
func checkTOML(t *testing.T, path string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import tomllib").Run() != nil {
		return
	}
	if out, err := exec.Command(py, "-c", "import sys, tomllib; tomllib.load(open(sys.argv[1], 'rb'))", path).CombinedOutput(); err != nil {
		data, _ := os.ReadFile(path)
		t.Errorf("%s is not valid TOML: %s\n%s", path, out, data)
	}
}

// TestCodexTrustFollowsShiftedHooks: when removing baton's entry (uninstall,
// or install dropping a stale duplicate) shifts the person's hooks up, their
// trust tables move to the new positions with the same hash, in the same
// plan; where nothing moves config.toml comes back as it was; a table in
// the way is a conflict.
func TestCodexTrustFollowsShiftedHooks(t *testing.T) {
	batonCmd := func(bin string) string {
		return quoteJSON(mustQuote(t, bin, quoteCmdOrPowerShell) + " hook stop --harness codex")
	}
	baton := `{"type": "command", "command": ` + batonCmd(testBinary) + `, "timeout": 30}`
	stale := `{"type": "command", "command": ` + batonCmd("/old/baton") + `, "timeout": 30}`
	users := `{"type": "command", "command": "/usr/bin/notify", "timeout": 5}`
	hash := codexTrustHash("stop", nil, codexHandler{Command: "/usr/bin/notify", Timeout: new(float64(5))})
	tests := []struct {
		name, stop string // the Stop list
		install    bool
		from, to   string // the person's trust key's position before and after
		extra      string // more of config.toml
		conflict   bool
	}{
		{"uninstall: a group after baton's", `[{"hooks": [` + baton + `]}, {"hooks": [` + users + `]}]`, false, "1:0", "0:0", "", false},
		{"uninstall: a handler after baton's in its group", `[{"hooks": [` + baton + `, ` + users + `]}]`, false, "0:1", "0:0", "", false},
		{"uninstall: a group before baton's", `[{"hooks": [` + users + `]}, {"hooks": [` + baton + `]}]`, false, "0:0", "0:0", "", false},
		{"install: a stale duplicate before the person's", `[{"hooks": [` + baton + `]}, {"hooks": [` + stale + `]}, {"hooks": [` + users + `]}]`, true, "2:0", "1:0", "", false},
		{"uninstall: a table in the way", `[{"hooks": [` + baton + `]}, {"hooks": [` + users + `]}]`, false, "1:0", "", "\n[hooks.state.\"$HOOKS:stop:0:0\"]\ntrusted_hash = \"sha256:1\"\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, tomlPath, o := codexCase(t, "")
			hooksPath := filepath.Join(home, ".codex", "hooks.json")
			writeFile(t, hooksPath, []byte(`{"hooks": {"Stop": `+tt.stop+`}}`))
			stanza := func(pos string) string {
				return "[hooks.state." + quoteTOML(hooksPath+":stop:"+pos) + "]\ntrusted_hash = " + quoteTOML(hash) + "\n"
			}
			toml := "model = \"gpt-5\"\n\n" + stanza(tt.from) + strings.ReplaceAll(tt.extra, "$HOOKS", hooksPath)
			writeFile(t, tomlPath, []byte(toml))
			plan := PlanUninstall
			if tt.install {
				plan = PlanInstall
			}
			p, err := plan(o)
			if tt.conflict {
				if err == nil || !strings.Contains(err.Error(), hooksPath+":stop:0:0") {
					t.Fatalf("plan: %v; want a conflict naming the key in the way", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Apply(installNow); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(tomlPath)
			if !strings.Contains(string(got), stanza(tt.to)) || tt.from != tt.to && strings.Contains(string(got), hooksPath+":stop:"+tt.from+`"`) {
				t.Errorf("config.toml does not trust the person's hook at %s only:\n%s", tt.to, got)
			}
			if !tt.install && string(got) != strings.Replace(toml, hooksPath+":stop:"+tt.from, hooksPath+":stop:"+tt.to, 1) {
				t.Errorf("uninstall changed more than the key:\n%s\nwas\n%s", got, toml)
			}
			checkTOML(t, tomlPath)
		})
	}
}

// TestCodexTrustKeysResolveLinks: Codex canonicalizes CODEX_HOME, so the
// trust keys name hooks.json with the links in its directory resolved, also
// when that directory does not exist yet (a dry run: its existing parent
// resolved).
func TestCodexTrustKeysResolveLinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"real-codex", "real-parent"} {
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"codex-link": "real-codex", "parent-link": "real-parent"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skip(err)
		}
	}
	tests := []struct{ codexHome, keyDir string }{
		{filepath.Join(root, "codex-link"), filepath.Join(root, "real-codex")},
		{filepath.Join(root, "parent-link", "codex"), filepath.Join(root, "real-parent", "codex")},
		{filepath.Join(root, "real-codex"), filepath.Join(root, "real-codex")},
	}
	for _, tt := range tests {
		o := InstallOptions{Harness: "codex", Binary: testBinary, Home: root, Getenv: func(k string) string {
			if k == "CODEX_HOME" {
				return tt.codexHome
			}
			return ""
		}}
		p := mustPlan(t, PlanInstall, o)
		keys := trustKeys(string(p.Changes[0].After))
		if len(keys) != 5 {
			t.Fatalf("CODEX_HOME=%s: %d trust keys, want 5: %v", tt.codexHome, len(keys), keys)
		}
		for _, k := range keys {
			if !strings.HasPrefix(k, filepath.Join(tt.keyDir, "hooks.json")+":") {
				t.Errorf("CODEX_HOME=%s: trust key %s, want it under %s", tt.codexHome, k, tt.keyDir)
			}
		}
	}
}

// TestCodexTrustKeepsKeysCodexAddsToBatons: Codex writes enabled = false
// into a hook's trust table when the person turns the hook off in /hooks.
// Added to one of baton's tables, the key is that table's: uninstall takes
// it out with the table (it used to stay behind, under whatever table came
// before, turning off the person's hook there), and an install that
// rewrites the table (a moved binary) keeps it in it.
func TestCodexTrustKeepsKeysCodexAddsToBatons(t *testing.T) {
	users := "[hooks.state.\"/elsewhere/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:x\"\n"
	tests := []struct{ name, added string }{
		{"enabled after the hash", "enabled = false\n"},
		{"a comment, then enabled", "# off for now\nenabled = false\n"},
		{"a value over lines", "note = \"\"\"\n[hooks.state.\"x\"]\n\"\"\"\nenabled = false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, tomlPath, o := codexCase(t, users)
			if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
				t.Fatal(err)
			}
			installed, _ := os.ReadFile(tomlPath)
			lines := strings.SplitAfter(string(installed), "\n")
			at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, ":stop:0:0\"]") && !strings.Contains(l, "/elsewhere/") })
			if at < 0 || !strings.HasPrefix(lines[at+1], "trusted_hash") {
				t.Fatalf("no stop table of baton's:\n%s", installed)
			}
			edited := strings.Join(slices.Insert(lines, at+2, tt.added), "")
			writeFile(t, tomlPath, []byte(edited))

			// Reinstalled from a moved binary: the table is rewritten, the
			// key stays in it.
			moved := o
			moved.Binary = "/usr/local/bin/baton"
			if err := mustPlan(t, PlanInstall, moved).Apply(installNow.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			checkTOML(t, tomlPath)
			got, _ := os.ReadFile(tomlPath)
			f, err := parseTrustFile(tomlPath, got)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range f.stanzas {
				body := strings.Join(f.lines[s.hash+1:s.last+1], "")
				switch want := strings.HasSuffix(s.entry.key, ":stop:0:0") && s.mine; {
				case want && body != tt.added:
					t.Errorf("baton's stop table after a reinstall holds %q after its hash, want %q:\n%s", body, tt.added, got)
				case !want && body != "":
					t.Errorf("%s holds %q after its hash:\n%s", s.entry.key, body, got)
				}
			}

			if err := mustPlan(t, PlanUninstall, moved).Apply(installNow.Add(2 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(tomlPath); string(got) != users {
				t.Errorf("after uninstall:\n%s\nwant\n%s", got, users)
			}
		})
	}
}

// BenchmarkScanTOML scans a config.toml of small tables, and one of a
// single line (an array of short strings), each at 1 MB and at 10 MB; the
// second's MB/s is the first's when the scan is linear. It was a ninth of
// it for the tables (0.28 MB/s, 37 s for the 10 MB) when every statement
// counted the lines before it from the start of the file, and quadratic
// over the line (0.8 MB/s for 400 KB) when every string of it looked for
// the line's end first:
//
//	go test ./adapters/hook -run '^$' -bench ScanTOML
func BenchmarkScanTOML(b *testing.B) {
	shapes := []struct {
		name, start, end string
		piece            func(at int) string // what goes at offset at
	}{
		{"tables", "", "", func(at int) string { return fmt.Sprintf("[t%d]\nk = %q # c\n", at, strings.Repeat("x", 80)) }},
		{"one-line", "a = [", "]\n", func(int) string { return `"x", ` }},
	}
	for _, shape := range shapes {
		for _, size := range []int{1 << 20, 10 << 20} {
			var src strings.Builder
			src.WriteString(shape.start)
			for src.Len() < size {
				src.WriteString(shape.piece(src.Len()))
			}
			src.WriteString(shape.end)
			b.Run(fmt.Sprintf("%s-%dMB", shape.name, size>>20), func(b *testing.B) {
				b.SetBytes(int64(src.Len()))
				for b.Loop() {
					if _, err := scanTOML("config.toml", []byte(src.String())); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// FuzzInstallTOML: whatever config.toml holds ($HOOKS in it standing for
// the hooks.json's path, so that it may hold trust tables of baton's and
// the person's for baton's hooks), installing the Codex hooks (beside a
// hooks.json of the person's, or none) either refuses it, as invalid or as
// a conflict, naming it and writing nothing, or writes a file the scanner
// reads back trusting each of baton's hooks once and keeping every byte of
// it but baton's old tables; a second install changes nothing; and
// uninstall gives back the file byte for byte, less the tables of baton's
// it held (as uninstalling it would have).
func FuzzInstallTOML(f *testing.F) {
	stanza := func(pos, hash, after string) string {
		return "\n" + trustMarker + "\n[hooks.state.\"$HOOKS:stop:" + pos + "\"]\ntrusted_hash = \"" + hash + "\"\n" + after
	}
	for _, s := range []string{string(readFixture(f, "codex-config.toml")), "model = \"x\"", "a = 1\r\n[b]\r\nc = 2\r\n",
		"s = \"\"\"\n[hooks.state.\"k\"]\ntrusted_hash = \"x\"\n\"\"\"\n", "l = '''\n[hooks]\n'''\n",
		"[projects.'/p']\ntrust_level = \"untrusted\"\n[[x]]\ny = { z = [1, '2'] } # c\n",
		"hooks.x = 1\n", "[hooks.state.\"C:\\\\Users\\\\x\\u0022\"]\ntrusted_hash = 'x'\n",
		"\ufeffa = 1\n", "a = 1\n# \x00\xff", "\ta\t=\t1\t#\n", "a = 1\n# c\r", "b = \"\"\"x\\",
		"a = 1\n" + stanza("0:0", "sha256:0", "enabled = false\n"), stanza("1:0", "sha256:0", "") + "[x]\n", "a = 1" + stanza("0:0", "sha256:0", "enabled = false"),
		"[hooks.state.'$HOOKS:stop:0:0']\ntrusted_hash = 'sha256:0'\n"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, withHooks bool) {
		home, tomlPath, o := codexCase(t, "")
		hooksPath := filepath.Join(home, ".codex", "hooks.json")
		src = bytes.ReplaceAll(src, []byte("$HOOKS"), []byte(codexKeyPath(hooksPath)))
		writeFile(t, tomlPath, src)
		if withHooks {
			writeFile(t, hooksPath, readFixture(t, "codex-hooks.json"))
		}
		before := snapshot(t, home)
		p, err := PlanInstall(o)
		if err != nil {
			code := continuity.ErrorCode(err)
			if !(errors.Is(err, errMalformed) && code == continuity.CodeInvalid || code == continuity.CodeConflict) || !strings.Contains(err.Error(), tomlPath) {
				t.Fatalf("install: %v; want an invalid error or a conflict naming %s", err, tomlPath)
			}
			if now := snapshot(t, home); !sameFiles(before, now) {
				t.Fatal("a refused install wrote files")
			}
			return
		}
		u := mustPlan(t, PlanUninstall, o) // planned, not applied: config.toml without baton's tables
		left := u.Changes[len(u.Changes)-1].After
		if err := p.Apply(installNow); err != nil {
			t.Fatal(err)
		}
		installed, _ := os.ReadFile(tomlPath)
		if bytes.Equal(left, src) && !bytes.HasPrefix(installed, src) {
			t.Fatalf("install changed the file's own bytes:\n%q\nto\n%q", src, installed)
		}
		hooks, _ := os.ReadFile(hooksPath)
		want, err := tableHarness(t, "codex").trustEntries(codexKeyPath(hooksPath), hooks)
		if err != nil {
			t.Fatal(err)
		}
		tf, err := parseTrustFile(tomlPath, installed)
		if err != nil {
			t.Fatalf("install wrote a file the scanner refuses: %v\n%q", err, installed)
		}
		for _, w := range want {
			var tables, trusting int
			for _, s := range tf.stanzas {
				if s.entry.key == w.key {
					tables++
					if s.entry.hash == w.hash {
						trusting++
					}
				}
			}
			if tables != 1 || trusting != 1 {
				t.Fatalf("installed config.toml has %d tables for %s, %d with %s:\n%q", tables, w.key, trusting, w.hash, installed)
			}
		}
		if again := mustPlan(t, PlanInstall, o); again.Changed() {
			t.Fatalf("a second install changes:\n%q", installed)
		}
		if err := mustPlan(t, PlanUninstall, o).Apply(installNow.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if back, _ := os.ReadFile(tomlPath); !bytes.Equal(back, left) {
			t.Fatalf("install then uninstall gives\n%q\nnot\n%q\ninstalled:\n%q", back, left, installed)
		}
	})
}
