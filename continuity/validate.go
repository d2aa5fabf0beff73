package continuity

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/bottle/privacy"
	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/internal/runes"
	"github.com/go-playground/validator/v10"
)

// Input limits, declared once.
const (
	MaxTenantLen = 128
	MaxAgentLen  = 64
	// MaxSessionIDLen is the bottle's bound: a session id follows the one
	// rule of the library, bottle.ValidateSessionID, so every id Open
	// accepts can name a bottle file.
	MaxSessionIDLen = bottle.MaxSessionIDLen
	MaxExcerptLen   = 4000
	MaxContentLen   = memrule.MaxContentLen
	MaxTopicLen     = 200
	MaxFacetLen     = 200
	// MaxPromptLen is the cap on a kept user prompt: the bottle's.
	MaxPromptLen = bottle.MaxPromptChars
	// MaxSelectorAxes bounds the axes of an Open's selector (a kind and a
	// few facets; each key and value at most MaxFacetLen).
	MaxSelectorAxes = 16
	// MaxLedgerFields bounds the payload fields of one ledger line, and
	// MaxLedgerValueLen each value's characters (a key is no longer than
	// an event name).
	MaxLedgerFields   = 32
	MaxLedgerValueLen = 1000
	// MaxPathLen bounds a bottle marker's path.
	MaxPathLen = 4096
	// MaxBottleGap bounds a bottle marker's gap: the column is a 32-bit
	// integer on Postgres.
	MaxBottleGap = math.MaxInt32
)

// agentPattern is an agent name's shape; it is compiled with the
// validator, on first use.
const agentPattern = `^[a-z0-9][a-z0-9-]*$`

var (
	validateOnce sync.Once
	validate     *validator.Validate
)

func validatorInstance() *validator.Validate {
	validateOnce.Do(func() {
		v := validator.New(validator.WithRequiredStructEnabled())
		agent := regexp.MustCompile(agentPattern)
		_ = v.RegisterValidation("agent", func(fl validator.FieldLevel) bool {
			s := fl.Field().String()
			return len(s) <= MaxAgentLen && agent.MatchString(s)
		})
		validate = v
	})
	return validate
}

// varErr validates one value against a validator tag and returns the
// reason it failed, or "".
func varErr(v any, tag string) string {
	err := validatorInstance().Var(v, tag)
	if err == nil {
		return ""
	}
	var verrs validator.ValidationErrors
	if errors.As(err, &verrs) && len(verrs) > 0 {
		return reason(verrs[0])
	}
	return "is not valid"
}

// oneOf records a reason for field when v is not one of the listed values.
func oneOf(fields map[string]string, name, v string, values ...string) {
	if r := varErr(v, "required,oneof="+strings.Join(values, " ")); r != "" {
		fields[name] = "must be one of " + strings.Join(values, " ")
	}
}

// checkText records why v cannot be stored as text in field, and reports
// whether it can. Text that is not valid UTF-8 would be rewritten to U+FFFD
// on the way to the database, so two different inputs (two tenants, two
// session ids) would share one row; a NUL byte is refused by Postgres. Both
// are the caller's bad input, refused before any SQL is built.
func checkText(fields map[string]string, name, v string) bool {
	if r := textReason(v); r != "" {
		fields[name] = r
		return false
	}
	return true
}

// textReason returns why v cannot be stored as text, or "".
func textReason(v string) string {
	switch {
	case !utf8.ValidString(v):
		return "must be valid UTF-8"
	case strings.IndexByte(v, 0) >= 0:
		return "must not contain NUL bytes"
	}
	return ""
}

// checkLen validates a text field and its length in characters (validator
// counts runes, not bytes).
func checkLen(fields map[string]string, name, v string, min, max int) {
	if !checkText(fields, name, v) {
		return
	}
	tag := fmt.Sprintf("max=%d", max)
	if min > 0 {
		tag = fmt.Sprintf("required,min=%d,max=%d", min, max)
	}
	if r := varErr(v, tag); r != "" {
		fields[name] = r
	}
}

// textRule is the rule of one text field the service stores, declared
// once (the rules below): a write applies it to what its caller gives
// (take, or keep for a cut rule), and an import to what an exported row
// holds (stored), which must be text some write could have stored.
// Lengths are in characters.
type textRule struct {
	min, max int
	// filtered text is kept only after the privacy filter, which trims it.
	filtered bool
	// verbatim text is kept as given, never trimmed.
	verbatim bool
	// cut text is never refused for its length: a write keeps its first
	// max characters (keep), which may end in white space.
	cut bool
	// tooLong, when set, is the reason a text over max is refused.
	tooLong string
}

// The rules of the text the service stores, by field.
var (
	// facetText: a project or a scope (sessions, memories, records).
	facetText = textRule{max: MaxFacetLen}
	// topicText: a memory's topic.
	topicText = textRule{min: 1, max: MaxTopicLen, filtered: true}
	// contentText: a memory's content. Longer content is refused, never
	// silently split.
	contentText = textRule{min: 1, max: MaxContentLen, filtered: true,
		tooLong: "must be at most " + strconv.Itoa(MaxContentLen) + " characters; write one atom per memory instead of splitting one"}
	// taskText: a record's task, a briefed memory's topic.
	taskText = textRule{max: MaxTopicLen, filtered: true}
	// recordText: a record's objective, state and next action; a bottle
	// marker's task.
	recordText = textRule{max: MaxRecordTextLen, filtered: true}
	// gitRefText: a record's commit or branch.
	gitRefText = textRule{max: maxGitRefLen}
	// bottlePathText: the bottle's path a record names.
	bottlePathText = textRule{max: MaxPathLen}
	// markerPathText: a bottle marker's path, kept as given.
	markerPathText = textRule{min: 1, max: MaxPathLen, verbatim: true}
	// reasonText: a record's trigger or reason.
	reasonText = textRule{max: MaxReasonLen}
	// excerptText: a last assistant message, a session's or a Stop's.
	excerptText = textRule{max: MaxExcerptLen, filtered: true, cut: true}
	// promptText: a kept user prompt; one empty after filtering is not
	// kept.
	promptText = textRule{min: 1, max: MaxPromptLen, filtered: true, cut: true}
	// eventText: a ledger line's event name.
	eventText = textRule{min: 1, max: maxReceiptField}
	// ledgerValueText: a ledger payload value, kept as given.
	ledgerValueText = textRule{max: MaxLedgerValueLen, verbatim: true}
)

// textCheck applies a rule to one field: textRule.take to a caller's
// input, textRule.stored to an imported row's text. It returns the text
// to keep.
type textCheck func(r textRule, fields map[string]string, name, v string) string

// take validates v as a write keeps it and returns what it keeps: privacy
// filtered (which trims), trimmed, or as given.
func (r textRule) take(fields map[string]string, name, v string) string {
	if !checkText(fields, name, v) {
		return v
	}
	switch {
	case r.filtered:
		v = privacy.Scrub(v)
	case !r.verbatim:
		v = strings.TrimSpace(v)
	}
	r.bound(fields, name, v)
	return v
}

// keep is what a write keeps of v under a cut rule: privacy filtered and
// cut to max characters, and whether the cut dropped any.
func (r textRule) keep(v string) (string, bool) {
	return runes.Cut(privacy.Scrub(v), r.max)
}

// bound records why v's length breaks the rule; text of white space only
// is no text.
func (r textRule) bound(fields map[string]string, name, v string) {
	checkLen(fields, name, v, r.min, r.max)
	switch {
	case r.min > 0 && strings.TrimSpace(v) == "":
		fields[name] = "is required"
	case r.tooLong != "" && utf8.RuneCountInString(v) > r.max:
		fields[name] = r.tooLong
	}
}

// stored records why v, the text of an exported row, is not text a write
// under the rule could have stored: text that cannot be stored, a block the
// privacy filter removes, a length out of bounds, or what a write would
// have trimmed or filtered away. It returns v.
func (r textRule) stored(fields map[string]string, name, v string) string {
	if !checkText(fields, name, v) {
		return v
	}
	if tag := privacy.Residue(v); r.filtered && tag != "" {
		fields[name] = "holds a <" + tag + "> block, which baton removes from text before it keeps it"
		return v
	}
	r.bound(fields, name, v)
	if _, bad := fields[name]; bad {
		return v
	}
	kept := r.take(map[string]string{}, name, v)
	if r.cut && utf8.RuneCountInString(v) == r.max {
		// A cut text may end anywhere, in white space too.
		kept = strings.TrimLeftFunc(v, unicode.IsSpace)
	}
	if kept != v {
		fields[name] = "must be as baton keeps it: no white space at either end"
		if r.filtered {
			fields[name] += ", privacy filtered"
		}
	}
	return v
}

// trimField trims a free-text field and validates it with checkLen.
func trimField(fields map[string]string, name, v string, min, max int) string {
	v = strings.TrimSpace(v)
	checkLen(fields, name, v, min, max)
	return v
}

// ValidateTenant returns an invalid error naming the tenant unless it is 1 to
// MaxTenantLen characters of valid UTF-8 with no NUL byte. The service checks
// every tenant before it opens a transaction; a Store checks again at its
// edge, so a tenant a driver would rewrite never reaches SQL.
func ValidateTenant(tenant string) error {
	f := map[string]string{}
	checkLen(f, "tenant", tenant, 1, MaxTenantLen)
	return fieldsErr(f)
}

// normalTenant trims and validates a tenant as every method that writes a
// tenant's rows does (trimField), for the methods that take nothing else:
// export, import, erase and prune reach the rows the hooks wrote.
func normalTenant(tenant string) (string, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	return tenant, fieldsErr(f)
}

// fieldsErr returns an invalid error when fields is non-empty.
func fieldsErr(fields map[string]string) error {
	if len(fields) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "invalid input", Fields: fields}
}

// sessionKey validates and normalizes a tenant and a natural key.
func sessionKey(tenant, agent, sessionID string) (string, string, string, error) {
	f := map[string]string{}
	tenant = trimField(f, "tenant", tenant, 1, MaxTenantLen)
	if r := varErr(agent, "required,agent"); r != "" {
		f["agent"] = r
	}
	sessionID = sessionIDField(f, "sessionId", sessionID, true)
	return tenant, agent, sessionID, fieldsErr(f)
}

// sessionIDField trims a harness session id and validates it against the
// library's one session-id rule, bottle.ValidateSessionID. An optional id
// may be empty.
func sessionIDField(fields map[string]string, name, v string, required bool) string {
	v = strings.TrimSpace(v)
	switch {
	case !checkText(fields, name, v):
	case v == "":
		if required {
			fields[name] = "is required"
		}
	case bottle.ValidateSessionID(v) != nil:
		fields[name] = bottle.SessionIDRule
	}
	return v
}

// reason renders a validator failure as a short phrase for the field.
func reason(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "min":
		if fe.Param() == "1" {
			return "is required"
		}
		return "must be at least " + fe.Param() + " characters"
	case "max":
		return "must be at most " + fe.Param() + " characters"
	case "agent":
		return fmt.Sprintf("must match %s and be at most %d characters", agentPattern, MaxAgentLen)
	case "oneof":
		return "must be one of " + fe.Param()
	}
	return "failed " + fe.Tag()
}
