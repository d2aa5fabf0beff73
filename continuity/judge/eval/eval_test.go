package eval

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/judge"
	"github.com/google/uuid"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// shipped is the labelled set this package ships.
const shipped = "testdata/sessions"

func id(n byte) uuid.UUID { return uuid.UUID{0x01, 0x90, 15: n} }

func ids(ns ...byte) []uuid.UUID {
	var out []uuid.UUID
	for _, n := range ns {
		out = append(out, id(n))
	}
	return out
}

// session briefs the commitments ns and labels done completed.
func session(name string, ns []byte, done ...byte) Session {
	s := Session{Name: name, Completed: ids(done...)}
	for _, n := range ns {
		s.Commitments = append(s.Commitments, Commitment{ID: id(n), Topic: "t", Content: "c"})
	}
	return s
}

func TestBar(t *testing.T) {
	for _, tc := range []struct {
		bar      Bar
		num, den int
		want     bool
	}{
		{OverallRecallBar, 0, 0, false},
		{OverallRecallBar, 13, 50, false}, // exactly 26 %: not strictly above
		{OverallRecallBar, 14, 50, true},
		{OverallRecallBar, 27, 100, true},
		{CommitmentRecallBar, 0, 5, false},
		{CommitmentRecallBar, 1, 1000, true},
		{SpuriousBar, 0, 0, true},
		{SpuriousBar, 1, 20, true},  // exactly 5 %
		{SpuriousBar, 2, 39, false}, // 5.13 %
		{DuplicateBar, 0, 1, true},
		{DuplicateBar, 1, 1, false},
	} {
		if got := tc.bar.holds(tc.num, tc.den); got != tc.want {
			t.Errorf("%s holds %d/%d = %v, want %v", tc.bar, tc.num, tc.den, got, tc.want)
		}
	}
	if CommitmentRecallBar.String() != "> 0%" || SpuriousBar.String() != "<= 5%" || OverallRecallBar.String() != "> 26%" {
		t.Fatalf("bars render %s %s %s", CommitmentRecallBar, OverallRecallBar, SpuriousBar)
	}
}

// rate is a figure's numerator, denominator, whether its percent is
// defined, and whether it passes.
type rate struct {
	num, den int
	defined  bool
	pass     bool
}

func got(f Figure) rate { return rate{f.Num, f.Den, f.Percent != nil, f.Pass} }

func TestScore(t *testing.T) {
	other := func(s Session, candidates, recorded int) Session {
		s.OtherCandidates, s.OtherRecorded = candidates, recorded
		return s
	}
	for _, tc := range []struct {
		name                                     string
		sessions                                 []Session
		verdicts                                 []Verdict
		commitment, overall, spurious, duplicate rate
	}{
		{"no sessions", nil, nil,
			rate{0, 0, false, false}, rate{0, 0, false, false}, rate{0, 0, true, true}, rate{0, 0, true, true}},
		{"nothing labelled, nothing resolved", []Session{session("a", []byte{1, 2})}, []Verdict{{}},
			rate{0, 0, false, false}, rate{0, 0, false, false}, rate{0, 0, true, true}, rate{0, 0, true, true}},
		{"a closer that captures nothing", []Session{other(session("a", []byte{1}, 1), 49, 13)}, []Verdict{{}},
			rate{0, 1, true, false}, rate{13, 50, true, false}, rate{0, 0, true, true}, rate{0, 0, true, true}},
		{"one more capture lifts overall recall over the bar", []Session{other(session("a", []byte{1}, 1), 49, 13)}, []Verdict{{Completed: ids(1)}},
			rate{1, 1, true, true}, rate{14, 50, true, true}, rate{0, 1, true, true}, rate{0, 1, true, true}},
		{"resolved but not labelled", []Session{session("a", []byte{1, 2}, 1)}, []Verdict{{Completed: ids(1, 2)}},
			rate{1, 1, true, true}, rate{1, 1, true, true}, rate{1, 2, true, false}, rate{0, 2, true, true}},
		{"a repeat in one verdict", []Session{session("a", []byte{1}, 1)}, []Verdict{{Completed: ids(1, 1)}},
			rate{1, 1, true, true}, rate{1, 1, true, true}, rate{0, 2, true, true}, rate{1, 2, true, false}},
		{"one commitment resolved in two sessions", []Session{session("a", []byte{1}), session("b", []byte{1}, 1)}, []Verdict{{Completed: ids(1)}, {Completed: ids(1)}},
			rate{1, 1, true, true}, rate{1, 1, true, true}, rate{1, 2, true, false}, rate{1, 2, true, false}},
		{"an id not briefed counts nowhere", []Session{session("a", []byte{1}, 1)}, []Verdict{{Completed: ids(1, 9)}},
			rate{1, 1, true, true}, rate{1, 1, true, true}, rate{0, 1, true, true}, rate{0, 1, true, true}},
		{"a failed session resolves nothing", []Session{session("a", []byte{1}, 1), session("b", []byte{2}, 2)}, []Verdict{{Err: "x"}, {Completed: ids(2)}},
			rate{1, 2, true, true}, rate{1, 2, true, true}, rate{0, 1, true, true}, rate{0, 1, true, true}},
		{"spurious at exactly the bar", append([]Session{session("s", []byte{99})}, manySessions(19)...), append([]Verdict{{Completed: ids(99)}}, manyVerdicts(19)...),
			rate{19, 19, true, true}, rate{19, 19, true, true}, rate{1, 20, true, true}, rate{0, 20, true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Score(tc.sessions, tc.verdicts)
			for _, c := range []struct {
				name      string
				got, want rate
			}{
				{"commitment recall", got(r.CommitmentRecall), tc.commitment},
				{"overall recall", got(r.OverallRecall), tc.overall},
				{"spurious rate", got(r.SpuriousRate), tc.spurious},
				{"duplicate rate", got(r.DuplicateRate), tc.duplicate},
			} {
				if c.got != c.want {
					t.Errorf("%s = %+v, want %+v", c.name, c.got, c.want)
				}
			}
			if r.Pass() != (tc.commitment.pass && tc.overall.pass && tc.spurious.pass && tc.duplicate.pass) {
				t.Errorf("Pass = %v", r.Pass())
			}
		})
	}
}

func manySessions(n int) []Session {
	var out []Session
	for i := range n {
		out = append(out, session(string(rune('a'+i)), []byte{byte(i + 1)}, byte(i+1)))
	}
	return out
}

func manyVerdicts(n int) []Verdict {
	var out []Verdict
	for i := range n {
		out = append(out, Verdict{Completed: ids(byte(i + 1))})
	}
	return out
}

func TestScoreResults(t *testing.T) {
	s := []Session{session("a", []byte{1, 2, 3}, 1, 2), session("b", []byte{3}, 3)}
	r := Score(s, []Verdict{{Completed: ids(2, 3, 9), Usage: continuity.JudgeUsage{InputTokens: 5, OutputTokens: 1, CostMicroUSD: 7}}, {Completed: ids(3), Err: "boom", Usage: continuity.JudgeUsage{InputTokens: 1}}})
	a, b := r.Results[0], r.Results[1]
	if !slices.Equal(a.Resolved, ids(2, 3)) || !slices.Equal(a.Missed, ids(1)) || !slices.Equal(a.Spurious, ids(3)) || len(a.Duplicate) != 0 || !slices.Equal(a.Ignored, ids(9)) {
		t.Fatalf("a = %+v", a)
	}
	if !slices.Equal(b.Duplicate, ids(3)) || len(b.Missed) != 0 || b.Error != "boom" || r.Failed != 1 {
		t.Fatalf("b = %+v, failed %d", b, r.Failed)
	}
	if r.Briefed != 4 || r.Labelled != 3 || r.Resolved != 3 || r.Usage != (continuity.JudgeUsage{InputTokens: 6, OutputTokens: 1, CostMicroUSD: 7}) {
		t.Fatalf("counts %+v", r)
	}
}

// TestShippedSetReference runs the reference judge over the shipped set:
// the figures a person can check against each file's note.
func TestShippedSetReference(t *testing.T) {
	sessions, err := Load(shipped)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), judge.Reference{}, "eval", sessions)
	if err != nil {
		t.Fatal(err)
	}
	r.Judge = "reference"
	if r.Sessions != 18 || r.Briefed != 33 || r.Failed != 0 {
		t.Fatalf("%d sessions, %d briefed, %d failed", r.Sessions, r.Briefed, r.Failed)
	}
	want := map[string]rate{
		"commitment recall": {10, 12, true, true},
		"overall recall":    {13, 18, true, true},
		"spurious rate":     {1, 11, true, false},
		"duplicate rate":    {0, 11, true, true},
	}
	for name, f := range map[string]Figure{"commitment recall": r.CommitmentRecall, "overall recall": r.OverallRecall, "spurious rate": r.SpuriousRate, "duplicate rate": r.DuplicateRate} {
		if got(f) != want[name] {
			t.Errorf("%s = %+v, want %+v", name, got(f), want[name])
		}
	}
	off := map[string]string{}
	for _, res := range r.Results {
		switch {
		case len(res.Missed) > 0:
			off[res.Name] = "missed"
		case len(res.Spurious) > 0:
			off[res.Name] = "spurious"
		}
	}
	if wantOff := map[string]string{"natural-language-done": "missed", "paraphrased-done": "missed", "misreported": "spurious"}; !mapsEqual(off, wantOff) {
		t.Fatalf("sessions off the labels %v, want %v", off, wantOff)
	}
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/reference.golden", b.Bytes())
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}

// failing is a judge that fails on the sessions it names and otherwise
// defers to the reference.
type failing map[string]bool

func (f failing) Judge(ctx context.Context, c continuity.JudgeCase) (continuity.Verdict, error) {
	if f[c.SessionID] {
		return continuity.Verdict{Usage: continuity.JudgeUsage{InputTokens: 3}}, &continuity.Error{Code: continuity.CodeInternal, Message: "the judge endpoint answered HTTP 503", Err: errors.New("secret cause")}
	}
	return judge.Reference{}.Judge(ctx, c)
}

func TestRunKeepsFailures(t *testing.T) {
	sessions, err := Load(shipped)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), failing{"done-by-topic": true}, "eval", sessions)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Results[0]
	if r.Failed != 1 || res.Name != "done-by-topic" || res.Error != "the judge endpoint answered HTTP 503" || len(res.Resolved) != 0 || len(res.Missed) != 1 || r.Usage.InputTokens != 3 {
		t.Fatalf("failed %d, first result %+v, usage %+v", r.Failed, res, r.Usage)
	}
	if r.CommitmentRecall.Num != 9 {
		t.Fatalf("commitment recall %+v, want one hit fewer than the reference", r.CommitmentRecall)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, judge.Reference{}, "eval", sessions); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run on an ended context = %v", err)
	}
}

func TestLoad(t *testing.T) {
	good := `{"name":"n","excerpt":"done: a","commitments":[{"id":"0190a001-7a00-7000-8000-000000000001","topic":"a","content":"c"}],"completed":["0190a001-7a00-7000-8000-000000000001"]}`
	for _, tc := range []struct {
		name  string
		files map[string]string
		code  continuity.Code
		field string // a field the error names
	}{
		{"one good session and a README", map[string]string{"a.json": good, "README.md": "# set"}, "", ""},
		{"no session", map[string]string{"README.md": "x"}, continuity.CodeNotFound, ""},
		{"an unknown key", map[string]string{"a.json": strings.Replace(good, `"name"`, `"label":1,"name"`, 1)}, continuity.CodeInvalid, "a.json"},
		{"an unknown key in an event", map[string]string{"a.json": strings.Replace(good, `"excerpt"`, `"events":[{"kind":"resolve"}],"excerpt"`, 1)}, continuity.CodeInvalid, "a.json"},
		{"two values", map[string]string{"a.json": good + good}, continuity.CodeInvalid, "a.json"},
		{"not JSON", map[string]string{"a.json": "name: n"}, continuity.CodeInvalid, "a.json"},
		{"a file over the bound", map[string]string{"a.json": good + strings.Repeat(" ", MaxFileBytes+1-len(good))}, continuity.CodeInvalid, "a.json"},
		{"a file at the bound", map[string]string{"a.json": good + strings.Repeat(" ", MaxFileBytes-len(good))}, "", ""},
		{"no name", map[string]string{"a.json": strings.Replace(good, `"name":"n"`, `"name":" "`, 1)}, continuity.CodeInvalid, "a.json: name"},
		{"a name twice", map[string]string{"a.json": good, "b.json": strings.ReplaceAll(good, "0190a001", "0190b001")}, continuity.CodeInvalid, "b.json: name"},
		{"completed but not briefed", map[string]string{"a.json": strings.Replace(good, `"completed":["0190a001`, `"completed":["0190ffff`, 1)}, continuity.CodeInvalid, "a.json: completed[0]"},
		{"completed twice", map[string]string{"a.json": strings.Replace(good, `"completed":["0190a001-7a00-7000-8000-000000000001"]`, `"completed":["0190a001-7a00-7000-8000-000000000001","0190a001-7a00-7000-8000-000000000001"]`, 1)}, continuity.CodeInvalid, "a.json: completed[1]"},
		{"completed in two sessions", map[string]string{"a.json": good, "b.json": strings.Replace(good, `"name":"n"`, `"name":"m"`, 1)}, continuity.CodeInvalid, "b.json: completed"},
		{"a commitment twice", map[string]string{"a.json": strings.Replace(good, `"commitments":[`, `"commitments":[{"id":"0190a001-7a00-7000-8000-000000000001","topic":"b","content":"c"},`, 1)}, continuity.CodeInvalid, "a.json: commitments[1].id"},
		{"an excerpt over the bound", map[string]string{"a.json": strings.Replace(good, `"done: a"`, `"`+strings.Repeat("x", continuity.MaxExcerptLen+1)+`"`, 1)}, continuity.CodeInvalid, "a.json: excerpt"},
		{"more recorded than candidates", map[string]string{"a.json": strings.Replace(good, `"name":"n"`, `"name":"n","otherCandidates":1,"otherRecorded":2`, 1)}, continuity.CodeInvalid, "a.json: otherRecorded"},
		{"negative candidates", map[string]string{"a.json": strings.Replace(good, `"name":"n"`, `"name":"n","otherCandidates":-1`, 1)}, continuity.CodeInvalid, "a.json: otherRecorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Load(dir)
			if tc.code == "" {
				if err != nil || len(s) != 1 {
					t.Fatalf("Load = %d sessions, %v", len(s), err)
				}
				return
			}
			if continuity.ErrorCode(err) != tc.code || (tc.field != "" && continuity.ErrorFields(err)[tc.field] == "") {
				t.Fatalf("Load = %v, want %s naming %q", err, tc.code, tc.field)
			}
		})
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); continuity.ErrorFields(err)["d.json"] != "is not a regular file" {
		t.Fatalf("Load of a directory named *.json = %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "absent")); continuity.ErrorCode(err) != continuity.CodeNotFound {
		t.Fatalf("Load of a missing directory = %v, want not_found", err)
	}
}
