package httpapi

import (
	"encoding"
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// The wire types of the API methods whose arguments or results are not one
// continuity type. Every other route carries continuity's own param and
// result types, whose shapes continuity/testdata/wire.golden pins.

// SessionKey names a conversation by its natural key: the query of the
// session and history reads, the body of a marker claim.
type SessionKey struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
}

// ArmRequest arms a conversation's bottle marker: the agent beside the
// marker's own fields.
type ArmRequest struct {
	Agent string `json:"agent"`
	bottle.Marker
}

// ClaimResult is a marker claim: Claimed says a marker was armed and is now
// consumed by this claim, which Marker then holds.
type ClaimResult struct {
	Claimed bool           `json:"claimed"`
	Marker  *bottle.Marker `json:"marker,omitempty"`
}

// PromptRequest keeps one user prompt for degraded bottles.
type PromptRequest struct {
	Agent     string `json:"agent"`
	SessionID string `json:"sessionId"`
	Text      string `json:"text"`
}

// TextResult is a rendered text: the debrief.
type TextResult struct {
	Text string `json:"text"`
}

// IDResult is the id of an appended ledger line.
type IDResult struct {
	ID uuid.UUID `json:"id"`
}

// EventsQuery pages a run's provenance events: the cursor a page returned,
// and a limit of 1 to provenance.MaxLimit (absent: provenance.DefaultLimit).
type EventsQuery struct {
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// LedgerQuery reads the ledger after a line (absent: from the start), at
// most Limit lines (1 to continuity.MaxLedgerRead). Limit has no default,
// so it is required: no omitempty, and the description says so.
type LedgerQuery struct {
	After uuid.UUID `json:"after,omitzero"`
	Limit int       `json:"limit"`
}

// LedgerPage is lines of the ledger, oldest first.
type LedgerPage struct {
	Items []continuity.LedgerEntry `json:"items"`
}

// RecordList is checkpoints and handovers, newest first.
type RecordList struct {
	Items []continuity.Record `json:"items"`
}

// SessionLedgerQuery reads one session id's ledger lines after a line
// (absent: from the start), at most Limit lines (1 to
// continuity.MaxLedgerRead), which is required, as LedgerQuery's is.
type SessionLedgerQuery struct {
	SessionID string    `json:"sessionId"`
	After     uuid.UUID `json:"after,omitzero"`
	Limit     int       `json:"limit"`
}

// SessionList is conversations with their lease state, newest first.
type SessionList struct {
	Items []continuity.SessionView `json:"items"`
}

// orEmpty returns s, or an empty slice for nil, so a list answers [] and
// never null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// field is one JSON member of a struct type, as encoding/json sees it.
type field struct {
	name     string
	index    []int
	typ      reflect.Type
	optional bool // omitempty or omitzero: absent when zero
}

// fieldsOf returns the JSON members of struct type t, the members of
// embedded structs promoted in place, an outer name shadowing an inner one.
// Every member name of every body is looked up in them, so each type's are
// worked out once; callers must not change the slice.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	fs, _ := fieldCache.LoadOrStore(t, walkFields(t))
	return fs.([]field)
}

// fieldCache holds fieldsOf's answer per type.
var fieldCache sync.Map // reflect.Type → []field

// walkFields is fieldsOf, worked out.
func walkFields(t reflect.Type) []field {
	var out []field
	seen := map[string]bool{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		var embedded []reflect.StructField
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				embedded = append(embedded, f)
				continue
			}
			if name == "" {
				name = f.Name
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			out = append(out, field{name: name, index: append(append([]int{}, index...), i), typ: f.Type,
				optional: strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")})
		}
		for _, f := range embedded {
			walk(f.Type, append(append([]int{}, index...), f.Index...))
		}
	}
	walk(t, nil)
	return out
}

// fieldNamed returns t's member called exactly name. A body's member and a
// query's parameter are matched exactly, never without regard to case as
// encoding/json would: one name has one spelling on the wire.
func fieldNamed(t reflect.Type, name string) (field, bool) {
	for _, f := range fieldsOf(t) {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

var (
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	uuidType        = reflect.TypeFor[uuid.UUID]()
)

// encodeQuery writes the members of v, a flat struct, as query
// parameters: absent when zero, a list member once per element.
func encodeQuery(v any) url.Values {
	q := url.Values{}
	rv := reflect.ValueOf(v)
	for _, f := range fieldsOf(rv.Type()) {
		fv := rv.FieldByIndex(f.index)
		if fv.IsZero() {
			continue
		}
		if fv.Kind() == reflect.Slice {
			for i := range fv.Len() {
				q.Add(f.name, queryValue(fv.Index(i)))
			}
			continue
		}
		q.Set(f.name, queryValue(fv))
	}
	return q
}

func queryValue(v reflect.Value) string {
	if v.Type().Implements(textMarshaler) {
		b, _ := v.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b)
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64, reflect.Int32:
		return strconv.FormatInt(v.Int(), 10)
	}
	return v.String()
}

// decodeQuery reads q into into, a pointer to a flat struct: every
// parameter must be a member, given once unless a list, of its member's
// form. Errors: invalid, naming each bad parameter.
func decodeQuery(q url.Values, into any) error {
	rv := reflect.ValueOf(into).Elem()
	bad := map[string]string{}
	for name, vals := range q {
		f, ok := fieldNamed(rv.Type(), name)
		if !ok {
			bad[name] = notAParameter
			continue
		}
		fv := rv.FieldByIndex(f.index)
		if fv.Kind() != reflect.Slice || fv.Type().Implements(textMarshaler) {
			if len(vals) != 1 {
				bad[name] = "must be given once"
				continue
			}
			if r := setQueryValue(fv, vals[0]); r != "" {
				bad[name] = r
			}
			continue
		}
		list := reflect.MakeSlice(fv.Type(), len(vals), len(vals))
		for i, s := range vals {
			if r := setQueryValue(list.Index(i), s); r != "" {
				bad[name] = r
			}
		}
		fv.Set(list)
	}
	return invalid(bad)
}

// notAParameter is the reason given for a query parameter the route has
// not.
const notAParameter = "is not a parameter of this route"

// noQuery refuses every parameter of q, the query of a route that takes
// none. Errors: invalid, naming each parameter.
func noQuery(q url.Values) error {
	bad := map[string]string{}
	for name := range q {
		bad[name] = notAParameter
	}
	return invalid(bad)
}

// setQueryValue parses s into v and returns why it could not, or "".
func setQueryValue(v reflect.Value, s string) string {
	if reflect.PointerTo(v.Type()).Implements(textUnmarshaler) {
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			if v.Type() == uuidType {
				return "must be a UUID"
			}
			return "is not of the parameter's form"
		}
		return ""
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return "must be true or false"
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			return "must be an integer"
		}
		v.SetInt(n)
	default:
		return "is not of the parameter's form"
	}
	return ""
}
