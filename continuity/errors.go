package continuity

import (
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity/memrule"
	"github.com/batonhq/baton/provenance"
	"github.com/batonhq/baton/triage"
)

// Code is one of baton's stable error codes. The HTTP adapter
// (adapters/httpapi) maps each code to a status in one table; stores
// translate driver errors into these codes at their edge, so callers see one
// vocabulary whichever backend runs.
type Code string

// The error codes.
const (
	CodeInvalid      Code = "invalid"
	CodeUnauthorized Code = "unauthorized"
	CodeForbidden    Code = "forbidden"
	CodeNotFound     Code = "not_found"
	CodeConflict     Code = "conflict"
	CodeTooLarge     Code = "too_large"
	CodeInternal     Code = "internal"
)

// Error is baton's one error type. Message is safe to show a caller: it never
// carries SQL, memory content or prompt text. Fields names the offending
// input fields of an invalid request, with a short reason each. It marshals
// as the body of the HTTP contract's {"error": ...}; the cause never does.
type Error struct {
	Code    Code              `json:"code"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
	// Err is the underlying cause, kept for errors.Is/As and never rendered.
	Err error `json:"-"`
}

// Error renders the code, the message and the fields in a stable order.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(string(e.Code))
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if len(e.Fields) > 0 {
		keys := make([]string, 0, len(e.Fields))
		for k := range e.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(" (")
		for i, k := range keys {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(e.Fields[k])
		}
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an invalid error naming one field.
func Invalid(field, reason string) *Error {
	return &Error{Code: CodeInvalid, Message: "invalid input", Fields: map[string]string{field: reason}}
}

// asError returns the *Error err carries, or the one ruleError maps it to,
// or nil.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return ruleError(err)
}

// ruleError maps an error of a rule package to baton's codes, or returns nil
// for an error no rule declares: the one place the rule packages' errors
// meet the vocabulary (the rule packages sit below continuity and cannot
// return its codes). Any other error reads as internal.
//
//	rule error                   code       message, fields
//	bottle.ErrInvalidSession     invalid    sessionId: bottle.SessionIDRule (the caller's bad input, never internal)
//	triage.ErrConflict           conflict   the attempt is not the pending one
//	*provenance.FieldError       invalid    its field: its message (cursor, limit)
//	*memrule.StatusError         conflict   its message (the status does not allow the change)
func ruleError(err error) *Error {
	var (
		field  *provenance.FieldError
		status *memrule.StatusError
	)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bottle.ErrInvalidSession):
		return Invalid("sessionId", bottle.SessionIDRule)
	case errors.Is(err, triage.ErrConflict):
		return &Error{Code: CodeConflict, Message: "the attempt is not the pending one", Err: err}
	case errors.As(err, &field):
		return &Error{Code: CodeInvalid, Message: "invalid input", Fields: map[string]string{field.Field: field.Message}, Err: err}
	case errors.As(err, &status):
		return &Error{Code: CodeConflict, Message: status.Error(), Err: err}
	}
	return nil
}

// coded returns err as an *Error when a rule declares it, else err itself.
// A rule's error raised inside a transaction goes through it, because the
// store reads any error without a code as internal.
func coded(err error) error {
	if e := ruleError(err); e != nil {
		return e
	}
	return err
}

// addFields records in f the invalid fields err names (see ErrorFields), so
// that one answer lists every bad field of a request.
func addFields(f map[string]string, err error) { maps.Copy(f, ErrorFields(err)) }

// ErrorCode returns the code of err: its *Error's code, or the code
// ruleError maps a rule's error to, or internal for any other non-nil
// error, or "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	if e := asError(err); e != nil {
		return e.Code
	}
	return CodeInternal
}

// ErrorFields returns the invalid fields of err, or nil.
func ErrorFields(err error) map[string]string {
	if e := asError(err); e != nil {
		return e.Fields
	}
	return nil
}

// ErrorMessage returns a message safe to show a caller: an *Error's message,
// or a generic one for anything else, so internal detail never leaks.
func ErrorMessage(err error) string {
	if e := asError(err); e != nil {
		return e.Message
	}
	return "internal error"
}
