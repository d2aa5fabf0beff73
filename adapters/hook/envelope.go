package hook

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/batonhq/baton/continuity"
)

// Envelope returns what the harness is told about an event's outcome: its
// start envelope carrying the text to inject, its stop envelope carrying the
// continuation reason, or nil when there is nothing to say (an empty
// context, no block, a blank reason, an event that answers nothing, or a
// harness that ignores that output). The bytes are exactly the template's
// schema, one JSON value and a newline: harnesses that reject unknown keys
// (Codex) or anything but JSON on stdout (Gemini) accept it.
func (h *Harness) Envelope(ev continuity.HookEvent, out continuity.HookOutcome) ([]byte, error) {
	var tmpl json.RawMessage
	vals := map[string]string{placeEvent: ev.ProviderEvent}
	switch {
	case ev.Kind == continuity.HookStart && strings.TrimSpace(out.Context) != "":
		tmpl, vals[placeContext] = h.Envelopes.Start, out.Context
	case ev.Kind == continuity.HookStop && out.Block && strings.TrimSpace(out.Reason) != "":
		tmpl, vals[placeReason] = h.Envelopes.Stop, out.Reason
	default:
		return nil, nil
	}
	v, err := decodeTemplate(tmpl)
	if err != nil || v == nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the text stays readable; JSON either way
	if err := enc.Encode(fill(v, vals)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// decodeTemplate decodes an envelope template; nil for a null or absent one.
func decodeTemplate(tmpl json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(tmpl)) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(tmpl, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// fill returns the template v with every string value that is a
// placeholder replaced by its value.
func fill(v any, vals map[string]string) any {
	switch v := v.(type) {
	case string:
		if s, ok := vals[v]; ok {
			return s
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = fill(x, vals)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fill(x, vals)
		}
		return out
	}
	return v
}
