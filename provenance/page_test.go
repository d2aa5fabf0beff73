package provenance_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"github.com/batonhq/baton/provenance"
)

// listed returns n ascending event ids, ev(2), ev(4) … ev(2n): the gaps let
// a cursor fall between two.
func listed(n int) []uuid.UUID {
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = ev(2 * (i + 1))
	}
	return out
}

func ev(n int) uuid.UUID { return uuid.MustParse(fmt.Sprintf("01950000-0000-7000-8000-%012d", n)) }

func TestPageSlice(t *testing.T) {
	five := listed(5) // ev(2), ev(4), ev(6), ev(8), ev(10)
	tests := []struct {
		name       string
		ids        []uuid.UUID
		after      uuid.UUID
		limit      int
		start, end int
		next       uuid.UUID // the id the next cursor resumes after; uuid.Nil for none
	}{
		{"empty listing", nil, uuid.Nil, 50, 0, 0, uuid.Nil},
		{"empty listing with a cursor", nil, ev(4), 50, 0, 0, uuid.Nil},
		{"first page, all fit", five, uuid.Nil, 50, 0, 5, uuid.Nil},
		{"first page, exactly fits", five, uuid.Nil, 5, 0, 5, uuid.Nil},
		{"first page, one short", five, uuid.Nil, 4, 0, 4, ev(8)},
		{"page of one", five, uuid.Nil, 1, 0, 1, ev(2)},
		{"after the first id", five, ev(2), 2, 1, 3, ev(6)},
		{"after an id no longer listed resumes in order", five, ev(5), 2, 2, 4, ev(8)},
		{"after an id before every listed one", five, ev(1), 2, 0, 2, ev(4)},
		{"after the second to last", five, ev(8), 2, 4, 5, uuid.Nil},
		{"after the last id", five, ev(10), 2, 5, 5, uuid.Nil},
		{"after an id past the listing", five, ev(99), 2, 5, 5, uuid.Nil},
		{"a limit below 1 reads as 1", five, uuid.Nil, 0, 0, 1, ev(2)},
		{"a negative limit reads as 1", five, ev(2), -3, 1, 2, ev(4)},
		{"the ceiling in one page", listed(provenance.Ceiling), uuid.Nil, provenance.Ceiling, 0, provenance.Ceiling, uuid.Nil},
		{"the last page of a full listing", listed(provenance.Ceiling), ev(2 * (provenance.Ceiling - provenance.MaxLimit)), provenance.MaxLimit,
			provenance.Ceiling - provenance.MaxLimit, provenance.Ceiling, uuid.Nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := provenance.PageSlice(tt.ids, tt.after, tt.limit)
			want := provenance.Slice{Start: tt.start, End: tt.end, NextCursor: provenance.EncodeCursor(tt.next)}
			if got != want {
				t.Errorf("PageSlice = %+v, want %+v", got, want)
			}
		})
	}
}

// TestPageSliceWalk pages through listings of every length with every
// limit: following the cursors visits each id exactly once, in order.
func TestPageSliceWalk(t *testing.T) {
	for n := 0; n <= 12; n++ {
		ids := listed(n)
		for limit := 1; limit <= n+1; limit++ {
			var seen []uuid.UUID
			after := uuid.Nil
			for pages := 0; ; pages++ {
				if pages > n {
					t.Fatalf("n=%d limit=%d: the walk does not end", n, limit)
				}
				s := provenance.PageSlice(ids, after, limit)
				seen = append(seen, ids[s.Start:s.End]...)
				if s.NextCursor == "" {
					break
				}
				var err error
				if after, err = provenance.DecodeCursor(s.NextCursor); err != nil {
					t.Fatal(err)
				}
			}
			if fmt.Sprint(seen) != fmt.Sprint(ids) {
				t.Errorf("n=%d limit=%d: walked %v, want %v", n, limit, seen, ids)
			}
		}
	}
}
