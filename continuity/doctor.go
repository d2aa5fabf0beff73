package continuity

import "time"

// Severity is how much a doctor finding matters.
type Severity string

// The severities, mildest first. A failure makes `baton doctor` exit
// non-zero.
const (
	SeverityInfo    Severity = "info"
	SeverityWarning Severity = "warning"
	SeverityFailure Severity = "failure"
)

// Finding is one thing the doctor noticed about what baton has (or has not)
// written, with a sentence a person can act on. It never carries memory
// content, excerpts or prompts.
type Finding struct {
	// Check names the rule that produced the finding (stable, snake_case).
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	// Sentence says what is wrong and what to do about it.
	Sentence string `json:"sentence"`
	// Project, Agent and SessionID locate the finding when it has a place.
	Project   string `json:"project,omitempty"`
	Agent     string `json:"agent,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
}

// DoctorReport is the doctor's answer for one tenant.
type DoctorReport struct {
	GeneratedAt time.Time `json:"generatedAt"`
	// Sessions is how many conversations the tenant has recorded; below two
	// the doctor does not judge writtenness and says so in a finding.
	Sessions int       `json:"sessions"`
	Findings []Finding `json:"findings"`
}

// Healthy reports whether no finding is a failure.
func (r DoctorReport) Healthy() bool {
	for _, f := range r.Findings {
		if f.Severity == SeverityFailure {
			return false
		}
	}
	return true
}
