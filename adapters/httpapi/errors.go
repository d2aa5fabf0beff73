package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"

	"github.com/batonhq/baton/continuity"
)

// statuses is the one code → HTTP status table: the handler answers each
// code with its status, and the client reads a status without a baton
// error body back as its code.
var statuses = map[continuity.Code]int{
	continuity.CodeInvalid:      http.StatusBadRequest,
	continuity.CodeUnauthorized: http.StatusUnauthorized,
	continuity.CodeForbidden:    http.StatusForbidden,
	continuity.CodeNotFound:     http.StatusNotFound,
	continuity.CodeConflict:     http.StatusConflict,
	continuity.CodeTooLarge:     http.StatusRequestEntityTooLarge,
	continuity.CodeInternal:     http.StatusInternalServerError,
}

// Status returns the HTTP status the handler answers an error of code
// with; a code outside baton's set is internal's.
func Status(code continuity.Code) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// codeOf returns the code whose status is status, or internal.
func codeOf(status int) continuity.Code {
	for c, s := range statuses {
		if s == status {
			return c
		}
	}
	return continuity.CodeInternal
}

// ErrUnreachable is the cause of every error the Client returns when it got
// no answer from the server: the connection failed, the call's time ran
// out, a gateway said the server is not there (502, 503, 504), or the URL
// reached no route of a baton server (another server's 404, or a path
// under a baton handler that is none of its routes). It is
// wrapped in a *continuity.Error of code internal, so it is a failure to
// record where the caller is, never a decision of the server; test for it
// with errors.Is.
var ErrUnreachable = errors.New("the baton server is unreachable")

// unreachable returns the Client's error for a call that got no answer.
func unreachable(cause error) error {
	return &continuity.Error{Code: continuity.CodeInternal, Message: ErrUnreachable.Error(),
		Err: fmt.Errorf("%w: %w", ErrUnreachable, cause)}
}

// ErrorBody is an error answer: {"error": {"code", "message", "fields"?}}.
// A failed episode call (SessionStart, UserPrompt, Stop, PreCompact,
// SessionEnd) carries beside it what its result holds so far, the receipt
// id above all, so the client returns the same partial result the local
// service does.
type ErrorBody struct {
	Error *continuity.Error `json:"error"`
}

// wireError returns err as the error object of an answer: its code, its
// safe message and its fields, never its cause.
func wireError(err error) *continuity.Error {
	return &continuity.Error{Code: continuity.ErrorCode(err), Message: continuity.ErrorMessage(err), Fields: continuity.ErrorFields(err)}
}

// errorAnswer returns the body of an error answer: the error, and the
// fields of partial beside it when the route carries a partial result and
// partial holds anything.
func errorAnswer(err error, partial any) any {
	body := ErrorBody{Error: wireError(err)}
	if partial == nil || reflect.ValueOf(partial).IsZero() {
		return body
	}
	raw, merr := json.Marshal(partial)
	var fields map[string]json.RawMessage
	if merr != nil || json.Unmarshal(raw, &fields) != nil {
		return body
	}
	fields["error"], _ = json.Marshal(body.Error)
	return fields
}

// invalid returns an invalid error with the fields and their reasons.
func invalid(fields map[string]string) error {
	if len(fields) == 0 {
		return nil
	}
	return &continuity.Error{Code: continuity.CodeInvalid, Message: "invalid input", Fields: fields}
}
