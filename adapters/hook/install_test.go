package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
)

var updateInstall = flag.Bool("update-install", false, "rewrite testdata/install/*.golden")

// installNow is the time the tests' backups are named for.
var installNow = time.Date(2026, 11, 30, 1, 18, 58, 0, time.UTC)

// testBinary is the baton binary the tests install: a path with a space.
const testBinary = "/opt/baton tools/bin/baton"

// installCase is a harness's configuration laid out under a temporary root
// (home/ is the user's home, project/ the project): each file is a fixture
// from testdata/install, or absent.
type installCase struct {
	name    string
	harness string
	scope   InstallScope
	files   map[string]string // path under the root → fixture name, "" for none
	// left is what uninstall leaves of a file that did not exist: its
	// content, or "" for no file.
	left map[string]string
}

var installCases = []installCase{
	{name: "claude-code-user", harness: "claude-code",
		files: map[string]string{"home/.claude/settings.json": "claude-settings.json"}},
	{name: "claude-code-project", harness: "claude-code", scope: ScopeProject,
		files: map[string]string{"project/.claude/settings.json": "codex-hooks.json"}},
	{name: "claude-code-compact", harness: "claude-code",
		files: map[string]string{"home/.claude/settings.json": "claude-compact.json"}},
	{name: "claude-code-new", harness: "claude-code",
		files: map[string]string{"home/.claude/settings.json": ""},
		left:  map[string]string{"home/.claude/settings.json": "{}\n"}},
	{name: "codex-user", harness: "codex",
		files: map[string]string{"home/.codex/hooks.json": "codex-hooks.json", "home/.codex/config.toml": "codex-config.toml"}},
	{name: "codex-project", harness: "codex", scope: ScopeProject,
		files: map[string]string{"project/.codex/hooks.json": "", "home/.codex/config.toml": "codex-config.toml"},
		left:  map[string]string{"project/.codex/hooks.json": "{}\n"}},
	{name: "codex-new", harness: "codex",
		files: map[string]string{"home/.codex/hooks.json": "", "home/.codex/config.toml": ""},
		left:  map[string]string{"home/.codex/hooks.json": "{}\n", "home/.codex/config.toml": ""}},
	{name: "gemini-user", harness: "gemini",
		files: map[string]string{"home/.gemini/settings.json": "gemini-settings.json"}},
	{name: "copilot-new", harness: "copilot",
		files: map[string]string{"project/.github/hooks/baton.json": ""}},
	{name: "cursor-user", harness: "cursor",
		files: map[string]string{"home/.cursor/hooks.json": "cursor-hooks.json"}},
}

// setup lays c's files out under a new root and returns the root and the
// options naming it.
func (c installCase) setup(t *testing.T) (string, InstallOptions) {
	t.Helper()
	root := t.TempDir()
	for rel, fixture := range c.files {
		if fixture == "" {
			continue
		}
		writeFile(t, filepath.Join(root, rel), readFixture(t, fixture))
	}
	return root, InstallOptions{Harness: c.harness, Scope: c.scope, Binary: testBinary,
		Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project")}
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "install", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshot reads every file under root, and where each link points.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&fs.ModeSymlink != 0 {
			dest, err := os.Readlink(path)
			files[path] = "-> " + dest
			return err
		}
		if !d.Type().IsRegular() {
			files[path] = d.Type().String()
			return nil
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			return false
		}
	}
	return true
}

// golden compares got with testdata/install/name. The goldens hold POSIX
// quoting and paths; on Windows, where commands are quoted for cmd.exe, the
// round trip is checked without them.
func golden(t *testing.T, name, got string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	path := filepath.Join("testdata", "install", name)
	if *updateInstall {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update-install)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from what was made:\n%s", path, got)
	}
}

func mustPlan(t *testing.T, plan func(InstallOptions) (*InstallPlan, error), o InstallOptions) *InstallPlan {
	t.Helper()
	p, err := plan(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInstallRoundTrip installs into each real configuration and uninstalls
// again: the dry run writes nothing and prints the golden diff; install
// backs up what it changes; a second install changes nothing; uninstall
// gives back every file byte for byte (key order, layout and all), and a
// file install created holds the skeleton, or is gone when it is baton's.
func TestInstallRoundTrip(t *testing.T) {
	for _, c := range installCases {
		t.Run(c.name, func(t *testing.T) {
			root, o := c.setup(t)
			before := snapshot(t, root)

			p := mustPlan(t, PlanInstall, o)
			var diff bytes.Buffer
			if err := p.Diff(&diff); err != nil {
				t.Fatal(err)
			}
			if now := snapshot(t, root); !sameFiles(before, now) {
				t.Fatal("planning and the dry run's diff wrote files")
			}
			golden(t, c.name+".diff.golden", strings.ReplaceAll(diff.String(), root, "$ROOT"))

			if err := p.Apply(installNow); err != nil {
				t.Fatal(err)
			}
			for _, ch := range p.Changes {
				if !ch.Changed() {
					continue
				}
				if ch.Before == nil {
					if ch.Backup != "" {
						t.Errorf("%s: a backup %s of no file", ch.Path, ch.Backup)
					}
					continue
				}
				if got, err := os.ReadFile(ch.Backup); err != nil || !bytes.Equal(got, ch.Before) {
					t.Errorf("%s: backup %s does not hold the file as it was (%v)", ch.Path, ch.Backup, err)
				}
				if want := ch.Path + ".baton-backup-20261130T011858Z"; ch.Backup != want {
					t.Errorf("backup = %s, want %s", ch.Backup, want)
				}
			}
			installed := snapshot(t, root)

			if again := mustPlan(t, PlanInstall, o); again.Changed() {
				var d bytes.Buffer
				_ = again.Diff(&d)
				t.Fatalf("a second install changes:\n%s", d.String())
			}

			u := mustPlan(t, PlanUninstall, o)
			var udiff bytes.Buffer
			_ = u.Diff(&udiff)
			if now := snapshot(t, root); !sameFiles(installed, now) {
				t.Fatal("planning the uninstall wrote files")
			}
			if err := u.Apply(installNow.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			for rel, fixture := range c.files {
				path := filepath.Join(root, rel)
				got, err := os.ReadFile(path)
				want, exists := before[path]
				if fixture == "" {
					want, exists = c.left[rel]
				}
				switch {
				case !exists && !errors.Is(err, fs.ErrNotExist):
					t.Errorf("%s: still there after uninstall (%v)", rel, err)
				case exists && err != nil:
					t.Errorf("%s: %v", rel, err)
				case exists && string(got) != want:
					t.Errorf("%s after install and uninstall:\n%s\nwant:\n%s\nuninstall's diff:\n%s", rel, got, want, udiff.String())
				}
			}
			if again := mustPlan(t, PlanUninstall, o); again.Changed() {
				t.Error("a second uninstall changes")
			}
		})
	}
}

// TestInstallCRLF keeps a Windows file's line endings, in what install adds
// too.
func TestInstallCRLF(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".claude", "settings.json")
	orig := bytes.ReplaceAll(readFixture(t, "claude-settings.json"), []byte("\n"), []byte("\r\n"))
	writeFile(t, path, orig)
	o := InstallOptions{Harness: "claude-code", Binary: testBinary, Home: root}
	p := mustPlan(t, PlanInstall, o)
	after := p.Changes[0].After
	if n, crlf := bytes.Count(after, []byte("\n")), bytes.Count(after, []byte("\r\n")); n != crlf {
		t.Errorf("%d of %d line endings are CRLF after install", crlf, n)
	}
	if err := p.Apply(installNow); err != nil {
		t.Fatal(err)
	}
	if err := mustPlan(t, PlanUninstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Errorf("after install and uninstall:\n%q\nwant\n%q", got, orig)
	}
}

// TestInstallDiffShowsHostileFiles: a harness's file is anyone's text, and
// the dry run prints its lines to a person's terminal. For each harness's
// format (JSON for Claude Code, Gemini, Cursor and Copilot, with LF and
// CRLF endings; Codex's hooks.json and config.toml), a file holding what
// the format lets through (JSON: a bare carriage return as whitespace, C1
// controls, DEL, bidirectional overrides, Hangul fillers, invalid UTF-8 in
// strings; TOML: escape sequences, BEL, NUL in a comment) gives a diff, of
// install and of uninstall, whose lines are each a unified diff's line and
// hold no control character but the newline, the tab and a CRLF's carriage
// return, and no invisible character: each is shown as its code point.
func TestInstallDiffShowsHostileFiles(t *testing.T) {
	const hostileJSON = "{\r  \"note\": \"\u009b2J\x7f\u202eevil\u2066\u3164\u2800\xff\",\n  \"x\u200b\ufe0f\": 1\n}\n"
	const shownJSON = " {<U+000D>  \"note\": \"<U+009B>2J<U+007F><U+202E>evil<U+2066><U+3164><U+2800>\uFFFD\",\n-  \"x<U+200B><U+FE0F>\": 1\n+  \"x<U+200B><U+FE0F>\": 1,\n"
	const hostileCRLF = "{\r\n  \"note\": \"\u0085\u202e\u2028\u115f\",\r\n  \"a\": 1\r\n}\r\n"
	const shownCRLF = " {\r\n   \"note\": \"<U+0085><U+202E><U+2028><U+115F>\",\r\n-  \"a\": 1\r\n+  \"a\": 1,\r\n"
	const hostileTOML = "model = \"x\" # \x1b]0;t\x07 \u009b2J\u202e\n[features]\nhooks = true # \u3164\x00\U000E0041\n"
	const shownTOML = " model = \"x\" # <U+001B>]0;t<U+0007> <U+009B>2J<U+202E>\n [features]\n hooks = true # <U+3164><U+0000><U+E0041>\n"
	tests := []struct {
		harness string
		files   map[string]string // path under the root → content
		want    []string
	}{
		{"claude-code", map[string]string{"home/.claude/settings.json": hostileJSON}, []string{shownJSON}},
		{"claude-code", map[string]string{"home/.claude/settings.json": hostileCRLF}, []string{shownCRLF}},
		{"gemini", map[string]string{"home/.gemini/settings.json": hostileJSON}, []string{shownJSON}},
		{"cursor", map[string]string{"home/.cursor/hooks.json": hostileJSON}, []string{shownJSON}},
		{"copilot", map[string]string{"project/.github/hooks/baton.json": hostileCRLF}, []string{shownCRLF}},
		{"codex", map[string]string{"home/.codex/hooks.json": hostileJSON, "home/.codex/config.toml": hostileTOML}, []string{shownJSON, shownTOML}},
	}
	for _, tt := range tests {
		root := t.TempDir()
		for rel, content := range tt.files {
			writeFile(t, filepath.Join(root, rel), []byte(content))
		}
		o := InstallOptions{Harness: tt.harness, Binary: testBinary, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project")}
		p := mustPlan(t, PlanInstall, o)
		var diff, udiff bytes.Buffer
		if err := p.Diff(&diff); err != nil {
			t.Fatal(err)
		}
		for _, want := range tt.want {
			if !strings.Contains(diff.String(), want) {
				t.Errorf("%s: the diff lacks\n%q\nin\n%q", tt.harness, want, diff.String())
			}
		}
		if err := p.Apply(installNow); err != nil {
			t.Fatal(err)
		}
		if err := mustPlan(t, PlanUninstall, o).Diff(&udiff); err != nil {
			t.Fatal(err)
		}
		for what, d := range map[string]string{"install": diff.String(), "uninstall": udiff.String()} {
			assertShownDiff(t, tt.harness+" "+what, d)
		}
	}
}

// assertShownDiff fails unless every line of d is a unified diff's line
// and d holds no character runes.Visible would mark but the newline, the
// tab and a carriage return that ends a line.
func assertShownDiff(t *testing.T, what, d string) {
	t.Helper()
	if d == "" {
		t.Fatalf("%s: no diff", what)
	}
	for line := range strings.Lines(d) {
		if !slices.ContainsFunc([]string{"--- ", "+++ ", "@@ -", " ", "+", "-", "\\ "}, func(p string) bool { return strings.HasPrefix(line, p) }) {
			t.Errorf("%s: %q is no diff line", what, line)
		}
		body := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if i := strings.IndexFunc(body, func(r rune) bool { return r != '\t' && runes.Marked(r) }); i >= 0 {
			t.Errorf("%s: %q shows %q as it is", what, line, body[i:])
		}
	}
}

// TestInstallReplacesItsOwnEntries: a moved binary or a changed timeout
// replaces baton's entry where it is (Codex's trust follows), a duplicate is
// dropped, and uninstall still gives back the original.
func TestInstallReplacesItsOwnEntries(t *testing.T) {
	c := installCases[4] // codex-user
	root, o := c.setup(t)
	hooksPath := filepath.Join(root, "home", ".codex", "hooks.json")
	tomlPath := filepath.Join(root, "home", ".codex", "config.toml")
	orig := snapshot(t, root)

	if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	first := snapshot(t, root)
	// A stale duplicate of baton's Stop entry, from another binary, at the end.
	doc, err := parseJSONDoc(hooksPath, []byte(first[hooksPath]))
	if err != nil {
		t.Fatal(err)
	}
	h := tableHarness(t, "codex")
	stop := h.registered()[2]
	_, list, _ := h.locate(doc, stop)
	old, _ := h.handler(stop, "/old/baton", testHost)
	if err := doc.insertLast(list, "", h.entry(stop, old)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, hooksPath, doc.src)

	o.Binary = "/usr/local/bin/baton"
	p := mustPlan(t, PlanInstall, o)
	if err := p.Apply(installNow.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	moved := snapshot(t, root)
	if strings.Contains(moved[hooksPath], testBinary) || strings.Contains(moved[hooksPath], "/old/baton") {
		t.Errorf("the old binaries are still registered:\n%s", moved[hooksPath])
	}
	if n := strings.Count(moved[hooksPath], "/usr/local/bin/baton hook"); n != len(h.registered()) {
		t.Errorf("%d entries run the new binary, want %d", n, len(h.registered()))
	}
	if strings.Count(moved[tomlPath], trustMarker) != len(h.registered()) || moved[tomlPath] == first[tomlPath] {
		t.Errorf("config.toml does not trust exactly the new entries:\n%s", moved[tomlPath])
	}
	// The entries kept their positions: same keys, new hashes.
	if got, want := trustKeys(moved[tomlPath]), trustKeys(first[tomlPath]); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("trust keys moved: %v, were %v", got, want)
	}

	if err := mustPlan(t, PlanUninstall, o).Apply(installNow.Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{hooksPath, tomlPath} {
		if got, _ := os.ReadFile(path); string(got) != orig[path] {
			t.Errorf("%s after uninstall:\n%s\nwant\n%s", path, got, orig[path])
		}
	}
}

func trustKeys(toml string) []string {
	var keys []string
	f, err := parseTrustFile("config.toml", []byte(toml))
	if err != nil {
		return []string{err.Error()}
	}
	for _, s := range f.stanzas {
		if s.mine {
			keys = append(keys, s.entry.key)
		}
	}
	return keys
}

// claudeCase is a home with Claude Code's user settings holding content.
func claudeCase(t *testing.T, content string) (path string, o InstallOptions) {
	t.Helper()
	root := t.TempDir()
	path = filepath.Join(root, ".claude", "settings.json")
	writeFile(t, path, []byte(content))
	return path, InstallOptions{Harness: "claude-code", Binary: testBinary, Home: root}
}

// TestInstallRefusesMalformed: a file the harness could not read either is
// refused with an invalid error naming it, by install and uninstall alike,
// and nothing is planned.
func TestInstallRefusesMalformed(t *testing.T) {
	tests := []struct {
		name, content, msg string
	}{
		{"truncated", `{"hooks": {"Stop": [`, "is not valid JSON (line 1, column 21"},
		{"comment", "{\n  \"a\": 1 // mine\n}", "has a comment on line 2, and baton cannot edit a settings file with comments"},
		{"block comment", "/* mine */\n{}", "has a comment on line 1"},
		{"byte order mark", "\ufeff{}", "starts with a UTF-8 byte order mark"},
		{"hooks twice", "{\n  \"hooks\": {},\n  \"hooks\": {\"Stop\": []}\n}", `the top-level object holds the key "hooks" twice (lines 2 and 3)`},
		{"an event twice", `{"hooks": {"Stop": [], "Stop": []}}`, `hooks holds the key "Stop" twice`},
		{"a group's hooks twice", `{"hooks": {"Stop": [{"hooks": [], "hooks": []}]}}`, `hooks.Stop[0] holds the key "hooks" twice`},
		{"a handler's command twice", `{"hooks": {"Stop": [{"hooks": [{"command": "a", "command": "b"}]}]}}`, `hooks.Stop[0].hooks[0] holds the key "command" twice`},
		{"trailing garbage", "{}\n}", "is not valid JSON (line 2, column 1"},
		{"top level is a list", "[]", "does not hold a JSON object"},
		{"hooks is a list", `{"hooks": []}`, `"hooks" is not an object`},
		{"an event is an object", `{"hooks": {"Stop": {}}}`, `"hooks.Stop" is not a list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, o := claudeCase(t, tt.content)
			for name, plan := range map[string]func(InstallOptions) (*InstallPlan, error){"install": PlanInstall, "uninstall": PlanUninstall} {
				p, err := plan(o)
				if p != nil || continuity.ErrorCode(err) != continuity.CodeInvalid || !errors.Is(err, errMalformed) {
					t.Fatalf("%s: %v, %v; want an invalid error", name, p, err)
				}
				if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, tt.msg) || !strings.Contains(msg, "untouched") {
					t.Errorf("%s: error %q does not name the file and %q", name, msg, tt.msg)
				}
			}
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Error("the file changed")
			}
		})
	}
}

// TestInstallOptionsRefused: what install cannot act on is an invalid error
// naming the option.
func TestInstallOptionsRefused(t *testing.T) {
	home := t.TempDir()
	env := func(name, value string) func(string) string {
		return func(k string) string {
			if k == name {
				return value
			}
			return ""
		}
	}
	tests := []struct {
		name  string
		o     InstallOptions
		field string
	}{
		{"unknown harness", InstallOptions{Harness: "vim", Binary: testBinary, Home: home}, "harness"},
		{"unknown scope", InstallOptions{Harness: "codex", Scope: "system", Binary: testBinary, Home: home}, "scope"},
		{"copilot has no user scope", InstallOptions{Harness: "copilot", Scope: ScopeUser, Binary: testBinary, Home: home}, "scope"},
		{"relative binary", InstallOptions{Harness: "codex", Binary: "bin/baton", Home: home}, "binary"},
		{"no binary", InstallOptions{Harness: "codex", Home: home}, "binary"},
		{"binary not UTF-8", InstallOptions{Harness: "claude-code", Binary: "/opt/b\xffaton/baton", Home: home}, "binary"},
		{"binary not UTF-8, codex", InstallOptions{Harness: "codex", Binary: "/opt/baton\xc3", Home: home}, "binary"},
		{"no home", InstallOptions{Harness: "gemini", Binary: testBinary}, "home"},
		{"no project", InstallOptions{Harness: "gemini", Scope: ScopeProject, Binary: testBinary, Home: home}, "project"},
		{"codex project trust needs the home", InstallOptions{Harness: "codex", Scope: ScopeProject, Binary: testBinary, Project: home}, "home"},
		{"CODEX_HOME relative", InstallOptions{Harness: "codex", Binary: testBinary, Home: home, Getenv: env("CODEX_HOME", "codex-home")}, "CODEX_HOME"},
		{"CODEX_HOME with a ~ not expanded", InstallOptions{Harness: "codex", Binary: testBinary, Home: home, Getenv: env("CODEX_HOME", "~/.codex")}, "CODEX_HOME"},
		{"CODEX_HOME of space alone", InstallOptions{Harness: "codex", Binary: testBinary, Home: home, Getenv: env("CODEX_HOME", " ")}, "CODEX_HOME"},
		{"CLAUDE_CONFIG_DIR with a trailing space", InstallOptions{Harness: "claude-code", Binary: testBinary, Home: home, Getenv: env("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude")+" ")}, "CLAUDE_CONFIG_DIR"},
		{"CLAUDE_CONFIG_DIR with a leading tab", InstallOptions{Harness: "claude-code", Binary: testBinary, Home: home, Getenv: env("CLAUDE_CONFIG_DIR", "\t"+filepath.Join(home, "claude"))}, "CLAUDE_CONFIG_DIR"},
	}
	for _, tt := range tests {
		_, err := PlanInstall(tt.o)
		if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[tt.field] == "" {
			t.Errorf("%s: %v; want invalid naming %s", tt.name, err, tt.field)
		}
	}
	if entries, _ := os.ReadDir(home); len(entries) != 0 {
		t.Error("a refused install wrote files")
	}
}

// TestInstallHarnessDirVariables: CODEX_HOME and CLAUDE_CONFIG_DIR move the
// user's files, as they move the harnesses'.
func TestInstallHarnessDirVariables(t *testing.T) {
	root := t.TempDir()
	env := map[string]string{"CODEX_HOME": filepath.Join(root, "codex-home"), "CLAUDE_CONFIG_DIR": filepath.Join(root, "claude-dir")}
	for harness, want := range map[string][]string{
		"codex":       {filepath.Join(root, "codex-home", "config.toml"), filepath.Join(root, "codex-home", "hooks.json")},
		"claude-code": {filepath.Join(root, "claude-dir", "settings.json")},
	} {
		p := mustPlan(t, PlanInstall, InstallOptions{Harness: harness, Binary: testBinary, Home: filepath.Join(root, "home"), Getenv: func(k string) string { return env[k] }})
		var got []string
		for _, c := range p.Changes {
			got = append(got, c.Path)
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s writes %v, want %v", harness, got, want)
		}
	}
}

// TestApplyRefusesAChangedFile: a file edited between plan and apply is
// left as it now is.
func TestApplyRefusesAChangedFile(t *testing.T) {
	c := installCases[0]
	root, o := c.setup(t)
	p := mustPlan(t, PlanInstall, o)
	path := filepath.Join(root, "home", ".claude", "settings.json")
	writeFile(t, path, []byte(`{"model": "edited meanwhile"}`))
	if err := p.Apply(installNow); continuity.ErrorCode(err) != continuity.CodeConflict {
		t.Fatalf("Apply = %v, want a conflict", err)
	}
	if got, _ := os.ReadFile(path); string(got) != `{"model": "edited meanwhile"}` {
		t.Errorf("the file was overwritten: %s", got)
	}
	if _, err := os.Stat(path + ".baton-backup-20261130T011858Z"); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a backup was written for a change that was not made")
	}
}

// TestBackupNeverOverwrites: two backups within a second keep both.
func TestBackupNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	a, err := backup(path, []byte("one"), 0o600, installNow)
	if err != nil {
		t.Fatal(err)
	}
	b, err := backup(path, []byte("two"), 0o600, installNow)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || b != a+"-2" {
		t.Fatalf("backups %s and %s", a, b)
	}
	for name, want := range map[string]string{a: "one", b: "two"} {
		if got, _ := os.ReadFile(name); string(got) != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
}

// TestCopilotKeepsOthersEntries: baton.json is deleted by uninstall only
// when nothing but baton's entries was in it.
func TestCopilotKeepsOthersEntries(t *testing.T) {
	root := t.TempDir()
	o := InstallOptions{Harness: "copilot", Binary: testBinary, Project: root}
	if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, ".github", "hooks", "baton.json")
	data, _ := os.ReadFile(path)
	doc, err := parseJSONDoc(path, data)
	if err != nil {
		t.Fatal(err)
	}
	hooks, _ := doc.member(doc.root, "hooks")
	if err := doc.insertLast(hooks, "errorOccurred", []any{jsonObj{{"type", "command"}, {"bash", "./log.sh"}}}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, doc.src)
	if err := mustPlan(t, PlanUninstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"errorOccurred\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"./log.sh\"\n      }\n    ]\n  }\n}\n"
	if string(got) != want {
		t.Errorf("after uninstall:\n%s\nwant\n%s", got, want)
	}
}

// TestInstalledCommands: each harness runs `<binary> hook KIND --harness
// NAME` for the five kinds, quoted for its shell, with its timeout in its
// unit.
func TestInstalledCommands(t *testing.T) {
	timeouts := map[string]map[string]int{ // harness → kind → timeout
		"claude-code": {"start": 10, "prompt": 5, "stop": 30, "precompact": 30, "end": 2},
		"codex":       {"start": 10, "prompt": 5, "stop": 30, "precompact": 30, "end": 2},
		"gemini":      {"start": 10000, "prompt": 5000, "stop": 30000, "precompact": 30000, "end": 1500},
		"copilot":     {"start": 10, "prompt": 5, "stop": 30, "precompact": 30, "end": 2},
		"cursor":      {"start": 10, "prompt": 5, "stop": 30, "precompact": 30, "end": 2},
	}
	for _, h := range Harnesses() {
		var kinds []string
		for _, ev := range h.registered() {
			kind := string(ev.Kind)
			kinds = append(kinds, kind)
			handler, err := h.handler(ev, "/opt/it's here/baton", testHost)
			if err != nil {
				t.Fatal(err)
			}
			tail := " hook " + kind + " --harness " + h.Name
			for _, f := range h.Install.Handler {
				switch got := objField(handler, f.Key); f.Value {
				case placeCommand:
					if want := mustQuote(t, "/opt/it's here/baton", f.Quote) + tail; got != want {
						t.Errorf("%s %s: %s = %v, want %s", h.Name, kind, f.Key, got, want)
					}
				case placeTimeout:
					if want := timeouts[h.Name][kind]; got != want {
						t.Errorf("%s %s: %s = %v, want %d", h.Name, kind, f.Key, got, want)
					}
				}
			}
		}
		if got := strings.Join(kinds, " "); got != "start prompt stop precompact end" {
			t.Errorf("%s registers %s", h.Name, got)
		}
	}
}

// tableHarness is the harness table's row named name.
func tableHarness(tb testing.TB, name string) *Harness {
	tb.Helper()
	h, err := Lookup(name)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

func objField(o jsonObj, key string) any {
	for _, kv := range o {
		if kv.key == key {
			return kv.val
		}
	}
	return nil
}

// TestQuotePath quotes for each shell on each platform; a plain path is
// left bare; a path a form cannot carry is refused, naming the path and
// the flag. On Windows Claude Code runs hooks in Git Bash where it finds
// one and else in PowerShell: a path that is one bare word to both is
// written bare with forward slashes, whichever it finds; another is
// double-quoted for Git Bash or & '…' for PowerShell. Codex hands the
// command to PowerShell or cmd.exe /C, which never starts a quoted path
// (Rust escapes the quotes), so its path is bare with backslashes or
// refused.
func TestQuotePath(t *testing.T) {
	linux, win, winBash := shellHost{goos: "linux"}, shellHost{goos: "windows"}, shellHost{goos: "windows", gitBash: true}
	claude, codex := quoteGitBashOrPowerShell, quoteCmdOrPowerShell
	tests := []struct {
		path  string
		style quoteStyle
		host  shellHost
		want  string // "" for a refusal
	}{
		{"/usr/local/bin/baton", quotePOSIX, linux, "/usr/local/bin/baton"},
		{"/opt/baton tools/baton", quotePOSIX, linux, "'/opt/baton tools/baton'"},
		{"/home/o'neil/bin/baton", quotePOSIX, linux, `'/home/o'\''neil/bin/baton'`},
		{"/tmp/$HOME/baton", quotePOSIX, linux, "'/tmp/$HOME/baton'"},
		{"/opt/baton tools/baton", claude, linux, "'/opt/baton tools/baton'"},
		{"/opt/baton tools/baton", codex, linux, "'/opt/baton tools/baton'"},
		{`C:\Program Files\baton\baton.exe`, quotePOSIX, win, `'C:\Program Files\baton\baton.exe'`},

		{`C:\Users\me\go\bin\baton.exe`, claude, win, "C:/Users/me/go/bin/baton.exe"},
		{`C:\Users\me\go\bin\baton.exe`, claude, winBash, "C:/Users/me/go/bin/baton.exe"},
		{`C:\Users\Zoë\bin\bâton.exe`, claude, win, "C:/Users/Zoë/bin/bâton.exe"},
		{`C:\PROGRA~1\baton\baton.exe`, claude, win, "C:/PROGRA~1/baton/baton.exe"},
		{`C:\Program Files\baton\baton.exe`, claude, winBash, `"C:\Program Files\baton\baton.exe"`},
		{`C:\Program Files\baton\baton.exe`, claude, win, `& 'C:\Program Files\baton\baton.exe'`},
		{`C:\Users\o'neil (x86)\baton.exe`, claude, winBash, `"C:\Users\o'neil (x86)\baton.exe"`},
		{`C:\Users\o'neil (x86)\baton.exe`, claude, win, `& 'C:\Users\o''neil (x86)\baton.exe'`},
		{`C:\a&b^c\baton.exe`, claude, winBash, `"C:\a&b^c\baton.exe"`},
		{`C:\a&b^c\baton.exe`, claude, win, `& 'C:\a&b^c\baton.exe'`},
		{`C:\a–b\baton.exe`, claude, win, `& 'C:\a–b\baton.exe'`},
		{`C:\a$b\baton.exe`, claude, winBash, ""},
		{`C:\a$b\baton.exe`, claude, win, `& 'C:\a$b\baton.exe'`},
		{"C:\\a`b\\baton.exe", claude, winBash, ""},
		{`C:\100%\baton.exe`, claude, winBash, ""},
		{`C:\wow!\baton.exe`, claude, winBash, ""},
		{"C:\\tab\there\\baton.exe", claude, winBash, ""},
		{`\\server\share\baton.exe`, claude, winBash, ""},
		{`\\server\share\baton.exe`, claude, win, `& '\\server\share\baton.exe'`},
		{`\\?\C:\baton\baton.exe`, claude, winBash, ""},

		{`C:\Users\me\go\bin\baton.exe`, codex, win, `C:\Users\me\go\bin\baton.exe`},
		{`C:\Users\me\go\bin\baton.exe`, codex, winBash, `C:\Users\me\go\bin\baton.exe`},
		{`C:/Users/me/baton.exe`, codex, win, `C:\Users\me\baton.exe`},
		{`C:\Users\Zoë\bin\bâton.exe`, codex, win, `C:\Users\Zoë\bin\bâton.exe`},
		{`C:\PROGRA~1\baton\baton.exe`, codex, win, `C:\PROGRA~1\baton\baton.exe`},
		{`C:\a+b_c-d.e\baton.exe`, codex, win, `C:\a+b_c-d.e\baton.exe`},
		{`\\server\share\baton.exe`, codex, win, `\\server\share\baton.exe`},
		{`C:\Program Files\baton\baton.exe`, codex, win, ""},
		{"C:\\Program\u00a0Files\\baton.exe", codex, win, ""},
		{`C:\a&b\baton.exe`, codex, win, ""},
		{`C:\a^b\baton.exe`, codex, win, ""},
		{`C:\100%\baton.exe`, codex, win, ""},
		{`C:\wow!\baton.exe`, codex, win, ""},
		{`C:\o'neil\baton.exe`, codex, win, ""},
		{`C:\a(b)\baton.exe`, codex, win, ""},
		{`C:\a,b;c=d\baton.exe`, codex, win, ""},
		{`C:\a$b\baton.exe`, codex, win, ""},
		{`C:\a–b\baton.exe`, codex, win, ""},
		{`C:\a’b\baton.exe`, codex, win, ""},
		{`\\?\C:\baton\baton.exe`, codex, win, ""},

		{`\\server\share\baton.exe`, quotePowerShell, win, `& '\\server\share\baton.exe'`},
		{"/usr/local/bin/baton", quotePowerShell, linux, "/usr/local/bin/baton"},
		{`C:\Users\o'neil\baton.exe`, quotePowerShell, win, `& 'C:\Users\o''neil\baton.exe'`},
		{`C:\Users\o’neil\baton.exe`, quotePowerShell, win, `& 'C:\Users\o’’neil\baton.exe'`},
		{`C:\‘a‚‛\baton.exe`, quotePowerShell, win, `& 'C:\‘‘a‚‚‛‛\baton.exe'`},
		{`C:\$x\baton.exe`, quotePowerShell, win, `& 'C:\$x\baton.exe'`},
		{`C:\Program Files\baton\baton.exe`, quotePOSIXOrPowerShell, win, `& 'C:\Program Files\baton\baton.exe'`},
	}
	for _, tt := range tests {
		got, err := quotePathOn(tt.path, tt.style, tt.host)
		if tt.want == "" {
			if continuity.ErrorCode(err) != continuity.CodeInvalid || !strings.Contains(err.Error(), "--binary") || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("quotePathOn(%q, %d, %+v) = %s, %v; want an invalid error naming the path and --binary", tt.path, tt.style, tt.host, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("quotePathOn(%q, %d, %+v) = %s, %v; want %s", tt.path, tt.style, tt.host, got, err, tt.want)
		}
		back, ok := unquotePath(got)
		if slashes := func(s string) string { return strings.ReplaceAll(s, `\`, "/") }; !ok || slashes(back) != slashes(tt.path) {
			t.Errorf("unquotePath(%s) = %q, %v; want %q", got, back, ok, tt.path)
		}
	}
}

// TestQuotedForBash: what install writes for Claude Code is run by bash (Git
// Bash's, here Linux's) as exactly the one program, with baton's
// arguments: bare forward-slashed, or double-quoted with its backslashes,
// spaces, & ^ ' ( ) and non-ASCII letters. bash -i, as Claude Code starts
// it, expands ! from its history, and the double-quoted form refuses it.
func TestQuotedForBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		path    string
		gitBash bool
	}{
		{`C:\Users\Zoë\go\bin\baton.exe`, false},
		{`C:\PROGRA~1\baton\baton.exe`, true},
		{`C:\Program Files\baton & co^(x86)\o'neil\bâton.exe`, true},
	} {
		q, err := quotePathOn(c.path, quoteGitBashOrPowerShell, shellHost{goos: "windows", gitBash: c.gitBash})
		if err != nil {
			t.Fatal(err)
		}
		// On Linux the backslashed name is one file name, found on PATH;
		// the forward-slashed one a path under the working directory.
		dir := t.TempDir()
		prog := filepath.Join(dir, c.path)
		if strings.HasPrefix(q, "C:/") {
			prog = filepath.Join(dir, filepath.FromSlash(q))
		}
		if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "args")
		script := "#!/bin/sh\nprintf '%s|' \"$0\" \"$@\" > " + out + "\n"
		if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", q+" hook stop --harness claude-code")
		cmd.Dir, cmd.Env = dir, []string{"PATH=" + dir + ":/usr/bin:/bin", "HOME=" + dir}
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bash -c %s: %v\n%s", q, err, b)
		}
		got, _ := os.ReadFile(out)
		if want := "hook|stop|--harness|claude-code|"; !strings.HasSuffix(string(got), "|"+want) {
			t.Errorf("bash -c %s ran %s; want the program then %s", q, got, want)
		}
	}
}

// TestQuoteByHarnessOnEachOS: the command each harness's table row writes
// is one its shell on that platform runs. On Windows, Gemini CLI
// (getShellConfiguration) and Cursor hand the command to PowerShell: they
// get the & '…' form; Claude Code, Git Bash or PowerShell, gets the
// double-quoted form where it finds Git Bash and & '…' where not; Codex
// refuses the path, which neither of its shells can run quoted; Copilot's
// bash and powershell fields are quoted for their shells on every
// platform. On macOS and Linux every other shell is POSIX.
func TestQuoteByHarnessOnEachOS(t *testing.T) {
	const win = `C:\Program Files\baton & co\bâton.exe`
	const mac = "/Applications/Baton Tools/baton"
	winDouble, winPS, macPOSIX := `"`+win+`"`, `& '`+win+`'`, `'`+mac+`'`
	want := map[string]map[string][3]string{ // harness → field → {windows, windows with Git Bash, darwin}; "" refused
		"claude-code": {"command": {winPS, winDouble, macPOSIX}},
		"codex":       {"command": {"", "", macPOSIX}},
		"gemini":      {"command": {winPS, winPS, macPOSIX}},
		"cursor":      {"command": {winPS, winPS, macPOSIX}},
		"copilot":     {"bash": {`'` + win + `'`, `'` + win + `'`, macPOSIX}, "powershell": {winPS, winPS, `& '` + mac + `'`}},
	}
	hosts := []shellHost{{goos: "windows"}, {goos: "windows", gitBash: true}, {goos: "darwin"}}
	for _, h := range Harnesses() {
		for _, f := range h.Install.Handler {
			if f.Value != placeCommand {
				continue
			}
			w, ok := want[h.Name][f.Key]
			if !ok {
				t.Errorf("%s: command field %q has no expectation here", h.Name, f.Key)
				continue
			}
			for i, host := range hosts {
				path := win
				if host.goos != "windows" {
					path = mac
				}
				got, err := quotePathOn(path, f.Quote, host)
				if w[i] == "" {
					if continuity.ErrorCode(err) != continuity.CodeInvalid {
						t.Errorf("%s %s on %+v: %s, %v; want it refused", h.Name, f.Key, host, got, err)
					}
					continue
				}
				if err != nil || got != w[i] {
					t.Errorf("%s %s on %+v: %s, %v; want %s", h.Name, f.Key, host, got, err, w[i])
				}
				if back, ok := unquotePath(got); !ok || back != path || !absolutePath(back) {
					t.Errorf("%s %s on %+v: unquotePath(%s) = %q, %v", h.Name, f.Key, host, got, back, ok)
				}
			}
		}
	}
}

// TestClaudeFindsGitBash looks where Claude Code looks, in its order; a
// variable naming no file does not count.
func TestClaudeFindsGitBash(t *testing.T) {
	tests := []struct {
		name  string
		env   string
		files []string
		git   string
		want  bool
	}{
		{"none", "", nil, "", false},
		{"the variable", `D:\PortableGit\bin\bash.exe`, []string{`D:\PortableGit\bin\bash.exe`}, "", true},
		{"the variable naming nothing", `D:\nowhere\bash.exe`, nil, "", false},
		{"the default folder", "", []string{`C:\Program Files\Git\bin\bash.exe`}, "", true},
		{"the x86 folder", "", []string{`C:\Program Files (x86)\Git\bin\bash.exe`}, "", true},
		{"beside git on PATH", "", []string{`D:\tools\Git\bin\bash.exe`}, `D:\tools\Git\cmd\git.exe`, true},
		{"git on PATH without bash", "", nil, `D:\tools\Git\cmd\git.exe`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "CLAUDE_CODE_GIT_BASH_PATH" {
					return tt.env
				}
				return ""
			}
			exists := func(p string) bool { return slices.Contains(tt.files, p) }
			lookPath := func(string) (string, error) {
				if tt.git == "" {
					return "", exec.ErrNotFound
				}
				return tt.git, nil
			}
			if got := claudeFindsGitBash(getenv, exists, lookPath); got != tt.want {
				t.Errorf("claudeFindsGitBash = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDirModeForbids: a directory without its owner's write bit refuses
// new files on Unix; on Windows that bit is the read-only attribute, which
// does not stop a file being created in the directory.
func TestDirModeForbids(t *testing.T) {
	tests := []struct {
		perm fs.FileMode
		goos string
		want bool
	}{
		{0o755, "linux", false},
		{0o555, "linux", true},
		{0o555, "darwin", true},
		{0o777, "windows", false},
		{0o555, "windows", false},
	}
	for _, tt := range tests {
		if got := dirModeForbids(tt.perm, tt.goos); got != tt.want {
			t.Errorf("dirModeForbids(%04o, %s) = %v; want %v", tt.perm, tt.goos, got, tt.want)
		}
	}
}

// testHost is the platform the tests run on, as install sees it there.
var testHost = shellHost{goos: runtime.GOOS}

// mustQuote is quotePathOn of a path it can quote, for testHost.
func mustQuote(t *testing.T, path string, s quoteStyle) string {
	t.Helper()
	q, err := quotePathOn(path, s, testHost)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestInstallOwnership: baton's handler is one whose whole command is one
// absolute path, quoted as install quotes it, then " hook KIND --harness
// NAME"; a wrapper ending the same way is the person's and is left alone. A
// handler the person adds to baton's group keeps the group: install
// replaces only baton's handler in it, uninstall removes only that.
func TestInstallOwnership(t *testing.T) {
	mine := mustQuote(t, testBinary, quoteGitBashOrPowerShell) + " hook stop --harness claude-code"
	tests := []struct {
		name, src string
		// stop is the Stop list after install, and after uninstall ("" for
		// none).
		installed, uninstalled string
	}{
		{"a wrapper in the person's group",
			`{"hooks": {"Stop": [{"matcher": "x", "hooks": [{"type": "command", "command": "cd /w && /usr/bin/baton hook stop --harness claude-code"}]}]}}`,
			`[{"matcher": "x", "hooks": [{"type": "command", "command": "cd /w && /usr/bin/baton hook stop --harness claude-code"}]}, {"hooks": [{"type": "command", "command": "` + mine + `", "timeout": 30}]}]`,
			`[{"matcher": "x", "hooks": [{"type": "command", "command": "cd /w && /usr/bin/baton hook stop --harness claude-code"}]}]`},
		{"a relative path",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "baton hook stop --harness claude-code"}]}]}}`,
			`[{"hooks": [{"type": "command", "command": "baton hook stop --harness claude-code"}]}, {"hooks": [{"type": "command", "command": "` + mine + `", "timeout": 30}]}]`,
			`[{"hooks": [{"type": "command", "command": "baton hook stop --harness claude-code"}]}]`},
		{"two words before the tail",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/bin/env /usr/bin/baton hook stop --harness claude-code"}]}]}}`,
			`[{"hooks": [{"type": "command", "command": "/usr/bin/env /usr/bin/baton hook stop --harness claude-code"}]}, {"hooks": [{"type": "command", "command": "` + mine + `", "timeout": 30}]}]`,
			`[{"hooks": [{"type": "command", "command": "/usr/bin/env /usr/bin/baton hook stop --harness claude-code"}]}]`},
		{"the person's handler in baton's group",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/baton hook stop --harness claude-code", "timeout": 30}, {"type": "command", "command": "/usr/bin/notify"}]}]}}`,
			`[{"hooks": [{"type": "command", "command": "` + mine + `", "timeout": 30}, {"type": "command", "command": "/usr/bin/notify"}]}]`,
			`[{"hooks": [{"type": "command", "command": "/usr/bin/notify"}]}]`},
		{"baton's handler second in the person's group",
			`{"hooks": {"Stop": [{"matcher": "m", "hooks": [{"type": "command", "command": "/usr/bin/notify"}, {"type": "command", "command": "'/old dir/baton' hook stop --harness claude-code"}]}]}}`,
			`[{"matcher": "m", "hooks": [{"type": "command", "command": "/usr/bin/notify"}, {"type": "command", "command": "` + mine + `", "timeout": 30}]}]`,
			`[{"matcher": "m", "hooks": [{"type": "command", "command": "/usr/bin/notify"}]}]`},
		{"baton's group, quoted for cmd",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "\"C:\\baton dir\\baton.exe\" hook stop --harness claude-code"}]}]}}`,
			`[{"hooks": [{"type": "command", "command": "` + mine + `", "timeout": 30}]}]`,
			``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, o := claudeCase(t, tt.src)
			if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
				t.Fatal(err)
			}
			checkStop(t, "install", path, tt.installed)
			if again := mustPlan(t, PlanInstall, o); again.Changed() {
				t.Error("a second install changes")
			}
			if err := mustPlan(t, PlanUninstall, o).Apply(installNow); err != nil {
				t.Fatal(err)
			}
			checkStop(t, "uninstall", path, tt.uninstalled)
		})
	}
}

// checkStop compares the Stop list of the settings at path with want.
func checkStop(t *testing.T, after, path, want string) {
	t.Helper()
	data, _ := os.ReadFile(path)
	var v struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	got := v.Hooks["Stop"]
	if want == "" && got == nil {
		return
	}
	if !jsonEqual(got, []byte(want)) {
		t.Errorf("Stop after %s:\n%s\nwant\n%s", after, got, want)
	}
}

// TestInstallThroughSymlink: a configuration that is a symbolic link (a
// dotfiles checkout) stays a link: install and uninstall write the file it
// points to, atomically in that file's directory, and the backup sits
// beside the link. A dangling link is refused, and nothing is written.
func TestInstallThroughSymlink(t *testing.T) {
	orig := string(readFixture(t, "claude-settings.json"))
	tests := []struct {
		name   string
		target string // the link's text, relative to the link's directory
		exists bool
	}{
		{"relative link", "../dotfiles/claude/settings.json", true},
		{"dangling link", "../dotfiles/claude/missing.json", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			link := filepath.Join(root, ".claude", "settings.json")
			target := filepath.Join(filepath.Dir(link), tt.target)
			writeFile(t, filepath.Join(root, "dotfiles", "claude", "settings.json"), []byte(orig))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tt.target, link); err != nil {
				t.Skip(err)
			}
			o := InstallOptions{Harness: "claude-code", Binary: testBinary, Home: root}
			before := snapshot(t, root)
			if !tt.exists {
				_, err := PlanInstall(o)
				if !errors.Is(err, errMalformed) || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "does not exist") {
					t.Fatalf("install through a dangling link: %v; want an error naming the link", err)
				}
				if now := snapshot(t, root); !sameFiles(before, now) {
					t.Error("a refused install wrote files")
				}
				return
			}
			p := mustPlan(t, PlanInstall, o)
			if err := p.Apply(installNow); err != nil {
				t.Fatal(err)
			}
			assertLink := func(when string) {
				t.Helper()
				if info, err := os.Lstat(link); err != nil || info.Mode()&fs.ModeSymlink == 0 {
					t.Fatalf("after %s %s is no longer a link (%v)", when, link, err)
				}
			}
			assertLink("install")
			if got, _ := os.ReadFile(target); !strings.Contains(string(got), "hook stop --harness claude-code") {
				t.Errorf("the link's target was not updated:\n%s", got)
			}
			if got, err := os.ReadFile(link + ".baton-backup-20261130T011858Z"); err != nil || string(got) != orig {
				t.Errorf("no backup beside the link (%v)", err)
			}
			if err := mustPlan(t, PlanUninstall, o).Apply(installNow.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			assertLink("uninstall")
			if got, _ := os.ReadFile(target); string(got) != orig {
				t.Errorf("after install and uninstall the target holds:\n%s", got)
			}
		})
	}
}

// TestInstallReadErrorNamesThePathOnce: a configuration baton cannot read
// is named once in the error, not once per layer.
func TestInstallReadErrorNamesThePathOnce(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, ".claude", "settings.json")
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := PlanInstall(InstallOptions{Harness: "claude-code", Binary: testBinary, Home: root})
	if err == nil || strings.Count(err.Error(), path) != 1 || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("install over a directory: %v; want the path named once and why", err)
	}
}

// TestInstallMatchers: SessionStart is registered for every source the
// harness may send (Codex 0.169's schema lists fork; Claude Code's newest
// SDK typings add it, its captured payloads do not show it: a matcher that
// never matches costs nothing, a fork missed would start unbriefed).
func TestInstallMatchers(t *testing.T) {
	for harness, want := range map[string]string{
		"codex":       "startup|resume|clear|compact|fork",
		"claude-code": "startup|resume|clear|compact|fork",
	} {
		if got := tableHarness(t, harness).registered()[0].Matcher; got != want {
			t.Errorf("%s registers SessionStart under %q, want %q", harness, got, want)
		}
	}
}

// TestInstallUpgradesTheMatcher: baton's SessionStart group written under
// an earlier matcher is replaced in place (its trust follows, same key, new
// hash), and uninstall still takes it out.
func TestInstallUpgradesTheMatcher(t *testing.T) {
	home, tomlPath, o := codexCase(t, "model = \"gpt-5\"\n")
	hooksPath := filepath.Join(home, ".codex", "hooks.json")
	h := tableHarness(t, "codex")
	start := h.registered()[0]
	handler, err := h.handler(start, testBinary, testHost)
	if err != nil {
		t.Fatal(err)
	}
	old := start
	old.Matcher = "startup|resume|clear|compact"
	hooks := "{\n  \"hooks\": {\n    \"SessionStart\": [\n      " + renderJSON(h.entry(old, handler), "      ", "  ", "\n") + "\n    ]\n  }\n}\n"
	want, err := h.trustEntries(codexKeyPath(hooksPath), []byte(hooks))
	if err != nil {
		t.Fatal(err)
	}
	toml, err := addTrust(tomlPath, []byte("model = \"gpt-5\"\n"), []string{codexKeyPath(hooksPath)}, want, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, hooksPath, []byte(hooks))
	writeFile(t, tomlPath, toml)

	if err := mustPlan(t, PlanInstall, o).Apply(installNow); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(hooksPath)
	if strings.Count(string(got), "hook start --harness codex") != 1 || !strings.Contains(string(got), `"matcher": "`+start.Matcher+`"`) {
		t.Errorf("the old group was not replaced in place:\n%s", got)
	}
	gotToml, _ := os.ReadFile(tomlPath)
	if strings.Contains(string(gotToml), want[0].hash) || strings.Count(string(gotToml), want[0].key) != 1 {
		t.Errorf("the trust of the old group was not replaced:\n%s", gotToml)
	}
	if again := mustPlan(t, PlanInstall, o); again.Changed() {
		t.Error("a second install changes")
	}
	if err := mustPlan(t, PlanUninstall, o).Apply(installNow.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(tomlPath); string(got) != "model = \"gpt-5\"\n" {
		t.Errorf("config.toml after uninstall:\n%s", got)
	}
	if got, _ := os.ReadFile(hooksPath); strings.Contains(string(got), "baton") {
		t.Errorf("hooks.json after uninstall:\n%s", got)
	}
}

// TestInstallRefusesWhatItCannotWrite: a configuration without its owner's
// write bit, or a directory baton cannot create files in, is refused before
// anything is written, by the plan and by Apply alike; the error names it.
func TestInstallRefusesWhatItCannotWrite(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, home, project string) string // returns what the error names
	}{
		{"a read-only hooks.json", func(t *testing.T, home, project string) string {
			path := filepath.Join(project, ".codex", "hooks.json")
			writeFile(t, path, []byte("{}\n"))
			chmod(t, path, 0o444)
			return path
		}},
		{"a read-only config.toml", func(t *testing.T, home, project string) string {
			path := filepath.Join(home, ".codex", "config.toml")
			chmod(t, path, 0o444)
			return path
		}},
		{"a read-only project directory", func(t *testing.T, home, project string) string {
			dir := filepath.Join(project, ".codex")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			chmod(t, dir, 0o555)
			return dir
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, _, o := codexCase(t, "model = \"gpt-5\"\n")
			o.Project = filepath.Join(home, "project")
			o.Scope = ScopeProject
			named := tt.setup(t, home, o.Project)
			before := snapshot(t, home)
			_, err := PlanInstall(o)
			if continuity.ErrorCode(err) != continuity.CodeForbidden || !strings.Contains(err.Error(), named) {
				t.Errorf("plan: %v; want a forbidden error naming %s", err, named)
			}
			if now := snapshot(t, home); !sameFiles(before, now) {
				t.Error("a refused install wrote files")
			}
		})
	}
}

// TestApplySaysWhatItChanged: when a write fails after another file was
// changed, Apply's error names each file it changed and its backup.
func TestApplySaysWhatItChanged(t *testing.T) {
	home, tomlPath, o := codexCase(t, "model = \"gpt-5\"\n")
	p := mustPlan(t, PlanInstall, o)
	hooksPath := filepath.Join(home, ".codex", "hooks.json")
	failing := errors.New("disk full")
	defer func(w func(string, []byte, os.FileMode) error) { writeAtomic = w }(writeAtomic)
	writeAtomic = func(path string, data []byte, perm os.FileMode) error {
		if path == hooksPath {
			return failing
		}
		return os.WriteFile(path, data, perm)
	}
	err := p.Apply(installNow)
	if !errors.Is(err, failing) || !strings.Contains(err.Error(), tomlPath+" (backup "+tomlPath+".baton-backup-20261130T011858Z)") {
		t.Errorf("Apply: %v; want it to name config.toml as changed, with its backup", err)
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(path, 0o755) })
}
