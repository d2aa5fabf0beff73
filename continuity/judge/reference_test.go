package judge

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// The commitments the reference tables judge.
var (
	lease   = commitment("0190f1c2-7a3b-7c4d-8e5f-001122334455", "lease")
	docs    = commitment("0190f1c2-7a3b-7c4d-8e5f-66778899aabb", "docs")
	ship    = commitment("0190f1c3-0000-7000-8000-000000000001", "ship")
	shipAll = commitment("0190f1c4-0000-7000-8000-000000000002", "Ship   the Release")
	twinA   = commitment("0190f1c5-0000-7000-8000-000000000003", "twin")
	twinB   = commitment("0190f1c6-0000-7000-8000-000000000004", "twin")
	briefed = []continuity.Memory{lease, docs, ship, shipAll}
)

func commitment(id, topic string) continuity.Memory {
	return continuity.Memory{ID: uuid.MustParse(id), Kind: continuity.KindCommitment, Topic: topic,
		Content: topic + " content", Status: continuity.StatusOpen}
}

func ids(ms ...continuity.Memory) []uuid.UUID {
	var out []uuid.UUID
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestReferenceExcerpt(t *testing.T) {
	stranger := "0190ffff-0000-7000-8000-00000000abcd"
	for _, tc := range []struct {
		name, excerpt string
		cs            []continuity.Memory
		want          []uuid.UUID
	}{
		{"empty excerpt", "", briefed, nil},
		{"no commitments", "done: lease", nil, nil},
		{"done: topic", "Done: lease", briefed, ids(lease)},
		{"resolved topic without separator", "resolved docs", briefed, ids(docs)},
		{"each completion word", "completed lease\nfinished docs\nclosed ship\nshipped: ship the release", briefed, ids(lease, docs, ship, shipAll)},
		{"fixed and fulfilled", "fixed - lease; fulfilled — docs", briefed, ids(lease, docs)},
		{"en dash separator", "done – lease", briefed, ids(lease)},
		{"markdown emphasis", "**Done:** lease", briefed, ids(lease)},
		{"case and white space", "DONE:   SHIP  THE\tRELEASE", briefed, ids(shipAll)},
		{"the longest nested topic wins", "done: ship the release", briefed, ids(shipAll)},
		{"a topic must end its item", "done: ship the docs", briefed, nil},
		{"a topic inside a longer word", "done: leases", briefed, nil},
		{"a possessive does not end the item", "done: lease's tests", briefed, nil},
		{"closing punctuation ends the item", "done: lease.", briefed, ids(lease)},
		{"a list of references", "done: lease, docs and `ship`", briefed, ids(lease, docs, ship)},
		{"a list joined by ampersand and oxford comma", "done: lease & docs, and ship", briefed, ids(lease, docs, ship)},
		{"a list stops at the first non-reference", "done: lease, the tests and docs", briefed, ids(lease)},
		{"quoted topic", `done: "docs".`, briefed, ids(docs)},
		{"curly quoted topic", "done: “docs”", briefed, ids(docs)},
		{"full id", "resolved " + lease.ID.String(), briefed, ids(lease)},
		{"full id in upper case", "done: " + strings.ToUpper(docs.ID.String()), briefed, ids(docs)},
		{"eight-character prefix naming one", "completed: 0190f1c3", briefed, ids(ship)},
		{"prefix followed by prose", "resolved 0190f1c3 (the ship item)", briefed, ids(ship)},
		{"prefix shared by two commitments", "completed: 0190f1c2", briefed, nil},
		{"longer prefix telling them apart", "completed: 0190f1c2-7a3b-7c4d-8e5f-0011", briefed, ids(lease)},
		{"seven characters is too short", "completed: 0190f1c", []continuity.Memory{ship}, nil},
		{"an id glued to a word", "done: 0190f1c3x", briefed, nil},
		{"an id not briefed", "resolved " + stranger, briefed, nil},
		{"a topic two commitments share", "done: twin", []continuity.Memory{twinA, twinB}, nil},
		{"task-list box", "- [x] docs\n* [x] lease", briefed, ids(lease, docs)},
		{"task-list box without bullet", "[X] ship", briefed, ids(ship)},
		{"unticked box", "- [ ] docs", briefed, nil},
		{"mentioned but not done", "Next I will look at the lease and the docs.", briefed, nil},
		{"a completion word far from the topic", "Done. Next: lease", briefed, nil},
		{"done with is not a marker", "done with lease", briefed, nil},
		{"not", "not done: lease", briefed, nil},
		{"n't", "I haven't finished: docs", briefed, nil},
		{"curly n’t", "I haven’t finished: docs", briefed, nil},
		{"never", "never completed: docs", briefed, nil},
		{"future", "this will be completed: lease", briefed, nil},
		{"need to", "I still need to have resolved: lease", briefed, nil},
		{"condition", "once done: lease, ping me", briefed, nil},
		{"not yet", "docs not yet done: lease", briefed, nil},
		{"hyphenated negation", "not-done: lease", briefed, nil},
		{"negation in an earlier clause", "the tests are not green, but done: lease", briefed, ids(lease)},
		{"negation in an earlier sentence", "Not the docs. Done: lease", briefed, ids(lease)},
		{"negation in an earlier line", "not yet\ndone: lease", briefed, ids(lease)},
		{"negation after the marker", "done: lease, not docs", briefed, ids(lease)},
		{"two markers on one line", "done: lease; resolved docs", briefed, ids(lease, docs)},
		{"the verdict keeps the case's order", "done: ship\ndone: lease", briefed, ids(lease, ship)},
		{"a reference twice is one verdict", "done: lease\nresolved lease", briefed, ids(lease)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Reference{}.Judge(context.Background(), continuity.JudgeCase{Excerpt: tc.excerpt, Commitments: tc.cs})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.Completed, tc.want) || v.Usage != (continuity.JudgeUsage{}) {
				t.Fatalf("verdict %v usage %+v, want %v and no usage", v.Completed, v.Usage, tc.want)
			}
		})
	}
}

func TestReferenceEvents(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ev := func(m continuity.Memory, kind continuity.EventKind, d time.Duration) provenance.Item {
		return provenance.Item{ID: uuid.New(), MemoryID: m.ID, EventKind: string(kind), CreatedAt: at.Add(d)}
	}
	updated := func(m continuity.Memory, d time.Duration) continuity.Memory { m.UpdatedAt = at.Add(d); return m }
	for _, tc := range []struct {
		name   string
		events []provenance.Item
		cs     []continuity.Memory
		want   []uuid.UUID
	}{
		{"no events", nil, briefed, nil},
		{"a resolve", []provenance.Item{ev(lease, continuity.EventResolve, 0)}, briefed, ids(lease)},
		{"a create is not done", []provenance.Item{ev(lease, continuity.EventCreate, 0)}, briefed, nil},
		{"resolve then unresolve", []provenance.Item{ev(lease, continuity.EventResolve, 0), ev(lease, continuity.EventUnresolve, 1)}, briefed, nil},
		{"unresolve then resolve", []provenance.Item{ev(lease, continuity.EventUnresolve, 0), ev(lease, continuity.EventResolve, 1)}, briefed, ids(lease)},
		{"resolve then archive", []provenance.Item{ev(docs, continuity.EventResolve, 0), ev(docs, continuity.EventArchive, 1)}, briefed, nil},
		{"resolve then supersede", []provenance.Item{ev(docs, continuity.EventResolve, 0), ev(docs, continuity.EventSupersede, 1)}, briefed, nil},
		{"a resolve then a create event of it", []provenance.Item{ev(docs, continuity.EventResolve, 0), ev(docs, continuity.EventCreate, 1)}, briefed, ids(docs)},
		{"a resolve of a commitment not briefed", []provenance.Item{ev(twinA, continuity.EventResolve, 0)}, briefed, nil},
		{"updated at the resolve's instant", []provenance.Item{ev(lease, continuity.EventResolve, 0)}, []continuity.Memory{updated(lease, 0)}, ids(lease)},
		{"updated a microsecond before it", []provenance.Item{ev(lease, continuity.EventResolve, 0)}, []continuity.Memory{updated(lease, -time.Microsecond)}, ids(lease)},
		{"updated a microsecond after it: reopened since", []provenance.Item{ev(lease, continuity.EventResolve, 0)}, []continuity.Memory{updated(lease, time.Microsecond)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Reference{}.Judge(context.Background(), continuity.JudgeCase{Events: tc.events, Commitments: tc.cs})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.Completed, tc.want) {
				t.Fatalf("verdict %v, want %v", v.Completed, tc.want)
			}
		})
	}
}

func TestCheckCase(t *testing.T) {
	many := func(n int, mk func(i int) continuity.Memory) []continuity.Memory {
		out := make([]continuity.Memory, n)
		for i := range out {
			out[i] = mk(i)
		}
		return out
	}
	distinct := func(int) continuity.Memory { return commitment(uuid.NewString(), "t") }
	for _, tc := range []struct {
		name  string
		c     continuity.JudgeCase
		field string // "" when valid
	}{
		{"empty", continuity.JudgeCase{}, ""},
		{"excerpt at the limit", continuity.JudgeCase{Excerpt: strings.Repeat("é", continuity.MaxExcerptLen)}, ""},
		{"excerpt one over", continuity.JudgeCase{Excerpt: strings.Repeat("é", continuity.MaxExcerptLen+1)}, "excerpt"},
		{"excerpt not UTF-8", continuity.JudgeCase{Excerpt: "\xff"}, "excerpt"},
		{"excerpt with NUL", continuity.JudgeCase{Excerpt: "a\x00"}, "excerpt"},
		{"tenant one over", continuity.JudgeCase{Tenant: strings.Repeat("t", continuity.MaxTenantLen+1)}, "tenant"},
		{"commitments at the limit", continuity.JudgeCase{Commitments: many(continuity.MaxBriefedMemories, distinct)}, ""},
		{"commitments one over", continuity.JudgeCase{Commitments: many(continuity.MaxBriefedMemories+1, distinct)}, "commitments"},
		{"events at the ceiling", continuity.JudgeCase{Events: make([]provenance.Item, provenance.Ceiling)}, ""},
		{"events one over", continuity.JudgeCase{Events: make([]provenance.Item, provenance.Ceiling+1)}, "events"},
		{"nil id", continuity.JudgeCase{Commitments: []continuity.Memory{{Topic: "t"}}}, "commitments[0].id"},
		{"an id twice", continuity.JudgeCase{Commitments: []continuity.Memory{lease, docs, lease}}, "commitments[2].id"},
		{"topic one over", continuity.JudgeCase{Commitments: []continuity.Memory{commitment(lease.ID.String(), strings.Repeat("t", continuity.MaxTopicLen+1))}}, "commitments[0].topic"},
		{"content one over", continuity.JudgeCase{Commitments: []continuity.Memory{{ID: lease.ID, Content: strings.Repeat("c", continuity.MaxContentLen+1)}}}, "commitments[0].content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckCase(tc.c)
			_, rerr := Reference{}.Judge(context.Background(), tc.c)
			if tc.field == "" {
				if err != nil || rerr != nil {
					t.Fatalf("CheckCase %v, Judge %v; want both nil", err, rerr)
				}
				return
			}
			if continuity.ErrorCode(err) != continuity.CodeInvalid || continuity.ErrorFields(err)[tc.field] == "" {
				t.Fatalf("CheckCase = %v, want invalid naming %s", err, tc.field)
			}
			if continuity.ErrorCode(rerr) != continuity.CodeInvalid {
				t.Fatalf("Reference.Judge = %v, want invalid", rerr)
			}
		})
	}
}

// FuzzReference feeds the excerpt parser arbitrary text: it never panics,
// and it resolves only commitments of the case, each once.
func FuzzReference(f *testing.F) {
	for _, s := range []string{"done: lease", "- [x] docs, ship and `lease`", "resolved 0190f1c3", "not done: docs", "**Done:** “ship the release”."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, excerpt string) {
		c := continuity.JudgeCase{Excerpt: excerpt, Commitments: briefed}
		v, err := Reference{}.Judge(context.Background(), c)
		if err != nil {
			if CheckCase(c) == nil {
				t.Fatalf("judge failed on a valid case: %v", err)
			}
			return
		}
		seen := map[uuid.UUID]bool{}
		for _, id := range v.Completed {
			if seen[id] || !slices.ContainsFunc(briefed, func(m continuity.Memory) bool { return m.ID == id }) {
				t.Fatalf("verdict %v names %v twice or not briefed", v.Completed, id)
			}
			seen[id] = true
		}
	})
}
