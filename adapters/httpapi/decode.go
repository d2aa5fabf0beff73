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
// to a struct): a member into has not, a value of another JSON type, and
// anything after the object are invalid.
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
	texts, err := rawTexts(body)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return decodeError(err)
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

// decodeError names what encoding/json refused, without echoing the value.
func decodeError(err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return continuity.Invalid("body", "must be valid JSON")
	case errors.As(err, &typ):
		name := typ.Field
		if name == "" {
			name = "body"
		}
		return continuity.Invalid(name, "must be a JSON "+jsonType(typ.Type))
	case strings.HasPrefix(err.Error(), unknownField):
		name := strings.TrimSuffix(strings.TrimPrefix(err.Error(), unknownField), `"`)
		return continuity.Invalid(name, "is not a field of this request")
	}
	// A member's own parser refused its text (a time, a UUID): its error
	// may quote the value, so only the class is said.
	return continuity.Invalid("body", "holds a value not of its field's form")
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

// rawTexts returns the strings of body that are not UTF-8 as sent. Broken
// JSON is left to the decoder to report.
//
// Errors: invalid, when a member name is not UTF-8.
func rawTexts(body []byte) ([]rawText, error) {
	if utf8.Valid(body) && !surrogateEscape.Match(body) {
		return nil, nil // the common case: nothing to find
	}
	type frame struct {
		object  bool
		wantKey bool
		key     string
		index   int
	}
	var (
		stack []frame
		out   []rawText
	)
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
			return out, nil
		}
		off := dec.InputOffset()
		raw := bytes.TrimLeft(body[prev:off], " \t\r\n,:")
		prev = off
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				begin()
				stack = append(stack, frame{object: t == '{', wantKey: true, index: -1})
				continue
			}
			stack = stack[:len(stack)-1]
			end()
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				if _, ok := unquoteRaw(raw); !ok {
					name := strings.Join(path()[:n-1], ".")
					if name == "" {
						name = "body"
					}
					return nil, continuity.Invalid(name, "must have member names of valid UTF-8")
				}
				stack[n-1].key, stack[n-1].wantKey = t, false
				continue
			}
			begin()
			if text, ok := unquoteRaw(raw); !ok {
				out = append(out, rawText{path: path(), text: text})
			}
			end()
		default:
			begin()
			end()
		}
	}
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
