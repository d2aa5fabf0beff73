package bottle

import (
	"bufio"
	"bytes"
	"hash/fnv"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/batonhq/baton/bottle/privacy"
)

// Gemini CLI keeps a session as a JSONL chat recording
// (~/.gemini/tmp/<project>/chats/session-<minute>-<short id>.jsonl). Its
// lines are:
//
//   - a header, {sessionId, projectHash, startTime, lastUpdated, kind}: the
//     first line, and again in the middle after an interactive resume;
//   - a message record, {id, timestamp, type, content, ...}: type user
//     (content is a list of parts, displayContent what the person saw as
//     their prompt), gemini (content a string or parts, toolCalls, thoughts,
//     tokens), info, warning or error. The CLI writes a message again, whole
//     and under the same id, whenever it changes (tokens counted, tool calls
//     added or finished): a record is an upsert;
//   - {"$set": {...}}: metadata. $set.messages replaces the whole message
//     list: at creation (the <session_context> block), on resume (the history
//     rebuilt) and after a compression (a <state_snapshot> summary, a
//     synthetic model acknowledgement, then the kept turns under new ids);
//   - {"$rewindTo": id}: the CLI drops that message and all after it.
//
// A bottle is the record of what was said, not of what the model still has
// in context, so it only ever grows. The reader keeps, in the parse cache
// (Transcript.Gemini), every message id it has read and a fingerprint of its
// content, and reconciles a replacement against them instead of following
// it:
//
//   - a message whose id is known is the same message: only what it adds is
//     taken (a tool call not seen before, a call's finished status, model
//     text when none was bottled for that id); text already bottled is never
//     rewritten;
//   - a message with a new id whose type and content fingerprint match a
//     message read before (one not itself present in the replacement) is a
//     replay of it under a new id, as a compression keeps turns: nothing is
//     added;
//   - any other new message is appended at the replacement's position, so a
//     replacement that is a superset of what was read (a resume) appends only
//     its new tail, and one that drops turns (a compression, a rewind, the
//     fresh list after a resume) keeps the turns already bottled;
//   - a <state_snapshot> message counts a compaction, and the model message
//     right after it in the same replacement is the CLI's acknowledgement,
//     not the model's words: neither is bottled.
//
// Since all of that is decided line by line from the cached state, reading a
// file in pieces across renders gives the same transcript as reading it
// whole.
//
// User text loses the blocks the CLI injects into it (<session_context>,
// <hook_context>, <state_snapshot>); an injected block left unclosed removes
// everything after it (the filter fails closed). A user record whose
// displayContent repeats the last prompt is a hook's continuation (an
// AfterAgent block reason sent as a new user turn) and is not a prompt; any
// other non-empty displayContent is what the person typed and is shown
// instead of content. Model text is kept verbatim (only Scrub applies),
// including any injected text the model quotes back. Tool calls become
// observations with the CLI's call ids; a call is finished when its status
// is success, error or cancelled, and failed for the latter two.

// GeminiState is what the Gemini CLI reader remembers between lines so that
// a $set.messages replacement is reconciled the same way however the file
// was split across reads. It is part of the parse cache.
type GeminiState struct {
	// Messages maps every message id read, appended or in a replacement, to
	// what the reader made of it.
	Messages map[string]GeminiMessage `json:"messages"`
	// Prompt fingerprints the text of the last prompt bottled.
	Prompt uint64 `json:"prompt,omitempty"`
}

// GeminiMessage is the reader's memory of one Gemini CLI message.
type GeminiMessage struct {
	// Sum fingerprints the message's type and content text; zero when the
	// content has no text.
	Sum uint64 `json:"sum,omitempty"`
	// Replay says the message replays an earlier one under a new id.
	Replay bool `json:"replay,omitempty"`
	// Text says model text has been bottled for the message.
	Text bool `json:"text,omitempty"`
	// Cleared says the message was read before the session's last /clear
	// (the transcript is read on from there): it belongs to the archived
	// bottle, so nothing of it, written again under its id or replayed under
	// a new one, is bottled after the clear.
	Cleared bool `json:"cleared,omitempty"`
}

// geminiLine holds the fields of a chat recording line that a bottle needs:
// those of a header, a metadata update, a rewind or a message record.
type geminiLine struct {
	id, typ, timestamp          string
	content, display, toolCalls []byte
	set                         []byte
	rewind                      bool
	sessionID, startTime        string
	header                      bool
	directories                 []byte
}

func readGeminiLine(d []byte) (l geminiLine, ok bool) {
	ok = eachField(d, func(k, v []byte) {
		switch string(k) {
		case `"id"`:
			l.id = jsonString(v)
		case `"type"`:
			l.typ = jsonString(v)
		case `"timestamp"`:
			l.timestamp = jsonString(v)
		case `"content"`:
			l.content = v
		case `"displayContent"`:
			l.display = v
		case `"toolCalls"`:
			l.toolCalls = v
		case `"$set"`:
			if v[0] == '{' {
				l.set = v
			}
		case `"$rewindTo"`:
			l.rewind = v[0] == '"'
		case `"sessionId"`:
			l.sessionID = jsonString(v)
		case `"projectHash"`:
			l.header = v[0] == '"'
		case `"startTime"`:
			l.startTime = jsonString(v)
		case `"directories"`:
			l.directories = v
		}
	})
	return l, ok
}

// isGeminiLine reports whether a line can only be Gemini CLI's: a header
// (projectHash), a metadata update or rewind, or a model message record.
func isGeminiLine(line []byte) bool {
	l, ok := readGeminiLine(line)
	return ok && (l.header || l.set != nil || l.rewind || l.typ == "gemini")
}

// parseGemini reads one chat recording line. It reports false only when the
// line is not a JSON object. The kinds are told apart in the CLI's own
// order: rewind, message (a string id), metadata update, header.
func (t *Transcript) parseGemini(pos int64, line []byte) bool {
	l, ok := readGeminiLine(line)
	if !ok {
		return false
	}
	switch {
	case l.rewind:
		// The CLI forgets the rewound messages; a bottle keeps what it bottled.
	case l.id != "":
		t.geminiMessage(pos, l, false, nil)
	case l.set != nil:
		t.geminiSet(pos, l.set)
	case l.header && l.sessionID != "":
		if t.SessionID == "" {
			t.SessionID = l.sessionID
		}
		t.observeTime(parseTime(l.startTime))
		if t.Project == "" {
			eachElem(l.directories, func(v []byte) {
				if t.Project == "" {
					t.Project = jsonString(v)
				}
			})
		}
	}
	return true
}

func (t *Transcript) geminiState() *GeminiState {
	if t.Gemini == nil {
		t.Gemini = &GeminiState{}
	}
	if t.Gemini.Messages == nil {
		t.Gemini.Messages = make(map[string]GeminiMessage)
	}
	return t.Gemini
}

// geminiSet reads a metadata update; only a messages replacement and the
// session id matter (lastUpdated, summary and the like are the CLI's own
// bookkeeping, and a summary is generated, not said).
func (t *Transcript) geminiSet(pos int64, set []byte) {
	var messages []byte
	eachField(set, func(k, v []byte) {
		switch string(k) {
		case `"messages"`:
			messages = v
		case `"sessionId"`:
			if t.SessionID == "" {
				t.SessionID = jsonString(v)
			}
		}
	})
	var msgs []geminiLine
	eachElem(messages, func(v []byte) {
		if m, ok := readGeminiLine(v); ok && m.id != "" {
			msgs = append(msgs, m)
		}
	})
	if len(msgs) == 0 {
		return
	}
	g := t.geminiState()
	// What a new id may replay: each message read before, less those the
	// replacement carries under their own (or an earlier replay's) id. A
	// replay of a message read before the last clear is counted apart too:
	// none of it, its tool calls included, is bottled after the clear.
	avail := replays{all: make(map[uint64]int), cleared: make(map[uint64]int)}
	for _, r := range g.Messages {
		if r.Sum != 0 && !r.Replay {
			avail.all[r.Sum]++
			if r.Cleared {
				avail.cleared[r.Sum]++
			}
		}
	}
	for _, m := range msgs {
		if r, ok := g.Messages[m.id]; ok && r.Sum != 0 {
			avail.all[r.Sum]--
			if r.Cleared {
				avail.cleared[r.Sum]--
			}
		}
	}
	afterSnapshot := false
	for _, m := range msgs {
		afterSnapshot = t.geminiMessage(pos, m, afterSnapshot, &avail)
	}
}

// replays counts, by content fingerprint, the messages read before that a
// replacement's new ids may replay: all of them, and of those the ones read
// before the last clear.
type replays struct {
	all, cleared map[uint64]int
}

// take consumes a replay of a message with fingerprint sum, if one is
// left, and reports whether it was one and whether that message was read
// before the last clear.
func (a *replays) take(sum uint64) (replay, cleared bool) {
	if sum == 0 || a.all[sum] <= 0 {
		return false, false
	}
	a.all[sum]--
	if a.cleared[sum] > 0 {
		a.cleared[sum]--
		return true, true
	}
	return true, false
}

// geminiMessage reads one message record, appended (avail nil) or part of
// a replacement. It reports whether the message was a compression summary.
func (t *Transcript) geminiMessage(pos int64, m geminiLine, afterSnapshot bool, avail *replays) bool {
	g := t.geminiState()
	ts := parseTime(m.timestamp)
	if r, known := g.Messages[m.id]; known {
		if r.Cleared {
			return false // said before the clear: the archived bottle's
		}
		t.observeTime(ts)
		if m.typ == "gemini" {
			if !r.Text && t.addAssistantOK(pos, ts, m.id, geminiText(m.content)) {
				r.Text = true
				g.Messages[m.id] = r
			}
			t.geminiCalls(pos, ts, m.id, m.toolCalls, false)
		}
		return false
	}
	content := geminiText(m.content)
	r := GeminiMessage{Sum: geminiSum(m.typ, content)}
	defer func() { g.Messages[m.id] = r }()
	if avail != nil {
		if replay, cleared := avail.take(r.Sum); cleared {
			r.Replay, r.Text, r.Cleared = true, true, true
			return false
		} else if replay {
			r.Replay, r.Text = true, true
			t.observeTime(ts)
			t.geminiCalls(pos, ts, m.id, m.toolCalls, false)
			return false
		}
	}
	t.observeTime(ts)
	switch m.typ {
	case "user":
		text, snapshot := t.geminiUserText(content)
		if snapshot {
			t.compacted(pos)
		}
		shown, _ := t.geminiUserText(geminiText(m.display))
		if shown = privacy.Scrub(shown); shown != "" {
			if geminiSum("prompt", shown) == g.Prompt {
				return snapshot // a hook's continuation, sent in the person's name
			}
			text = shown
		}
		if text = privacy.Scrub(text); text != "" {
			t.addUser(pos, ts, text)
			g.Prompt = geminiSum("prompt", text)
		}
		return snapshot
	case "gemini":
		if avail != nil && afterSnapshot {
			return false // the CLI's acknowledgement of its own summary
		}
		r.Text = t.addAssistantOK(pos, ts, m.id, content)
		t.geminiCalls(pos, ts, m.id, m.toolCalls, true)
	}
	// info, warning and error records are the CLI's notices, not conversation.
	return false
}

// addAssistantOK adds model text and reports whether any was kept.
func (t *Transcript) addAssistantOK(pos int64, ts time.Time, msgID, text string) bool {
	if privacy.Scrub(text) == "" {
		return false
	}
	t.addAssistant(pos, ts, msgID, text)
	return true
}

// geminiCalls reads a gemini message's toolCalls: a call not seen before is
// added, and a finished status marks it done. Calls without an id can only
// be told apart by position, so they are taken from a message's first
// record only.
func (t *Transcript) geminiCalls(pos int64, ts time.Time, msgID string, raw []byte, fresh bool) {
	eachElem(raw, func(v []byte) {
		var id, name, status, at string
		var args []byte
		if !eachField(v, func(k, v []byte) {
			switch string(k) {
			case `"id"`:
				id = jsonString(v)
			case `"name"`:
				name = jsonString(v)
			case `"status"`:
				status = jsonString(v)
			case `"timestamp"`:
				at = jsonString(v)
			case `"args"`:
				args = v
			}
		}) || name == "" {
			return
		}
		if t.calls == nil {
			t.calls = callIndex(t)
		}
		if _, known := t.calls[id]; (id == "" && fresh) || (id != "" && !known) {
			when := parseTime(at)
			if when.IsZero() {
				when = ts
			}
			t.addCall(pos, when, msgID, name, id, args)
		}
		switch status {
		case "success":
			t.addResult(id, false)
		case "error", "cancelled":
			t.addResult(id, true)
		}
	})
}

// geminiInjected matches one complete block the CLI injects into user-role
// text; geminiUnclosed, the opening tag of one left open. Both are compiled
// on first use.
var (
	geminiInjected = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<hook_context>.*?</hook_context>|<session_context>.*?</session_context>|<state_snapshot>.*?</state_snapshot>`)
	})
	geminiUnclosed = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<(?:hook_context|session_context|state_snapshot)>`)
	})
)

// geminiUserText removes the private and the injected blocks from
// user-role text, the private ones first (one may straddle an injected
// block's end), and reports whether one was a compression summary. A
// session context names the project when the transcript has not yet.
func (t *Transcript) geminiUserText(s string) (text string, snapshot bool) {
	if !strings.Contains(s, "<") {
		return s, false
	}
	s = privacy.Scrub(s)
	s = geminiInjected().ReplaceAllStringFunc(s, func(block string) string {
		switch {
		case strings.HasPrefix(block, "<state_snapshot>"):
			snapshot = true
		case strings.HasPrefix(block, "<session_context>") && t.Project == "":
			t.Project = workspace(block)
		}
		return ""
	})
	if loc := geminiUnclosed().FindStringIndex(s); loc != nil {
		snapshot = snapshot || strings.HasPrefix(s[loc[0]:], "<state_snapshot>")
		s = s[:loc[0]]
	}
	return s, snapshot
}

// workspace returns the first workspace directory a session context names.
func workspace(block string) string {
	const heading = "Workspace Directories:**"
	if i := strings.Index(block, heading); i >= 0 {
		// The directories are an indented list under the heading.
		for _, l := range strings.Split(block[i+len(heading):], "\n") {
			if t := strings.TrimSpace(l); t != "" {
				if dir, ok := strings.CutPrefix(t, "- "); ok && t != l {
					return strings.TrimSpace(dir)
				}
				return ""
			}
		}
	}
	const older = "I'm currently working in the directory: "
	if i := strings.Index(block, older); i >= 0 {
		l, _, _ := strings.Cut(block[i+len(older):], "\n")
		return strings.TrimSpace(l)
	}
	return ""
}

// geminiText joins the text of a content value: a string, one part or a
// list of parts. Thought parts and non-text parts (function calls and
// responses, inline data) carry no text a bottle shows.
func geminiText(v []byte) string {
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		return jsonString(v)
	case '{':
		return partText(v)
	}
	var b strings.Builder
	eachElem(v, func(p []byte) {
		if p[0] == '"' {
			b.WriteString(jsonString(p))
		} else {
			b.WriteString(partText(p))
		}
	})
	return b.String()
}

func partText(p []byte) string {
	var text string
	thought := false
	if !eachField(p, func(k, v []byte) {
		switch string(k) {
		case `"text"`:
			text = jsonString(v)
		case `"thought"`:
			thought = string(v) == "true"
		}
	}) || thought {
		return ""
	}
	return text
}

// geminiSum fingerprints a message's type and text; zero means no text.
func geminiSum(typ, text string) uint64 {
	if text == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(typ))
	h.Write([]byte{0})
	h.Write([]byte(text))
	if s := h.Sum64(); s != 0 {
		return s
	}
	return 1
}

// maxGeminiHead bounds a line read while looking for a stray file's sibling.
const maxGeminiHead = 1 << 20

// resolveGemini recognises a stray resume file: a headless `--resume`
// creates a new recording for the minute it starts, names it in
// SessionStart's transcript_path, then records the conversation in the
// original file, so the new one only ever holds headers and the
// <session_context> replacement. For such a file (no user or model record at
// all) it returns the newest sibling recording of the same session
// (session-*-<first 8 of the session id>.jsonl in the same directory, with
// the same session id in its header) that holds conversation; for any other
// file, or when there is no such sibling, path itself.
func resolveGemini(path string) string {
	id, talk := geminiHead(path)
	if talk || len(id) < 8 {
		return path
	}
	dir, self := filepath.Split(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return path
	}
	best, newest := path, time.Time{}
	for _, e := range entries {
		name := e.Name()
		if name == self || !e.Type().IsRegular() || !strings.HasPrefix(name, "session-") || !strings.HasSuffix(name, "-"+id[:8]+".jsonl") {
			continue
		}
		p := filepath.Join(dir, name)
		if sid, talk := geminiHead(p); !talk || sid != id {
			continue
		}
		if info, err := e.Info(); err == nil && (best == path || info.ModTime().After(newest)) {
			best, newest = p, info.ModTime()
		}
	}
	return best
}

// geminiHead returns a recording's session id (from its first header) and
// whether it holds a user or model record, reading only up to the first
// such record. A file it cannot read through counts as holding one, so
// that doubt never redirects a render.
func geminiHead(path string) (sessionID string, talk bool) {
	f, err := OpenRegular(path)
	if err != nil {
		return "", true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxGeminiHead)
	for first := true; sc.Scan(); first = false {
		line := sc.Bytes()
		if first {
			line = bytes.TrimPrefix(line, byteOrderMark)
		}
		l, ok := readGeminiLine(line)
		switch {
		case !ok:
		case l.id != "" && (l.typ == "user" || l.typ == "gemini"):
			return sessionID, true
		case l.header && sessionID == "":
			sessionID = l.sessionID
		}
	}
	return sessionID, sc.Err() != nil
}

// GeminiReply returns the last model message with text that one line of a
// Gemini CLI chat recording holds: a "gemini" message record, or the last
// such message of a {"$set": {"messages": [...]}} history replacement. It
// reports false for any other line (a user message, a header, a metadata
// update without messages, a line that is not a JSON object). The text is
// the message's text parts joined, thoughts left out, trimmed: what a
// bottle shows of the turn.
func GeminiReply(line []byte) (string, bool) {
	l, ok := readGeminiLine(line)
	if !ok {
		return "", false
	}
	last := ""
	if l.typ == "gemini" {
		last = strings.TrimSpace(geminiText(l.content))
	}
	if l.set != nil {
		eachField(l.set, func(k, v []byte) {
			if string(k) != `"messages"` {
				return
			}
			eachElem(v, func(m []byte) {
				if ml, ok := readGeminiLine(m); ok && ml.typ == "gemini" {
					if t := strings.TrimSpace(geminiText(ml.content)); t != "" {
						last = t
					}
				}
			})
		})
	}
	return last, last != ""
}
