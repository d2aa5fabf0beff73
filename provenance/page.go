package provenance

import (
	"bytes"

	"github.com/google/uuid"
)

// Slice is the part of a run's visible listing one page returns:
// listing[Start:End], and the cursor that resumes after it.
type Slice struct {
	Start, End int
	// NextCursor resumes the read after listing[End-1]; empty when the
	// page reaches the end of the listing.
	NextCursor string
}

// PageSlice slices a page out of a run's visible listing: ids in ascending
// UUIDv7 order (at most Ceiling of them), the event id the page resumes
// after (uuid.Nil for the start) and the page size Limit returned. The page
// starts at the first id greater than after, so a cursor whose event is no
// longer listed still resumes in order; it holds at most limit ids (a limit
// below 1 reads as 1), and it carries a cursor only when ids remain after
// it.
func PageSlice(ids []uuid.UUID, after uuid.UUID, limit int) Slice {
	limit = max(limit, 1)
	start := 0
	if after != uuid.Nil {
		for start < len(ids) && bytes.Compare(ids[start][:], after[:]) <= 0 {
			start++
		}
	}
	s := Slice{Start: start, End: min(start+limit, len(ids))}
	if s.End < len(ids) {
		s.NextCursor = EncodeCursor(ids[s.End-1])
	}
	return s
}
