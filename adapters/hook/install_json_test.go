package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestJSONEdits: each edit keeps every byte it does not replace, lays out
// what it adds like the siblings, and removing what was added gives back
// the text.
func TestJSONEdits(t *testing.T) {
	tests := []struct {
		name, src, want string
		edit            func(d *jsonDoc) error
	}{
		{"append to a list over lines", "{\n\t\"a\": [\n\t\t1\n\t]\n}", "{\n\t\"a\": [\n\t\t1,\n\t\t{\n\t\t\t\"k\": \"v\"\n\t\t}\n\t]\n}",
			func(d *jsonDoc) error { a, _ := d.member(d.root, "a"); return d.insertLast(a, "", jsonObj{{"k", "v"}}) }},
		{"append to a one-line list", `{"a": [1, 2]}`, `{"a": [1, 2, {"k": "v"}]}`,
			func(d *jsonDoc) error { a, _ := d.member(d.root, "a"); return d.insertLast(a, "", jsonObj{{"k", "v"}}) }},
		{"member into an empty object", "{\n  \"x\": {}\n}\n", "{\n  \"x\": {\n    \"k\": [\n      true\n    ]\n  }\n}\n",
			func(d *jsonDoc) error { x, _ := d.member(d.root, "x"); return d.insertLast(x, "k", []any{true}) }},
		{"member after others, CRLF", "{\r\n  \"a\": 1\r\n}", "{\r\n  \"a\": 1,\r\n  \"k\": \"<&>\"\r\n}",
			func(d *jsonDoc) error { return d.insertLast(d.root, "k", "<&>") }},
		{"escapes kept as written", `{"a": "caf\u00e9", "b": 1.50}`, `{"a": "caf\u00e9", "b": 1.50, "k": "café"}`,
			func(d *jsonDoc) error { return d.insertLast(d.root, "k", "café") }},
	}
	for _, tt := range tests {
		d, err := parseJSONDoc("t.json", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if err := tt.edit(d); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(d.src) != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, d.src, tt.want)
		}
	}
}

// TestJSONRemove removes the first, a middle and the only item.
func TestJSONRemove(t *testing.T) {
	tests := []struct {
		src  string
		i    int
		want string
	}{
		{"[1, 2, 3]", 0, "[2, 3]"},
		{"[\n  1,\n  2,\n  3\n]", 1, "[\n  1,\n  3\n]"},
		{"[\n  1,\n  2\n]", 1, "[\n  1\n]"},
		{`{"a": 1, "b": 2}`, 0, `{"b": 2}`},
		{"[\n  1\n]", 0, "[]"},
	}
	for _, tt := range tests {
		d, err := parseJSONDoc("t.json", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.removeItem(d.root, tt.i); err != nil {
			t.Fatal(err)
		}
		if string(d.src) != tt.want {
			t.Errorf("remove %d of %q = %q, want %q", tt.i, tt.src, d.src, tt.want)
		}
	}
}

// TestQuoteJSON spells strings as serde_json and Python do (Codex's trust
// hashes depend on it), not as encoding/json does.
func TestQuoteJSON(t *testing.T) {
	for in, want := range map[string]string{
		`a"b\c`:        `"a\"b\\c"`,
		"<&> é \u2028": "\"<&> é \u2028\"",
		"\n\r\t\b\f":   `"\n\r\t\b\f"`,
		"\x01\x1f\x7f": "\"\\u0001\\u001f\x7f\"",
	} {
		if got := quoteJSON(in); got != want {
			t.Errorf("quoteJSON(%q) = %s, want %s", in, got, want)
		}
	}
	if got := canonicalJSON(jsonObj{{"b", []any{jsonObj{{"z", 1}, {"a", false}}}}, {"a", "x"}}); got != `{"a":"x","b":[{"a":false,"z":1}]}` {
		t.Errorf("canonicalJSON = %s", got)
	}
}

// FuzzInstallJSON: whatever a configuration file holds, install either
// refuses it as malformed or writes valid JSON; a second install changes
// nothing; and uninstall gives back the file's value as it was without
// baton's entries (less the empty lists and "hooks" it prunes, plus the
// skeleton's keys it lacked, which install adds: completeSkeleton).
func FuzzInstallJSON(f *testing.F) {
	for _, name := range []string{"claude-settings.json", "claude-compact.json", "codex-hooks.json", "gemini-settings.json", "cursor-hooks.json"} {
		f.Add(readFixture(f, name))
	}
	for _, s := range []string{"", " ", "{}", "[]", `{"version":2}`, `{"version":null}`, `{"hooks":{}}`, `{"hooks":{"Stop":[]},"hooks":{"Stop":[1]}}`, `{"hooks":{"Stop":[{"hooks":[{"command":"x hook stop --harness claude-code"}]}]}}`, "{\"a\":\n[1,\n2]}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, h := range []*Harness{tableHarness(t, "claude-code"), tableHarness(t, "cursor")} { // nested, flat
			got, err := h.install("f.json", src, testBinary, testHost)
			if err != nil {
				if !errors.Is(err, errMalformed) {
					t.Fatalf("%s: install: %v", h.Name, err)
				}
				continue
			}
			if !json.Valid(got) {
				t.Fatalf("%s: install wrote invalid JSON:\n%s", h.Name, got)
			}
			if again, err := h.install("f.json", got, testBinary, testHost); err != nil || !bytes.Equal(again, got) {
				t.Fatalf("%s: a second install changed\n%s\nto\n%s (%v)", h.Name, got, again, err)
			}
			back, err := h.uninstall("f.json", got)
			if err != nil {
				t.Fatalf("%s: uninstall: %v", h.Name, err)
			}
			want := src
			if len(bytes.TrimSpace(src)) == 0 {
				want = []byte(h.Install.Skeleton)
			}
			if want, err = h.uninstall("f.json", want); err != nil {
				t.Fatalf("%s: uninstall of the original: %v", h.Name, err)
			}
			if back == nil && h.Install.OwnFile {
				continue
			}
			if a, b := pruned(h, back), pruned(h, want); a != b {
				t.Fatalf("%s: install then uninstall gives\n%s\nnot\n%s", h.Name, a, b)
			}
		}
	})
}

// TestInstallCompletesTheSkeleton: installing into a file that lacks a key
// of the harness's skeleton adds it with the skeleton's value (Cursor and
// Copilot load a hooks file only with its "version": 1, so hooks installed
// into an existing "{}" never ran); a key the file has keeps its value;
// uninstall leaves the key; a harness whose skeleton is "{}" adds nothing.
func TestInstallCompletesTheSkeleton(t *testing.T) {
	cases := []struct {
		harness, src string
		version      any // the installed file's "version"; nil: none
	}{
		{"cursor", "{}", 1.0},
		{"cursor", "{}\n", 1.0},
		{"cursor", `{"hooks":{}}`, 1.0},
		{"cursor", "{\n  \"hooks\": {\n    \"stop\": [{\"command\": \"x\"}]\n  }\n}\n", 1.0},
		{"cursor", `{"other":true}`, 1.0},
		{"cursor", `{"version":1}`, 1.0},
		{"cursor", `{"version":2}`, 2.0},
		{"cursor", `{"version":"1"}`, "1"},
		{"copilot", "{}", 1.0},
		{"copilot", `{"hooks":{"agentStop":[]}}`, 1.0},
		{"claude-code", "{}", nil},
		{"gemini", `{"hooks":{}}`, nil},
	}
	for _, tc := range cases {
		h := tableHarness(t, tc.harness)
		got, err := h.install("f.json", []byte(tc.src), testBinary, testHost)
		if err != nil {
			t.Fatalf("%s %q: %v", tc.harness, tc.src, err)
		}
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("%s %q: install wrote invalid JSON: %v\n%s", tc.harness, tc.src, err, got)
		}
		if v["version"] != tc.version {
			t.Errorf("%s %q: installed version %v, want %v:\n%s", tc.harness, tc.src, v["version"], tc.version, got)
		}
		if _, ok := v["hooks"].(map[string]any); !ok {
			t.Errorf("%s %q: no hooks installed:\n%s", tc.harness, tc.src, got)
		}
		back, err := h.uninstall("f.json", got)
		if err != nil {
			t.Fatal(err)
		}
		var u map[string]any
		if back != nil {
			if err := json.Unmarshal(back, &u); err != nil {
				t.Fatal(err)
			}
		}
		if back != nil && u["version"] != tc.version {
			t.Errorf("%s %q: uninstall left version %v, want %v", tc.harness, tc.src, u["version"], tc.version)
		}
	}
}

// pruned is src's value without empty lists of h's events in "hooks" and
// without "hooks" once empty, with each top-level key of h's skeleton it
// lacks, marshalled with sorted keys.
func pruned(h *Harness, src []byte) string {
	var v, skeleton map[string]any
	if err := json.Unmarshal(src, &v); err != nil {
		return "invalid: " + err.Error()
	}
	if err := json.Unmarshal([]byte(h.Install.Skeleton), &skeleton); err != nil {
		return "invalid skeleton: " + err.Error()
	}
	for k, sv := range skeleton {
		if _, ok := v[k]; !ok {
			v[k] = sv
		}
	}
	if hooks, ok := v["hooks"].(map[string]any); ok {
		for _, ev := range h.registered() {
			if l, ok := hooks[ev.Name].([]any); ok && len(l) == 0 {
				delete(hooks, ev.Name)
			}
		}
		if len(hooks) == 0 {
			delete(v, "hooks")
		}
	}
	b, _ := json.Marshal(v)
	return strings.TrimSpace(string(b))
}
