package continuity

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/triage"
	"github.com/google/uuid"
)

// The export format, version 3: JSON lines (one JSON object per line, each
// ended by "\n", UTF-8). An import also reads lines ended by "\r\n", a
// last line without its end, and a byte order mark before the header.
//
// The first line is the header, an ExportHeader:
//
//	{"format":"baton.export","version":3,"tenant":"local","exportedAt":"2026-11-30T09:00:00Z"}
//
// Every other line is one row, an ExportLine:
//
//	{"table":"sessions","row":{"sessionRunId":"0193...","agent":"claude-code",...}}
//
// A row is the JSON of its domain type, exactly as the HTTP surface writes
// it (the tenant is never in a row; it is the header's): sessions Session,
// memories Memory, memory_events MemoryEvent, records Record, bottles
// BottleMarker, prompts Prompt, stop_excerpts StopExcerpt, ledger
// LedgerEntry. Tables come in the order of ExportTables, which is the order
// an import replays them in (a row comes after the rows it refers to:
// sessions and memories before the events and records naming them); within
// a table rows come in key order (id; for bottles agent then session id).
// Times are RFC 3339 in UTC at microsecond precision.
//
// An import (Service.Restore) reads the same format into a tenant that owns no row yet, in
// one transaction: every line is checked (JSON, a known table, no unknown
// member, text that is UTF-8 without NUL bytes, the ids and keys a row
// needs, integers from 0 to math.MaxInt32, the enumerations' values the
// service writes, and every text field as the service's writes keep it:
// under the same rule (validate.go's textRule values, which the writes
// apply to their input), so in its bounds, trimmed, and with no block the
// privacy filter removes where baton keeps text filtered; a selector,
// briefed rows and a ledger payload in the bounds Open and AppendEvent
// keep) and the first bad one refuses the whole import as invalid, naming
// its line and field.
// A new version number is a format an older baton refuses; an import reads
// every version from OldestExportVersion on, refusing in an older
// version's rows a member a later one added. Version 2 added
// stop_excerpts' promptNumber (the turn the Stop ended): a version 1
// excerpt has none, and pairs with its prompt by time. Version 3 added the
// seq of records and stop_excerpts (the order they were written in): the
// rows of an older version have none, and the import numbers them in the
// order it reads them, which is id order, the order they were kept in.
const (
	ExportFormat  = "baton.export"
	ExportVersion = 3
	// OldestExportVersion is the oldest version an import reads.
	OldestExportVersion = 1
	// MaxExportLineBytes bounds one line an import reads.
	MaxExportLineBytes = 1 << 20
	// ExportPageSize is how many rows an export reads in one statement.
	ExportPageSize = 500
)

// The export's tables, as named in its lines.
const (
	TableSessions     = "sessions"
	TableMemories     = "memories"
	TableMemoryEvents = "memory_events"
	TableRecords      = "records"
	TableBottles      = "bottles"
	TablePrompts      = "prompts"
	TableStopExcerpts = "stop_excerpts"
	TableLedger       = "ledger"
)

// ExportTables are the export's tables in the order an export writes and an
// import replays them.
var ExportTables = []string{TableSessions, TableMemories, TableMemoryEvents, TableRecords, TableBottles, TablePrompts, TableStopExcerpts, TableLedger}

// ExportHeader is the first line of an export.
type ExportHeader struct {
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	Tenant     string    `json:"tenant"`
	ExportedAt time.Time `json:"exportedAt"`
}

// ExportLine is every line of an export after the header: one row of a
// table.
type ExportLine struct {
	Table string          `json:"table"`
	Row   json.RawMessage `json:"row"`
}

// ExportResult counts the rows an export wrote or an import read, by table.
type ExportResult struct {
	Rows map[string]int `json:"rows"`
}

// Export writes every row tenant owns to w in the export format, as of one
// instant: every table is read in one snapshot (Store.Snapshot), so a write
// that commits while the export runs is in none of it, and the file holds
// no row whose session or memory it lacks, nor a row twice. The snapshot
// holds no lock a writer waits for; it is read a page of ExportPageSize
// rows at a time, so the tenant's rows are never held whole.
//
// Errors: invalid for a bad tenant; internal when w refuses a write (the
// export is then cut short, and an import refuses nothing less than a
// whole line, never a missing tail: compare the counts).
func (s *Service) Export(ctx context.Context, tenant string, w io.Writer) (ExportResult, error) {
	res := ExportResult{Rows: map[string]int{}}
	tenant, err := normalTenant(tenant)
	if err != nil {
		return res, err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	wrote := func(err error) error {
		if err != nil {
			return &Error{Code: CodeInternal, Message: "the export could not be written", Err: err}
		}
		return nil
	}
	if err := wrote(enc.Encode(ExportHeader{Format: ExportFormat, Version: ExportVersion, Tenant: tenant, ExportedAt: s.clock()})); err != nil {
		return res, err
	}
	err = s.store.Snapshot(ctx, tenant, func(ctx context.Context, tx Tx) error {
		for _, t := range exportTables {
			err := t.dump(ctx, tx, func(row any) error {
				res.Rows[t.name()]++
				return wrote(enc.Encode(struct {
					Table string `json:"table"`
					Row   any    `json:"row"`
				}{t.name(), row}))
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// Restore imports an export (see ExportFormat) into tenant, which must own no
// row yet, in one write transaction: all of it or none. It holds the
// tenant's lock (Tx.LockTenant) from before it looks for the tenant's rows
// to its commit: it waits for the tenant's open writes, and a write that
// begins meanwhile waits for it, so of two imports into one tenant at once
// one is written and the other is a conflict, and an import beside a write
// is either refused (the write first) or written before it. The header's tenant
// is informational; the rows become tenant's. Ids are kept, so an export
// imported into an empty store reproduces its rows exactly.
//
// Errors: invalid for a bad tenant, a header that is not this format's
// version, or any bad line, naming it ("line N", "line N: row.FIELD");
// conflict when tenant already owns rows (a write of the tenant committed
// before the import took its lock), or when a row's id exists (another
// tenant's); internal when r cannot be read.
func (s *Service) Restore(ctx context.Context, tenant string, r io.Reader) (ExportResult, error) {
	res := ExportResult{Rows: map[string]int{}}
	tenant, err := normalTenant(tenant)
	if err != nil {
		return res, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxExportLineBytes)
	line := 0
	next := func() ([]byte, bool, error) {
		if sc.Scan() {
			line++
			return sc.Bytes(), true, nil
		}
		switch err := sc.Err(); {
		case errors.Is(err, bufio.ErrTooLong):
			return nil, false, Invalid(lineField(line+1, ""), "is longer than "+strconv.Itoa(MaxExportLineBytes)+" bytes")
		case err != nil:
			return nil, false, &Error{Code: CodeInternal, Message: "the import could not be read", Err: err}
		}
		return nil, false, nil
	}
	head, ok, err := next()
	switch {
	case err != nil:
		return res, err
	case !ok:
		return res, Invalid(lineField(1, ""), "is missing: an export starts with its header")
	}
	// A UTF-8 byte order mark, which PowerShell's Out-File and some
	// editors put first, is no part of the header: a JSON parser may
	// ignore one (RFC 8259, 8.1), and this one does.
	version, err := checkHeader(bytes.TrimPrefix(head, []byte("\ufeff")))
	if err != nil {
		return res, err
	}
	err = s.store.Write(ctx, tenant, func(ctx context.Context, tx Tx) error {
		if line > 1 {
			// The rows already read are gone; the transaction rolled back
			// whole, so running the import again is safe. One run again
			// before it read a row (two imports that took the tenant's
			// lock at once, one rolled back) reads the file whole.
			return Errorf(CodeInternal, "the database asked to retry the import, which cannot be read twice: run it again")
		}
		// Every import holds the tenant's lock (LockTenant) before it
		// looks for the tenant's rows: it waits for the tenant's open
		// writes and holds back its new ones until it commits. Under
		// Read Committed a write open when the import began, or one
		// beginning while it ran, committed beside the import unseen
		// (its rows uncommitted when the import counted them), and two
		// imports at once would both find none and both write.
		if err := tx.LockTenant(ctx); err != nil {
			return err
		}
		for _, t := range exportTables {
			if n, err := t.count(ctx, tx, 1); err != nil || n > 0 {
				if err == nil {
					err = Errorf(CodeConflict, "the tenant already owns rows (%s): import only into a tenant with none (erase it first)", t.name())
				}
				return err
			}
		}
		at := 0 // the index in exportTables of the table being read
		for {
			b, ok, err := next()
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			var l ExportLine
			if err := strictJSON(b, &l); err != nil {
				return lineErr(line, fieldsOf(err, "", b, &l))
			}
			i := slices.IndexFunc(exportTables, func(t exportTable) bool { return t.name() == l.Table })
			switch {
			case i < 0:
				return Invalid(lineField(line, "table"), "must be one of "+strings.Join(ExportTables, " "))
			case i < at:
				return Invalid(lineField(line, "table"), "comes after "+ExportTables[at]+": tables must be in the order "+strings.Join(ExportTables, " "))
			}
			at = i
			insert, fields := exportTables[i].load(l.Row, !utf8.Valid(b), version)
			if fields != nil {
				return lineErr(line, fields)
			}
			if err := insert(ctx, tx); err != nil {
				e := asError(err)
				if e == nil {
					return err
				}
				return &Error{Code: e.Code, Message: fmt.Sprintf("line %d: %s", line, e.Message), Fields: e.Fields, Err: err}
			}
			res.Rows[l.Table]++
		}
	})
	if err != nil {
		return ExportResult{Rows: map[string]int{}}, err
	}
	return res, nil
}

// checkHeader refuses a first line that is not the header of a version
// this baton reads, and returns the version.
func checkHeader(b []byte) (int, error) {
	var h ExportHeader
	if !utf8.Valid(b) {
		return 0, Invalid(lineField(1, ""), "must be valid UTF-8")
	}
	if err := strictJSON(b, &h); err != nil {
		return 0, lineErr(1, fieldsOf(err, "", b, &h))
	}
	f := map[string]string{}
	if h.Format != ExportFormat {
		f[lineField(1, "format")] = "must be " + ExportFormat
	}
	if h.Version < OldestExportVersion || h.Version > ExportVersion {
		f[lineField(1, "version")] = "must be from " + strconv.Itoa(OldestExportVersion) + " to " + strconv.Itoa(ExportVersion) +
			" (the versions this baton reads)"
	}
	return h.Version, fieldsErr(f)
}

// lineField names a field of one line of an import: "line 3", "line 3: row.id".
func lineField(line int, field string) string {
	if field == "" {
		return "line " + strconv.Itoa(line)
	}
	return "line " + strconv.Itoa(line) + ": " + field
}

// lineErr is the invalid error of a line whose fields (named within the
// line) failed.
func lineErr(line int, fields map[string]string) error {
	f := make(map[string]string, len(fields))
	for k, v := range fields {
		f[lineField(line, k)] = v
	}
	return &Error{Code: CodeInvalid, Message: "invalid input", Fields: f}
}

// strictJSON decodes one JSON value, refusing unknown members and anything
// after the value.
func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errTrailing
	}
	return nil
}

var errTrailing = errors.New("trailing data")

// fieldsOf names what the JSON decode of b into v (a pointer to a struct)
// refused, under prefix ("row" for a row's members, "" for the line's
// own); never the value, which may be content.
func fieldsOf(err error, prefix string, b []byte, v any) map[string]string {
	join := func(name string) string {
		switch {
		case prefix == "":
			return name
		case name == "":
			return prefix
		}
		return prefix + "." + name
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		// No field: the value itself is not an object (an array, a
		// string), which a line, its header and its row each must be.
		return map[string]string{join(typeErr.Field): "must be a JSON " + jsonKind(typeErr.Type)}
	case strings.HasPrefix(err.Error(), `json: unknown field "`):
		name := strings.TrimSuffix(strings.TrimPrefix(err.Error(), `json: unknown field "`), `"`)
		return map[string]string{join(name): "is not a member of this format"}
	case errors.Is(err, errTrailing):
		return map[string]string{join(""): "must be one JSON object"}
	}
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return map[string]string{join(""): "is not valid JSON"}
	}
	// A member's own decoder refused its text (a time, a UUID), and its
	// error does not say which member: each is decoded alone to find it.
	name, rule := refusedMember(b, v)
	return map[string]string{join(name): rule}
}

// refusedMember returns the first member of the struct v points to whose
// JSON in b its own decoder refuses, matched as the decoder matches names
// (without regard to case), and why; "" (the value) when no member alone
// is refused.
func refusedMember(b []byte, v any) (name, rule string) {
	rule = "holds a value of the wrong form (times are RFC 3339, ids UUIDs)"
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil {
		return "", rule
	}
	eachMember(reflect.ValueOf(v).Elem(), "", func(tag string, f reflect.Value) {
		for m, raw := range members {
			if name != "" || !strings.EqualFold(m, tag[1:]) || json.Unmarshal(raw, reflect.New(f.Type()).Interface()) == nil {
				continue
			}
			name = tag[1:]
			switch f.Type() {
			case reflect.TypeFor[time.Time](), reflect.TypeFor[*time.Time]():
				rule = "must be a time in RFC 3339"
			case reflect.TypeFor[uuid.UUID]():
				rule = "must be a UUID"
			}
		}
	})
	return name, rule
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}

// invalidMark stands, in a line that was not UTF-8, for each invalid byte:
// the JSON decoder would write U+FFFD, which valid text may hold; U+FFFF is
// a noncharacter no text exchanged carries, so a field holding it is the
// one that was not UTF-8.
const invalidMark = "\uffff"

// markInvalid replaces each byte of b that is not UTF-8 by invalidMark
// escaped for JSON, so a string holding one decodes and can be named.
func markInvalid(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = append(out, `\uffff`...)
		} else {
			out = append(out, b[:n]...)
		}
		b = b[n:]
	}
	return out
}

// checkStrings records, for every string of v (struct members by their
// JSON names, map keys and values, slice elements), why it cannot be
// stored as text; notUTF8 says the line had bytes that were not UTF-8,
// which markInvalid turned into invalidMark.
func checkStrings(f map[string]string, name string, v reflect.Value, notUTF8 bool) {
	text := func(name, s string) {
		switch {
		case notUTF8 && strings.Contains(s, invalidMark):
			f[name] = "must be valid UTF-8"
		case textReason(s) != "":
			f[name] = textReason(s)
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			checkStrings(f, name, v.Elem(), notUTF8)
		}
	case reflect.String:
		text(name, v.String())
	case reflect.Slice:
		for i := range v.Len() {
			checkStrings(f, name+"["+strconv.Itoa(i)+"]", v.Index(i), notUTF8)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			text(name, it.Key().String())
			checkStrings(f, name+"."+it.Key().String(), it.Value(), notUTF8)
		}
	case reflect.Struct:
		eachMember(v, name, func(name string, v reflect.Value) { checkStrings(f, name, v, notUTF8) })
	}
}

// eachMember calls fn with each JSON member of the struct v, named
// name.member.
func eachMember(v reflect.Value, name string, fn func(name string, v reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || tag == "-" || tag == "" {
			continue
		}
		fn(name+"."+tag, v.Field(i))
	}
}

// exportTable is one table of the format: how an export reads it and an
// import checks and writes its rows.
type exportTable interface {
	name() string
	// dump emits each of the tenant's rows, reading them a page at a time.
	dump(ctx context.Context, tx Tx, emit func(row any) error) error
	// count counts the tenant's rows of the table, reading at most limit
	// (1: whether the tenant owns one).
	count(ctx context.Context, tx Tx, limit int) (int, error)
	// load decodes and checks one row of an export of version; it returns
	// the row's write, or the fields that failed (named "row.member").
	load(raw json.RawMessage, notUTF8 bool, version int) (func(ctx context.Context, tx Tx) error, map[string]string)
}

// table is an exportTable of rows T keyed by K.
type table[T any, K comparable] struct {
	table string
	// page is a Tx method (as a method expression) reading one keyset page.
	page   func(tx Tx, ctx context.Context, after K, limit int) ([]T, error)
	key    func(*T) K
	check  func(*T, map[string]string)
	insert func(ctx context.Context, tx Tx, row *T) error
	// added names the members a version after the first added, with that
	// version: a row of an older version's export holding one is refused.
	added map[string]int
}

func (t table[T, K]) name() string { return t.table }

func (t table[T, K]) dump(ctx context.Context, tx Tx, emit func(row any) error) error {
	var after K
	for {
		rows, err := t.page(tx, ctx, after, ExportPageSize)
		if err != nil {
			return err
		}
		for i := range rows {
			if err := emit(&rows[i]); err != nil {
				return err
			}
		}
		if len(rows) < ExportPageSize {
			return nil
		}
		after = t.key(&rows[len(rows)-1])
	}
}

func (t table[T, K]) count(ctx context.Context, tx Tx, limit int) (int, error) {
	var after K
	n := 0
	for n < limit {
		rows, err := t.page(tx, ctx, after, min(ExportPageSize, limit-n))
		if err != nil || len(rows) == 0 {
			return n, err
		}
		n += len(rows)
		after = t.key(&rows[len(rows)-1])
	}
	return n, nil
}

func (t table[T, K]) load(raw json.RawMessage, notUTF8 bool, version int) (func(ctx context.Context, tx Tx) error, map[string]string) {
	if notUTF8 {
		raw = markInvalid(raw)
	}
	row := new(T)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, map[string]string{"row": "is required"}
	}
	if err := strictJSON(raw, row); err != nil {
		return nil, fieldsOf(err, "row", raw, row)
	}
	f := map[string]string{}
	t.checkAdded(f, raw, version)
	checkStrings(f, "row", reflect.ValueOf(row), notUTF8)
	checkTimes(f, "row", reflect.ValueOf(row))
	checkInts(f, "row", reflect.ValueOf(row))
	if len(f) == 0 {
		t.check(row, f)
	}
	if notUTF8 && len(f) == 0 {
		f["row"] = "must be valid UTF-8"
	}
	if len(f) > 0 {
		return nil, f
	}
	return func(ctx context.Context, tx Tx) error { return t.insert(ctx, tx, row) }, nil
}

// checkAdded refuses each member of the row (raw, which decoded) that a
// version after the export's added. Names match as the decoder matched
// them, without regard to case.
func (t table[T, K]) checkAdded(f map[string]string, raw json.RawMessage, version int) {
	if len(t.added) == 0 {
		return
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return
	}
	for name, since := range t.added {
		for m := range members {
			if strings.EqualFold(m, name) && version < since {
				f["row."+name] = "is not a member of version " + strconv.Itoa(version) + " (version " + strconv.Itoa(since) + " added it)"
			}
		}
	}
}

// Row checks: what the store needs of a row beyond storable text. The rows
// are the service's own, so the rules are those it wrote them under.

func needID(f map[string]string, name string, id uuid.UUID) {
	if id == uuid.Nil {
		f[name] = "is required"
	}
}

func needKey(f map[string]string, agent, sessionID string) {
	if r := varErr(agent, "required,agent"); r != "" {
		f["row.agent"] = r
	}
	if bottle.ValidateSessionID(sessionID) != nil {
		f["row.sessionId"] = bottle.SessionIDRule
	}
}

func needTime(f map[string]string, name string, t time.Time) {
	if t.IsZero() {
		f[name] = "is required"
	}
}

// checkTimes records, for every time of v that is set (struct members by
// their JSON names, through pointers), why it cannot be stored: a year
// outside 1 to maxYear in UTC.
func checkTimes(f map[string]string, name string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			checkTimes(f, name, v.Elem())
		}
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			if !t.IsZero() && !inYears(t) {
				f[name] = yearRule
			}
			return
		}
		eachMember(v, name, func(name string, v reflect.Value) { checkTimes(f, name, v) })
	}
}

// intRule is why an integer is refused: every integer of a row is a count,
// an epoch, a gap or a number the service keeps in an INTEGER column, which
// is 32 bits on Postgres, and none is ever negative.
var intRule = "must be an integer from 0 to " + strconv.Itoa(math.MaxInt32)

// checkInts records, for every integer of v (struct members by their JSON
// names, through pointers), why it cannot be stored: outside 0 to
// math.MaxInt32. SQLite would store it and Postgres refuse it as a
// database error, so one export would import into one backend only.
func checkInts(f map[string]string, name string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			checkInts(f, name, v.Elem())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n := v.Int(); n < 0 || n > math.MaxInt32 {
			f[name] = intRule
		}
	case reflect.Struct:
		if _, ok := v.Interface().(time.Time); !ok {
			eachMember(v, name, func(name string, v reflect.Value) { checkInts(f, name, v) })
		}
	}
}

// needAtLeastOne refuses a count the service starts at 1 (an activation
// epoch, a prompt's number) when it is 0; checkInts has the range.
func needAtLeastOne(f map[string]string, name string, n int) {
	if _, bad := f[name]; !bad && n < 1 {
		f[name] = "must be at least 1"
	}
}

// exportTables are the format's tables in ExportTables order.
var exportTables = []exportTable{
	table[Session, uuid.UUID]{table: TableSessions, page: Tx.SessionsAfter, key: func(r *Session) uuid.UUID { return r.ID },
		check: func(r *Session, f map[string]string) {
			needID(f, "row.sessionRunId", r.ID)
			needKey(f, r.Agent, r.SessionID)
			oneOf(f, "row.source", string(r.Source), string(SourceStartup), string(SourceResume))
			needAtLeastOne(f, "row.activationEpoch", r.ActivationEpoch)
			// A status the triage cannot parse fails every later Stop
			// and close of the conversation.
			if _, err := triage.ParseStatus(r.TriageStatus); err != nil {
				f["row.triageStatus"] = "is not a triage status"
			}
			needTime(f, "row.openedAt", r.OpenedAt)
			needTime(f, "row.lastSeenAt", r.LastSeenAt)
			facetText.stored(f, "row.project", r.Project)
			facetText.stored(f, "row.scope", r.Scope)
			checkSelector(f, "row.selector", r.Selector)
			checkBriefed(f, "row.", slices.Clone(r.BriefedMemories), textRule.stored)
			excerptText.stored(f, "row.lastMessageExcerpt", r.LastMessageExcerpt)
		},
		insert: func(ctx context.Context, tx Tx, r *Session) error { return tx.InsertSession(ctx, r) }},
	table[Memory, uuid.UUID]{table: TableMemories, page: Tx.MemoriesAfter, key: func(r *Memory) uuid.UUID { return r.ID },
		check: func(r *Memory, f map[string]string) {
			needID(f, "row.id", r.ID)
			if !slices.Contains(memrule.Kinds, r.Kind) {
				f["row.kind"] = "is not a memory kind"
			}
			if !slices.Contains(memrule.Statuses, r.Status) {
				f["row.status"] = "is not a memory status"
			}
			needTime(f, "row.createdAt", r.CreatedAt)
			needTime(f, "row.updatedAt", r.UpdatedAt)
			topicText.stored(f, "row.topic", r.Topic)
			contentText.stored(f, "row.content", r.Content)
			facetText.stored(f, "row.project", r.Project)
			facetText.stored(f, "row.scope", r.Scope)
		},
		insert: func(ctx context.Context, tx Tx, r *Memory) error { return tx.InsertMemory(ctx, r) }},
	table[MemoryEvent, uuid.UUID]{table: TableMemoryEvents, page: Tx.MemoryEventsAfter, key: func(r *MemoryEvent) uuid.UUID { return r.ID },
		check: func(r *MemoryEvent, f map[string]string) {
			needID(f, "row.id", r.ID)
			needID(f, "row.memoryId", r.MemoryID)
			oneOf(f, "row.eventKind", string(r.Kind), string(EventCreate), string(EventSupersede), string(EventResolve), string(EventUnresolve), string(EventArchive), string(EventImport))
			oneOf(f, "row.actorKind", string(r.ActorKind), string(ActorUserCLI), string(ActorUserAPI), string(ActorWorker))
			needTime(f, "row.createdAt", r.CreatedAt)
		},
		insert: func(ctx context.Context, tx Tx, r *MemoryEvent) error { return tx.InsertMemoryEvents(ctx, *r) }},
	table[Record, uuid.UUID]{table: TableRecords, page: Tx.RecordsAfter, key: func(r *Record) uuid.UUID { return r.ID },
		check: func(r *Record, f map[string]string) {
			needID(f, "row.id", r.ID)
			needID(f, "row.sessionRunId", r.SessionRunID)
			needKey(f, r.Agent, r.SessionID)
			oneOf(f, "row.kind", string(r.Kind), string(RecordCheckpoint), string(RecordHandover))
			needTime(f, "row.createdAt", r.CreatedAt)
			facetText.stored(f, "row.project", r.Project)
			e := Episode{Task: r.Task, Objective: r.Objective, State: r.State, NextAction: r.NextAction,
				GitCommit: r.GitCommit, GitBranch: r.GitBranch, BottlePath: r.BottlePath}
			e.check(f, "row.", textRule.stored)
			reasonText.stored(f, "row.reason", r.Reason)
		},
		insert: func(ctx context.Context, tx Tx, r *Record) error { return tx.InsertRecord(ctx, r) },
		added:  map[string]int{"seq": 3}},
	table[BottleMarker, [2]string]{table: TableBottles,
		page: func(tx Tx, ctx context.Context, after [2]string, limit int) ([]BottleMarker, error) {
			return tx.BottleMarkersAfter(ctx, after[0], after[1], limit)
		},
		key: func(r *BottleMarker) [2]string { return [2]string{r.Agent, r.SessionID} },
		check: func(r *BottleMarker, f map[string]string) {
			needKey(f, r.Agent, r.SessionID)
			markerPathText.stored(f, "row.path", r.Path)
			oneOf(f, "row.mode", r.Mode, string(bottle.ModeFull), string(bottle.ModeReconstructed))
			needTime(f, "row.armedAt", r.ArmedAt)
			recordText.stored(f, "row.task", r.Task)
		},
		// A consumed marker is armed, then claimed at the instant it was.
		// Arming upserts: a second row of one conversation is refused as
		// the conflict a repeated id is, rather than replacing the first.
		insert: func(ctx context.Context, tx Tx, r *BottleMarker) error {
			switch _, err := tx.BottleMarker(ctx, r.Agent, r.SessionID); {
			case err == nil:
				return Errorf(CodeConflict, "the row already exists: a second bottle marker of one conversation")
			case ErrorCode(err) != CodeNotFound:
				return err
			}
			if err := tx.ArmBottle(ctx, *r); err != nil || r.ConsumedAt == nil {
				return err
			}
			_, err := tx.ClaimBottle(ctx, r.Agent, r.SessionID, *r.ConsumedAt)
			return err
		}},
	table[Prompt, uuid.UUID]{table: TablePrompts, page: Tx.PromptsAfter, key: func(r *Prompt) uuid.UUID { return r.ID },
		check: func(r *Prompt, f map[string]string) {
			needID(f, "row.id", r.ID)
			needKey(f, r.Agent, r.SessionID)
			needAtLeastOne(f, "row.number", r.Number)
			needTime(f, "row.at", r.At)
			promptText.stored(f, "row.text", r.Text)
		},
		insert: func(ctx context.Context, tx Tx, r *Prompt) error { return tx.InsertPrompt(ctx, r) }},
	table[StopExcerpt, uuid.UUID]{table: TableStopExcerpts, page: Tx.StopExcerptsAfter, key: func(r *StopExcerpt) uuid.UUID { return r.ID },
		check: func(r *StopExcerpt, f map[string]string) {
			needID(f, "row.id", r.ID)
			needKey(f, r.Agent, r.SessionID)
			needTime(f, "row.at", r.At)
			// A Stop keeps only an excerpt that is not empty.
			if excerptText.stored(f, "row.text", r.Text) == "" {
				f["row.text"] = "is required"
			}
		},
		insert: func(ctx context.Context, tx Tx, r *StopExcerpt) error { return tx.InsertStopExcerpt(ctx, 0, r) },
		added:  map[string]int{"promptNumber": 2, "seq": 3}},
	table[LedgerEntry, uuid.UUID]{table: TableLedger, page: Tx.Ledger, key: func(r *LedgerEntry) uuid.UUID { return r.ID },
		check: func(r *LedgerEntry, f map[string]string) {
			needID(f, "row.id", r.ID)
			eventText.stored(f, "row.event", r.Event)
			if r.Session != "" && bottle.ValidateSessionID(r.Session) != nil {
				f["row.session"] = bottle.SessionIDRule
			}
			checkPayload(f, "row.", r.Fields, textRule.stored)
			needTime(f, "row.at", r.At)
		},
		insert: func(ctx context.Context, tx Tx, r *LedgerEntry) error { return tx.AppendLedger(ctx, 0, *r) }},
}
