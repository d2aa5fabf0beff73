package hook

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/bottle/privacy"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
)

// Event is one harness event normalized: the continuity.HookEvent that
// Episodes.Handle takes, and what decides whether it is handled at all.
type Event struct {
	continuity.HookEvent
	// Subagent says the event is a subagent's (its name or a key of its
	// payload says so): baton hooks the main agent only.
	Subagent bool
}

// ErrUnhandled is returned (wrapped) by Normalize for an event that is not
// in the harness's vocabulary, or when neither the payload nor the EVENT
// argument names one: baton is not registered for it, so there is nothing
// to record.
var ErrUnhandled = errors.New("not an event baton handles")

// bottleFormats are the transcript formats the bottle reads. A transcript
// in another format is not handed to it, so that the bottle is
// reconstructed from the recorded history instead of parsed from a file it
// cannot read.
var bottleFormats = []bottle.Format{bottle.FormatClaudeCode, bottle.FormatCodex, bottle.FormatGemini}

// Normalize turns a harness's stdin payload into an Event. The event is
// the one the payload names, a name of its dialect's vocabulary, else the
// EVENT argument arg: a name of that vocabulary or a kind (start, prompt,
// stop, precompact, end). A payload naming a kind or an event of another
// vocabulary of the table was meant for another --harness: its event key
// is invalid, and arg, when given, names the event for the receipt.
// dir is the working directory used when the payload carries none. The
// prompt is privacy filtered (privacy.Scrub) before the blocks its harness
// prefixes to it are removed. When the harness prefers its transcript's
// last model message, Normalize reads the tail of that transcript (a
// regular file only, at most its TailBytes).
//
// On error the Event holds what could be read (the provider, and the event
// and session id when known), so that the failure can be recorded. Errors:
// an *continuity.Error (invalid, naming stdin or the offending key) for a
// payload that is not a JSON object, a key of the wrong type, an event
// name of another vocabulary or no session id (naming the dialect's key); one wrapping ErrUnhandled for an event baton
// does not handle.
func Normalize(h *Harness, arg string, data []byte, dir string) (Event, error) {
	ev := Event{HookEvent: continuity.HookEvent{Provider: h.Name}}
	p, perr := decodePayload(data)
	d := h.dialect(p)
	// An event name of the wrong type, a kind or another vocabulary's name
	// is bad input, but the EVENT argument still names the event, so that
	// its receipt and failure are written.
	name, nerr := p.str(d.Fields.Event)
	e, ok := d.named(name)
	if name != "" && !ok {
		if !table().names(name) {
			return ev, fmt.Errorf("%s %q: %w", h.Name, oneLine(name), ErrUnhandled)
		}
		nerr = continuity.Invalid(p.present(d.Fields.Event), h.foreignEvent(d, name))
	}
	if !ok {
		switch {
		case arg != "":
			if e, ok = d.event(arg); !ok {
				return ev, fmt.Errorf("%s %q: %w", h.Name, oneLine(arg), ErrUnhandled)
			}
		case nerr != nil:
			return ev, nerr
		case perr != nil:
			return ev, perr
		default:
			return ev, fmt.Errorf("%s: the payload names no event and no EVENT argument was given: %w", h.Name, ErrUnhandled)
		}
	}
	ev.ProviderEvent, ev.Kind, ev.Subagent = e.Name, e.Kind, e.Subagent
	if perr != nil {
		return ev, perr
	}
	bad := map[string]string{} // the keys of the wrong type
	note := func(err error) { maps.Copy(bad, continuity.ErrorFields(err)) }
	note(nerr)
	str := func(keys []string) string {
		s, err := p.str(keys)
		note(err)
		return s
	}
	// Trimmed here as the service trims it, so the bottle's files and the
	// store's rows name one conversation.
	ev.SessionID = strings.TrimSpace(str(d.Fields.SessionID))
	switch key := p.present(d.Fields.SessionID); {
	case ev.SessionID == "" && bad[key] == "":
		// Refused here, where the payload's own key is known: the
		// service would name its own sessionId, not the key the harness
		// sends (session_id, conversation_id).
		bad[cmp.Or(key, d.Fields.SessionID[0])] = "is required"
	case ev.SessionID != "" && bottle.ValidateSessionID(ev.SessionID) != nil:
		// Refused here, not by the service: the receipt of the failure is
		// then written without the id (a receipt naming it would be
		// refused too, and the event would leave no evidence).
		bad[key] = bottle.SessionIDRule
	}
	ev.TranscriptPath = str(d.Fields.TranscriptPath)
	if ev.Cwd = str(d.Fields.Cwd); ev.Cwd == "" {
		roots, err := p.firstOfList(d.Fields.CwdRoots)
		note(err)
		ev.Cwd = roots
	}
	if ev.Cwd == "" {
		ev.Cwd = dir
	}
	ev.Subagent = ev.Subagent || slices.ContainsFunc(d.Fields.Subagent, p.has)
	switch ev.Kind {
	case continuity.HookStart:
		ev.Source = d.DefaultSource
		if s, ok := d.Sources[str(d.Fields.Source)]; ok {
			ev.Source = s
		}
	case continuity.HookPrompt:
		// Privacy first: a private block may straddle the end of a block
		// the harness prefixed ("<hook_context>… <private>x</hook_context>
		// y</private>"), and stripping the prefix first would leave y
		// outside any block, for the store to keep.
		ev.Prompt = fitText(stripTags(privacy.Scrub(str(d.Fields.Prompt)), d.PromptStripTags))
	case continuity.HookStop:
		active, err := p.boolean(d.Fields.StopHookActive)
		loops, lerr := p.count(d.Fields.LoopCount)
		note(err)
		note(lerr)
		ev.StopHookActive = active || loops > 0
		if p.present(d.Fields.LastMessage) != "" {
			m := str(d.Fields.LastMessage)
			ev.LastMessage = &m
		}
		if h.Transcript.LastMessageFromTranscript && ev.TranscriptPath != "" {
			if m, ok := lastMessageReaders[h.Transcript.Format](ev.TranscriptPath, h.Transcript.TailBytes); ok && (ev.LastMessage == nil || strings.Contains(*ev.LastMessage, m)) {
				// The payload's copy is garbled (a streamed reply's tail
				// repeated); the transcript holds the message once. It is
				// taken only when the payload's copy contains it, so a
				// transcript that is behind or ahead of this turn, or not
				// this conversation's, is never preferred.
				ev.LastMessage = &m
			}
		}
		if ev.LastMessage != nil {
			// Scrubbed here as the prompt is: the service scrubs what it
			// keeps, but a team server's hook would send the private
			// blocks over the network first.
			m := fitText(privacy.Scrub(*ev.LastMessage))
			ev.LastMessage = &m
		}
	case continuity.HookPreCompact:
		ev.Trigger = fitLabel(str(d.Fields.Trigger))
		ev.Provisional = slices.Contains(e.ProvisionalTriggers, ev.Trigger)
	case continuity.HookEnd:
		ev.Reason = fitLabel(str(d.Fields.Reason))
	}
	if !slices.Contains(bottleFormats, bottle.Format(h.Transcript.Format)) {
		ev.TranscriptPath = ""
	}
	if len(bad) > 0 {
		return ev, &continuity.Error{Code: continuity.CodeInvalid, Message: "invalid input", Fields: bad}
	}
	return ev, nil
}

// payload is a decoded stdin payload: its top-level keys.
type payload map[string]json.RawMessage

// decodePayload decodes a JSON object, else returns nil and an invalid
// error naming stdin.
func decodePayload(data []byte) (payload, error) {
	var p payload
	if err := json.Unmarshal(data, &p); err != nil || p == nil {
		return nil, continuity.Invalid("stdin", "must be one JSON object")
	}
	return p, nil
}

// has reports whether key is present and not null.
func (p payload) has(key string) bool {
	v, ok := p[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// present returns the first of keys the payload has, or "".
func (p payload) present(keys []string) string {
	for _, k := range keys {
		if p.has(k) {
			return k
		}
	}
	return ""
}

// str returns the first present key's string; "" when no key is present.
// Any other JSON value, an array of strings too, is invalid naming the key.
func (p payload) str(keys []string) (string, error) {
	k := p.present(keys)
	if k == "" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(p[k], &s); err != nil {
		return "", continuity.Invalid(k, "must be a string")
	}
	return s, nil
}

// firstOfList returns the first string of the first present key's array
// of strings; "" when no key is present or the array is empty. Any other
// JSON value, a string too, is invalid naming the key.
func (p payload) firstOfList(keys []string) (string, error) {
	k := p.present(keys)
	if k == "" {
		return "", nil
	}
	var list []string
	if err := json.Unmarshal(p[k], &list); err != nil || list == nil {
		return "", continuity.Invalid(k, "must be an array of strings")
	}
	if len(list) == 0 {
		return "", nil
	}
	return list[0], nil
}

// boolean returns the first present key's boolean; false when none is.
func (p payload) boolean(keys []string) (bool, error) {
	k := p.present(keys)
	if k == "" {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(p[k], &b); err != nil {
		return false, continuity.Invalid(k, "must be a boolean")
	}
	return b, nil
}

// count returns the first present key's count; 0 when none is. The JSON
// number's text is read with strconv.ParseFloat, so that no spelling of a
// number (3.0, -0, 1e-400, which rounds to zero) is refused as a type;
// encoding/json refuses 1e400 as no float64. A negative count, or one
// past float64's range (ParseFloat's ±Inf), counts nothing and is invalid
// naming the key: the event then fails as any invalid payload does, with
// nothing printed, so a loop guard never reads as a person's turn.
func (p payload) count(keys []string) (float64, error) {
	k := p.present(keys)
	if k == "" {
		return 0, nil
	}
	text := string(bytes.TrimSpace(p[k]))
	if text == "" || (text[0] != '-' && (text[0] < '0' || text[0] > '9')) {
		// The payload decoded, so a value starting so is a JSON number.
		return 0, continuity.Invalid(k, "must be a number")
	}
	n, err := strconv.ParseFloat(text, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) {
		return 0, continuity.Invalid(k, "must be a finite count of zero or more")
	}
	return n, nil
}

// fitText makes a conversation's text (a prompt, the last assistant
// message) storable: each NUL and each byte of invalid UTF-8 becomes
// U+FFFD, as encoding/json already does with invalid UTF-8 in the payload.
// The store refuses both, and a Stop whose excerpt it refused would not
// refresh the lease; the text is recorded for reading, and a replacement
// character keeps the place of what could not be kept.
func fitText(s string) string {
	return bottle.KeepableText(s)
}

// fitLabel is a harness's label (a PreCompact trigger, a SessionEnd
// reason) as the service keeps it: fitText's, privacy scrubbed (it is
// stored in records as it is), without surrounding space, cut to
// continuity.MaxReasonLen characters. A label carries no work, so a junk
// one must not cost the event its close or its seal.
func fitLabel(s string) string {
	s, _ = runes.Cut(privacy.Scrub(fitText(s)), continuity.MaxReasonLen)
	return s
}

// stripTags removes the leading blocks <tag>…</tag> of the given tags
// that a harness prefixed to a prompt, and the blank space after them. A
// block that is never closed is left in place.
func stripTags(s string, tags []string) string {
	for {
		rest := strings.TrimLeft(s, " \t\r\n")
		cut := false
		for _, tag := range tags {
			open, end := "<"+tag+">", "</"+tag+">"
			if !strings.HasPrefix(rest, open) {
				continue
			}
			if i := strings.Index(rest, end); i >= 0 {
				s, cut = strings.TrimLeft(rest[i+len(end):], " \t\r\n"), true
			}
		}
		if !cut {
			return s
		}
	}
}

// oneLine bounds a name taken from a payload or the EVENT argument for a
// message that quotes it (%q keeps it on one line, a newline as \n): at
// most 64 characters, "…" marking a cut, so that the name shown is never
// taken for the whole one (cut at its first line, "a\nb" read as "a").
func oneLine(s string) string {
	return runes.Ellipsize(s, 64)
}
