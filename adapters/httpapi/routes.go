package httpapi

import (
	"context"
	"io"
	"net/http"
	"reflect"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/provenance"
)

// route is one route of the HTTP surface. The handler serves the table
// below, the client calls it, and the OpenAPI description is generated
// from it, so the three cannot disagree.
type route struct {
	// name is the continuity.API method the route carries (Health for the
	// probe).
	name   string
	method string
	// path is a ServeMux path relative to where the handler is mounted;
	// {name} is a path value.
	path string
	// request is the type of the body (POST) or the query (GET); nil when
	// the route takes neither.
	request reflect.Type
	// response is the type of the success answer's body; nil when the
	// answer has none.
	response reflect.Type
	status   int
	traits   trait
	// retry reports whether the client may send the request again after a
	// failure that may have happened after the server acted on it: reads,
	// and writes the contract makes idempotent by natural key.
	retry func(req any) bool
	// serve calls the API with the decoded request (a pointer to a value
	// of request) and the request's path values.
	serve func(ctx context.Context, api continuity.API, req any, path func(string) string) (any, error)
}

// trait is a property of a route.
type trait uint8

const (
	// public routes need no API key.
	public trait = 1 << iota
	// partial routes (the episode methods) answer a failure with what
	// their result holds so far beside the error: the receipt id.
	partial
	// closing routes run while the harness terminates: the client's close
	// timeout bounds them.
	closing
	// admin routes take an administrator's key (Options.AdminAuthenticator),
	// which decides the tenant they act on; a tenant's own key is forbidden.
	admin
)

// pattern is the route's ServeMux pattern, and its name in the logs.
func (rt *route) pattern() string { return rt.method + " " + rt.path }

// none stands for an absent request or response body.
type none struct{}

// healthText is the probe's plain-text answer.
type healthText string

// always and never are retry policies.
func always(any) bool { return true }
func never(any) bool  { return false }

// endpoint returns a route whose request is a P and whose answer an R.
func endpoint[P, R any](name, method, path string, status int, traits trait, retry func(any) bool,
	serve func(ctx context.Context, api continuity.API, p P, path func(string) string) (R, error)) route {
	rt := route{name: name, method: method, path: path, status: status, traits: traits, retry: retry,
		serve: func(ctx context.Context, api continuity.API, req any, path func(string) string) (any, error) {
			return serve(ctx, api, *req.(*P), path)
		}}
	if t := reflect.TypeFor[P](); t != reflect.TypeFor[none]() {
		rt.request = t
	}
	if t := reflect.TypeFor[R](); t != reflect.TypeFor[none]() {
		rt.response = t
	}
	if method == http.MethodGet {
		rt.retry = always
	}
	return rt
}

// startupOnly retries an open that is a startup: its natural key is its
// request token. A resume is an activation, not a retry: sent twice, it
// bumps the epoch twice.
func startupOnly(req any) bool {
	p, ok := req.(continuity.OpenParams)
	return ok && p.Source == continuity.SourceStartup
}

// actor is the transport an HTTP write is made through. The wire never
// carries an actor: a caller does not choose how its write is attributed.
const actor = continuity.ActorUserAPI

const get, post = http.MethodGet, http.MethodPost

// routes is the HTTP surface: DESIGN.md's contract table, and one route
// per continuity.API method.
var routes = []route{
	endpoint("Health", get, "/healthz", http.StatusOK, public, nil,
		func(context.Context, continuity.API, none, func(string) string) (healthText, error) { return "ok", nil }),

	// The episode methods: one round trip per hook event.
	endpoint("SessionStart", post, "/api/v1/episodes/start", http.StatusOK, partial, never,
		func(ctx context.Context, api continuity.API, p continuity.StartParams, _ func(string) string) (continuity.StartResult, error) {
			return api.SessionStart(ctx, p)
		}),
	endpoint("UserPrompt", post, "/api/v1/episodes/prompt", http.StatusOK, partial, never,
		func(ctx context.Context, api continuity.API, p continuity.PromptParams, _ func(string) string) (continuity.PromptEventResult, error) {
			return api.UserPrompt(ctx, p)
		}),
	endpoint("Stop", post, "/api/v1/episodes/stop", http.StatusOK, partial, never,
		func(ctx context.Context, api continuity.API, p continuity.StopParams, _ func(string) string) (continuity.StopResult, error) {
			return api.Stop(ctx, p)
		}),
	endpoint("PreCompact", post, "/api/v1/episodes/precompact", http.StatusOK, partial, never,
		func(ctx context.Context, api continuity.API, p continuity.PreCompactParams, _ func(string) string) (continuity.PreCompactResult, error) {
			return api.PreCompact(ctx, p)
		}),
	endpoint("SessionEnd", post, "/api/v1/episodes/end", http.StatusOK, partial|closing, never,
		func(ctx context.Context, api continuity.API, p continuity.EndParams, _ func(string) string) (continuity.EndResult, error) {
			return api.SessionEnd(ctx, p)
		}),
	endpoint("RecordFailure", post, "/api/v1/episodes/failure", http.StatusNoContent, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.FailureParams, _ func(string) string) (none, error) {
			return none{}, api.RecordFailure(ctx, p)
		}),

	// The lifecycle primitives and the triage handshake.
	endpoint("Open", post, "/api/v1/agent-sessions/open", http.StatusOK, 0, startupOnly,
		func(ctx context.Context, api continuity.API, p continuity.OpenParams, _ func(string) string) (continuity.OpenResult, error) {
			return api.Open(ctx, p)
		}),
	endpoint("Heartbeat", post, "/api/v1/agent-sessions/heartbeat", http.StatusOK, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.HeartbeatParams, _ func(string) string) (continuity.HeartbeatResult, error) {
			return api.Heartbeat(ctx, p)
		}),
	endpoint("Close", post, "/api/v1/agent-sessions/close", http.StatusOK, closing, always,
		func(ctx context.Context, api continuity.API, p continuity.CloseParams, _ func(string) string) (continuity.CloseResult, error) {
			return api.Close(ctx, p)
		}),
	endpoint("Session", get, "/api/v1/agent-sessions", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, p SessionKey, _ func(string) string) (continuity.SessionView, error) {
			return api.Session(ctx, p.Agent, p.SessionID)
		}),
	endpoint("TriageBegin", post, "/api/v1/agent-sessions/triage/begin", http.StatusOK, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.TriageParams, _ func(string) string) (continuity.TriageBeginResult, error) {
			return api.TriageBegin(ctx, p)
		}),
	endpoint("TriageComplete", post, "/api/v1/agent-sessions/triage/complete", http.StatusOK, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.TriageCompleteParams, _ func(string) string) (continuity.TriageCompleteResult, error) {
			return api.TriageComplete(ctx, p)
		}),
	endpoint("RunEvents", get, "/api/v1/agent-sessions/{sessionRunId}/events", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, q EventsQuery, path func(string) string) (provenance.Page, error) {
			return api.RunEvents(ctx, path("sessionRunId"), q.Cursor, q.Limit)
		}),
	endpoint("Debrief", get, "/api/v1/prompts/debrief", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, p continuity.DebriefParams, _ func(string) string) (TextResult, error) {
			text, err := api.Debrief(ctx, p)
			return TextResult{Text: text}, err
		}),

	// The curated memory.
	endpoint("Remember", post, "/api/v1/memories", http.StatusCreated, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.RememberParams, _ func(string) string) (continuity.WriteResult, error) {
			p.Actor = actor
			return api.Remember(ctx, p)
		}),
	endpoint("Import", post, "/api/v1/memories/import", http.StatusCreated, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.ImportParams, _ func(string) string) (continuity.WriteResult, error) {
			return api.Import(ctx, p, actor)
		}),
	endpoint("Memory", get, "/api/v1/memories/{id}", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, _ none, path func(string) string) (continuity.Memory, error) {
			return api.Memory(ctx, path("id"))
		}),
	endpoint("Revise", post, "/api/v1/memories/{id}/revise", http.StatusOK, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.ReviseParams, path func(string) string) (continuity.WriteResult, error) {
			p.Actor = actor
			return api.Revise(ctx, path("id"), p)
		}),
	transition("Resolve", "/api/v1/memories/{id}/resolve", continuity.API.Resolve),
	transition("Unresolve", "/api/v1/memories/{id}/unresolve", continuity.API.Unresolve),
	transition("Archive", "/api/v1/memories/{id}/archive", continuity.API.Archive),
	endpoint("Briefing", get, "/api/v1/briefing", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, p continuity.BriefingParams, _ func(string) string) (continuity.Briefing, error) {
			return api.Briefing(ctx, p)
		}),

	// Checkpoints and handovers; the receipts ledger.
	endpoint("Records", get, "/api/v1/records", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, q continuity.RecordQuery, _ func(string) string) (RecordList, error) {
			rs, err := api.Records(ctx, q)
			return RecordList{Items: orEmpty(rs)}, err
		}),
	endpoint("AppendReceipt", post, "/api/v1/receipts", http.StatusCreated, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.ReceiptParams, _ func(string) string) (IDResult, error) {
			id, err := api.AppendReceipt(ctx, p)
			return IDResult{ID: id}, err
		}),
	endpoint("Ledger", get, "/api/v1/ledger", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, q LedgerQuery, _ func(string) string) (LedgerPage, error) {
			es, err := api.Ledger(ctx, q.After, q.Limit)
			return LedgerPage{Items: orEmpty(es)}, err
		}),

	// The bottle's marker and history, which bottling through a server
	// needs: the bottle itself is rendered where the transcript is.
	endpoint("ArmBottle", post, "/api/v1/bottles/arm", http.StatusNoContent, 0, never,
		func(ctx context.Context, api continuity.API, p ArmRequest, _ func(string) string) (none, error) {
			return none{}, api.ArmBottle(ctx, p.Agent, p.Marker)
		}),
	endpoint("ClaimBottle", post, "/api/v1/bottles/claim", http.StatusOK, 0, never,
		func(ctx context.Context, api continuity.API, p SessionKey, _ func(string) string) (ClaimResult, error) {
			m, claimed, err := api.ClaimBottle(ctx, p.Agent, p.SessionID)
			if !claimed {
				return ClaimResult{}, err
			}
			return ClaimResult{Claimed: true, Marker: &m}, err
		}),
	endpoint("SessionHistory", get, "/api/v1/bottles/history", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, p SessionKey, _ func(string) string) (bottle.Record, error) {
			return api.SessionHistory(ctx, p.Agent, p.SessionID)
		}),
	endpoint("RecordPrompt", post, "/api/v1/bottles/prompts", http.StatusOK, 0, never,
		func(ctx context.Context, api continuity.API, p PromptRequest, _ func(string) string) (continuity.PromptResult, error) {
			return api.RecordPrompt(ctx, p.Agent, p.SessionID, p.Text)
		}),

	// Health of what is written, not of what is reachable.
	endpoint("Doctor", get, "/api/v1/doctor", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, _ none, _ func(string) string) (continuity.DoctorReport, error) {
			return api.Doctor(ctx)
		}),
	// The status page's listing.
	endpoint("Sessions", get, "/api/v1/agent-sessions/list", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, q continuity.SessionQuery, _ func(string) string) (SessionList, error) {
			vs, err := api.Sessions(ctx, q)
			return SessionList{Items: orEmpty(vs)}, err
		}),
	endpoint("SessionLedger", get, "/api/v1/ledger/session", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, q SessionLedgerQuery, _ func(string) string) (LedgerPage, error) {
			es, err := api.SessionLedger(ctx, q.SessionID, q.After, q.Limit)
			return LedgerPage{Items: orEmpty(es)}, err
		}),
}

// transition returns the route of a memory status transition.
func transition(name, path string, verb func(continuity.API, context.Context, string, continuity.TransitionParams) (continuity.WriteResult, error)) route {
	return endpoint(name, post, path, http.StatusOK, 0, never,
		func(ctx context.Context, api continuity.API, p continuity.TransitionParams, path func(string) string) (continuity.WriteResult, error) {
			p.Actor = actor
			return verb(api, ctx, path("id"), p)
		})
}

// routeNamed returns the route of an API method; the table holds one per
// method (a test asserts it).
func routeNamed(name string) *route {
	for i := range routes {
		if routes[i].name == name {
			return &routes[i]
		}
	}
	panic("httpapi: no route for " + name)
}

// exportStream is the answer of a streamed route: it writes the body,
// JSON lines, once the success status is sent.
type exportStream func(w io.Writer) error

// dataRoutes are a tenant's data rights: its export, and its erase by an
// administrator. No hook event needs them, so they carry no continuity.API
// method and the Client does not call them; the handler reaches
// continuity.TenantData on the API it binds (the local service's Local).
var dataRoutes = []route{
	endpoint("Export", get, "/api/v1/export", http.StatusOK, 0, nil,
		func(ctx context.Context, api continuity.API, _ none, _ func(string) string) (exportStream, error) {
			td, err := tenantData(api)
			if err != nil {
				return nil, err
			}
			return func(w io.Writer) error { _, err := td.Export(ctx, w); return err }, nil
		}),
	endpoint("Erase", post, "/api/v1/admin/erase", http.StatusOK, admin, never,
		func(ctx context.Context, api continuity.API, p continuity.EraseParams, _ func(string) string) (continuity.EraseResult, error) {
			td, err := tenantData(api)
			if err != nil {
				return continuity.EraseResult{}, err
			}
			return td.Erase(ctx, p)
		}),
}

// tenantData returns the export and erase of the bound API.
func tenantData(api continuity.API) (continuity.TenantData, error) {
	td, ok := api.(continuity.TenantData)
	if !ok {
		return nil, continuity.Errorf(continuity.CodeInternal, "this server's API does not export or erase tenants")
	}
	return td, nil
}

// served is every route the handler serves: the API's, then the data
// rights'.
var served = append(append([]route{}, routes...), dataRoutes...)
