package judge

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// MaxCompleted is the most ids a verdict may name: the most commitments a
// session records as briefed.
const MaxCompleted = continuity.MaxBriefedMemories

// CheckCase validates a case from outside (a labelled session, a host's
// closer) against the bounds the store keeps: an excerpt of at most
// continuity.MaxExcerptLen characters, at most continuity.MaxBriefedMemories
// commitments with distinct non-nil ids, topics and contents within the
// memory limits, at most provenance.Ceiling events, all text valid UTF-8
// without NUL. Every offending field is named in one invalid error.
func CheckCase(c continuity.JudgeCase) error {
	f := map[string]string{}
	text(f, "tenant", c.Tenant, continuity.MaxTenantLen)
	text(f, "excerpt", c.Excerpt, continuity.MaxExcerptLen)
	if n := len(c.Events); n > provenance.Ceiling {
		f["events"] = "must hold at most " + strconv.Itoa(provenance.Ceiling) + " events"
	}
	if n := len(c.Commitments); n > continuity.MaxBriefedMemories {
		f["commitments"] = "must hold at most " + strconv.Itoa(continuity.MaxBriefedMemories) + " commitments"
	}
	seen := make(map[uuid.UUID]bool, len(c.Commitments))
	for i, m := range c.Commitments {
		at := "commitments[" + strconv.Itoa(i) + "]"
		switch {
		case m.ID == uuid.Nil:
			f[at+".id"] = "must be a UUID"
		case seen[m.ID]:
			f[at+".id"] = "is listed twice"
		}
		seen[m.ID] = true
		text(f, at+".topic", m.Topic, continuity.MaxTopicLen)
		text(f, at+".content", m.Content, continuity.MaxContentLen)
	}
	if len(f) > 0 {
		return &continuity.Error{Code: continuity.CodeInvalid, Message: "invalid input", Fields: f}
	}
	return nil
}

// text records in f why v cannot be judged as field name: not UTF-8, a NUL
// byte, or more than max characters.
func text(f map[string]string, name, v string, max int) {
	switch {
	case !utf8.ValidString(v):
		f[name] = "must be valid UTF-8"
	case strings.IndexByte(v, 0) >= 0:
		f[name] = "must not contain NUL bytes"
	case utf8.RuneCountInString(v) > max:
		f[name] = "must be at most " + strconv.Itoa(max) + " characters"
	}
}
