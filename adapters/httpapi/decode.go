package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
)

// decodeBody decodes body, one JSON object, strictly into into (a pointer
// to a struct): a member into has not, a member named otherwise than
// exactly as its field (encoding/json alone would match without regard to
// case), a member repeated in one object (which encoding/json alone would
// take the last of), a value of another JSON type, and anything after the
// object are invalid. The keys of a map member are its data, so they may
// be any text, but not twice.
//
// encoding/json reads a string that is not UTF-8 (raw bytes, or an escaped
// lone surrogate) as U+FFFD, which would turn the caller's bad input into
// text the service accepts. So the strings that are not UTF-8 as sent are
// found in the raw body first and put back, byte for byte, where the
// decoder put their replacement: the service refuses them as it refuses
// them from a local caller, naming its field (and an episode method records
// the event's receipt and failure first). One that cannot be put back (a
// member name, a value of a non-text member) is refused here, named.
//
// Errors: invalid, naming the field (or "body" when the JSON itself is
// broken).
func decodeBody(body []byte, into any) error {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return continuity.Invalid("body", "is required: a JSON object")
	case trimmed[0] != '{':
		return continuity.Invalid("body", "must be a JSON object")
	}
	texts, err := scanBody(body, reflect.TypeOf(into))
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return decodeError(err, reflect.TypeOf(into))
	}
	if _, err := dec.Token(); err != io.EOF {
		return continuity.Invalid("body", "must hold one JSON object and nothing after it")
	}
	for _, t := range texts {
		if !putText(reflect.ValueOf(into), t.path, t.text) {
			return continuity.Invalid(strings.Join(t.path, "."), "must be valid UTF-8")
		}
	}
	return nil
}

// unknownField is how encoding/json words a member the target has not; it
// has no error type for it.
const unknownField = `json: unknown field "`

// notAField is the reason given for a member the request has not.
const notAField = "is not a field of this request"

// decodeError names what encoding/json refused, decoding into a value of
// type into, without echoing the value.
func decodeError(err error, into reflect.Type) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return continuity.Invalid("body", "must be valid JSON")
	case errors.As(err, &typ):
		name := wirePath(into, typ.Field)
		if name == "" {
			name = "body"
		}
		return continuity.Invalid(name, "must be a JSON "+jsonType(typ.Type))
	case strings.HasPrefix(err.Error(), unknownField):
		name := strings.TrimSuffix(strings.TrimPrefix(err.Error(), unknownField), `"`)
		return continuity.Invalid(name, notAField)
	}
	// A member's own parser refused its text (a time, a UUID): its error
	// may quote the value, so only the class is said.
	return continuity.Invalid("body", "holds a value not of its field's form")
}

// wirePath returns the member path encoding/json gives a type error, for a
// value of type t, as the wire names it: encoding/json puts the Go name of
// each embedded struct it went through into the path ("EventParams.agent"),
// where the wire has the promoted member alone ("agent").
func wirePath(t reflect.Type, goPath string) string {
	if goPath == "" {
		return ""
	}
	var out []string
	for _, name := range strings.Split(goPath, ".") {
		// A path steps through lists and maps without naming an element.
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			out, t = append(out, name), nil
			continue
		}
		if f, ok := fieldNamed(t, name); ok {
			out, t = append(out, name), f.typ
			continue
		}
		if sf, ok := t.FieldByName(name); ok && sf.Anonymous {
			t = sf.Type // an embedded struct: its members are the outer object's
			continue
		}
		out, t = append(out, name), nil
	}
	return strings.Join(out, ".")
}

// jsonType names the JSON type values of t are written as.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(textMarshaler) || t.Implements(reflect.TypeFor[json.Marshaler]()) {
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "string"
}

// rawText is a string of a body that is not UTF-8 as sent: where it is (its
// JSON path) and its bytes.
type rawText struct {
	path []string
	text string
}

// surrogateEscape finds what may be a surrogate's escape.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// scanBody walks the first JSON value of body, which decodes into a value
// of type into, and returns its strings that are not UTF-8 as sent: each
// one a text member holds, and the first of the others (which cannot be
// put back, so the first is the one refused). It checks each object's
// member names as encoding/json does not: a struct's member must be named
// exactly as one of its fields, and no object may
// name a member twice. Below a value that parses itself (a time, a UUID)
// or of a type the decoder will refuse, names are not checked against
// fields. Broken JSON is left to the decoder to report, whatever else the
// walk found before it broke.
//
// Errors: invalid, naming the member that is not a field or is repeated,
// or naming the object whose member name is not UTF-8.
func scanBody(body []byte, into reflect.Type) ([]rawText, error) {
	// The common case has no text that is not UTF-8 to find.
	findText := !utf8.Valid(body) || surrogateEscape.Match(body)
	type frame struct {
		object  bool
		wantKey bool
		key     string
		index   int
		// typ is what the object or array decodes into (nil: not checked),
		// next what its current member or element does.
		typ, next reflect.Type
		seen      map[string]bool // an object's member names so far
	}
	var (
		stack   []frame
		out     []rawText
		refused error // the first bad member name, answered once the value is whole
		// misplaced says out holds a string no text member holds.
		misplaced bool
	)
	refuse := func(err error) {
		if refused == nil {
			refused = err
		}
	}
	path := func() []string {
		p := make([]string, 0, len(stack))
		for _, f := range stack {
			if f.object {
				p = append(p, f.key)
			} else {
				p = append(p, strconv.Itoa(f.index))
			}
		}
		return p
	}
	// begin and end bracket every value: an array counts it, an object
	// expects its next member name after it.
	begin := func() {
		if n := len(stack); n > 0 && !stack[n-1].object {
			stack[n-1].index++
		}
	}
	end := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var prev int64
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil // broken JSON: the decoder reports it
		}
		off := dec.InputOffset()
		raw := bytes.TrimLeft(body[prev:off], " \t\r\n,:")
		prev = off
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				begin()
				typ := into
				if n := len(stack); n > 0 {
					typ = stack[n-1].next
				}
				f := frame{object: t == '{', wantKey: true, index: -1, typ: checked(typ)}
				if f.object {
					f.seen = map[string]bool{}
				} else {
					f.next = elemOf(f.typ)
				}
				stack = append(stack, f)
				continue
			}
			stack = stack[:len(stack)-1]
			end()
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				f := &stack[n-1]
				// Only the first bad name is answered, so only it is named:
				// naming costs the depth, and a body may nest thousands deep.
				if findText && refused == nil {
					if _, ok := unquoteRaw(raw); !ok {
						name := strings.Join(path()[:n-1], ".")
						if name == "" {
							name = "body"
						}
						refuse(continuity.Invalid(name, "must have member names of valid UTF-8"))
					}
				}
				if f.seen[t] {
					refuse(continuity.Invalid(t, "must appear once"))
				}
				f.seen[t] = true
				next, ok := memberOf(f.typ, t)
				if !ok {
					refuse(continuity.Invalid(t, notAField))
				}
				f.key, f.wantKey, f.next = t, false, next
				continue
			}
			begin()
			// A string a text member does not hold cannot be put back, so
			// the first of them is the one answered, and the only one kept:
			// keeping each would copy the path, as deep as the body nests,
			// once per string.
			if findText {
				if s, ok := unquoteRaw(raw); !ok {
					text := len(stack) > 0 && isText(stack[len(stack)-1].next)
					if text || !misplaced {
						out = append(out, rawText{path: path(), text: s})
						misplaced = misplaced || !text
					}
				}
			}
			end()
		default:
			begin()
			end()
		}
		if len(stack) == 0 {
			return out, refused // the first value is read whole
		}
	}
}

// checked returns t, pointers followed, when the members of a JSON object
// or the elements of an array decoded into it are checked, or nil: a value
// that parses itself (a time, a UUID) reads its JSON as it will, and one
// that is not a struct, map, slice or array is refused by the decoder.
func checked(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for _, u := range []reflect.Type{jsonUnmarshaler, textUnmarshaler} {
		if t.Implements(u) || reflect.PointerTo(t).Implements(u) {
			return nil
		}
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		return t
	}
	return nil
}

// isText reports whether a JSON string decoded into t, pointers followed,
// lands in a string (which putText can put back), as opposed to a value
// that parses itself or one the decoder refuses.
func isText(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.Kind() == reflect.String
}

// memberOf returns the type the member called name of an object decoded
// into t holds, and reports whether t may have it: a struct has exactly its
// fields' names, a map any key, and an unchecked type (nil) anything.
func memberOf(t reflect.Type, name string) (reflect.Type, bool) {
	switch {
	case t == nil:
		return nil, true
	case t.Kind() == reflect.Struct:
		f, ok := fieldNamed(t, name)
		return f.typ, ok
	case t.Kind() == reflect.Map:
		return t.Elem(), true
	}
	return nil, true // an array where an object is: the decoder refuses it
}

// elemOf returns the type of an element of an array decoded into t, or nil.
func elemOf(t reflect.Type) reflect.Type {
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		return t.Elem()
	}
	return nil
}

// unquoteRaw decodes a JSON string token as sent: bytes that are not UTF-8
// stay as they are and a lone surrogate escape becomes its three bytes
// (which are not UTF-8). ok reports whether the result is valid UTF-8.
func unquoteRaw(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	raw = raw[1 : len(raw)-1]
	var b []byte
	hex4 := func(s []byte) (rune, bool) {
		if len(s) < 4 {
			return 0, false
		}
		n, err := strconv.ParseUint(string(s[:4]), 16, 16)
		return rune(n), err == nil
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b = append(b, c)
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				return string(b), false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if r2, ok := hex4(raw[i+3:]); ok {
						if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
							b = utf8.AppendRune(b, pair)
							i += 6
							continue
						}
					}
				}
				// A lone surrogate: its generalized UTF-8 form, which no
				// UTF-8 reader accepts.
				b = append(b, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
				continue
			}
			b = utf8.AppendRune(b, r)
		default: // \" \\ \/
			b = append(b, raw[i])
		}
	}
	return string(b), utf8.Valid(b)
}

// putText stores s at path in v, a pointer to a decoded request, where
// the decoder stored its replacement, and reports whether path names a
// text member (a string, or a string element of a list or map).
func putText(v reflect.Value, path []string, s string) bool {
	deref := func() bool {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return false
			}
			v = v.Elem()
		}
		return true
	}
	for i, key := range path {
		if !deref() {
			return false
		}
		switch v.Kind() {
		case reflect.Struct:
			f, ok := fieldNamed(v.Type(), key)
			if !ok {
				return false
			}
			v = v.FieldByIndex(f.index)
		case reflect.Slice:
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= v.Len() {
				return false
			}
			v = v.Index(n)
		case reflect.Map:
			t := v.Type()
			if i != len(path)-1 || t.Key().Kind() != reflect.String || t.Elem().Kind() != reflect.String {
				return false
			}
			v.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), reflect.ValueOf(s).Convert(t.Elem()))
			return true
		default:
			return false
		}
	}
	if !deref() || v.Kind() != reflect.String || !v.CanSet() {
		return false
	}
	v.SetString(s)
	return true
}
