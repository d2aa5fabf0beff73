package bottle

import (
	"context"
	"time"
)

// MaxPromptChars is the cap, in characters, on a stored prompt. A longer
// prompt is stored cut, with its Truncated flag set, and a reconstructed
// bottle marks the cut so it is not read as the person trailing off.
const MaxPromptChars = 4000

// Prompt is a user prompt as the store kept it: privacy filtered, verbatim up
// to MaxPromptChars.
type Prompt struct {
	// Number is the 1-based position of the prompt in the session.
	Number int `json:"number"`
	// Text is the stored prompt.
	Text string `json:"text"`
	// Truncated says Text was cut at MaxPromptChars.
	Truncated bool `json:"truncated"`
	// Time is when the prompt was submitted.
	Time time.Time `json:"time"`
}

// StopExcerpt is the last assistant message the hook recorded at one Stop,
// bounded in length.
type StopExcerpt struct {
	// PromptNumber is the user turn the Stop ended.
	PromptNumber int `json:"promptNumber"`
	// Text is the recorded excerpt.
	Text string `json:"text"`
	// Time is when the Stop happened, by the clock of whoever recorded it.
	Time time.Time `json:"time"`
	// Seq is the order the Stops of the turn were recorded in (a higher
	// one later), which a clock stepped back between two Stops does not
	// reorder as it does their Times; 0 when unknown. A turn's excerpts
	// read by Seq, those without one first, and by Time where Seq ties.
	Seq int `json:"seq,omitempty"`
}

// Summary is a generated summary of the session. It is never the assistant's
// voice and a bottle shows it only as a quoted, labelled block.
type Summary struct {
	// PromptNumber is the user turn the summary was written after.
	PromptNumber int `json:"promptNumber"`
	// Text is the generated summary.
	Text string `json:"text"`
	// Time is when the summary was written.
	Time time.Time `json:"time"`
}

// Record is what a store kept of a session, enough to reconstruct a bottle
// when the transcript is gone.
type Record struct {
	// SessionID is the harness's session id.
	SessionID string `json:"sessionId"`
	// Project is the session's project facet or working directory.
	Project string `json:"project,omitempty"`
	// Started is when the session started.
	Started time.Time `json:"started,omitzero"`
	// Compactions counts the compactions recorded for the session.
	Compactions int `json:"compactions"`
	// Prompts are the stored prompts, in any order.
	Prompts []Prompt `json:"prompts,omitempty"`
	// StopExcerpts are the excerpts recorded at each Stop, in any order.
	StopExcerpts []StopExcerpt `json:"stopExcerpts,omitempty"`
	// Summaries are generated summaries, in any order.
	Summaries []Summary `json:"summaries,omitempty"`
}

// History is the store of what the hook path recorded about sessions, read to
// reconstruct a bottle whose transcript is gone. Everything it returns was
// written through privacy.Scrub.
type History interface {
	// SessionHistory returns the session's record. An unknown session returns
	// an empty Record and a nil error, so the caller walks on down the ladder.
	SessionHistory(ctx context.Context, sessionID string) (Record, error)
}
