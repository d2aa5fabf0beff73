package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
)

// `baton install` registers `<binary> hook KIND --harness NAME` for each
// event baton handles in a harness's own configuration file, and `baton
// uninstall` takes exactly those entries out again. Both are planned first
// (PlanInstall, PlanUninstall: read, edit in memory, nothing written), then
// shown (Diff) or applied (Apply: a backup of each file it changes, then an
// atomic replace).
//
// Which handlers are baton's: those whose whole command is one absolute
// path, bare or quoted as install quotes it, followed by " hook KIND
// --harness NAME" (a wrapper such as "cd /w && baton hook …" is the
// person's). In a harness that nests handlers in matcher groups, a group
// holding only baton's handler (and no key but "matcher" and "hooks") is
// baton's entry; baton's handler in a group the person added handlers to
// is baton's alone, the group the person's. Install replaces the first of
// baton's handlers in place when it differs from what it would write (a
// moved binary, a changed timeout; for baton's own group a changed matcher
// too) and drops any further ones, else appends one entry at the end of the
// event's list, so other hooks keep their positions (Codex's trust entries
// are keyed by position). Uninstall removes them (a shared group loses only
// baton's handler), then the event's list if it left it empty, then "hooks"
// if it left that empty: install then uninstall gives back the same bytes for a file
// laid out as install writes (and the same JSON value for any other). A
// list or "hooks" object that was empty before install is gone after
// uninstall: for the harnesses, absent and empty mean the same.
//
// A file install creates starts from the harness's skeleton ("{}", or
// {"version": 1} where the harness wants a version); an existing file
// lacking a key of the skeleton gets it (completeSkeleton), and the
// round trip above gives back the file with that key. Uninstall never deletes
// a harness's shared configuration file, even one install created (another
// tool may have written to it since); it leaves the skeleton. The one file
// that is baton's alone, Copilot's .github/hooks/baton.json, is deleted when
// nothing but the skeleton is left.

// InstallScope is where a harness reads the hooks baton installs.
type InstallScope string

// The scopes.
const (
	// ScopeUser is the user's own configuration, under the home directory.
	ScopeUser InstallScope = "user"
	// ScopeProject is the project's, under its root directory.
	ScopeProject InstallScope = "project"
)

// InstallOptions says whose configuration to edit, for which harness.
type InstallOptions struct {
	// Harness is the harness's name, one of InstallHarnesses.
	Harness string
	// Scope selects the user's or the project's configuration. Empty means
	// the user's, or the project's for a harness with no user-level hooks
	// file (copilot).
	Scope InstallScope
	// Binary is the absolute path of the baton binary the hooks run (only
	// install needs it).
	Binary string
	// Home is the user's home directory. Codex's trust entries live under it
	// in both scopes.
	Home string
	// Project is the project's root directory, for the project scope.
	Project string
	// Getenv reads the variables that move a harness's user directory
	// (CLAUDE_CONFIG_DIR, CODEX_HOME) as the harness itself would; nil
	// reads none.
	Getenv func(string) string
}

// FileChange is one file an install or uninstall involves.
type FileChange struct {
	// Path is the file the harness reads; Target is the file Apply writes:
	// Path, or the file it is a symbolic link to (the link stays a link).
	Path, Target string
	// Before is the file's content when planned; nil when there is no file.
	Before []byte
	// After is its content once applied; nil when the file is removed.
	After []byte
	// Backup is where Apply saved Before; empty until then, and when Apply
	// did not change the file or there was none.
	Backup string
}

// Changed reports whether applying c changes the file.
func (c *FileChange) Changed() bool {
	return (c.Before == nil) != (c.After == nil) || !bytes.Equal(c.Before, c.After)
}

// InstallPlan is what an install or uninstall writes, computed without
// writing anything.
type InstallPlan struct {
	Harness string
	Scope   InstallScope
	// Changes lists every file of the harness's hooks, changed or not, in
	// the order Apply writes them: for Codex, install trusts before it
	// registers and uninstall unregisters before it distrusts, so that a
	// failure half-way never leaves a hook Codex would silently skip.
	Changes []FileChange
}

// InstallHarnesses lists the harnesses install knows: every row of the
// harness table.
func InstallHarnesses() []string {
	hs := Harnesses()
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return names
}

// PlanInstall plans registering baton's hooks in the harness's
// configuration. It returns an invalid error for an unknown harness or
// scope, a relative or missing Binary, and a configuration file that is not
// what the harness reads (not JSON, not an object where one is due); then
// nothing is planned and the file is left as it is. A conflicting Codex
// trust entry is a conflict error.
func PlanInstall(o InstallOptions) (*InstallPlan, error) {
	return plan(o, true)
}

// PlanUninstall plans removing what PlanInstall adds, with its errors.
func PlanUninstall(o InstallOptions) (*InstallPlan, error) {
	return plan(o, false)
}

func plan(o InstallOptions, install bool) (*InstallPlan, error) {
	h, scope, err := resolveHarness(o)
	if err != nil {
		return nil, err
	}
	if install && !filepath.IsAbs(o.Binary) {
		return nil, continuity.Invalid("binary", "must be an absolute path")
	}
	if install && !utf8.ValidString(o.Binary) {
		// JSON text is UTF-8: the bytes would be written as U+FFFD, a
		// command naming a file that is not there.
		return nil, continuity.Invalid("binary", fmt.Sprintf("%q is not UTF-8, which a harness's configuration cannot carry; install baton under a path that is", o.Binary))
	}
	dir, err := h.configDir(o, scope)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, filepath.FromSlash(h.Install.File))
	target, before, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	var after []byte
	if install {
		after, err = h.install(path, before, o.Binary, localShellHost(o.Getenv))
	} else {
		after, err = h.uninstall(path, before)
	}
	if err != nil {
		return nil, err
	}
	p := &InstallPlan{Harness: h.Name, Scope: scope, Changes: []FileChange{{Path: path, Target: target, Before: before, After: after}}}
	if h.Install.TrustFile == "" {
		return p, p.writable()
	}
	userDir, err := h.configDir(o, ScopeUser)
	if err != nil {
		return nil, err
	}
	trust, err := h.trustChange(filepath.Join(userDir, h.Install.TrustFile), path, before, after, install)
	if err != nil {
		return nil, err
	}
	if install {
		p.Changes = append([]FileChange{trust}, p.Changes...)
	} else {
		p.Changes = append(p.Changes, trust)
	}
	return p, p.writable()
}

// CheckInstallTarget returns the invalid error PlanInstall and
// PlanUninstall give for harness and scope when no such harness is
// installed to, or not in that scope; nil when they name a target. It
// reads no file, so a command line can be refused before anything is.
func CheckInstallTarget(harness string, scope InstallScope) error {
	_, _, err := resolveHarness(InstallOptions{Harness: harness, Scope: scope})
	return err
}

// resolveHarness finds o's harness and its scope.
func resolveHarness(o InstallOptions) (*Harness, InstallScope, error) {
	h, err := Lookup(o.Harness)
	if err != nil {
		return nil, "", continuity.Invalid("harness", fmt.Sprintf("%q is not one of %s", oneLine(o.Harness), strings.Join(InstallHarnesses(), ", ")))
	}
	switch o.Scope {
	case "":
		if h.Install.UserDir == "" {
			return h, ScopeProject, nil
		}
		return h, ScopeUser, nil
	case ScopeUser:
		if h.Install.UserDir == "" {
			return nil, "", continuity.Invalid("scope", fmt.Sprintf("%s reads hooks only from the project (%s): use the project scope", h.Name, h.Install.ProjectDir))
		}
		return h, ScopeUser, nil
	case ScopeProject:
		return h, ScopeProject, nil
	}
	return nil, "", continuity.Invalid("scope", fmt.Sprintf("%q is neither %s nor %s", oneLine(string(o.Scope)), ScopeUser, ScopeProject))
}

// configDir is the directory holding h's files in scope.
func (h *Harness) configDir(o InstallOptions, scope InstallScope) (string, error) {
	if scope == ScopeProject {
		if o.Project == "" {
			return "", continuity.Invalid("project", "the project scope needs the project's directory")
		}
		return filepath.Abs(filepath.Join(o.Project, filepath.FromSlash(h.Install.ProjectDir)))
	}
	if h.Install.DirEnv != "" && o.Getenv != nil {
		if dir := o.Getenv(h.Install.DirEnv); dir != "" {
			if why := dirEnvProblem(dir); why != "" {
				return "", continuity.Invalid(h.Install.DirEnv, why)
			}
			return filepath.Clean(dir), nil
		}
	}
	if o.Home == "" {
		return "", continuity.Invalid("home", "the user's home directory is unknown")
	}
	return filepath.Abs(filepath.Join(o.Home, filepath.FromSlash(h.Install.UserDir)))
}

// dirEnvProblem says why a harness's directory variable (DirEnv) cannot
// name the directory the harness reads, or "": a path with space at
// either end (space alone included) is taken as typed, by the harness too,
// so install would edit a file beside the one meant; a relative one (a ~
// no shell expanded is one) the harness resolves against its own working
// directory, a project's, not the one install runs in.
func dirEnvProblem(dir string) string {
	switch {
	case strings.TrimSpace(dir) != dir:
		return "has space at its start or end: the path is taken as typed, so set it without the space"
	case !filepath.IsAbs(dir):
		return "is not an absolute path, and ~ is not expanded: the harness would read it from its own working directory, so set it to an absolute path"
	}
	return ""
}

// readConfig reads a configuration file through a symbolic link to it (a
// dotfiles checkout): it returns the file to write, path or the file the
// link resolves to, and its content; nil content, with no error, when
// there is none. A link to nothing, or in a loop, is refused, and so is
// anything but a regular file: a FIFO would never be read to its end, and
// a device (a link to /dev/null) would read empty and then be replaced.
func readConfig(path string) (target string, data []byte, err error) {
	target = path
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			dest, _ := os.Readlink(path)
			if errors.Is(err, fs.ErrNotExist) {
				return "", nil, malformed("%s is a symbolic link to %s, which does not exist; create that file or remove the link", path, dest)
			}
			return "", nil, malformed("%s is a symbolic link to %s, which cannot be followed (%v); make it lead to a file or remove it", path, dest, pathErr(err))
		}
	}
	if info, err := os.Stat(target); err == nil && !info.Mode().IsRegular() {
		what := path
		if target != path {
			what = path + " leads to " + target + ", which"
		}
		return "", nil, malformed("%s is %s, not a regular file, and baton edits only a file", what, fileKind(info.Mode()))
	}
	b, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("hook: install: read %s: %w", target, pathErr(err))
	case b == nil:
		b = []byte{}
	}
	return target, b, nil
}

// fileKind names the kind of file mode m is, for an error.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "of mode " + m.Type().String()
}

// pathErr is err without the operation and path an *fs.PathError repeats,
// for a message that names the path itself.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// malformed is the error for a configuration baton will not edit.
func malformed(format string, args ...any) error {
	return &continuity.Error{Code: continuity.CodeInvalid,
		Message: fmt.Sprintf(format, args...) + "; baton left it untouched", Err: errMalformed}
}

// errMalformed is the cause of every malformed error.
var errMalformed = errors.New("malformed configuration")

// open parses a configuration: the skeleton when there is no file (or only
// whitespace), which must hold an object.
func (h *Harness) open(path string, src []byte) (*jsonDoc, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte(h.Install.Skeleton)
	}
	d, err := parseJSONDoc(path, src)
	if err != nil {
		return nil, err
	}
	if d.root.delim != '{' {
		return nil, malformed("%s does not hold a JSON object", path)
	}
	return d, h.unique(d)
}

// unique refuses a repeated key in each object install reads or edits: the
// top level, "hooks", and the entries (and their handlers) of the events it
// registers.
func (h *Harness) unique(d *jsonDoc) error {
	if err := d.unique(d.root, "the top-level object"); err != nil {
		return err
	}
	hooks, _ := d.member(d.root, "hooks")
	if err := d.unique(hooks, "hooks"); err != nil || hooks == nil || hooks.delim != '{' {
		return err
	}
	for _, ev := range h.registered() {
		list, _ := d.member(hooks, ev.Name)
		if list == nil || list.delim != '[' {
			continue
		}
		for i, item := range list.items {
			where := fmt.Sprintf("hooks.%s[%d]", ev.Name, i)
			if err := d.unique(item, where); err != nil {
				return err
			}
			if hs := d.groupHandlers(item); h.Install.Nested && hs != nil {
				for j, handler := range hs.items {
					if err := d.unique(handler, fmt.Sprintf("%s.hooks[%d]", where, j)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// locate returns d's "hooks" object and ev's list in it, each nil when
// absent.
func (h *Harness) locate(d *jsonDoc, ev EventName) (hooks, list *jsonNode, err error) {
	if hooks, _ = d.member(d.root, "hooks"); hooks == nil {
		return nil, nil, nil
	}
	if hooks.delim != '{' {
		return nil, nil, malformed(`%s: "hooks" is not an object`, d.name)
	}
	if list, _ = d.member(hooks, ev.Name); list != nil && list.delim != '[' {
		return nil, nil, malformed(`%s: "hooks.%s" is not a list`, d.name, ev.Name)
	}
	return hooks, list, nil
}

// batonAt is where one of baton's handlers is in an event's list: entry
// entry, and in a nested harness its handler handler. whole marks an entry
// that is baton's alone, as install writes it (in a nested harness, a group
// holding only baton's handler and no key but "matcher" and "hooks").
type batonAt struct {
	entry, handler int
	whole          bool
}

// mine lists where baton's handlers for ev are in list (nil: none), in
// order.
func (h *Harness) mine(d *jsonDoc, list *jsonNode, ev EventName) []batonAt {
	if list == nil {
		return nil
	}
	var out []batonAt
	for i, item := range list.items {
		if !h.Install.Nested {
			if h.isMine(d, item, ev) {
				out = append(out, batonAt{entry: i, whole: true})
			}
			continue
		}
		hs := d.groupHandlers(item)
		if hs == nil {
			continue
		}
		for j, handler := range hs.items {
			if h.isMine(d, handler, ev) {
				whole := len(hs.items) == 1 && !slices.ContainsFunc(item.keys, func(k string) bool { return k != "matcher" && k != "hooks" })
				out = append(out, batonAt{entry: i, handler: j, whole: whole})
			}
		}
	}
	return out
}

// groupHandlers is a group's "hooks" list; nil when it has none.
func (d *jsonDoc) groupHandlers(group *jsonNode) *jsonNode {
	if group.delim != '{' {
		return nil
	}
	hs, _ := d.member(group, "hooks")
	if hs == nil || hs.delim != '[' {
		return nil
	}
	return hs
}

// isMine reports whether handler is baton's for ev: its whole command is
// one absolute path, bare or quoted as quotePathOn quotes it, followed by
// commandTail. A command that merely ends that way (a wrapper, "cd /w &&
// baton …", a relative path) is the person's.
func (h *Harness) isMine(d *jsonDoc, handler *jsonNode, ev EventName) bool {
	if handler.delim != '{' {
		return false
	}
	cmd, _ := d.member(handler, h.commandKey())
	if cmd == nil || !cmd.isStr {
		return false
	}
	head, ok := strings.CutSuffix(cmd.str, h.commandTail(ev.Kind))
	if !ok {
		return false
	}
	path, ok := unquotePath(head)
	return ok && absolutePath(path)
}

// commandKey is the handler field holding the command baton recognizes:
// the first $command field (the table's check makes sure there is one).
func (h *Harness) commandKey() string {
	for _, f := range h.Install.Handler {
		if f.Value == placeCommand {
			return f.Key
		}
	}
	return ""
}

// commandTail is what every command baton registers for kind ends with.
func (h *Harness) commandTail(kind continuity.HookKind) string {
	return " hook " + string(kind) + " --harness " + h.Name
}

// handler is the handler install writes for ev, its command quoted for
// host's shells.
func (h *Harness) handler(ev EventName, binary string, host shellHost) (jsonObj, error) {
	t := table()
	handler := make(jsonObj, 0, len(h.Install.Handler))
	for _, f := range h.Install.Handler {
		var v any = f.Value
		switch f.Value {
		case placeLabel:
			v = "baton-" + string(ev.Kind)
		case placeCommand:
			quoted, err := quotePathOn(binary, f.Quote, host)
			if err != nil {
				return nil, err
			}
			v = quoted + h.commandTail(ev.Kind)
		case placeTimeout:
			timeout := time.Duration(t.HookTimeoutsMillis[ev.Kind]) * time.Millisecond
			v = int(math.Ceil(float64(timeout) / float64(f.Unit)))
		}
		handler = append(handler, jsonKV{f.Key, v})
	}
	return handler, nil
}

// entry is what install writes into ev's list for handler: the handler, or
// in a nested harness a group holding it under ev's matcher.
func (h *Harness) entry(ev EventName, handler jsonObj) any {
	if !h.Install.Nested {
		return handler
	}
	group := jsonObj{}
	if ev.Matcher != "" {
		group = append(group, jsonKV{"matcher", ev.Matcher})
	}
	return append(group, jsonKV{"hooks", []any{handler}})
}

// install returns src with baton's entries in place, their commands
// quoted for host's shells, and the skeleton's top-level keys the file
// lacks added (see completeSkeleton).
func (h *Harness) install(path string, src []byte, binary string, host shellHost) ([]byte, error) {
	d, err := h.open(path, src)
	if err != nil {
		return nil, err
	}
	if err := h.completeSkeleton(d); err != nil {
		return nil, err
	}
	for _, ev := range h.registered() {
		handler, err := h.handler(ev, binary, host)
		if err != nil {
			return nil, err
		}
		want := h.entry(ev, handler)
		hooks, list, err := h.locate(d, ev)
		switch {
		case err != nil:
			return nil, err
		case hooks == nil:
			err = d.insertLast(d.root, "hooks", jsonObj{{ev.Name, []any{want}}})
		case list == nil:
			err = d.insertLast(hooks, ev.Name, []any{want})
		default:
			err = h.place(d, ev, want, handler)
		}
		if err != nil {
			return nil, err
		}
	}
	return d.src, nil
}

// completeSkeleton adds to d each top-level key of the harness's skeleton
// that d lacks, with the skeleton's value, before the hooks install adds:
// a harness whose skeleton carries a version (Cursor's and Copilot's
// {"version": 1}) does not load the hooks of a file without one, so hooks
// installed into an existing "{}" would never run. A key the file has is
// the person's, whatever its value. Uninstall leaves the keys, as it
// leaves the skeleton of a file install created.
func (h *Harness) completeSkeleton(d *jsonDoc) error {
	skeleton, err := parseJSONDoc("the skeleton", []byte(h.Install.Skeleton))
	if err != nil {
		return err
	}
	for i, key := range skeleton.root.keys {
		if n, _ := d.member(d.root, key); n != nil {
			continue
		}
		if err := d.insertLast(d.root, key, json.RawMessage(skeleton.raw(skeleton.root.items[i]))); err != nil {
			return err
		}
	}
	return nil
}

// place makes baton's first handler in ev's list equal handler (appending
// want, its entry, when there is none) and removes any other. An entry of
// baton's alone is replaced whole (a new matcher too); in a group the
// person shares with it, only baton's handler is.
func (h *Harness) place(d *jsonDoc, ev EventName, want any, handler jsonObj) error {
	_, list, _ := h.locate(d, ev)
	mine := h.mine(d, list, ev)
	if len(mine) == 0 {
		return d.insertLast(list, "", want)
	}
	c, i, v := list, mine[0].entry, want
	if !mine[0].whole {
		c, i, v = d.groupHandlers(list.items[i]), mine[0].handler, handler
	}
	if !d.equal(c.items[i], v) {
		if err := d.replaceItem(c, i, v); err != nil {
			return err
		}
	}
	_, err := h.removeMine(d, ev, 1)
	return err
}

// removeMine removes baton's handlers for ev after the first keep, the last
// first, and returns how many it removed: an entry of baton's alone goes
// whole; from a group the person shares with it, only baton's handler.
func (h *Harness) removeMine(d *jsonDoc, ev EventName, keep int) (int, error) {
	for n := 0; ; n++ {
		_, list, err := h.locate(d, ev)
		if err != nil || list == nil {
			return n, err
		}
		mine := h.mine(d, list, ev)
		if len(mine) <= keep {
			return n, nil
		}
		at := mine[len(mine)-1]
		if at.whole {
			err = d.removeItem(list, at.entry)
		} else {
			err = d.removeItem(d.groupHandlers(list.items[at.entry]), at.handler)
		}
		if err != nil {
			return n, err
		}
	}
}

// uninstall returns src without baton's entries, and nil to delete a file of
// baton's own that only its skeleton is left in.
func (h *Harness) uninstall(path string, src []byte) ([]byte, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return src, nil
	}
	d, err := h.open(path, src)
	if err != nil {
		return nil, err
	}
	removed, pruned := false, false
	for _, ev := range h.registered() {
		n, err := h.removeMine(d, ev, 0)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		removed = true
		if hooks, list, _ := h.locate(d, ev); len(list.items) == 0 {
			_, i := d.member(hooks, ev.Name)
			if err := d.removeItem(hooks, i); err != nil {
				return nil, err
			}
			pruned = true
		}
	}
	if hooks, i := d.member(d.root, "hooks"); pruned && len(hooks.items) == 0 {
		if err := d.removeItem(d.root, i); err != nil {
			return nil, err
		}
	}
	if removed && h.Install.OwnFile && jsonEqual(d.src, []byte(h.Install.Skeleton)) {
		return nil, nil
	}
	return d.src, nil
}

// Changed reports whether applying p changes any file.
func (p *InstallPlan) Changed() bool {
	for i := range p.Changes {
		if p.Changes[i].Changed() {
			return true
		}
	}
	return false
}

// Apply writes p's changed files in order. Each file that exists is first
// copied to PATH.baton-backup-<now, UTC> (beside the name the harness
// reads: beside a link, not in the directory it points into), then
// replaced atomically (a temporary file in the same directory as the file,
// renamed over it) keeping its permissions; a new file is created 0644
// with its directory. A file that no longer holds what p was planned from
// is not touched: Apply stops with a conflict error, and the plan must be
// made again; so does one another Apply changed first, even at the same
// time (each file is written under a lock on its directory, where the
// platform has flock).
func (p *InstallPlan) Apply(now time.Time) error {
	if err := p.writable(); err != nil {
		return err
	}
	var done []string
	for i := range p.Changes {
		c := &p.Changes[i]
		if !c.Changed() {
			continue
		}
		if err := c.apply(now); err != nil {
			if len(done) > 0 {
				return fmt.Errorf("%w; baton had already changed %s, and left it so", err, strings.Join(done, ", "))
			}
			return err
		}
		switch {
		case c.Backup == "":
			done = append(done, c.Path+" (created)")
		default:
			done = append(done, c.Path+" (backup "+c.Backup+")")
		}
	}
	return nil
}

// writable refuses a plan Apply could not carry out whole, before it
// writes anything: a file to change without its owner's write bit (made
// read-only on purpose: the rename would replace it all the same), or a
// directory baton cannot create the file, its temporary or its backup in.
func (p *InstallPlan) writable() error {
	for i := range p.Changes {
		c := &p.Changes[i]
		if !c.Changed() {
			continue
		}
		if c.Before != nil {
			if info, err := os.Stat(c.Target); err == nil && info.Mode().Perm()&0o200 == 0 {
				return continuity.Errorf(continuity.CodeForbidden, "%s is read-only (mode %04o); nothing written: make it writable (chmod u+w) for baton to edit it", c.Target, info.Mode().Perm())
			}
		}
		for _, dir := range []string{filepath.Dir(c.Target), filepath.Dir(c.Path)} {
			if err := writableDir(dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// writableDir refuses a directory, or for one yet to be made its nearest
// existing parent, that files cannot be created in.
func writableDir(dir string) error {
	for {
		info, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist) && filepath.Dir(dir) != dir:
			dir = filepath.Dir(dir)
			continue
		case err != nil:
			return fmt.Errorf("hook: install: %w", err)
		case !info.IsDir():
			return continuity.Errorf(continuity.CodeInvalid, "%s is not a directory; nothing written", dir)
		case dirModeForbids(info.Mode().Perm(), runtime.GOOS) || !canCreateIn(dir):
			return continuity.Errorf(continuity.CodeForbidden, "baton cannot create files in %s (mode %04o); nothing written: make it writable for baton to edit the files in it", dir, info.Mode().Perm())
		}
		return nil
	}
}

// dirModeForbids reports whether a directory's mode bits, as os.Stat
// reports them on goos, mean no file can be created in it: its owner's
// write bit is clear. On Windows the bit is the read-only attribute, which
// Windows ignores for creating files in a directory (Explorer sets it on
// customized folders); it decides nothing there.
func dirModeForbids(perm fs.FileMode, goos string) bool {
	return goos != "windows" && perm&0o200 == 0
}

func (c *FileChange) apply(now time.Time) error {
	// Another baton writing the same file (Codex's config.toml, which the
	// user's and a project's install both edit) waits here, then finds the
	// file changed: a conflict, rather than a rename over the other's edit.
	if err := os.MkdirAll(filepath.Dir(c.Target), 0o755); err != nil {
		return fmt.Errorf("hook: install: %w", err)
	}
	unlock, err := lockDir(filepath.Dir(c.Target))
	if err != nil {
		return fmt.Errorf("hook: install: %w", err)
	}
	defer unlock()
	target, current, err := readConfig(c.Path)
	if err != nil {
		return err
	}
	if target != c.Target || (current == nil) != (c.Before == nil) || !bytes.Equal(current, c.Before) {
		return continuity.Errorf(continuity.CodeConflict, "%s changed since baton read it; nothing written to it, run the command again", c.Path)
	}
	perm := fs.FileMode(0o644)
	if c.Before != nil {
		info, err := os.Stat(c.Target)
		if err != nil {
			return fmt.Errorf("hook: install: %w", err)
		}
		perm = info.Mode().Perm()
		if c.Backup, err = backup(c.Path, c.Before, perm, now); err != nil {
			return err
		}
	}
	if c.After == nil {
		if err := os.Remove(c.Path); err != nil {
			return fmt.Errorf("hook: install: %w", err)
		}
		return nil
	}
	if err := writeAtomic(c.Target, c.After, perm); err != nil {
		return fmt.Errorf("hook: install: %w", err)
	}
	return nil
}

// writeAtomic replaces a file atomically; a test makes it fail.
var writeAtomic = bottle.WriteFileAtomic

// backup writes data to a new file beside path, named for now (a second
// backup within the same second gets a counter), and returns its path. It
// never overwrites a file.
func backup(path string, data []byte, perm fs.FileMode, now time.Time) (string, error) {
	base := path + ".baton-backup-" + now.UTC().Format("20060102T150405Z")
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("hook: install: backup: %w", err)
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(name)
			return "", fmt.Errorf("hook: install: backup: %w", err)
		}
		return name, nil
	}
}

// Diff writes p's changes as unified diffs, one per changed file (a new
// file is diffed against /dev/null, a removed one to it). It writes nothing
// when nothing changes.
func (p *InstallPlan) Diff(w io.Writer) error {
	for i := range p.Changes {
		c := &p.Changes[i]
		if !c.Changed() {
			continue
		}
		from, to := c.Path, c.Path
		if c.Before == nil {
			from = "/dev/null"
		}
		if c.After == nil {
			to = "/dev/null"
		}
		if _, err := io.WriteString(w, unifiedDiff(from, to, string(c.Before), string(c.After))); err != nil {
			return err
		}
	}
	return nil
}
