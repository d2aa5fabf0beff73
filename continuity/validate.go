package continuity

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
)

// Input limits, declared once.
const (
	MaxTenantLen    = 128
	MaxAgentLen     = 64
	MaxSessionIDLen = 256
	MaxExcerptLen   = 4000
	MaxContentLen   = 2000
	MaxTopicLen     = 200
	MaxFacetLen     = 200
	MaxPromptLen    = 4000
)

var agentPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

var (
	validateOnce sync.Once
	validate     *validator.Validate
)

func validatorInstance() *validator.Validate {
	validateOnce.Do(func() {
		v := validator.New(validator.WithRequiredStructEnabled())
		_ = v.RegisterValidation("agent", func(fl validator.FieldLevel) bool {
			s := fl.Field().String()
			return len(s) <= MaxAgentLen && agentPattern.MatchString(s)
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

// trimField trims a free-text field and validates its length in characters
// (validator counts runes, not bytes).
func trimField(fields map[string]string, name, v string, min, max int) string {
	v = strings.TrimSpace(v)
	tag := fmt.Sprintf("max=%d", max)
	if min > 0 {
		tag = fmt.Sprintf("required,min=%d,max=%d", min, max)
	}
	if r := varErr(v, tag); r != "" {
		fields[name] = r
	}
	return v
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
	sessionID = trimField(f, "sessionId", sessionID, 1, MaxSessionIDLen)
	return tenant, agent, sessionID, fieldsErr(f)
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
