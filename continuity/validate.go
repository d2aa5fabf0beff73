package continuity

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

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
		v.RegisterTagNameFunc(func(f reflect.StructField) string {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				return f.Name
			}
			return name
		})
		_ = v.RegisterValidation("agent", func(fl validator.FieldLevel) bool {
			s := fl.Field().String()
			return len(s) <= MaxAgentLen && agentPattern.MatchString(s)
		})
		// runes counts characters, not bytes, after trimming.
		_ = v.RegisterValidation("trimmed", func(fl validator.FieldLevel) bool {
			s := fl.Field().String()
			return strings.TrimSpace(s) == s
		})
		validate = v
	})
	return validate
}

// check validates a params struct and translates every failure into one
// invalid error naming each field.
func check(p any) error {
	err := validatorInstance().Struct(p)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return &Error{Code: CodeInternal, Message: "validation failed", Err: err}
	}
	fields := make(map[string]string, len(verrs))
	for _, fe := range verrs {
		fields[fieldPath(fe)] = reason(fe)
	}
	return &Error{Code: CodeInvalid, Message: "invalid input", Fields: fields}
}

func fieldPath(fe validator.FieldError) string {
	ns := fe.Namespace()
	if _, rest, ok := strings.Cut(ns, "."); ok {
		return rest
	}
	return fe.Field()
}

func reason(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "is required"
	case "max":
		return "must be at most " + fe.Param() + " characters"
	case "min":
		return "must be at least " + fe.Param() + " characters"
	case "agent":
		return fmt.Sprintf("must match %s and be at most %d characters", agentPattern, MaxAgentLen)
	case "oneof":
		return "must be one of " + fe.Param()
	case "uuid":
		return "must be a UUID"
	}
	return "failed " + fe.Tag()
}

// trimField trims a free-text field and checks its length in characters.
func trimField(fields map[string]string, name, v string, min, max int) string {
	v = strings.TrimSpace(v)
	n := utf8.RuneCountInString(v)
	switch {
	case n < min && min == 1:
		fields[name] = "is required"
	case n < min:
		fields[name] = fmt.Sprintf("must be at least %d characters", min)
	case n > max:
		fields[name] = fmt.Sprintf("must be at most %d characters", max)
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
	if agent == "" {
		f["agent"] = "is required"
	} else if len(agent) > MaxAgentLen || !agentPattern.MatchString(agent) {
		f["agent"] = fmt.Sprintf("must match %s and be at most %d characters", agentPattern, MaxAgentLen)
	}
	sessionID = trimField(f, "sessionId", sessionID, 1, MaxSessionIDLen)
	return tenant, agent, sessionID, fieldsErr(f)
}
