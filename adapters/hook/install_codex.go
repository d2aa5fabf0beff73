package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
// and the edit is small; install_toml.go's scanner finds the tables and
// refuses a file it would break. Each trust entry baton writes is a stanza of three
// lines, the marker comment, the table header and trusted_hash, appended at
// the end of the file after a blank line. Uninstall removes the stanzas that
// carry the marker with the blank line before each (with any key Codex
// added to the table, such as enabled), and nothing else. The
// marker sits right above the header, where a TOML editor keeps a table's
// leading comment (Codex itself rewrites config.toml, with toml_edit, when a
// person trusts a folder), so the stanza stays recognizable wherever the
// table moves. Trust entries are keyed by the hooks.json path and position;
// only the stanzas for the one hooks.json being edited are touched: baton's,
// and the person's when removing baton's entry shifts their hooks to new
// positions (their keys follow; the hash does not cover the position).

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

// trustChange plans config.toml, at trustPath, for the hooks.json at path
// going from before to after: install trusts baton's hooks at their
// positions in after, uninstall drops baton's trust, and both move the
// person's trust tables along with the hooks baton's edit shifted.
func (h *Harness) trustChange(trustPath, path string, before, after []byte, install bool) (FileChange, error) {
	trust := FileChange{Path: trustPath}
	var err error
	if trust.Target, trust.Before, err = readConfig(trust.Path); err != nil {
		return trust, err
	}
	// Codex canonicalizes CODEX_HOME and the project: its keys name the
	// directory with its links resolved. Stanzas baton wrote under the path
	// as given (before it resolved it) are still baton's to replace.
	key := codexKeyPath(path)
	owners := []string{key}
	if key != path {
		owners = append(owners, path)
	}
	moves, err := h.trustMoves(key, before, after)
	if err != nil {
		return trust, err
	}
	if !install {
		trust.After, err = removeTrust(trust.Path, trust.Before, owners, moves)
		return trust, err
	}
	want, err := h.trustEntries(key, after)
	if err != nil {
		return trust, err
	}
	trust.After, err = addTrust(trust.Path, trust.Before, owners, want, moves)
	return trust, err
}

// codexKeyPath is the hooks.json path as Codex keys its trust: its
// directory with symbolic links resolved, as far as the directory exists
// (a dry run may plan one install has yet to create).
func codexKeyPath(path string) string {
	dir, rest := filepath.Dir(path), filepath.Base(path)
	for {
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(resolved, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		dir, rest = parent, filepath.Join(filepath.Base(dir), rest)
	}
}

// trustKey is the trust key of handler at[1] of group at[0] in ev's list
// of the hooks.json at path.
func trustKey(path string, ev EventName, at [2]int) string {
	return fmt.Sprintf("%s:%s:%d:%d", path, ev.TrustName, at[0], at[1])
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
		for _, at := range h.mine(d, list, ev) {
			var group struct {
				Matcher *string        `json:"matcher"`
				Hooks   []codexHandler `json:"hooks"`
			}
			if err := json.Unmarshal(d.raw(list.items[at.entry]), &group); err != nil {
				return nil, malformed("%s: hooks.%s[%d]: %v", path, ev.Name, at.entry, err)
			}
			out = append(out, trustEntry{
				key:  trustKey(path, ev, [2]int{at.entry, at.handler}),
				hash: codexTrustHash(ev.TrustName, group.Matcher, group.Hooks[at.handler]),
			})
		}
	}
	return out, nil
}

// trustMoves maps the trust keys of the person's handlers that editing the
// hooks.json at path from before to after moves to their new keys: removing
// one of baton's entries shifts the groups after it up, and removing
// baton's handler from a shared group the handlers after it. Baton adds
// and removes only its own, so the person's keep their order; their hashes
// do not cover the position and stay as they are.
func (h *Harness) trustMoves(path string, before, after []byte) (map[string]string, error) {
	moves := map[string]string{}
	if after == nil {
		return moves, nil
	}
	bd, err := h.open(path, before)
	if err != nil {
		return nil, err
	}
	ad, err := h.open(path, after)
	if err != nil {
		return nil, err
	}
	for _, ev := range h.registered() {
		from, to := h.others(bd, ev), h.others(ad, ev)
		for i := range min(len(from), len(to)) {
			if from[i] != to[i] {
				moves[trustKey(path, ev, from[i])] = trustKey(path, ev, to[i])
			}
		}
	}
	return moves, nil
}

// others lists the group and handler index of every handler in ev's list
// of d that is not baton's.
func (h *Harness) others(d *jsonDoc, ev EventName) [][2]int {
	_, list, err := h.locate(d, ev)
	if err != nil || list == nil {
		return nil
	}
	mine := map[[2]int]bool{}
	for _, at := range h.mine(d, list, ev) {
		mine[[2]int{at.entry, at.handler}] = true
	}
	var out [][2]int
	for g, group := range list.items {
		if hs := d.groupHandlers(group); hs != nil {
			for k := range hs.items {
				if !mine[[2]int{g, k}] {
					out = append(out, [2]int{g, k})
				}
			}
		}
	}
	return out
}

// trustStanza is a trust table found in config.toml: lines[first:last+1],
// with the marker line first when it is baton's; header is the line of its
// [hooks.state."key"] header, hash that of its trusted_hash. The table runs
// to its last key: one Codex adds to baton's (enabled = false, when the
// person turns the hook off in /hooks) is part of it, and goes with it.
type trustStanza struct {
	first, last, header, hash int
	// keyStart and keyEnd span the key in the header, in the file's text.
	keyStart, keyEnd int
	entry            trustEntry
	mine             bool
}

// trustFile is a config.toml split into lines, with its trust tables.
type trustFile struct {
	lines   []string
	stanzas []trustStanza
}

// parseTrustFile reads config.toml (at path, holding src). It refuses what
// the scanner can tell is not TOML, and a file that defines hooks or
// hooks.state other than as [hooks.state."…"] tables (an inline table,
// dotted keys, a key = value under [hooks.state], an array of tables):
// tables appended beside those would define the same key twice.
func parseTrustFile(path string, src []byte) (*trustFile, error) {
	sts, err := scanTOML(path, src)
	if err != nil {
		return nil, err
	}
	f := &trustFile{lines: textLines(string(src))}
	for i, st := range sts {
		full := st.path()
		inHooks := len(full) > 0 && full[0] == "hooks"
		inState := len(full) > 1 && inHooks && full[1] == "state"
		switch {
		case st.header && st.array && inHooks && (len(full) == 1 || inState && len(full) <= 3):
			return nil, malformed("%s: line %d: [[%s]] makes it an array of tables, which baton does not edit (Codex reads hooks.state as tables [hooks.state.\"…\"])", path, st.line+1, dottedKey(full))
		case !st.header && (inHooks && len(full) == 1 || inState && len(st.table) < 3):
			return nil, malformed("%s: line %d: %s = … defines %s in a form baton does not edit; write each trust entry as a table [hooks.state.\"…\"] with trusted_hash in it, then run baton again", path, st.line+1, dottedKey(st.key), dottedKey(full[:min(len(full), 2)]))
		case st.header && !st.array && len(full) == 3 && inState:
			f.stanzas = append(f.stanzas, f.stanza(sts[i:]))
		}
	}
	return f, nil
}

// stanza is the trust table headed by sts[0].
func (f *trustFile) stanza(sts []tomlStatement) trustStanza {
	h := sts[0]
	s := trustStanza{first: h.line, last: h.last, header: h.line, hash: -1, keyStart: h.keyStart, keyEnd: h.keyEnd, entry: trustEntry{key: h.key[2]}}
	for _, st := range sts[1:] {
		if st.header {
			break
		}
		s.last = st.last
		if s.hash < 0 && len(st.key) == 1 && st.key[0] == "trusted_hash" && st.isStr {
			s.entry.hash, s.hash = st.str, st.line
		}
	}
	if h.line > 0 && strings.TrimSpace(f.lines[h.line-1]) == trustMarker && s.hash == h.line+1 {
		s.first, s.mine = h.line-1, true
	}
	return s
}

// addTrust returns config.toml (at path, holding src) trusting want for the
// hooks.json at hooksPaths (the same file by other names): baton's stanzas for that hooks.json are replaced
// by want's, unless they already match it. An entry the user's own tables
// already trust with the same hash is left to them; with another hash it is
// a conflict, since Codex would read the file as defining the table twice.
// The person's tables move first, as moves says (see openTrust).
func addTrust(path string, src []byte, hooksPaths []string, want []trustEntry, moves map[string]string) ([]byte, error) {
	f, err := openTrust(path, src, moves)
	if err != nil {
		return nil, err
	}
	var need, have []trustEntry
next:
	for _, w := range want {
		for _, s := range f.stanzas {
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
	rest := map[string]string{} // a key → the lines after trusted_hash in baton's table for it
	for _, s := range f.stanzas {
		if s.mine && ownsKey(s.entry.key, hooksPaths) {
			have = append(have, s.entry)
			rest[s.entry.key] = strings.Join(f.lines[s.hash+1:s.last+1], "")
		}
	}
	if slices.Equal(have, need) {
		return []byte(strings.Join(f.lines, "")), nil
	}
	text := strings.Join(f.drop(hooksPaths), "")
	nl := "\n"
	if strings.Contains(text, "\r\n") {
		nl = "\r\n"
	}
	// A file without a final newline keeps its absence: the stanzas go
	// after a newline, the last one without its own.
	final := text == "" || strings.HasSuffix(text, "\n")
	var b strings.Builder
	b.WriteString(text)
	if !final {
		b.WriteString(nl)
	}
	for _, e := range need {
		if b.Len() > 0 {
			b.WriteString(nl)
		}
		b.WriteString(trustMarker + nl + "[hooks.state." + quoteTOML(e.key) + "]" + nl + "trusted_hash = " + quoteTOML(e.hash) + nl)
		// What Codex added to baton's table for this hook (enabled =
		// false) stays with it.
		if r := rest[e.key]; r != "" {
			b.WriteString(strings.TrimSuffix(strings.TrimSuffix(r, "\n"), "\r") + nl)
		}
	}
	out := b.String()
	if !final {
		out = strings.TrimSuffix(out, nl)
	}
	return []byte(out), nil
}

// removeTrust returns config.toml (at path, holding src) without baton's
// stanzas for the hooks.json at hooksPaths, the person's tables moved as
// moves says; nil stays nil (no file).
func removeTrust(path string, src []byte, hooksPaths []string, moves map[string]string) ([]byte, error) {
	if src == nil {
		return nil, nil
	}
	f, err := openTrust(path, src, moves)
	if err != nil {
		return nil, err
	}
	return []byte(strings.Join(f.drop(hooksPaths), "")), nil
}

// openTrust parses config.toml (at path, holding src) and gives the
// person's trust tables the keys moves maps theirs to, keeping their
// hashes. A table that would take a key another of the person's tables
// keeps is a conflict: Codex would read the key defined twice.
func openTrust(path string, src []byte, moves map[string]string) (*trustFile, error) {
	f, err := parseTrustFile(path, src)
	if err != nil || len(moves) == 0 {
		return f, err
	}
	kept := map[string]int{} // a key no move takes away → its header's line
	for _, s := range f.stanzas {
		if _, moving := moves[s.entry.key]; !moving && !s.mine {
			kept[s.entry.key] = s.header
		}
	}
	text := string(src)
	for i := len(f.stanzas) - 1; i >= 0; i-- {
		s := f.stanzas[i]
		to, ok := moves[s.entry.key]
		if !ok || s.mine {
			continue
		}
		if line, clash := kept[to]; clash {
			return nil, continuity.Errorf(continuity.CodeConflict,
				"%s: the hook trusted on line %d moves to %s once baton's hook before it is removed, but line %d already trusts that key (a hook that is gone?); delete the table on line %d and run baton again",
				path, s.header+1, to, line+1, line+1)
		}
		text = text[:s.keyStart] + quoteTOML(to) + text[s.keyEnd:]
	}
	return parseTrustFile(path, []byte(text))
}

// drop returns f's lines without baton's stanzas for hooksPaths, each with
// the blank line addTrust wrote before it (after it, for one that opens the
// file). A stanza that ended the file without a final newline takes the
// newline addTrust wrote before it.
func (f *trustFile) drop(hooksPaths []string) []string {
	lines := slices.Clone(f.lines)
	for i := len(f.stanzas) - 1; i >= 0; i-- {
		s := f.stanzas[i]
		if !s.mine || !ownsKey(s.entry.key, hooksPaths) {
			continue
		}
		first, last := s.first, s.last
		switch {
		case first > 0 && strings.TrimSpace(lines[first-1]) == "":
			first--
		case first == 0 && last+1 < len(lines) && strings.TrimSpace(lines[last+1]) == "":
			last++
		}
		unterminated := last == len(lines)-1 && !strings.HasSuffix(lines[last], "\n")
		lines = append(lines[:first], lines[last+1:]...)
		if n := len(lines); unterminated && n > 0 {
			lines[n-1] = strings.TrimSuffix(strings.TrimSuffix(lines[n-1], "\n"), "\r")
		}
	}
	return lines
}

// ownsKey reports whether a trust key belongs to the hooks.json at one of
// paths.
func ownsKey(key string, paths []string) bool {
	return slices.ContainsFunc(paths, func(path string) bool { return strings.HasPrefix(key, path+":") })
}
