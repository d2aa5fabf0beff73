package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentsKeepTheirBytes: an argument reaches its command byte for
// byte. A file name that is not UTF-8 names that file, never the one its
// bytes rewritten to U+FFFD would name, and text that is not UTF-8 is
// refused by the service, naming the field, rather than stored rewritten.
func TestArgumentsKeepTheirBytes(t *testing.T) {
	original, err := os.ReadFile(realTranscript)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	transcript := filepath.Join(dir, "t\xff.jsonl")
	if err := os.WriteFile(transcript, original, 0o600); err != nil {
		t.Skipf("this file system keeps no file name that is not UTF-8: %v", err)
	}
	env := testEnv(t)
	out, stderr, status := run(t, env, []string{"bottle", "render", "--transcript", transcript})
	if status != exitOK || !strings.Contains(out, "mode: full") {
		t.Errorf("render of %q: status %d, stderr %q", transcript, status, stderr)
	}
	dst := filepath.Join(dir, "b\xfe.md")
	if _, stderr, status := run(t, env, []string{"bottle", "render", "--transcript", realTranscript, "--out", dst}); status != exitOK {
		t.Fatalf("render --out %q: status %d, stderr %q", dst, status, stderr)
	}
	if names := dirNames(t, dir); len(names) != 2 || !strings.Contains(strings.Join(names, "/"), "b\xfe.md") {
		t.Errorf("--out %q wrote %q", dst, names)
	}

	for _, c := range []struct {
		name  string
		args  []string
		field string
	}{
		{"topic", []string{"remember", "--topic", "a\xffb", "content"}, "--topic: must be valid UTF-8"},
		{"content", []string{"remember", "--topic", "t", "c\xff"}, "<content>: must be valid UTF-8"},
		{"project", []string{"remember", "--topic", "t", "--project", "p\xfe", "content"}, "--project: must be valid UTF-8"},
		{"briefing project", []string{"briefing", "--project", "p\xfe"}, "--project: must be valid UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, status := run(t, env, c.args)
			if status != exitFailure || out != "" || !strings.Contains(stderr, c.field) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("status %d, stdout %q, stderr %q; want %d and one line naming %q", status, out, stderr, exitFailure, c.field)
			}
		})
	}
	if out, _, status := run(t, env, []string{"export"}); status != exitOK || strings.Contains(out, `"table":"memories"`) {
		t.Errorf("a refused write was stored (export status %d):\n%s", status, out)
	}
}

// TestEmptyPathArguments: an empty path is a usage error naming its flag
// or argument, never the working directory; so is a blank path, and one
// with space at either end, which export --out and bottle render --out
// created in the working directory as typed (a file named " ", or
// "e.jsonl " beside e.jsonl).
func TestEmptyPathArguments(t *testing.T) {
	env := testEnv(t)
	transcript, err := filepath.Abs(realTranscript)
	if err != nil {
		t.Fatal(err)
	}
	wd := t.TempDir()
	t.Chdir(wd) // where a relative path would be created
	if err := os.WriteFile("e.jsonl", []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const padded = "--out: the path has space at its start or end"
	for _, c := range []struct {
		args []string
		name string
	}{
		{[]string{"eval", ""}, "<dir>: the path is empty"},
		{[]string{"serve", "--keys-file", ""}, "--keys-file: the path is empty"},
		{[]string{"install", "--harness", "claude-code", "--binary", "", "--dry-run"}, "--binary: the path is empty"},
		{[]string{"export", "--out", " "}, "--out: the path is blank"},
		{[]string{"export", "--out", "\t"}, "--out: the path is blank"},
		{[]string{"export", "--out", "e.jsonl "}, padded},
		{[]string{"export", "--out", " e.jsonl"}, padded},
		{[]string{"bottle", "render", "--transcript", transcript, "--out", "b.md\n"}, padded},
		{[]string{"import", "e.jsonl "}, "<file>: the path has space at its start or end"},
		// A file's path ending in a separator names a directory: kong
		// would clean it away, and --out write a file named new.
		{[]string{"export", "--out", "new" + string(filepath.Separator)}, "--out: new" + string(filepath.Separator) + " ends in a separator"},
		{[]string{"bottle", "render", "--transcript", transcript, "--out", "new/"}, "ends in a separator, which names a directory"},
		{[]string{"import", "e.jsonl/"}, "<file>: "},
		{[]string{"bottle", "render", "--transcript", transcript + "/"}, "--transcript: "},
	} {
		out, stderr, status := run(t, env, c.args)
		if status != exitUsage || out != "" || !strings.Contains(stderr, c.name) {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want %d and %q", c.args, status, out, stderr, exitUsage, c.name)
		}
	}
	if names := dirNames(t, wd); len(names) != 1 {
		t.Errorf("the refused paths wrote %q", names)
	}
}

// TestExportRefusesAnOut: an --out naming a directory, or a file in a
// directory that does not exist or is no directory, is a usage error naming
// --out before anything is written, the bottles' tarball included; the
// latter two failed only once the export ran, naming its temporary file
// ("open /x/missing/.e.jsonl.tmp-123: no such file or directory"), never
// --out. bottle render's --out is refused alike.
func TestExportRefusesAnOut(t *testing.T) {
	env := testEnv(t)
	parent := t.TempDir()
	dir, file := filepath.Join(parent, "out"), filepath.Join(parent, "file")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(parent, "missing")
	for _, c := range []struct {
		name, out, says string
		render          bool
	}{
		{"a directory", dir, "--out: " + dir + " is a directory", false},
		{"in a directory that does not exist", filepath.Join(missing, "e.jsonl"), "--out: the directory " + missing + " does not exist", false},
		{"in a file", filepath.Join(file, "e.jsonl"), "--out: " + file + " is not a directory", false},
		{"below a file", filepath.Join(file, "sub", "e.jsonl"), "--out: the directory " + filepath.Join(file, "sub"), false},
		{"a bottle in a directory that does not exist", filepath.Join(missing, "b.md"), "--out: the directory " + missing + " does not exist", true},
	} {
		args := []string{"export", "--out", c.out}
		if c.render {
			args = []string{"bottle", "render", "--transcript", realTranscript, "--out", c.out}
		}
		out, stderr, status := run(t, env, args)
		if status != exitUsage || out != "" || !strings.Contains(stderr, c.says) {
			t.Errorf("%s: status %d, stdout %q, stderr %q; want %d and %q", c.name, status, out, stderr, exitUsage, c.says)
		}
		if names := dirNames(t, parent); len(names) != 2 {
			t.Errorf("%s: the refusal wrote %v", c.name, names)
		}
	}
}

// TestOutRefusesWhatWasNotNamed: an --out of export or bottle render that
// would write a file the person did not name is a usage error naming the
// flag, and nothing is written: "-" (it wrote a file called -), a name of
// space alone or with space at either end (it wrote " " or "x.jsonl "),
// and a path whose directory does not exist or is a file (that failed
// only after the store was opened, naming the temporary file).
func TestOutRefusesWhatWasNotNamed(t *testing.T) {
	transcript, err := filepath.Abs(realTranscript)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, out, says string }{
		{"a dash", "-", "--out: - is no file"},
		{"space alone", " ", "--out: the path is blank"},
		{"a leading space", " x.out", "--out: the path has space at its start or end"},
		{"a trailing tab", "x.out\t", "--out: the path has space at its start or end"},
		{"a name with a leading space after a directory", "." + string(filepath.Separator) + " x.out", `--out: " x.out" has space at its start or end`},
		{"a missing directory", filepath.Join("nope", "x.out"), "--out: the directory "},
		{"a file for a directory", filepath.Join("file", "x.out"), string(filepath.Separator) + "file is not a directory"},
		{"a NUL byte", "x\x00.out", "--out: holds a NUL byte"},
	} {
		for _, cmd := range [][]string{{"export"}, {"bottle", "render", "--transcript", transcript}} {
			t.Run(cmd[0]+" "+tc.name, func(t *testing.T) {
				env := testEnv(t)
				if err := os.WriteFile(filepath.Join(env.Dir, "file"), nil, 0o600); err != nil {
					t.Fatal(err)
				}
				// Relative, so the paths are made absolute in the test's own
				// working directory, env.Dir.
				t.Chdir(env.Dir)
				out, stderr, status := run(t, env, append(cmd, "--out", tc.out))
				if status != exitUsage || out != "" || !strings.Contains(stderr, tc.says) {
					t.Errorf("status %d, stdout %q, stderr %q; want %d and %q", status, out, stderr, exitUsage, tc.says)
				}
				if names := dirNames(t, env.Dir); len(names) != 1 {
					t.Errorf("the refusal wrote %v", names)
				}
				if _, err := os.Stat(env.DSN); err == nil {
					t.Error("the store was opened")
				}
			})
		}
	}
}
