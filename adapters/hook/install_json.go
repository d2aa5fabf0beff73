package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A harness's JSON configuration is edited in place: the file is parsed
// (with encoding/json's tokenizer) into a tree that remembers each value's
// byte span, and every edit splices new text into the original bytes. What
// baton does not touch keeps its bytes: key order, indentation, escapes,
// number spellings, the final newline. An entry install appends is removed by
// uninstall together with the separator install wrote before it, so that
// install then uninstall gives back the same bytes.

// jsonObj is an object to write, its members in order.
type jsonObj []jsonKV

// jsonKV is one member of a jsonObj.
type jsonKV struct {
	key string
	val any // jsonObj, []any, string, int, bool or json.RawMessage
}

// jsonNode is one value of a parsed document and its span src[start:end].
type jsonNode struct {
	delim      byte // '{' or '[' for containers, 0 for scalars
	start, end int
	items      []*jsonNode // an array's elements, an object's member values
	keys       []string    // an object's keys, parallel to items
	keyStarts  []int       // where each member's key begins
	str        string      // a string scalar's value
	isStr      bool
}

// itemStart is where item i begins: its key for an object member.
func (n *jsonNode) itemStart(i int) int {
	if n.delim == '{' {
		return n.keyStarts[i]
	}
	return n.items[i].start
}

// jsonDoc is a parsed JSON document and the layout its edits follow.
type jsonDoc struct {
	name string // the file, for errors
	src  []byte
	root *jsonNode
	nl   string // the file's line ending
	unit string // one level of the file's indentation
}

// parseJSONDoc parses src, naming the file name in its errors.
func parseJSONDoc(name string, src []byte) (*jsonDoc, error) {
	d := &jsonDoc{name: name, src: src, nl: "\n", unit: "  "}
	if err := d.parse(); err != nil {
		return nil, err
	}
	if bytes.Contains(src, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	d.unit = indentUnit(src)
	return d, nil
}

// indentUnit is the indentation of the first indented line, else two spaces.
func indentUnit(src []byte) string {
	for line := range bytes.Lines(src) {
		if ws := len(line) - len(bytes.TrimLeft(line, " \t")); ws > 0 && ws < len(bytes.TrimRight(line, "\r\n")) {
			return string(line[:ws])
		}
	}
	return "  "
}

func (d *jsonDoc) parse() error {
	if bytes.HasPrefix(d.src, []byte(utf8BOM)) {
		return malformed("%s starts with a UTF-8 byte order mark, which JSON does not allow; save it without one", d.name)
	}
	var probe any
	if err := json.Unmarshal(d.src, &probe); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			// Offset counts the bytes read, the bad one included, unless
			// the input ended early.
			off := int(syn.Offset)
			if syn.Error() != "unexpected end of JSON input" {
				off--
			}
			line, col := lineCol(d.src, off)
			if rest := d.src[min(max(off, 0), len(d.src)):]; bytes.HasPrefix(rest, []byte("//")) || bytes.HasPrefix(rest, []byte("/*")) {
				return malformed("%s has a comment on line %d, and baton cannot edit a settings file with comments: remove them, or add baton's hooks by hand (`baton install --dry-run` prints them)", d.name, line)
			}
			return malformed("%s is not valid JSON (line %d, column %d: %v)", d.name, line, col, syn)
		}
		return malformed("%s is not valid JSON (%v)", d.name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(d.src))
	dec.UseNumber()
	p := jsonParser{dec: dec, src: d.src}
	root, err := p.value()
	if err != nil { // unreachable after Unmarshal accepted src
		return malformed("%s: %v", d.name, err)
	}
	d.root = root
	return nil
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	before := src[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// jsonParser builds the tree from the decoder's tokens; InputOffset before
// and after each token gives its span (the decoder consumes the whitespace
// and the ',' or ':' before a token within the same Token call).
type jsonParser struct {
	dec *json.Decoder
	src []byte
}

func (p *jsonParser) token() (tok json.Token, start, end int, err error) {
	prev := int(p.dec.InputOffset())
	if tok, err = p.dec.Token(); err != nil {
		return nil, 0, 0, err
	}
	end = int(p.dec.InputOffset())
	start = end - len(bytes.TrimLeft(p.src[prev:end], " \t\r\n,:"))
	return tok, start, end, nil
}

func (p *jsonParser) value() (*jsonNode, error) {
	tok, start, end, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.node(tok, start, end)
}

func (p *jsonParser) node(tok json.Token, start, end int) (*jsonNode, error) {
	n := &jsonNode{start: start, end: end}
	delim, ok := tok.(json.Delim)
	if !ok {
		n.str, n.isStr = tok.(string)
		return n, nil
	}
	n.delim = byte(delim)
	for {
		tok, start, end, err := p.token()
		if err != nil {
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			n.end = end
			return n, nil
		}
		if n.delim == '{' {
			n.keys = append(n.keys, tok.(string))
			n.keyStarts = append(n.keyStarts, start)
			if tok, start, end, err = p.token(); err != nil {
				return nil, err
			}
		}
		item, err := p.node(tok, start, end)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
	}
}

// member returns the value of obj's member key (the last, as JSON.parse
// keeps it, when a key repeats: Harness.open refuses that where install
// looks) and its index, or nil and -1.
func (d *jsonDoc) member(obj *jsonNode, key string) (*jsonNode, int) {
	for i := len(obj.keys) - 1; i >= 0; i-- {
		if obj.keys[i] == key {
			return obj.items[i], i
		}
	}
	return nil, -1
}

// unique refuses a key obj (the value at where) holds twice: JSON.parse
// keeps the last, and once baton edited or removed that one, the other
// would take its place.
func (d *jsonDoc) unique(obj *jsonNode, where string) error {
	if obj == nil || obj.delim != '{' {
		return nil
	}
	seen := make(map[string]int, len(obj.keys))
	for i, k := range obj.keys {
		if j, ok := seen[k]; ok {
			first, _ := lineCol(d.src, obj.keyStarts[j])
			again, _ := lineCol(d.src, obj.keyStarts[i])
			return malformed("%s: %s holds the key %q twice (lines %d and %d); keep one", d.name, where, k, first, again)
		}
		seen[k] = i
	}
	return nil
}

// raw is n's text.
func (d *jsonDoc) raw(n *jsonNode) []byte { return d.src[n.start:n.end] }

// equal reports whether n holds the same JSON value as v.
func (d *jsonDoc) equal(n *jsonNode, v any) bool {
	return jsonEqual(d.raw(n), []byte(renderJSON(v, "", "", "")))
}

// jsonEqual reports whether a and b are the same JSON value (key order and
// layout aside).
func jsonEqual(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// splice replaces src[start:end] with text and parses the result again.
func (d *jsonDoc) splice(start, end int, text string) error {
	src := make([]byte, 0, len(d.src)-(end-start)+len(text))
	src = append(append(append(src, d.src[:start]...), text...), d.src[end:]...)
	old := d.src
	d.src = src
	if err := d.parse(); err != nil {
		d.src = old
		return fmt.Errorf("hook: install: internal error: an edit of %s would break it (%v); nothing written", d.name, err)
	}
	return nil
}

// lineIndent is the leading whitespace of the line holding offset off.
func (d *jsonDoc) lineIndent(off int) string {
	line := d.src[bytes.LastIndexByte(d.src[:off], '\n')+1:]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// item renders one member (key set) or element, its nested lines indented
// from indent; unit "" renders it on one line.
func (d *jsonDoc) item(key string, isMember bool, v any, indent, unit string) string {
	text := renderJSON(v, indent, unit, d.nl)
	if isMember {
		return quoteJSON(key) + ": " + text
	}
	return text
}

// insertLast adds v as the last element of array c, or as member key of
// object c, laid out like its siblings: on its own line in a container that
// spans lines, inline in one that does not.
func (d *jsonDoc) insertLast(c *jsonNode, key string, v any) error {
	isMember := c.delim == '{'
	if len(c.items) == 0 {
		ind := d.lineIndent(c.start)
		inner := ind + d.unit
		text := string(c.delim) + d.nl + inner + d.item(key, isMember, v, inner, d.unit) + d.nl + ind + string(closer(c.delim))
		return d.splice(c.start, c.end, text)
	}
	last := len(c.items) - 1
	at := c.items[last].end
	if !bytes.ContainsAny(d.src[c.start:c.end], "\n") {
		return d.splice(at, at, ", "+d.item(key, isMember, v, "", ""))
	}
	ind := d.lineIndent(c.itemStart(last))
	return d.splice(at, at, ","+d.nl+ind+d.item(key, isMember, v, ind, d.unit))
}

// replaceItem replaces element or member value i of c with v.
func (d *jsonDoc) replaceItem(c *jsonNode, i int, v any) error {
	n := c.items[i]
	unit := d.unit
	if !bytes.ContainsAny(d.src[c.start:c.end], "\n") {
		unit = ""
	}
	return d.splice(n.start, n.end, renderJSON(v, d.lineIndent(n.start), unit, d.nl))
}

// removeItem removes element or member i of c with the separator before it
// (after it, for the first of several), which is what insertLast wrote; the
// last one leaves an empty container.
func (d *jsonDoc) removeItem(c *jsonNode, i int) error {
	switch {
	case len(c.items) == 1:
		return d.splice(c.start, c.end, string(c.delim)+string(closer(c.delim)))
	case i > 0:
		return d.splice(c.items[i-1].end, c.items[i].end, "")
	default:
		return d.splice(c.itemStart(0), c.itemStart(1), "")
	}
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// renderJSON writes v with nested lines indented by indent plus unit per
// level, or on one line (", " and ": " between items) when unit is empty.
func renderJSON(v any, indent, unit, nl string) string {
	var b strings.Builder
	writeJSON(&b, v, jsonLayout{indent: indent, unit: unit, nl: nl, comma: ", ", colon: ": "})
	return b.String()
}

// canonicalJSON writes v on one line with no space between items and every
// object's keys sorted, as Codex's trust hashes read it.
func canonicalJSON(v any) string {
	var b strings.Builder
	writeJSON(&b, v, jsonLayout{comma: ",", colon: ":", sorted: true})
	return b.String()
}

// jsonLayout is how writeJSON lays values out.
type jsonLayout struct {
	indent, unit, nl string // unit "": on one line
	comma, colon     string // between items and after keys on one line
	sorted           bool   // objects' keys sorted
}

func writeJSON(b *strings.Builder, v any, l jsonLayout) {
	inner := l
	inner.indent += l.unit
	var n int
	var item func(i int)
	open, shut := byte('['), byte(']')
	switch v := v.(type) {
	case string:
		b.WriteString(quoteJSON(v))
		return
	case int:
		b.WriteString(strconv.Itoa(v))
		return
	case bool:
		b.WriteString(strconv.FormatBool(v))
		return
	case json.RawMessage: // a value copied from another document, on one line
		var c bytes.Buffer
		if json.Compact(&c, v) != nil {
			panic("hook: install: cannot render invalid JSON")
		}
		b.Write(c.Bytes())
		return
	case jsonObj:
		if l.sorted {
			v = slices.SortedStableFunc(slices.Values(v), func(a, b jsonKV) int { return strings.Compare(a.key, b.key) })
		}
		open, shut, n = '{', '}', len(v)
		item = func(i int) {
			b.WriteString(quoteJSON(v[i].key) + l.colon)
			writeJSON(b, v[i].val, inner)
		}
	case []any:
		n = len(v)
		item = func(i int) { writeJSON(b, v[i], inner) }
	default:
		panic(fmt.Sprintf("hook: install: cannot render %T", v))
	}
	b.WriteByte(open)
	for i := range n {
		switch {
		case l.unit != "" && i > 0:
			b.WriteString("," + l.nl + inner.indent)
		case l.unit != "":
			b.WriteString(l.nl + inner.indent)
		case i > 0:
			b.WriteString(l.comma)
		}
		item(i)
	}
	if l.unit != "" && n > 0 {
		b.WriteString(l.nl + l.indent)
	}
	b.WriteByte(shut)
}

// quoteJSON quotes s as a JSON string the way serde_json and Python's
// json.dumps(ensure_ascii=False) do: only '"', '\\' and control characters
// are escaped, so '<', '&' and non-ASCII text stay as they are. Codex's
// trust hashes are taken over this spelling (install_codex.go).
func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
