package hook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Codex's config.toml is read by a scanner, not a TOML library: the module
// has none, and baton needs only the statements, where each begins and what
// table holds it, to find the trust tables and to refuse a file it would
// break by appending to it. The scanner reads every statement (a [table] or
// [[array]] header, or a key = value pair whose value may span lines, as
// arrays and multi-line strings do) and fails, naming the line, on what it
// can tell is not TOML: an unterminated string, an unclosed bracket, text
// after a value, a table header defined twice, a carriage return outside a
// CRLF. It does not check values beyond finding their end.

// utf8BOM is the byte order mark: no JSON or TOML text may begin with one,
// though a JSON parser may pass over it (RFC 8259, section 8.1).
const utf8BOM = "\ufeff"

// tomlStatement is one statement of a TOML file.
type tomlStatement struct {
	line   int      // the 0-based index of its first line
	last   int      // and of its last (a value may span lines)
	header bool     // a [table] header, or an [[array]] one when array is set
	array  bool     //
	key    []string // a header's path, or a pair's dotted key
	table  []string // the table a pair is in (nil at the top)
	// keyStart and keyEnd span a header's last key part in the source.
	keyStart, keyEnd int
	str              string // a pair's value when it is a one-line string
	isStr            bool
}

// path is where a statement's value sits: a header's path, or a pair's key
// within its table.
func (st *tomlStatement) path() []string {
	if st.header {
		return st.key
	}
	return append(slices.Clone(st.table), st.key...)
}

// tomlScanner reads the statements of src; i is where it is, and lines
// the newlines of src[:counted].
type tomlScanner struct {
	name           string
	src            string
	i              int
	counted, lines int
}

// scanTOML returns the statements of src, naming the file name in its
// errors (malformed, with the line).
func scanTOML(name string, src []byte) ([]tomlStatement, error) {
	if !utf8.Valid(src) {
		return nil, malformed("%s is not UTF-8 text", name)
	}
	if strings.HasPrefix(string(src), utf8BOM) {
		return nil, malformed("%s starts with a UTF-8 byte order mark, which TOML does not allow; save it without one", name)
	}
	p := &tomlScanner{name: name, src: string(src)}
	// A carriage return is a newline's only in CRLF, and nothing else in
	// TOML may hold one. Let through, one ending a file that has no final
	// newline would become a CRLF once baton wrote its tables after it, and
	// uninstall would take it away with the newline.
	if lf := strings.ReplaceAll(p.src, "\r\n", "\n"); strings.Contains(lf, "\r") {
		return nil, p.failAt(strings.Count(lf[:strings.IndexByte(lf, '\r')], "\n"), "a carriage return not followed by a newline, which TOML does not allow")
	}
	var out []tomlStatement
	var table []string
	defined := map[string]int{} // a [table]'s path → the line defining it
	for {
		p.skipBlank()
		if p.i == len(p.src) {
			return out, nil
		}
		st := tomlStatement{line: p.lineOf(p.i)}
		var err error
		if p.src[p.i] == '[' {
			err = p.header(&st)
			table = st.key
			if err == nil && !st.array {
				id := strings.Join(st.key, "\x00")
				if first, ok := defined[id]; ok {
					err = p.failAt(st.line, "the table [%s] is defined twice (lines %d and %d)", dottedKey(st.key), first+1, st.line+1)
				}
				defined[id] = st.line
			}
		} else {
			st.table = table
			err = p.pair(&st)
		}
		st.last = p.lineOf(p.i)
		if err == nil {
			err = p.lineEnd()
		}
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
}

// lineOf is the 0-based index of the line holding offset at. The scanner
// asks in order, so it counts each newline once: counting from the start
// for every statement took 35 s over a 10 MB file.
func (p *tomlScanner) lineOf(at int) int {
	if at < p.counted {
		return strings.Count(p.src[:at], "\n")
	}
	p.lines += strings.Count(p.src[p.counted:at], "\n")
	p.counted = at
	return p.lines
}

// fail is a malformed error for the line holding offset at.
func (p *tomlScanner) fail(at int, format string, args ...any) error {
	return p.failAt(p.lineOf(at), format, args...)
}

func (p *tomlScanner) failAt(line int, format string, args ...any) error {
	return malformed("%s is not valid TOML (line %d: %s)", p.name, line+1, fmt.Sprintf(format, args...))
}

// header reads `[key]` or `[[key]]`.
func (p *tomlScanner) header(st *tomlStatement) error {
	start := p.i
	st.header = true
	p.i++
	if p.at("[") {
		st.array = true
		p.i++
	}
	key, err := p.key(st)
	if err != nil {
		return err
	}
	st.key = key
	p.skipSpace()
	closing := "]"
	if st.array {
		closing = "]]"
	}
	if !p.at(closing) {
		return p.fail(start, "a table header must end with %s", closing)
	}
	p.i += len(closing)
	return nil
}

// pair reads `key = value`.
func (p *tomlScanner) pair(st *tomlStatement) error {
	start := p.i
	key, err := p.key(st)
	if err != nil {
		return err
	}
	st.key = key
	p.skipSpace()
	if !p.at("=") {
		return p.fail(start, "expected = after the key %s", dottedKey(key))
	}
	p.i++
	p.skipSpace()
	st.str, st.isStr, err = p.value()
	return err
}

// key reads a dotted key of bare and quoted parts; st records where its
// last part is.
func (p *tomlScanner) key(st *tomlStatement) ([]string, error) {
	var parts []string
	for {
		p.skipSpace()
		start := p.i
		if p.at(`"`) || p.at("'") {
			part, err := p.oneLineString()
			if err != nil {
				return nil, err
			}
			parts = append(parts, part)
		} else {
			for p.i < len(p.src) && isBareKeyByte(p.src[p.i]) {
				p.i++
			}
			if p.i == start {
				return nil, p.fail(start, "expected a key or a [table] header")
			}
			parts = append(parts, p.src[start:p.i])
		}
		st.keyStart, st.keyEnd = start, p.i
		p.skipSpace()
		if !p.at(".") {
			return parts, nil
		}
		p.i++
	}
}

func isBareKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// value skips one value and returns it when it is a one-line string.
func (p *tomlScanner) value() (string, bool, error) {
	switch {
	case p.i == len(p.src) || strings.ContainsRune("\r\n#", rune(p.src[p.i])):
		return "", false, p.fail(p.i, "a key has no value")
	case p.at(`"""`) || p.at("'''"):
		return "", false, p.multiLineString()
	case p.at(`"`) || p.at("'"):
		s, err := p.oneLineString()
		return s, err == nil, err
	case p.at("[") || p.at("{"):
		return "", false, p.nested()
	}
	// A number, a boolean or a date, which may hold a space.
	for p.i < len(p.src) && !strings.ContainsRune("\r\n#,]}", rune(p.src[p.i])) {
		p.i++
	}
	return "", false, nil
}

// oneLineString reads a basic or literal string that ends on its line.
func (p *tomlScanner) oneLineString() (string, error) {
	rest := p.src[p.i:]
	s, after, ok := tomlString(rest)
	if !ok {
		return "", p.fail(p.i, "a string is not terminated on its line, or holds an escape TOML does not have")
	}
	p.i += len(rest) - len(after)
	return s, nil
}

// multiLineString skips a multi-line basic or literal string.
func (p *tomlScanner) multiLineString() error {
	start, delim := p.i, p.src[p.i:p.i+3]
	for p.i += 3; p.i < len(p.src); p.i++ {
		switch {
		case delim[0] == '"' && p.src[p.i] == '\\' && p.i+1 < len(p.src): // not past the end
			p.i++
		case p.at(delim):
			p.i += 3
			for n := 0; n < 2 && p.at(delim[:1]); n++ { // up to two quotes end the content
				p.i++
			}
			return nil
		}
	}
	return p.fail(start, "a multi-line string is never closed")
}

// nested skips an array or an inline table, whatever it holds.
func (p *tomlScanner) nested() error {
	var open []int // where each unclosed bracket is
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '[' || c == '{':
			open = append(open, p.i)
			p.i++
		case c == ']' || c == '}':
			last := open[len(open)-1]
			if want := closer(p.src[last]); c != want {
				return p.fail(p.i, "%c closes the %c opened on line %d", c, p.src[last], strings.Count(p.src[:last], "\n")+1)
			}
			open = open[:len(open)-1]
			p.i++
			if len(open) == 0 {
				return nil
			}
		case c == '#':
			p.skipComment()
		case p.at(`"""`) || p.at("'''"):
			if err := p.multiLineString(); err != nil {
				return err
			}
		case c == '"' || c == '\'':
			if _, err := p.oneLineString(); err != nil {
				return err
			}
		default:
			p.i++
		}
	}
	return p.fail(open[0], "this %c is never closed", p.src[open[0]])
}

// lineEnd reads the end of a statement's line: blanks, a comment, the
// newline.
func (p *tomlScanner) lineEnd() error {
	p.skipSpace()
	p.skipComment()
	switch {
	case p.i == len(p.src):
	case p.at("\n"):
		p.i++
	case p.at("\r\n"):
		p.i += 2
	default:
		return p.fail(p.i, "unexpected text %q after a value or a header", strings.TrimSpace(strings.SplitN(p.src[p.i:], "\n", 2)[0]))
	}
	return nil
}

func (p *tomlScanner) at(s string) bool { return strings.HasPrefix(p.src[p.i:], s) }

func (p *tomlScanner) skipSpace() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

func (p *tomlScanner) skipComment() {
	if p.at("#") {
		for p.i < len(p.src) && p.src[p.i] != '\n' {
			p.i++
		}
	}
}

// skipBlank skips blank lines and comments.
func (p *tomlScanner) skipBlank() {
	for {
		p.skipSpace()
		p.skipComment()
		switch {
		case p.at("\n"):
			p.i++
		case p.at("\r\n"):
			p.i += 2
		default:
			return
		}
	}
}

// dottedKey writes a key's parts as TOML, bare where they can be.
func dottedKey(parts []string) string {
	out := make([]string, len(parts))
	for i, s := range parts {
		out[i] = s
		if s == "" || strings.TrimFunc(s, func(r rune) bool { return r < utf8.RuneSelf && isBareKeyByte(byte(r)) }) != "" {
			out[i] = quoteTOML(s)
		}
	}
	return strings.Join(out, ".")
}

// tomlString reads a one-line TOML basic ("…", with escapes) or literal
// ('…') string at the start of s and returns it and what follows; a
// newline before its end is not ok. It reads no further than the string
// (not to the end of the line first: over a line of many strings, a 10 MB
// array, that was quadratic).
func tomlString(s string) (val, rest string, ok bool) {
	if strings.HasPrefix(s, "'") {
		end := strings.IndexAny(s[1:], "'\n")
		if end < 0 || s[1+end] == '\n' {
			return "", "", false
		}
		return s[1 : 1+end], s[2+end:], true
	}
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], true
		case '\n':
			return "", "", false
		case '\\':
			if i+1 == len(s) {
				return "", "", false
			}
			i++
			switch e := s[i]; e {
			case 'b', 't', 'n', 'f', 'r', '"', '\\':
				b.WriteByte(tomlEscapes[e])
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", "", false
				}
				r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil {
					return "", "", false
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false
}

// tomlEscapes maps the letter after a backslash to the byte it stands for.
var tomlEscapes = map[byte]byte{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\'}

// quoteTOML quotes s as a TOML basic string.
func quoteTOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
