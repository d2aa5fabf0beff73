package main

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// rowsOf drops an export's header (its exportedAt is the clock's), leaving
// the rows.
func rowsOf(t *testing.T, export string) string {
	t.Helper()
	head, rows, ok := strings.Cut(export, "\n")
	if !ok || !strings.HasPrefix(head, `{"format":"baton.export","version":3,"tenant":"local"`) {
		t.Fatalf("not an export: %.200q", export)
	}
	return rows
}

// tarNames lists a gzipped tarball's entries.
func tarNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
	}
}

// TestExportImportForget: what `baton export` writes, `baton import` puts
// into an empty home's store row for row; the bottles go beside the export;
// `baton forget --yes` leaves no row and no bottle.
func TestExportImportForget(t *testing.T) {
	env := testEnv(t)
	for _, args := range [][]string{
		{"remember", "--kind", "commitment", "--topic", "ship", "ship", "it"},
		{"remember", "--topic", "note", "a note"},
	} {
		if _, stderr, status := run(t, env, args); status != exitOK {
			t.Fatalf("%v: %d %s", args, status, stderr)
		}
	}
	bottles := map[string]string{
		"bottles/claude-code/s1.bottle/index.md":                          "# bottle",
		"bottles/claude-code/archive/20261001T000000Z-s0.bottle/index.md": "# archived",
		"bottles/claude-code/s1.lock":                                     "",
		"bottles/claude-code/s1.clear":                                    `{"cursor":{}}`,
	}
	for name, body := range bottles {
		p := filepath.Join(env.Home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	out := filepath.Join(t.TempDir(), "export.jsonl")
	if stdout, stderr, status := run(t, env, []string{"export", "--out", out}); status != exitOK || stdout != "" ||
		!strings.Contains(stderr, "exported ") || !strings.Contains(stderr, "memories 2") || !strings.Contains(stderr, "copied 2 bottle files") {
		t.Fatalf("export --out: %d %q %q", status, stdout, stderr)
	}
	if got, want := tarNames(t, out+bottlesTarSuffix), []string{
		"bottles/claude-code/archive/20261001T000000Z-s0.bottle/index.md", "bottles/claude-code/s1.bottle/index.md",
	}; !slices.Equal(got, want) {
		t.Errorf("the bottles tarball holds %v, want %v", got, want)
	}
	written, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, status := run(t, env, []string{"export"})
	if status != exitOK || rowsOf(t, stdout) != rowsOf(t, string(written)) {
		t.Fatalf("export to stdout (%d) differs from --out", status)
	}

	other := testEnv(t)
	if stdout, stderr, status := run(t, other, []string{"import", out}); status != exitOK || !strings.HasPrefix(stdout, "imported ") {
		t.Fatalf("import: %d %q %q", status, stdout, stderr)
	}
	if stdout, _, _ := run(t, other, []string{"export"}); rowsOf(t, stdout) != rowsOf(t, string(written)) {
		t.Errorf("the imported store exports other rows")
	}
	if _, stderr, status := run(t, other, []string{"import", out}); status != exitFailure || !strings.Contains(stderr, "conflict") {
		t.Errorf("a second import: %d %q, want a conflict", status, stderr)
	}
	stdin := testEnv(t)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin.Stdin = f
	if _, stderr, status := run(t, stdin, []string{"import", "-"}); status != exitOK {
		t.Errorf("import from stdin: %d %q", status, stderr)
	}

	if _, stderr, status := run(t, env, []string{"forget"}); status != exitFailure || !strings.Contains(stderr, "--yes") {
		t.Errorf("forget without --yes: %d %q", status, stderr)
	}
	if stdout, _, _ := run(t, env, []string{"export"}); rowsOf(t, stdout) == "" {
		t.Fatal("forget without --yes erased rows")
	}
	stdout, stderr, status := run(t, env, []string{"forget", "--yes"})
	if status != exitOK || !strings.HasPrefix(stdout, "erased ") || !strings.Contains(stdout, "removed the bottles") {
		t.Fatalf("forget --yes: %d %q %q", status, stdout, stderr)
	}
	if stdout, _, _ := run(t, env, []string{"export"}); rowsOf(t, stdout) != "" {
		t.Errorf("rows left after forget: %q", rowsOf(t, stdout))
	}
	if _, err := os.Stat(filepath.Join(env.Home, "bottles")); !os.IsNotExist(err) {
		t.Errorf("the bottles are still there: %v", err)
	}
}

// TestExportFailureKeepsThePreviousFiles: an export to --out that fails
// (here its bottles tarball cannot be written) leaves the files a previous
// export wrote at those paths as they were, and no temporary file beside
// them; one that succeeds replaces both.
func TestExportFailureKeepsThePreviousFiles(t *testing.T) {
	env := testEnv(t)
	if _, stderr, status := run(t, env, []string{"remember", "--topic", "note", "a note"}); status != exitOK {
		t.Fatalf("remember: %d %s", status, stderr)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(out, []byte("yesterday's export\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The tarball's path is a directory: the export's second file fails.
	if err := os.Mkdir(out+bottlesTarSuffix, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, stderr, status := run(t, env, []string{"export", "--out", out}); status != exitFailure || !strings.Contains(stderr, "bottles") {
		t.Fatalf("export --out with its tarball path a directory: %d %q, want a failure naming the bottles", status, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "yesterday's export\n" {
		t.Fatalf("after the failed export, %s holds %q (%v), want the previous export", out, b, err)
	}
	if names, want := dirNames(t, dir), []string{"export.jsonl", "export.jsonl" + bottlesTarSuffix}; !slices.Equal(names, want) {
		t.Errorf("after the failed export the directory holds %v, want %v", names, want)
	}
	if err := os.Remove(out + bottlesTarSuffix); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out+bottlesTarSuffix, []byte("yesterday's bottles"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, status := run(t, env, []string{"export", "--out", out}); status != exitOK {
		t.Fatalf("export --out: %d %q", status, stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(rowsOf(t, string(b)), `"table":"memories"`) {
		t.Errorf("the export did not replace the previous one: %.200q", b)
	}
	if names := tarNames(t, out+bottlesTarSuffix); len(names) != 0 {
		t.Errorf("the new tarball holds %v, want no bottle", names)
	}
}

// TestExportRefusesAnEmptyOut: an --out given empty (`--out "$FILE"` with
// FILE unset) is a usage error naming the flag, as bottle render's is; it
// used to mean stdout, so every row of the tenant went to the terminal or
// the log the script wrote to.
func TestExportRefusesAnEmptyOut(t *testing.T) {
	env := testEnv(t)
	if _, stderr, status := run(t, env, []string{"remember", "--topic", "t", "a note"}); status != exitOK {
		t.Fatalf("remember: %d %s", status, stderr)
	}
	for _, args := range [][]string{
		{"export", "--out", ""},
		{"export", "--out="},
	} {
		stdout, stderr, status := run(t, env, args)
		if status != exitUsage || stdout != "" || !strings.Contains(stderr, "--out") {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want exit 2 naming --out and nothing on stdout", args, status, stdout, stderr)
		}
	}
	if entries, _ := os.ReadDir(env.Dir); len(entries) != 0 {
		t.Error("a refused export wrote files")
	}
}

// TestImportRefusesWhatIsNoFile: an import FILE that is missing, empty or a
// directory is a usage error naming it, as bottle render's --transcript
// is, and a stdin that is a directory fails naming stdin; each used to fail
// as "internal: the import could not be read" (or "open : ..."), naming
// neither the file nor what is wrong with it. Nothing is written.
func TestImportRefusesWhatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name   string
		args   []string
		stdin  string // a path opened as stdin; "" for none
		status int
		says   string
	}{
		{"a directory", []string{"import", dir}, "", exitUsage, dir + " is a directory, not a file"},
		{"a missing file", []string{"import", filepath.Join(dir, "missing.jsonl")}, "", exitUsage, "missing.jsonl"},
		{"an empty path", []string{"import", ""}, "", exitUsage, "the path is empty"},
		{"stdin a directory", []string{"import", "-"}, dir, exitFailure, "import: stdin is a directory"},
	}
	for _, tc := range cases {
		env := testEnv(t)
		if tc.stdin != "" {
			f, err := os.Open(tc.stdin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			env.Stdin = f
		}
		_, stderr, status := run(t, env, tc.args)
		if status != tc.status || !strings.Contains(stderr, tc.says) {
			t.Errorf("%s: status %d, stderr %q; want %d saying %q", tc.name, status, stderr, tc.status, tc.says)
		}
		if out, _, _ := run(t, env, []string{"export"}); rowsOf(t, out) != "" {
			t.Errorf("%s: the refused import wrote rows", tc.name)
		}
	}
}
