package bottle

import (
	"strings"
	"testing"
)

// TestDeriveObservations: a call with a result, or followed by later
// assistant text (its result line may have been skipped as oversized), is
// finished; only the calls after both are the pending tail.
func TestDeriveObservations(t *testing.T) {
	call := func(id string, done bool) Entry {
		return Entry{Kind: KindToolCall, Tool: "Bash", ToolUseID: id, Done: done}
	}
	say := Entry{Kind: KindAssistant, Text: "reply"}
	ask := Entry{Kind: KindUser, Text: "prompt"}
	cases := []struct {
		name    string
		entries []Entry
		want    string
	}{
		{"answered", []Entry{ask, call("a", true), say}, "obs:a tail:"},
		{"result skipped, reply after", []Entry{ask, call("a", false), say}, "obs:a tail:"},
		{"reply between calls", []Entry{ask, call("a", false), say, call("b", false)}, "obs:a tail:b"},
		{"text before its own call", []Entry{ask, say, call("a", false)}, "obs: tail:a"},
		{"a prompt does not finish a call", []Entry{ask, call("a", false), ask}, "obs: tail:a"},
		{"parallel calls, the later answered", []Entry{ask, call("a", false), call("b", true)}, "obs:a,b tail:"},
		{"pending after an answered call", []Entry{ask, call("a", true), call("b", false)}, "obs:a tail:b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obs, tail := DeriveObservations(&Transcript{Entries: c.entries})
			var o, p []string
			for _, x := range obs {
				o = append(o, x.ToolUseID)
			}
			for _, x := range tail {
				p = append(p, x.ToolUseID)
			}
			if got := "obs:" + strings.Join(o, ",") + " tail:" + strings.Join(p, ","); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
