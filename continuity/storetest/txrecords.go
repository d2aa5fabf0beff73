package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// recordRow is a checkpoint or handover of tenant A's conversation.
func recordRow(kind continuity.RecordKind, ag, sid, project string, at time.Time) continuity.Record {
	return continuity.Record{ID: newID(), Tenant: tenantA, Kind: kind, Agent: ag, SessionID: sid, SessionRunID: newID(),
		Project: project, Objective: "o " + sid, State: "s", NextAction: "n", CreatedAt: at}
}

func txInsertRecord(t *testing.T, f *fixture) {
	now := f.clock.Now()
	full := recordRow(continuity.RecordHandover, agent, "s1", "baton", now)
	full.Task, full.GitCommit, full.GitBranch, full.BottlePath, full.Reason = "t-1", "0a1b2c", "main", "/b/s1.md", "exit"
	bare := recordRow(continuity.RecordCheckpoint, agent, "s2", "", now.Add(time.Second))
	for _, r := range []*continuity.Record{&full, &bare} {
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, r) })
	}
	var got []continuity.Record
	inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
		var err error
		got, err = tx.Records(ctx, continuity.RecordQuery{})
		return err
	})
	same(t, "every column round-trips, newest first", got, []continuity.Record{bare, full})
	// Records are append-only: an id is never reused, in any tenant.
	for _, tenant := range []string{tenantA, tenantB} {
		dup := bare
		wantCode(t, methodErr(t, f, tenant, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, &dup) }),
			continuity.CodeConflict)
	}
}

func txRecords(t *testing.T, f *fixture) {
	now := f.clock.Now()
	var rows []continuity.Record
	for i, spec := range []struct {
		kind         continuity.RecordKind
		ag, sid, prj string
	}{
		{continuity.RecordCheckpoint, agent, "s1", "baton"},
		{continuity.RecordHandover, agent, "s1", "baton"},
		{continuity.RecordHandover, "codex", "s1", "baton"},
		{continuity.RecordHandover, agent, "s2", ""},
		{continuity.RecordCheckpoint, agent, "s3", "other"},
	} {
		r := recordRow(spec.kind, spec.ag, spec.sid, spec.prj, now.Add(time.Duration(i)*time.Second))
		inWrite(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, &r) })
		rows = append(rows, r)
	}
	b := recordRow(continuity.RecordHandover, agent, "s1", "baton", now)
	inWrite(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error { return tx.InsertRecord(ctx, &b) })
	pick := func(is ...int) []continuity.Record {
		out := []continuity.Record{}
		for _, i := range is {
			out = append(out, rows[i])
		}
		return out
	}
	cases := []struct {
		name string
		q    continuity.RecordQuery
		want []continuity.Record
	}{
		{"all, newest first", continuity.RecordQuery{}, pick(4, 3, 2, 1, 0)},
		{"by project", continuity.RecordQuery{ByProject: true, Project: "baton"}, pick(2, 1, 0)},
		{"by no project", continuity.RecordQuery{ByProject: true}, pick(3)},
		{"project without ByProject matches anything", continuity.RecordQuery{Project: "nope"}, pick(4, 3, 2, 1, 0)},
		{"by agent", continuity.RecordQuery{Agent: "codex"}, pick(2)},
		{"by conversation", continuity.RecordQuery{Agent: agent, SessionID: "s1"}, pick(1, 0)},
		{"by kind", continuity.RecordQuery{Kinds: []continuity.RecordKind{continuity.RecordHandover}}, pick(3, 2, 1)},
		{"newest handover of a project", continuity.RecordQuery{ByProject: true, Project: "baton", Kinds: []continuity.RecordKind{continuity.RecordHandover}, Limit: 1}, pick(2)},
		{"keyset before", continuity.RecordQuery{Before: rows[2].ID}, pick(1, 0)},
		{"limit", continuity.RecordQuery{Limit: 2}, pick(4, 3)},
		{"nothing matches", continuity.RecordQuery{SessionID: "unknown"}, []continuity.Record{}},
		{"before the first", continuity.RecordQuery{Before: rows[0].ID}, []continuity.Record{}},
	}
	for _, tc := range cases {
		var got []continuity.Record
		inRead(t, f, tenantA, func(ctx context.Context, tx continuity.Tx) error {
			var err error
			got, err = tx.Records(ctx, tc.q)
			return err
		})
		same(t, tc.name, got, tc.want)
	}
	// Tenant B sees its own record only.
	var gotB []continuity.Record
	inRead(t, f, tenantB, func(ctx context.Context, tx continuity.Tx) error {
		var err error
		gotB, err = tx.Records(ctx, continuity.RecordQuery{Before: uuid.Max})
		return err
	})
	b.Tenant = tenantB
	same(t, "tenant B's records", gotB, []continuity.Record{b})
}
