package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
)

// textField is one text field of an export's row and the rule the
// service's writes keep it under: an import must refuse what no write
// could have stored.
type textField struct {
	table, field string
	max          int
	// fill is the character the bound cases repeat (default "é", two
	// bytes, so a bound in bytes would show).
	fill                        string
	required, trimmed, filtered bool
	// row is a valid row of table holding v in the field.
	row func(v string) any
}

// sentinel stands in a row for the value under test, which is put in the
// encoded line as its own JSON string: encoding/json would rewrite bytes
// that are not UTF-8.
const sentinel = "@@value@@"

// exportLine encodes a row of table as Export writes it, with v in place
// of the sentinel.
func exportLine(t *testing.T, table string, row any, v string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(continuity.ExportLine{Table: table, Row: mustJSON(t, row)}); err != nil {
		t.Fatal(err)
	}
	lit := `"` + v + `"` // the cases' text that is not UTF-8 needs no escape
	if utf8.ValidString(v) {
		var s bytes.Buffer
		enc := json.NewEncoder(&s)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		lit = strings.TrimSuffix(s.String(), "\n")
	}
	return strings.Replace(b.String(), `"`+sentinel+`"`, lit, 1)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

var importAt = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func importSession(edit func(*continuity.Session)) any {
	s := continuity.Session{ID: newID(), Agent: agent, SessionID: "s1", Source: continuity.SourceStartup,
		OpenedAt: importAt, LastSeenAt: importAt, ActivatedAt: importAt, ActivationEpoch: 1, TriageStatus: "idle"}
	edit(&s)
	return s
}

func importMemory(edit func(*continuity.Memory)) any {
	m := continuity.Memory{ID: newID(), Kind: continuity.KindNote, Topic: "t", Content: "c", Status: continuity.StatusOpen,
		CreatedAt: importAt, UpdatedAt: importAt}
	edit(&m)
	return m
}

// The header of an export of the current version, and its version member.
var (
	currentVersion = `"version":` + strconv.Itoa(continuity.ExportVersion)
	currentHeader  = `{"format":"baton.export",` + currentVersion + `,"tenant":"x","exportedAt":"2026-11-30T09:00:00Z"}` + "\n"
)

// importRecord is the first record of its tenant (Seq 1), as edit leaves it.
func importRecord(edit func(*continuity.Record)) any {
	r := continuity.Record{ID: newID(), Kind: continuity.RecordHandover, Agent: agent, SessionID: "s1", SessionRunID: newID(),
		Objective: "o", State: "s", NextAction: "n", CreatedAt: importAt, Seq: 1}
	edit(&r)
	return r
}

func importMarker(edit func(*continuity.BottleMarker)) any {
	m := continuity.BottleMarker{Agent: agent, SessionID: "s1", Path: "/b/s1.md", Mode: "full", ArmedAt: importAt}
	edit(&m)
	return m
}

func importPrompt(text string) any {
	return continuity.Prompt{ID: newID(), Agent: agent, SessionID: "s1", Number: 1, Text: text, At: importAt}
}

// importExcerpt is the first excerpt of its conversation (Seq 1).
func importExcerpt(text string) any {
	return continuity.StopExcerpt{ID: newID(), Agent: agent, SessionID: "s1", Text: text, At: importAt, Seq: 1}
}

func importLedger(edit func(*continuity.LedgerEntry)) any {
	e := continuity.LedgerEntry{ID: newID(), Event: "e", At: importAt}
	edit(&e)
	return e
}

// importTextFields are every text field of every table, with the bounds
// the service's writes keep them in.
var importTextFields = []textField{
	{table: continuity.TableSessions, field: "project", max: continuity.MaxFacetLen, trimmed: true,
		row: func(v string) any { return importSession(func(s *continuity.Session) { s.Project = v }) }},
	{table: continuity.TableSessions, field: "scope", max: continuity.MaxFacetLen, trimmed: true,
		row: func(v string) any { return importSession(func(s *continuity.Session) { s.Scope = v }) }},
	{table: continuity.TableSessions, field: "selector", max: continuity.MaxFacetLen,
		row: func(v string) any {
			return importSession(func(s *continuity.Session) { s.Selector = continuity.Selector{"kind": v} })
		}},
	{table: continuity.TableSessions, field: "briefedMemories[0].topic", max: continuity.MaxTopicLen, trimmed: true, filtered: true,
		row: func(v string) any {
			return importSession(func(s *continuity.Session) {
				s.BriefedMemories = []continuity.BriefedMemory{{ID: newID(), Topic: v, Status: "open"}}
			})
		}},
	{table: continuity.TableSessions, field: "lastMessageExcerpt", max: continuity.MaxExcerptLen, trimmed: true, filtered: true,
		row: func(v string) any { return importSession(func(s *continuity.Session) { s.LastMessageExcerpt = v }) }},
	{table: continuity.TableMemories, field: "topic", max: continuity.MaxTopicLen, required: true, trimmed: true, filtered: true,
		row: func(v string) any { return importMemory(func(m *continuity.Memory) { m.Topic = v }) }},
	{table: continuity.TableMemories, field: "content", max: continuity.MaxContentLen, required: true, trimmed: true, filtered: true,
		row: func(v string) any { return importMemory(func(m *continuity.Memory) { m.Content = v }) }},
	{table: continuity.TableMemories, field: "project", max: continuity.MaxFacetLen, trimmed: true,
		row: func(v string) any { return importMemory(func(m *continuity.Memory) { m.Project = v }) }},
	{table: continuity.TableMemories, field: "scope", max: continuity.MaxFacetLen, trimmed: true,
		row: func(v string) any { return importMemory(func(m *continuity.Memory) { m.Scope = v }) }},
	{table: continuity.TableRecords, field: "project", max: continuity.MaxFacetLen, trimmed: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.Project = v }) }},
	{table: continuity.TableRecords, field: "task", max: continuity.MaxTopicLen, trimmed: true, filtered: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.Task = v }) }},
	{table: continuity.TableRecords, field: "objective", max: continuity.MaxRecordTextLen, trimmed: true, filtered: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.Objective = v }) }},
	{table: continuity.TableRecords, field: "state", max: continuity.MaxRecordTextLen, trimmed: true, filtered: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.State = v }) }},
	{table: continuity.TableRecords, field: "nextAction", max: continuity.MaxRecordTextLen, trimmed: true, filtered: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.NextAction = v }) }},
	{table: continuity.TableRecords, field: "gitCommit", max: 256, fill: "a", trimmed: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.GitCommit = v }) }},
	{table: continuity.TableRecords, field: "gitBranch", max: 256, trimmed: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.GitBranch = v }) }},
	{table: continuity.TableRecords, field: "bottlePath", max: continuity.MaxPathLen, trimmed: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.BottlePath = v }) }},
	{table: continuity.TableRecords, field: "reason", max: continuity.MaxReasonLen, trimmed: true,
		row: func(v string) any { return importRecord(func(r *continuity.Record) { r.Reason = v }) }},
	{table: continuity.TableBottles, field: "path", max: continuity.MaxPathLen, required: true,
		row: func(v string) any { return importMarker(func(m *continuity.BottleMarker) { m.Path = v }) }},
	{table: continuity.TableBottles, field: "task", max: continuity.MaxRecordTextLen, trimmed: true, filtered: true,
		row: func(v string) any { return importMarker(func(m *continuity.BottleMarker) { m.Task = v }) }},
	{table: continuity.TablePrompts, field: "text", max: continuity.MaxPromptLen, required: true, trimmed: true, filtered: true, row: importPrompt},
	{table: continuity.TableStopExcerpts, field: "text", max: continuity.MaxExcerptLen, required: true, trimmed: true, filtered: true, row: importExcerpt},
	{table: continuity.TableLedger, field: "event", max: 64, required: true, trimmed: true,
		row: func(v string) any { return importLedger(func(e *continuity.LedgerEntry) { e.Event = v }) }},
	{table: continuity.TableLedger, field: "fields.note", max: continuity.MaxLedgerValueLen,
		row: func(v string) any {
			return importLedger(func(e *continuity.LedgerEntry) { e.Fields = map[string]string{"note": v} })
		}},
}

// importCase is one row an import reads, and the field it must refuse
// ("" when it must import the row as it is).
type importCase struct {
	name, table string
	row         any
	value       string
	refuse      string
}

// textCases are a field's boundary cases: exactly at its bound and one
// over, text that is not UTF-8, a NUL byte, the empty and the blank text,
// white space a write trims and a block the privacy filter removes.
func (tf textField) textCases() []importCase {
	fill := tf.fill
	if fill == "" {
		fill = "é"
	}
	name := "row." + tf.field
	c := func(what, v string, refused bool) importCase {
		ic := importCase{name: tf.table + " " + tf.field + " " + what, table: tf.table, row: tf.row(sentinel), value: v}
		if refused {
			ic.refuse = name
		}
		return ic
	}
	cases := []importCase{
		c("at its bound", strings.Repeat(fill, tf.max), false),
		c("one over its bound", strings.Repeat(fill, tf.max+1), true),
		c("not UTF-8", "a\xffb", true),
		c("with a NUL byte", "a\x00b", true),
		c("blank", "   ", tf.required || tf.trimmed),
	}
	if !tf.required {
		cases = append(cases, c("empty", "", false))
	} else {
		cases = append(cases, c("empty", "", true))
	}
	if tf.trimmed {
		cases = append(cases, c("with white space a write trims", " "+fill, true))
	}
	if tf.filtered {
		cases = append(cases, c("with a private block", fill+" <private>SENTINEL</private>", true))
	}
	return cases
}

// importRuleCases are the rules of a row beyond a text's bounds: how many
// a list or a map may hold, the shape of ids and keys.
func importRuleCases() []importCase {
	axes := func(n int) continuity.Selector {
		s := continuity.Selector{}
		for i := range n {
			s[fmt.Sprintf("axis-%02d", i)] = "v"
		}
		return s
	}
	briefed := func(n int) []continuity.BriefedMemory {
		b := make([]continuity.BriefedMemory, n)
		for i := range b {
			b[i] = continuity.BriefedMemory{ID: newID(), Topic: "t", Status: "open"}
		}
		return b
	}
	payload := func(n int) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprintf("k%02d", i)] = "v"
		}
		return m
	}
	session := func(edit func(*continuity.Session)) any { return importSession(edit) }
	ledger := func(edit func(*continuity.LedgerEntry)) any { return importLedger(edit) }
	record := func(edit func(*continuity.Record)) any { return importRecord(edit) }
	return []importCase{
		{name: "a selector of as many axes as Open takes", table: continuity.TableSessions, row: session(func(s *continuity.Session) { s.Selector = axes(continuity.MaxSelectorAxes) })},
		{name: "a selector of one axis more", table: continuity.TableSessions, row: session(func(s *continuity.Session) { s.Selector = axes(continuity.MaxSelectorAxes + 1) }), refuse: "row.selector"},
		{name: "a selector key at its bound", table: continuity.TableSessions, row: session(func(s *continuity.Session) {
			s.Selector = continuity.Selector{strings.Repeat("k", continuity.MaxFacetLen): "v"}
		})},
		{name: "a selector key one over", table: continuity.TableSessions, row: session(func(s *continuity.Session) {
			s.Selector = continuity.Selector{strings.Repeat("k", continuity.MaxFacetLen+1): "v"}
		}), refuse: "row.selector"},
		{name: "an empty selector key", table: continuity.TableSessions, row: session(func(s *continuity.Session) { s.Selector = continuity.Selector{"": "v"} }), refuse: "row.selector"},
		{name: "as many briefed rows as Open takes", table: continuity.TableSessions, row: session(func(s *continuity.Session) { s.BriefedMemories = briefed(continuity.MaxBriefedMemories) })},
		{name: "one briefed row more", table: continuity.TableSessions, row: session(func(s *continuity.Session) { s.BriefedMemories = briefed(continuity.MaxBriefedMemories + 1) }), refuse: "row.briefedMemories"},
		{name: "a briefed row without its id", table: continuity.TableSessions, row: session(func(s *continuity.Session) {
			s.BriefedMemories = []continuity.BriefedMemory{{Topic: "t", Status: "open"}}
		}), refuse: "row.briefedMemories[0].id"},
		{name: "a briefed row's unknown status", table: continuity.TableSessions, row: session(func(s *continuity.Session) {
			s.BriefedMemories = []continuity.BriefedMemory{{ID: newID(), Topic: "t", Status: "bogus"}}
		}), refuse: "row.briefedMemories[0].status"},
		{name: "a memory never updated", table: continuity.TableMemories, row: importMemory(func(m *continuity.Memory) { m.UpdatedAt = time.Time{} }), refuse: "row.updatedAt"},
		{name: "a commit that is not hexadecimal", table: continuity.TableRecords, row: record(func(r *continuity.Record) { r.GitCommit = "HEAD~1" }), refuse: "row.gitCommit"},
		{name: "a ledger session id", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Session = "s-1.a_b" })},
		{name: "a ledger session id no write takes", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Session = "../s1" }), refuse: "row.session"},
		{name: "a ledger session id with white space", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Session = " s1" }), refuse: "row.session"},
		{name: "as many payload fields as a line holds", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Fields = payload(continuity.MaxLedgerFields) })},
		{name: "one payload field more", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Fields = payload(continuity.MaxLedgerFields + 1) }), refuse: "row.fields"},
		{name: "a payload key at its bound", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Fields = map[string]string{strings.Repeat("k", 64): "v"} })},
		{name: "a payload key one over", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Fields = map[string]string{strings.Repeat("k", 65): "v"} }), refuse: "row.fields"},
		{name: "a payload key with a NUL byte", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Fields = map[string]string{"k\x00": "v"} }), refuse: "row.fields"},
		{name: "a payload key of the envelope", table: continuity.TableLedger, row: ledger(func(e *continuity.LedgerEntry) { e.Fields = map[string]string{"tenant": "tenant-b"} }), refuse: "row.fields.tenant"},
	}
}

// testImportFieldRules: an import refuses, naming its line and field, every
// row holding what no write of the service could have stored, writes
// nothing, and imports what one could exactly as it was.
func testImportFieldRules(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	header := currentHeader
	var cases []importCase
	for _, tf := range importTextFields {
		cases = append(cases, tf.textCases()...)
	}
	cases = append(cases, importRuleCases()...)
	for i, tc := range cases {
		tenant := fmt.Sprintf("rules-%03d", i)
		line := exportLine(t, tc.table, tc.row, tc.value)
		_, err := f.svc.Restore(ctx, tenant, strings.NewReader(header+line))
		if tc.refuse == "" {
			if err != nil {
				t.Errorf("%s: %v, want it imported", tc.name, err)
				continue
			}
			// The row is stored as it was: exported again, it is the row
			// the line decodes to.
			b, _ := exportOf(t, f, tenant)
			if _, got, _ := strings.Cut(string(b), "\n"); got != reencoded(t, tc.table, tc.row, line) {
				t.Errorf("%s: exported again as %s", tc.name, diffLine([]byte(reencoded(t, tc.table, tc.row, line)), []byte(got)))
			}
			continue
		}
		want := "line 2: " + tc.refuse
		if continuity.ErrorCode(err) != continuity.CodeInvalid {
			t.Errorf("%s: %v, want invalid naming %q", tc.name, err, want)
		} else if !namesFieldOrMember(continuity.ErrorFields(err), want) {
			t.Errorf("%s: %v names %v, want %q", tc.name, err, slicesOf(continuity.ErrorFields(err)), want)
		}
		if n := total(rawRows(t, f, tenant)); n != 0 {
			t.Errorf("%s: the refused import left %d rows", tc.name, n)
		}
	}
}

// reencoded is line as Export writes the row it decodes to (into the type
// of row).
func reencoded(t *testing.T, table string, row any, line string) string {
	t.Helper()
	var l continuity.ExportLine
	if err := json.Unmarshal([]byte(line), &l); err != nil {
		t.Fatal(err)
	}
	v := reflect.New(reflect.TypeOf(row))
	if err := json.Unmarshal(l.Row, v.Interface()); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(continuity.ExportLine{Table: table, Row: mustJSON(t, v.Interface())}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// namesFieldOrMember reports whether fields names want or one of its members
// ("row.selector.kind" for "row.selector").
func namesFieldOrMember(fields map[string]string, want string) bool {
	for k := range fields {
		if k == want || strings.HasPrefix(k, want+".") {
			return true
		}
	}
	return false
}

// testImportParamsRules: Service.Import, one atom, keeps every text field
// in the bounds Remember does, at each boundary.
func testImportParamsRules(t *testing.T, h Harness) {
	ctx := context.Background()
	f := newFixture(t, h)
	base := func() continuity.ImportParams {
		return continuity.ImportParams{Kind: continuity.KindNote, Topic: "t", Content: "c", Project: "baton", Scope: "core"}
	}
	fields := []struct {
		name string
		max  int
		set  func(*continuity.ImportParams, string)
	}{
		{"topic", continuity.MaxTopicLen, func(p *continuity.ImportParams, v string) { p.Topic = v }},
		{"content", continuity.MaxContentLen, func(p *continuity.ImportParams, v string) { p.Content = v }},
		{"project", continuity.MaxFacetLen, func(p *continuity.ImportParams, v string) { p.Project = v }},
		{"scope", continuity.MaxFacetLen, func(p *continuity.ImportParams, v string) { p.Scope = v }},
	}
	imported := 0
	for _, fl := range fields {
		for _, tc := range []struct {
			what    string
			v       string
			refused bool
		}{
			{"at its bound", strings.Repeat("é", fl.max), false},
			{"one over its bound", strings.Repeat("é", fl.max+1), true},
			{"not UTF-8", "a\xffb", true},
			{"with a NUL byte", "a\x00b", true},
			{"with a private block only", "<private>SENTINEL</private>", fl.name == "topic" || fl.name == "content"},
		} {
			p := base()
			fl.set(&p, tc.v)
			w, err := f.svc.Import(ctx, tenantA, p, continuity.ActorUserCLI)
			switch {
			case tc.refused && continuity.ErrorFields(err)[fl.name] == "":
				t.Errorf("Import %s %s: %v, want invalid naming %s", fl.name, tc.what, err, fl.name)
			case !tc.refused && err != nil:
				t.Errorf("Import %s %s: %v", fl.name, tc.what, err)
			case !tc.refused:
				imported++
				same(t, "Import "+fl.name+" "+tc.what+": the memory read back", mustMemory(t, f, w.Memory.ID), w.Memory)
			}
		}
	}
	if n := rawRows(t, f, tenantA)["memories"]; n != imported {
		t.Errorf("tenant A holds %d memories, want the %d imported", n, imported)
	}
}

// testImportHostileFiles: what an export goes through on its way (another
// platform's line endings, an editor's byte order mark, a lost last
// newline) imports the same rows; what is no export is refused naming its
// line; rows the format lets refer to rows it does not hold import and
// read.
func testImportHostileFiles(t *testing.T, h Harness) {
	ctx := context.Background()
	src := newFixture(t, h)
	populate(t, src, tenantA, 2, 3)
	exp, res := exportOf(t, src, tenantA)
	for _, tc := range []struct{ name, input string }{
		{"CRLF line endings", strings.ReplaceAll(string(exp), "\n", "\r\n")},
		{"no newline after the last line", strings.TrimSuffix(string(exp), "\n")},
		// RFC 8259 lets a parser ignore one; PowerShell's Out-File and
		// some editors write it.
		{"a UTF-8 byte order mark", "\ufeff" + string(exp)},
	} {
		f := newFixture(t, h)
		f.clock.Set(src.clock.Now())
		got, err := f.svc.Restore(ctx, tenantA, strings.NewReader(tc.input))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		same(t, tc.name+": the rows imported", got.Rows, res.Rows)
		if again, _ := exportOf(t, f, tenantA); !bytes.Equal(again, exp) {
			t.Errorf("%s: exported again: %s", tc.name, diffLine(exp, again))
		}
	}

	header := currentHeader
	prompt := exportLine(t, continuity.TablePrompts, importPrompt(sentinel), "p")
	f := newFixture(t, h)
	for _, tc := range []struct{ name, input, field string }{
		{"a byte order mark before a row", header + "\ufeff" + prompt, "line 2"},
		{"a byte order mark alone", "\ufeff", "line 1"},
		{"a version that is not an integer", strings.Replace(header, currentVersion, `"version":1.5`, 1), "line 1: version"},
		{"a version from the future", strings.Replace(header, currentVersion, `"version":99`, 1) + prompt, "line 1: version"},
		{"a blank line between rows", header + prompt + "\n" + exportLine(t, continuity.TablePrompts, importPrompt(sentinel), "q"), "line 3"},
	} {
		_, err := f.svc.Restore(ctx, tenantA, strings.NewReader(tc.input))
		if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[tc.field] == "" {
			t.Errorf("%s: %v, want invalid naming %q", tc.name, err, tc.field)
		}
		if n := total(rawRows(t, f, tenantA)); n != 0 {
			t.Fatalf("%s: the refused import left %d rows", tc.name, n)
		}
	}
	// A 100 MB line, made as it is read: the import stops reading once the
	// line is past its bound, so it never holds more than a line's bound.
	long := &xReader{left: 100 << 20}
	_, err := f.svc.Restore(ctx, tenantA, io.MultiReader(strings.NewReader(header+`{"table":"prompts","row":{"text":"`), long))
	if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)["line 2"] == "" {
		t.Errorf("a 100 MB line: %v, want invalid naming line 2", err)
	}
	if read := 100<<20 - long.left; read > 2*continuity.MaxExportLineBytes {
		t.Errorf("the import read %d bytes of a 100 MB line, want it stopped once past the bound of %d", read, continuity.MaxExportLineBytes)
	}
	if n := total(rawRows(t, f, tenantA)); n != 0 {
		t.Fatalf("a 100 MB line: the refused import left %d rows", n)
	}

	// One id in every table, and rows naming a run, a memory and a
	// conversation the export does not hold: an export is one snapshot
	// now, but one an earlier baton took (of this version too) read each
	// page on its own, so a row written while it ran may name one written
	// after its table was read. Each table keys its own rows.
	id, ghost := newID(), newID()
	rows := []string{
		exportLine(t, continuity.TableSessions, importSession(func(s *continuity.Session) { s.ID = id }), ""),
		exportLine(t, continuity.TableMemories, importMemory(func(m *continuity.Memory) { m.ID = id }), ""),
		exportLine(t, continuity.TableMemoryEvents, continuity.MemoryEvent{ID: id, MemoryID: ghost, Kind: continuity.EventCreate,
			ActorKind: continuity.ActorUserCLI, SessionRunID: id, CreatedAt: importAt}, ""),
		exportLine(t, continuity.TableRecords, importRecord(func(r *continuity.Record) { r.ID, r.SessionRunID, r.SessionID = id, ghost, "ghost" }), ""),
		exportLine(t, continuity.TablePrompts, continuity.Prompt{ID: id, Agent: agent, SessionID: "ghost", Number: 1, Text: "p", At: importAt}, ""),
		exportLine(t, continuity.TableStopExcerpts, continuity.StopExcerpt{ID: id, Agent: agent, SessionID: "ghost", Text: "e", At: importAt, Seq: 1}, ""),
		exportLine(t, continuity.TableLedger, importLedger(func(e *continuity.LedgerEntry) { e.ID, e.Session = id, "ghost" }), ""),
	}
	in := header + strings.Join(rows, "")
	if _, err := f.svc.Restore(ctx, tenantA, strings.NewReader(in)); err != nil {
		t.Fatalf("one id in every table, and rows naming rows not exported: %v", err)
	}
	if again, _ := exportOf(t, f, tenantA); !strings.HasSuffix(string(again), strings.Join(rows, "")) {
		t.Errorf("exported again: %s", diffLine([]byte(in), again))
	}
	if recs, err := f.svc.Records(ctx, tenantA, continuity.RecordQuery{SessionID: "ghost"}); err != nil || len(recs) != 1 {
		t.Errorf("the record of a run not exported: %d, %v", len(recs), err)
	}
	if page, err := f.svc.RunEvents(ctx, tenantA, id.String(), "", 10); err != nil || len(page.Items) != 1 {
		t.Errorf("the run's event of a memory not exported: %+v, %v", page, err)
	}
	if _, err := f.svc.Briefing(ctx, tenantA, continuity.BriefingParams{}); err != nil {
		t.Errorf("the briefing: %v", err)
	}
}

// xReader reads left bytes of 'x', then EOF.
type xReader struct{ left int }

func (x *xReader) Read(p []byte) (int, error) {
	if x.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), x.left)
	for i := range n {
		p[i] = 'x'
	}
	x.left -= n
	return n, nil
}
