package continuity

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/bottle/privacy"
	"github.com/batonhq/baton/continuity/memrule"
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

// trimField trims a free-text field and validates it with checkLen.
func trimField(fields map[string]string, name, v string, min, max int) string {
	v = strings.TrimSpace(v)
	checkLen(fields, name, v, min, max)
	return v
}

// scrubField validates free text that is kept only after the privacy
// filter: the text as given must be storable text, and the filtered text
// must fit.
func scrubField(fields map[string]string, name, v string, min, max int) string {
	if !checkText(fields, name, v) {
		return v
	}
	return trimField(fields, name, privacy.Scrub(v), min, max)
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
