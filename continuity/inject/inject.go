package inject

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/batonhq/baton/internal/runes"
)

// IDInstruction returns the one line that tells the agent its sessionRunId
// and how to pass it on writes, so that baton attributes them to this
// session. Attribution on the hooked path is model-mediated: this line is
// the only way the id reaches the model, so it is re-injected after every
// compaction. With no run id (a SessionStart that skipped the lifecycle)
// there is nothing to pass and the line is "".
func IDInstruction(runID, agent string) string {
	runID = strings.TrimSpace(runes.OneLine(runID))
	if runID == "" {
		return ""
	}
	who := "This session's"
	if agent = strings.TrimSpace(runes.OneLine(agent)); agent != "" {
		who = "This " + agent + " session's"
	}
	return "[baton] " + who + " sessionRunId is " + runID + ". Pass it on every memory write so the write is attributed to this session: " +
		"on the command line `baton remember --session-run " + runID + " …` (resolve, unresolve and archive take --session-run too); " +
		"over MCP or HTTP the field \"sessionRunId\".\n"
}

// StartupInput is a SessionStart that starts a conversation: a startup, or a
// clear that found no row and started one.
type StartupInput struct {
	// RunID and Agent are the session's, for the id instruction.
	RunID string
	Agent string
	// Briefing is the rendered briefing; "" when the briefing failed.
	Briefing string
	// Handover is the rendered handover block; "" when there is none.
	Handover string
	// Budget bounds the whole text, in characters; 0 or less means no
	// bound. The id instruction is never cut, so a budget smaller than it
	// yields the id instruction alone.
	Budget int
}

// Startup returns the SessionStart context of a new conversation: the
// briefing, the handover when there is one, then the id instruction.
//
// Within the budget the id instruction comes first, then the handover, and
// the briefing gets the rest. A block that does not fit is cut after its
// last whole line that fits, with a line saying so; a block of which no line
// fits is left out. A caller that renders the briefing within
// Budget - Overhead(in) characters gets it whole, so the rows it records as
// briefed are the rows the agent saw.
func Startup(in StartupInput) string {
	handover, id, room := in.layout()
	return join(cut(clean(in.Briefing), room), handover, id)
}

// Briefing returns the briefing and, when there is one, the handover as
// `baton briefing` prints them for a person: each block cleaned as Startup
// cleans it (its text came from outside, and a control character would
// reach a terminal as an escape sequence), a blank line between them, and
// nothing cut; and, for the person's eyes, each character that shows
// nothing or a blank shown as its code point (runes.Visible: a
// right-to-left override, a zero-width space or a Hangul filler would make
// a line read other than it is). Startup keeps them: the
// model reads the characters in their order, whatever a display does with
// them, the briefing was fitted to the budget as it is, and a joiner in an
// emoji or a Persian word is text.
func Briefing(briefing, handover string) string {
	return runes.Visible(join(clean(briefing), clean(handover)))
}

// Overhead returns the characters Startup spends beside the briefing: the
// id instruction, the handover as it will be kept, and the blank lines
// between the blocks. It does not depend on the briefing.
func Overhead(in StartupInput) int {
	handover, id, _ := in.layout()
	return cost(handover) + cost(id)
}

// layout returns the kept handover, the id instruction and the room left
// for the briefing (math.MaxInt when the budget is no bound).
func (in StartupInput) layout() (handover, id string, room int) {
	id = IDInstruction(in.RunID, in.Agent)
	if in.Budget <= 0 {
		return clean(in.Handover), id, math.MaxInt
	}
	handover = cut(clean(in.Handover), max(0, in.Budget-cost(id)))
	return handover, id, max(0, in.Budget-cost(id)-cost(handover))
}

// FallbackInput is a compact or resume SessionStart that claimed no bottle
// marker.
type FallbackInput struct {
	// RunID and Agent are the session's, for the id instruction.
	RunID string
	Agent string
	// Bottle is a bottle the caller rendered on demand (usually a
	// reconstructed one); a zero Path means there is none.
	Bottle PointerInput
	// Briefing is the rendered briefing, injected when there is no bottle;
	// "" when the briefing failed.
	Briefing string
	// Budget bounds the briefing and the id instruction as Startup's does.
	Budget int
}

// Fallback returns the text injected after a compaction or resume that
// claimed no marker: the pointer to the bottle the caller rendered on
// demand, else the briefing within the budget; then the id instruction.
func Fallback(in FallbackInput) string {
	if in.Bottle.Path != "" {
		return Continuation(ContinuationInput{RunID: in.RunID, Agent: in.Agent, Bottle: in.Bottle})
	}
	return Startup(StartupInput{RunID: in.RunID, Agent: in.Agent, Briefing: in.Briefing, Budget: in.Budget})
}

// Nudge returns the reason of the Stop block that continues the turn with
// the debrief prompt, or "" when the debrief is blank: a blank reason is a
// hook failure on some harnesses, so the caller must not block with one.
//
// The reason is the debrief text itself, with no wrapper: triage.Debrief
// owns the words, and the HTTP prompt route serves the same text, so the
// prompt a model gets cannot depend on the transport that carried it.
func Nudge(debrief string) string {
	return clean(debrief)
}

// cutNote ends a block cut at the budget.
const cutNote = "(the rest was cut at the character budget)\n"

// cut returns block within room characters: whole when it fits, else its
// longest prefix of whole lines followed by cutNote, else "".
func cut(block string, room int) string {
	if utf8.RuneCountInString(block) <= room {
		return block
	}
	avail := room - utf8.RuneCountInString(cutNote)
	end, used := 0, 0
	for end < len(block) {
		i := strings.IndexByte(block[end:], '\n')
		n := utf8.RuneCountInString(block[end : end+i+1])
		if used+n > avail {
			break
		}
		end, used = end+i+1, used+n
	}
	if end == 0 {
		return ""
	}
	return block[:end] + cutNote
}

// cost is what a block adds to a text besides the briefing: its characters
// and the blank line before it; nothing when it is absent.
func cost(block string) int {
	if block == "" {
		return 0
	}
	return utf8.RuneCountInString(block) + 1
}

// join puts the blocks that are present one after another, a blank line
// between two; each block ends with a newline.
func join(blocks ...string) string {
	present := blocks[:0:0]
	for _, b := range blocks {
		if b != "" {
			present = append(present, b)
		}
	}
	return strings.Join(present, "\n")
}
