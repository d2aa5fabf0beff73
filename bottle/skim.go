package bottle

import (
	"bytes"
	"encoding/json"
)

// The skimmer walks JSON structure without decoding it, so the bulk of a
// transcript (tool results, request blobs) is passed over at memchr speed
// instead of being scanned byte by byte. It checks the structure it walks
// (closed strings, balanced brackets, key/value syntax) but not the contents
// of values it skips; every value baton keeps is then decoded, and so
// validated, by encoding/json.

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at d[i] == '"'.
func skipString(d []byte, i int) (int, bool) {
	i++
	for {
		j := bytes.IndexByte(d[i:], '"')
		if j < 0 {
			return 0, false
		}
		k := i + j
		n := 0 // backslashes escaping this quote; a run cannot cross a quote
		for m := k - 1; m >= i && d[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return k + 1, true
		}
		i = k + 1
	}
}

// skipValue returns the index just past the value starting at d[i].
func skipValue(d []byte, i int) (int, bool) {
	if i >= len(d) {
		return 0, false
	}
	switch d[i] {
	case '"':
		return skipString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				j, ok := skipString(d, i)
				if !ok {
					return 0, false
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return 0, false
	default:
		j := i
		for j < len(d) && d[j] != ',' && d[j] != '}' && d[j] != ']' && d[j] != ' ' && d[j] != '\n' && d[j] != '\r' && d[j] != '\t' {
			j++
		}
		return j, j > i
	}
}

// eachField calls fn with the raw key (quotes included) and raw value of
// every member of the object d. It reports false when d is not an object.
func eachField(d []byte, fn func(key, val []byte)) bool {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return false
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return skipSpace(d, i+1) == len(d)
	}
	for {
		if i >= len(d) || d[i] != '"' {
			return false
		}
		k, ok := skipString(d, i)
		if !ok {
			return false
		}
		key := d[i:k]
		i = skipSpace(d, k)
		if i >= len(d) || d[i] != ':' {
			return false
		}
		i = skipSpace(d, i+1)
		v, ok := skipValue(d, i)
		if !ok {
			return false
		}
		fn(key, d[i:v])
		i = skipSpace(d, v)
		if i >= len(d) {
			return false
		}
		if d[i] == '}' {
			return skipSpace(d, i+1) == len(d)
		}
		if d[i] != ',' {
			return false
		}
		i = skipSpace(d, i+1)
	}
}

// eachElem calls fn with every raw element of the array d. It reports false
// when d is not an array.
func eachElem(d []byte, fn func(val []byte)) bool {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '[' {
		return false
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return skipSpace(d, i+1) == len(d)
	}
	for {
		v, ok := skipValue(d, i)
		if !ok {
			return false
		}
		fn(d[i:v])
		i = skipSpace(d, v)
		if i >= len(d) {
			return false
		}
		if d[i] == ']' {
			return skipSpace(d, i+1) == len(d)
		}
		if d[i] != ',' {
			return false
		}
		i = skipSpace(d, i+1)
	}
}

// jsonString decodes a raw JSON string value; anything else yields "".
func jsonString(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 {
		if s := v[1 : len(v)-1]; json.Valid(v) {
			return string(s)
		}
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}
