package provenance

import (
	"encoding/base64"
	"strconv"
	"time"

	"github.com/google/uuid"
)

const (
	// DefaultLimit is the page size of a read that names no limit.
	DefaultLimit = 50
	// MaxLimit is the hard per-call limit.
	MaxLimit = 100
	// Ceiling is the per-run ceiling: a run with more events than this reads
	// as truncated, and its triage is terminally overflowed. The triage
	// watermark is capped at the same value.
	Ceiling = 500
)

// FieldError is a rejected input, naming the field it concerns. The service
// translates it to its invalid code with the field listed.
type FieldError struct {
	// Field is the input's wire name, such as "limit" or "cursor".
	Field string
	// Message says what is wrong with it, without echoing the value.
	Message string
}

// Error returns "field: message".
func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Limit validates a requested page size: 0 (absent) means DefaultLimit,
// 1 through MaxLimit are taken as given, anything else is a *FieldError on
// the field "limit".
func Limit(raw int) (int, error) {
	switch {
	case raw == 0:
		return DefaultLimit, nil
	case raw < 1 || raw > MaxLimit:
		return 0, &FieldError{Field: "limit", Message: "must be between 1 and " + strconv.Itoa(MaxLimit) + ", or 0 (or none) for " + strconv.Itoa(DefaultLimit)}
	}
	return raw, nil
}

// cursorV1 is the first byte of a version 1 cursor, followed by the 16 bytes
// of the last event id the previous page returned.
const cursorV1 = 1

// cursorLen is the encoded length of a version 1 cursor; anything longer is
// refused before it is decoded.
var cursorLen = cursorEncoding.EncodedLen(1 + 16)

// cursorEncoding is strict so that every cursor has exactly one spelling.
var cursorEncoding = base64.RawURLEncoding.Strict()

// EncodeCursor returns the opaque cursor that resumes a read after the event
// id. uuid.Nil, the start of the run, encodes as "".
func EncodeCursor(id uuid.UUID) string {
	if id == uuid.Nil {
		return ""
	}
	b := make([]byte, 0, 17)
	b = append(b, cursorV1)
	b = append(b, id[:]...)
	return cursorEncoding.EncodeToString(b)
}

// DecodeCursor returns the event id a cursor resumes after. "" decodes to
// uuid.Nil, the start of the run. Anything EncodeCursor did not produce is a
// *FieldError on the field "cursor".
func DecodeCursor(s string) (uuid.UUID, error) {
	if s == "" {
		return uuid.Nil, nil
	}
	bad := &FieldError{Field: "cursor", Message: "is not a cursor this server issued"}
	if len(s) != cursorLen {
		return uuid.Nil, bad
	}
	b, err := cursorEncoding.DecodeString(s)
	if err != nil || len(b) != 17 || b[0] != cursorV1 {
		return uuid.Nil, bad
	}
	id := uuid.UUID(b[1:])
	if id == uuid.Nil {
		return uuid.Nil, bad
	}
	return id, nil
}

// Item is one provenance event of a run. It carries metadata only: never a
// payload value or an arbitrary payload key.
type Item struct {
	// ID is the event's UUIDv7 id, the keyset the read paginates on.
	ID uuid.UUID `json:"id"`
	// MemoryID is the memory the event concerns.
	MemoryID uuid.UUID `json:"memoryId"`
	// EventKind is create, supersede, resolve, unresolve, archive or import.
	EventKind string `json:"eventKind"`
	// ActorKind names the transport that wrote the event.
	ActorKind string `json:"actorKind"`
	// SessionRunID is the run the event is attributed to.
	SessionRunID uuid.UUID `json:"sessionRunId"`
	// CreatedAt is when the event was recorded.
	CreatedAt time.Time `json:"createdAt"`
}

// Page is one page of a run's events in UUIDv7 order.
type Page struct {
	// Items are the page's events, at most the requested limit.
	Items []Item `json:"items"`
	// NextCursor resumes the read after the last item; empty on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
	// Truncated reports that the run has more events than Ceiling.
	Truncated bool `json:"truncated"`
}
