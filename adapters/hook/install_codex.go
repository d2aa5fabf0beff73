package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
)

// Codex runs a user or project hook only when its config.toml trusts it
// (../shared/harness/codex/NOTES.md; codex_hook_trust.py beside it is the
// recipe, checked there against Codex's own list):
//
//	[hooks.state."<abs hooks.json path>:<event_snake>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// The hash is sha256 over the handler's identity as compact JSON with keys
// sorted. An untrusted or changed hook is skipped without a word.
//
// config.toml is edited as text, not through a TOML library: the module has
// none, a parser that re-renders would lose the user's comments and layout,
// and the edit is small. Each trust entry baton writes is a stanza of three
// lines, the marker comment, the table header and trusted_hash, appended at
// the end of the file after a blank line. Uninstall removes the stanzas that
// carry the marker with the blank line before each, and nothing else. The
// marker sits right above the header, where a TOML editor keeps a table's
// leading comment (Codex itself rewrites config.toml, with toml_edit, when a
// person trusts a folder), so the stanza stays recognizable wherever the
// table moves. Trust entries are keyed by the hooks.json path and position;
// only the stanzas for the one hooks.json being edited are touched.

// trustMarker heads every trust stanza baton writes.
const trustMarker = "# Trust for baton's hook in hooks.json: added by baton install, removed by baton uninstall."

// trustEntry is one [hooks.state."key"] table.
type trustEntry struct {
	key, hash string
}

// codexTimeouts are Codex's defaults and upper bounds for a handler's
// timeout in seconds, by event key; the hash is taken over the normalized
// value.
var codexTimeouts = map[string]struct{ def, max int }{
	"session_end": {def: 1, max: 3},
}

// codexHandler is the part of a Codex handler its trust hash covers.
type codexHandler struct {
	Type          *string  `json:"type"`
	Command       string   `json:"command"`
	Timeout       *float64 `json:"timeout"`
	TimeoutSec    *float64 `json:"timeoutSec"`
	Async         bool     `json:"async"`
	StatusMessage *string  `json:"statusMessage"`
}

// codexTrustHash is Codex's hash of a handler of event (its snake_case key)
// in a group with matcher (nil: none).
func codexTrustHash(event string, matcher *string, h codexHandler) string {
	t := h.Timeout
	if t == nil {
		t = h.TimeoutSec
	}
	rule, ok := codexTimeouts[event]
	if !ok {
		rule.def = 600
	}
	secs := rule.def
	if t != nil {
		secs = max(int(*t), 1)
	}
	if rule.max > 0 {
		secs = min(secs, rule.max)
	}
	handler := jsonObj{{"type", "command"}, {"command", h.Command}, {"timeout", secs}, {"async", h.Async}}
	if h.StatusMessage != nil {
		handler = append(handler, jsonKV{"statusMessage", *h.StatusMessage})
	}
	ident := jsonObj{{"event_name", event}, {"hooks", []any{handler}}}
	if matcher != nil {
		ident = append(ident, jsonKV{"matcher", *matcher})
	}
	sum := sha256.Sum256([]byte(canonicalJSON(ident)))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// trustEntries are the trust entries for baton's hooks in the hooks.json
// at path holding src, at the positions they hold there.
func (h *Harness) trustEntries(path string, src []byte) ([]trustEntry, error) {
	d, err := h.open(path, src)
	if err != nil {
		return nil, err
	}
	var out []trustEntry
	for _, ev := range h.registered() {
		_, list, err := h.locate(d, ev)
		if err != nil {
			return nil, err
		}
		for _, i := range h.mine(d, list, ev) {
			var group struct {
				Matcher *string        `json:"matcher"`
				Hooks   []codexHandler `json:"hooks"`
			}
			if err := json.Unmarshal(d.raw(list.items[i]), &group); err != nil {
				return nil, malformed("%s: hooks.%s[%d]: %v", path, ev.Name, i, err)
			}
			out = append(out, trustEntry{
				key:  fmt.Sprintf("%s:%s:%d:0", path, ev.TrustName, i),
				hash: codexTrustHash(ev.TrustName, group.Matcher, group.Hooks[0]),
			})
		}
	}
	return out, nil
}

// trustStanza is a trust table found in config.toml: lines[first:last+1],
// with the marker line first when it is baton's.
type trustStanza struct {
	first, last int
	entry       trustEntry
	mine        bool
}

// scanTrust finds the [hooks.state."…"] tables in lines.
func scanTrust(lines []string) []trustStanza {
	var out []trustStanza
	for i, line := range lines {
		key, ok := stateHeader(line)
		if !ok {
			continue
		}
		s := trustStanza{first: i, last: i, entry: trustEntry{key: key}}
		for j := i + 1; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "["); j++ {
			if hash, ok := trustedHash(lines[j]); ok {
				s.entry.hash, s.last = hash, j
				break
			}
		}
		if i > 0 && strings.TrimSpace(lines[i-1]) == trustMarker && s.last == i+1 {
			s.first, s.mine = i-1, true
		}
		out = append(out, s)
	}
	return out
}

// addTrust returns config.toml (at path, holding src) trusting want for the
// hooks.json at hooksPath: baton's stanzas for that hooks.json are replaced
// by want's, unless they already match it. An entry the user's own tables
// already trust with the same hash is left to them; with another hash it is
// a conflict, since Codex would read the file as defining the table twice.
func addTrust(path string, src []byte, hooksPath string, want []trustEntry) ([]byte, error) {
	if !utf8.Valid(src) {
		return nil, malformed("%s is not UTF-8 text", path)
	}
	lines := textLines(string(src))
	stanzas := scanTrust(lines)
	var need, have []trustEntry
next:
	for _, w := range want {
		for _, s := range stanzas {
			switch {
			case s.mine || s.entry.key != w.key:
			case s.entry.hash == w.hash:
				continue next
			default:
				return nil, continuity.Errorf(continuity.CodeConflict,
					"%s already has a trust table for %s with another hash (a hook that held that position before?); delete that [hooks.state.\"…\"] table and run baton install again", path, w.key)
			}
		}
		need = append(need, w)
	}
	for _, s := range stanzas {
		if s.mine && ownsKey(s.entry.key, hooksPath) {
			have = append(have, s.entry)
		}
	}
	if slices.Equal(have, need) {
		return src, nil
	}
	text := strings.Join(dropTrust(lines, stanzas, hooksPath), "")
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
	}
	var b strings.Builder
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteString(nl)
	}
	for _, e := range need {
		if b.Len() > 0 {
			b.WriteString(nl)
		}
		b.WriteString(trustMarker + nl + "[hooks.state." + quoteTOML(e.key) + "]" + nl + "trusted_hash = " + quoteTOML(e.hash) + nl)
	}
	return []byte(b.String()), nil
}

// removeTrust returns config.toml without baton's stanzas for the
// hooks.json at hooksPath; nil stays nil (no file).
func removeTrust(src []byte, hooksPath string) []byte {
	if src == nil {
		return nil
	}
	lines := textLines(string(src))
	return []byte(strings.Join(dropTrust(lines, scanTrust(lines), hooksPath), ""))
}

// dropTrust removes baton's stanzas for hooksPath from lines, each with the
// blank line addTrust wrote before it (after it, for one that opens the
// file).
func dropTrust(lines []string, stanzas []trustStanza, hooksPath string) []string {
	for i := len(stanzas) - 1; i >= 0; i-- {
		s := stanzas[i]
		if !s.mine || !ownsKey(s.entry.key, hooksPath) {
			continue
		}
		first, last := s.first, s.last
		switch {
		case first > 0 && strings.TrimSpace(lines[first-1]) == "":
			first--
		case first == 0 && last+1 < len(lines) && strings.TrimSpace(lines[last+1]) == "":
			last++
		}
		lines = append(lines[:first], lines[last+1:]...)
	}
	return lines
}

// ownsKey reports whether a trust key belongs to the hooks.json at path.
func ownsKey(key, path string) bool { return strings.HasPrefix(key, path+":") }

// stateHeader returns the key of a `[hooks.state."key"]` table header line
// (the key a basic or a literal string; hooks and state bare, as Codex
// writes them).
func stateHeader(line string) (string, bool) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "[") || strings.HasPrefix(s, "[[") {
		return "", false
	}
	s = strings.TrimLeft(s[1:], " \t")
	for _, part := range []string{"hooks", "state"} {
		rest, ok := strings.CutPrefix(s, part)
		if !ok {
			return "", false
		}
		if rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " \t"), "."); !ok {
			return "", false
		}
		s = strings.TrimLeft(rest, " \t")
	}
	key, rest, ok := tomlString(s)
	if !ok {
		return "", false
	}
	if rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " \t"), "]"); !ok || !tomlLineEnd(rest) {
		return "", false
	}
	return key, true
}

// trustedHash returns the value of a `trusted_hash = "…"` line.
func trustedHash(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "trusted_hash")
	if !ok {
		return "", false
	}
	if rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " \t"), "="); !ok {
		return "", false
	}
	v, rest, ok := tomlString(strings.TrimLeft(rest, " \t"))
	if !ok || !tomlLineEnd(rest) {
		return "", false
	}
	return v, true
}

// tomlLineEnd reports whether rest, after a value, holds only blanks and a
// comment.
func tomlLineEnd(rest string) bool {
	rest = strings.TrimSpace(rest)
	return rest == "" || strings.HasPrefix(rest, "#")
}

// tomlString reads a one-line TOML basic ("…", with escapes) or literal
// ('…') string at the start of s and returns it and what follows.
func tomlString(s string) (val, rest string, ok bool) {
	if strings.HasPrefix(s, "'") {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
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
