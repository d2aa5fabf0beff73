package statuspage

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/continuity/workdir"
	"github.com/batonhq/baton/lease"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// states are the lease states a listing filters on, in the order the
// filter offers them.
var states = []lease.State{lease.Live, lease.ImplicitlyClosed, lease.ExplicitlyClosed}

// sessionsPage is the sessions listing.
type sessionsPage struct {
	Project, State string
	States         []string
	Projects       []string
	Items          []continuity.SessionView
}

func (h *handler) sessions(ctx context.Context, api continuity.API, q url.Values, _ time.Time) (string, any, error) {
	p := sessionsPage{Project: strings.TrimSpace(q.Get("project")), State: q.Get("state")}
	for _, s := range states {
		p.States = append(p.States, s.String())
	}
	sq := continuity.SessionQuery{Project: p.Project, ByProject: p.Project != ""}
	if p.State != "" {
		var st lease.State
		if err := st.UnmarshalText([]byte(p.State)); err != nil {
			return "", nil, continuity.Invalid("state", "must be live, implicitly_closed or explicitly_closed")
		}
		sq.States = []lease.State{st}
	}
	items, err := api.Sessions(ctx, sq)
	if err != nil {
		return "", nil, err
	}
	p.Items = items
	all, err := api.Sessions(ctx, continuity.SessionQuery{})
	if err != nil {
		return "", nil, err
	}
	seen := map[string]bool{}
	for _, v := range all {
		if v.Project != "" && !seen[v.Project] {
			seen[v.Project] = true
			p.Projects = append(p.Projects, v.Project)
		}
	}
	slices.Sort(p.Projects)
	return "Sessions", p, nil
}

// line is one ledger line of a conversation's timeline.
type line struct {
	continuity.LedgerEntry
	// Class is receipt, failure or lifecycle.
	Class  string
	Fields []field
}

type field struct{ Key, Value string }

// record is a checkpoint or handover with its labels.
type record struct {
	continuity.Record
	Freshness  freshness.Reading
	Divergence freshness.Divergence
	// Why says why the divergence is unknown, when it is.
	Why     string
	History bool
}

// sessionPage is one conversation.
type sessionPage struct {
	continuity.SessionView
	Timeline []line
	// TimelineCut says the ledger was read to its bound before its end.
	TimelineCut bool
	Events      []provenance.Item
	EventsCut   bool
	Records     []record
	Bottle      string
	BottleCut   int
	// NoBottle says why there is no bottle to show.
	NoBottle string
}

func (h *handler) session(ctx context.Context, api continuity.API, q url.Values, now time.Time) (string, any, error) {
	agent, sid := q.Get("agent"), q.Get("id")
	v, err := api.Session(ctx, agent, sid)
	if err != nil {
		return "", nil, err
	}
	p := sessionPage{SessionView: v}
	if p.Timeline, p.TimelineCut, err = timeline(ctx, api, agent, sid); err != nil {
		return "", nil, err
	}
	if p.Events, p.EventsCut, err = runEvents(ctx, api, v.ID); err != nil {
		return "", nil, err
	}
	rs, err := api.Records(ctx, continuity.RecordQuery{Agent: agent, SessionID: sid, Limit: continuity.MaxRecords})
	if err != nil {
		return "", nil, err
	}
	p.Records = h.labelled(ctx, rs, now)
	p.Bottle, p.BottleCut, p.NoBottle = h.bottle(agent, sid)
	return "Session " + sid, p, nil
}

// timeline reads the conversation's ledger lines: those of its session id
// whose agent, when a line names one, is its agent.
func timeline(ctx context.Context, api continuity.API, agent, sid string) ([]line, bool, error) {
	var out []line
	after := uuid.Nil
	for range maxLedgerReads {
		es, err := api.SessionLedger(ctx, sid, after, continuity.MaxLedgerRead)
		if err != nil {
			return nil, false, err
		}
		for _, e := range es {
			if e.Fields["agent"] != "" && e.Fields["agent"] != agent {
				continue
			}
			l := line{LedgerEntry: e, Class: "lifecycle"}
			switch e.Event {
			case continuity.EventReceived:
				l.Class = "receipt"
			case continuity.EventFailed:
				l.Class = "failure"
			}
			for _, k := range slices.Sorted(maps.Keys(e.Fields)) {
				l.Fields = append(l.Fields, field{k, e.Fields[k]})
			}
			out = append(out, l)
		}
		if len(es) < continuity.MaxLedgerRead {
			return out, false, nil
		}
		after = es[len(es)-1].ID
	}
	return out, true, nil
}

// runEvents reads a run's provenance events, every page of them.
func runEvents(ctx context.Context, api continuity.API, run uuid.UUID) ([]provenance.Item, bool, error) {
	var out []provenance.Item
	cursor := ""
	for {
		pg, err := api.RunEvents(ctx, run.String(), cursor, provenance.MaxLimit)
		if err != nil {
			return nil, false, err
		}
		out = append(out, pg.Items...)
		if pg.NextCursor == "" {
			return out, pg.Truncated, nil
		}
		cursor = pg.NextCursor
	}
}

// labelled gives each record its freshness at now and its divergence
// against WorkDir's HEAD when the record is of WorkDir's project.
func (h *handler) labelled(ctx context.Context, rs []continuity.Record, now time.Time) []record {
	var head *workdir.Head
	project := ""
	if h.opts.WorkDir != "" {
		project = workdir.Project(h.opts.WorkDir)
	}
	out := make([]record, 0, len(rs))
	for _, r := range rs {
		l := record{Record: r, Freshness: h.opts.Freshness.Of(r.CreatedAt, now)}
		l.History = l.Freshness.Label.History()
		switch {
		case r.GitCommit == "":
			l.Why = "the record carries no commit"
		case project == "" || r.Project != project:
			l.Why = "no work tree of its project here"
		default:
			if head == nil {
				hd, err := workdir.Git(ctx, h.opts.WorkDir)
				if err != nil {
					hd = workdir.Head{}
				}
				head = &hd
			}
			t := freshness.Topology{Git: head.InWorkTree, Recorded: freshness.Ref{Commit: r.GitCommit, Branch: r.GitBranch},
				Current: freshness.Ref{Commit: head.Commit, Branch: head.Branch}}
			if freshness.Diverge(t) == freshness.Diverged {
				t.RecordedIsAncestor, _ = workdir.IsAncestor(ctx, h.opts.WorkDir, r.GitCommit, head.Commit)
			}
			l.Divergence = freshness.Diverge(t)
			if l.Divergence == freshness.DivergenceUnknown {
				l.Why = "git cannot compare it here"
			}
		}
		out = append(out, l)
	}
	return out
}

// bottle reads the conversation's bottle, at most MaxBottleBytes of it:
// the text, how many bytes were left out, or why there is none.
func (h *handler) bottle(agent, sid string) (text string, cut int, none string) {
	if h.opts.Bottles == nil {
		return "", 0, "No bottle here: this server keeps no bottles (a bottle is rendered where the transcript is)."
	}
	b, err := h.opts.Bottles(agent, sid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", 0, "No bottle here: this conversation has none on this machine."
	case err != nil:
		return "", 0, "The bottle could not be read."
	}
	if len(b) > MaxBottleBytes {
		keep := MaxBottleBytes
		for keep > 0 && !utf8.RuneStart(b[keep]) {
			keep--
		}
		cut, b = len(b)-keep, b[:keep]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), cut, ""
}

// memoryItem is a briefing row with its project and the run that wrote it.
type memoryItem struct {
	continuity.BriefingItem
	Project string
	Run     *continuity.SessionView
	// Flag is "overdue" or "stale" when the briefing lists the row so.
	Flag string
}

// memoryGroup is one project's open commitments and blockers and recent
// decisions.
type memoryGroup struct {
	Project   string
	Open      []memoryItem
	Decisions []memoryItem
}

type memoryPage struct {
	Project string
	Groups  []memoryGroup
}

// openSections are the briefing sections that hold open commitments and
// blockers.
var openSections = []string{continuity.SectionCommitments, continuity.SectionBlockers, continuity.SectionOverdue, continuity.SectionStale}

func (h *handler) memory(ctx context.Context, api continuity.API, q url.Values, _ time.Time) (string, any, error) {
	p := memoryPage{Project: strings.TrimSpace(q.Get("project"))}
	sessions, err := api.Sessions(ctx, continuity.SessionQuery{})
	if err != nil {
		return "", nil, err
	}
	// The run that wrote a memory is the run its first attributed event
	// names, among the listed conversations' runs.
	type writer struct {
		event uuid.UUID
		run   *continuity.SessionView
	}
	wrote := map[uuid.UUID]writer{}
	projects := []string{p.Project}
	for i := range sessions {
		v := &sessions[i]
		if p.Project == "" && !slices.Contains(projects, v.Project) {
			projects = append(projects, v.Project)
		}
		events, _, err := runEvents(ctx, api, v.ID)
		if err != nil {
			return "", nil, err
		}
		for _, e := range events {
			if w, ok := wrote[e.MemoryID]; !ok || e.ID.String() < w.event.String() {
				wrote[e.MemoryID] = writer{e.ID, v}
			}
		}
	}
	groups := map[string]*memoryGroup{}
	seen := map[uuid.UUID]bool{}
	for _, project := range projects {
		b, err := api.Briefing(ctx, continuity.BriefingParams{Project: project})
		if err != nil {
			return "", nil, err
		}
		for _, it := range b.Items {
			decision := it.Section == continuity.SectionDecisions
			if seen[it.ID] || !decision && !slices.Contains(openSections, it.Section) {
				continue
			}
			seen[it.ID] = true
			m, err := api.Memory(ctx, it.ID.String())
			if err != nil {
				return "", nil, err
			}
			if p.Project != "" && m.Project != p.Project && m.Project != "" {
				continue
			}
			g := groups[m.Project]
			if g == nil {
				g = &memoryGroup{Project: m.Project}
				groups[m.Project] = g
			}
			mi := memoryItem{BriefingItem: it, Project: m.Project, Run: wrote[it.ID].run}
			switch it.Section {
			case continuity.SectionOverdue:
				mi.Flag = "overdue"
			case continuity.SectionStale:
				mi.Flag = "stale"
			}
			if decision {
				g.Decisions = append(g.Decisions, mi)
			} else {
				g.Open = append(g.Open, mi)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		p.Groups = append(p.Groups, *groups[k])
	}
	return "Memory", p, nil
}

type doctorPage struct {
	Report continuity.DoctorReport
}

func (h *handler) doctor(ctx context.Context, api continuity.API, _ url.Values, _ time.Time) (string, any, error) {
	r, err := api.Doctor(ctx)
	if err != nil {
		return "", nil, err
	}
	return "Doctor", doctorPage{Report: r}, nil
}
