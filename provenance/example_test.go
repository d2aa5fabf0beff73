package provenance_test

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/provenance"
)

func ExampleDecide() {
	run := uuid.MustParse("0195d1b2-7c3e-7abc-9def-0123456789ab")

	// A write carrying the id of a run whose lease lapsed with no sweep yet.
	d := provenance.Decide(provenance.Input{
		RunID: &run,
		Run:   &provenance.Run{ID: run, State: lease.ImplicitlyClosed},
	})
	fmt.Println(d.Action, d.RunID)

	// A write carrying an id the tenant does not own.
	fmt.Println(provenance.Decide(provenance.Input{RunID: &run}).Action)

	// An id-less write while two sessions of the project are open.
	other := uuid.MustParse("0195d1b2-7c3e-7abc-9def-000000000001")
	fmt.Println(provenance.Decide(provenance.Input{Candidates: []uuid.UUID{run, other}}).Action)
	// Output:
	// resurrect_and_attach 0195d1b2-7c3e-7abc-9def-0123456789ab
	// forbidden
	// unattributed
}

func ExampleDecodeCursor() {
	last := uuid.MustParse("0195d1b2-7c3e-7abc-9def-0123456789ab")
	c := provenance.EncodeCursor(last)
	id, err := provenance.DecodeCursor(c)
	fmt.Println(id, err)

	_, err = provenance.DecodeCursor("not-a-cursor")
	fmt.Println(err)
	// Output:
	// 0195d1b2-7c3e-7abc-9def-0123456789ab <nil>
	// cursor: is not a cursor this server issued
}
