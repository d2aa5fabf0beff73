package judge_test

import (
	"context"
	"fmt"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/judge"
	"github.com/google/uuid"
)

// The reference judge resolves what the excerpt names after a completion
// marker, by topic or by id prefix, and nothing said otherwise.
func ExampleReference() {
	lease := continuity.Memory{ID: uuid.MustParse("0190f1c2-7a3b-7c4d-8e5f-001122334455"), Topic: "lease"}
	docs := continuity.Memory{ID: uuid.MustParse("0190f1c3-7a3b-7c4d-8e5f-66778899aabb"), Topic: "docs"}
	ship := continuity.Memory{ID: uuid.MustParse("0190f1c4-7a3b-7c4d-8e5f-ccddeeff0011"), Topic: "ship"}
	v, err := judge.Reference{}.Judge(context.Background(), continuity.JudgeCase{
		Excerpt:     "Done: lease.\nresolved 0190f1c3 as well.\nNot finished: ship.",
		Commitments: []continuity.Memory{lease, docs, ship},
	})
	if err != nil {
		panic(err)
	}
	for _, id := range v.Completed {
		fmt.Println(id)
	}
	// Output:
	// 0190f1c2-7a3b-7c4d-8e5f-001122334455
	// 0190f1c3-7a3b-7c4d-8e5f-66778899aabb
}
