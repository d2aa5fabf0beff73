package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
	"github.com/batonhq/baton/provenance"
	"github.com/google/uuid"
)

// Client defaults, declared once.
const (
	// DefaultTimeout bounds a call.
	DefaultTimeout = 5 * time.Second
	// DefaultCloseTimeout bounds Close and SessionEnd, which run while the
	// harness terminates.
	DefaultCloseTimeout = time.Second
	// DefaultRetries is how many times an idempotent call is sent again.
	DefaultRetries = 2
	// DefaultBackoff is the wait before the first retry; it doubles.
	DefaultBackoff = 100 * time.Millisecond
	// DefaultIdleConns is how many idle connections to the server a
	// Client without its own HTTPClient keeps.
	DefaultIdleConns = 32
	// maxAnswerBytes bounds an answer the client reads: a larger one is
	// internal, read no further.
	maxAnswerBytes = 16 << 20
	// maxErrorText bounds, in characters, an error answer's message and
	// each of its fields' names and reasons as the client returns them;
	// maxErrorFields bounds how many fields it keeps (the first by name).
	maxErrorText   = 500
	maxErrorFields = 32
)

// ClientOptions configures a Client. Zero values take the defaults.
type ClientOptions struct {
	// HTTPClient sends the requests; nil is a client of the package's own
	// whose time is bounded per call. The Client sends them through a copy
	// that follows no redirect.
	HTTPClient *http.Client
	// Timeout bounds each call, its retries included (DefaultTimeout).
	Timeout time.Duration
	// CloseTimeout bounds Close and SessionEnd (DefaultCloseTimeout).
	CloseTimeout time.Duration
	// Retries is how many times an idempotent call is sent again after no
	// answer or a gateway's 502, 503 or 504 (DefaultRetries); negative
	// sends each call once.
	Retries int
	// Backoff is the wait before the first retry, doubled for each next
	// one (DefaultBackoff).
	Backoff time.Duration
}

// Client is continuity.API over the HTTP surface of a baton server: the
// tenant is the one its API key belongs to. Errors are the server's,
// decoded back into *continuity.Error with their codes and fields, as text
// safe to print on one line (see serverError); a call that gets no answer
// returns an internal error wrapping ErrUnreachable.
//
// The actor of a memory write is the transport's, user_api: the wire never
// carries one, and the Actor fields of params are not sent.
type Client struct {
	base string
	key  string
	http *http.Client
	opts ClientOptions
	// bad is the error every call returns when the base URL or the key
	// cannot be used: nothing is sent.
	bad error
}

var _ continuity.API = (*Client)(nil)

// NewClient returns the client of the server at baseURL (the handler's
// mount point, for example http://127.0.0.1:8377 or
// https://host/baton), authenticating with apiKey. A baseURL ServerURL
// refuses, or a key SendableKey refuses (an empty one sends none), makes
// every call invalid, saying which, and sends nothing: the key never
// travels to where a query or a scheme the client does not speak would
// take it, nor in a header it would break.
func NewClient(baseURL, apiKey string, opts ClientOptions) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.CloseTimeout <= 0 {
		opts.CloseTimeout = DefaultCloseTimeout
	}
	switch {
	case opts.Retries == 0:
		opts.Retries = DefaultRetries
	case opts.Retries < 0:
		opts.Retries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	var hc http.Client
	if opts.HTTPClient != nil {
		hc = *opts.HTTPClient
	} else {
		// Its own transport keeps up to DefaultIdleConns connections to
		// the server open between calls, so concurrent callers of one
		// Client reuse them (the default transport keeps two).
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = DefaultIdleConns
		hc.Transport = tr
	}
	// A baton server never redirects: a redirect is an error answer,
	// never followed, whoever's HTTPClient sends the call. Followed, it
	// would carry the key to the Location (net/http keeps Authorization
	// for the same host on another port or scheme, and for a subdomain),
	// send a write's body again to another server (307, 308) or turn it
	// into a GET (301, 302). The caller's client is copied, not changed.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c := &Client{key: apiKey, http: &hc, opts: opts}
	base, err := ServerURL(baseURL)
	switch {
	case err != nil:
		c.bad = continuity.Errorf(continuity.CodeInvalid, "the server URL %v: it must be a baton server's http:// or https:// URL", err)
	case len(apiKey) > MaxKeyLen:
		c.bad = continuity.Errorf(continuity.CodeInvalid, "the API key is longer than %d bytes: no server holds such a key", MaxKeyLen)
	case apiKey != "" && !SendableKey(apiKey):
		c.bad = continuity.Errorf(continuity.CodeInvalid, "the API key holds a space, a control character or a byte outside ASCII: it cannot travel in an Authorization header")
	}
	c.base = strings.TrimRight(base, "/")
	return c
}

// ServerURL returns raw, the space around it trimmed, when it is a URL a
// Client can call: http or https, a host, no credentials, query or
// fragment. Its error says what is wrong with it and never echoes it (it
// may hold a password).
func ServerURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case strings.TrimSpace(raw) == "":
		// Said as it is, not as a URL without a scheme.
		return "", errors.New("is blank")
	case err != nil:
		return "", errors.New("is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", errors.New("has no http or https scheme")
	case u.Host == "" || u.Hostname() == "":
		return "", errors.New("names no host")
	case u.User != nil:
		return "", errors.New("carries credentials (a key goes in the API key, never in the URL)")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", errors.New("has a query or a fragment")
	}
	return u.String(), nil
}

// call makes the API call of route name with req (nil when the route takes
// none), filling the path values of path, and returns its answer.
func call[R any](ctx context.Context, c *Client, name string, path map[string]string, req any) (R, error) {
	var out R
	err := c.do(ctx, routeNamed(name), path, req, &out)
	return out, err
}

// do sends one call, retrying it while it is idempotent and unanswered,
// and decodes the answer into out.
func (c *Client) do(ctx context.Context, rt *route, path map[string]string, req, out any) error {
	if c.bad != nil {
		return c.bad
	}
	url := c.base + expand(rt.path, path)
	var body []byte
	if rt.method == http.MethodGet {
		if req != nil {
			if q := encodeQuery(req).Encode(); q != "" {
				url += "?" + q
			}
		}
	} else {
		if req == nil {
			req = struct{}{}
		}
		b, err := json.Marshal(req)
		if err != nil {
			return continuity.Errorf(continuity.CodeInvalid, "the request cannot be written as JSON")
		}
		body = keepInvalidUTF8(b)
	}
	timeout := c.opts.Timeout
	if rt.traits&closing != 0 {
		timeout = c.opts.CloseTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	retries := 0
	if rt.retry != nil && rt.retry(req) {
		retries = c.opts.Retries
	}
	for attempt := 0; ; attempt++ {
		status, ctype, answer, err := c.send(ctx, rt.method, url, body)
		if err == nil && !gateway(status) {
			return decodeAnswer(rt, status, ctype, answer, out)
		}
		if err == nil {
			err = fmt.Errorf("a gateway answered %d", status)
		}
		if attempt >= retries || !sleep(ctx, c.opts.Backoff<<attempt) {
			return unreachable(err)
		}
	}
}

// send makes one HTTP request and reads its answer: its status, its
// Content-Type and its body.
func (c *Client) send(ctx context.Context, method, url string, body []byte) (int, string, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	// One byte past the bound tells an answer over it from one that
	// fills it: cut short, an answer would be read as less than was sent.
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return 0, "", nil, err
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), answer, nil
}

// gateway reports whether status says the server was not reached.
func gateway(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// sleep waits d, or reports false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// noRoute is the message of the handler's answer to a path that is none
// of its routes.
const noRoute = "no such route"

// noBatonRoute is the error of a call whose URL reached no route of a
// baton server: what answered, and to check the URL. Nothing of the API
// answered, so it is unreachable (internal, wrapping ErrUnreachable),
// never a not_found a caller would take for the server's decision (a
// conversation it has not seen, to be opened).
func noBatonRoute(what string) error {
	msg := what + ": is the URL the baton server's own, with the path it is mounted under (https://host/PREFIX, without /api/v1)?"
	return &continuity.Error{Code: continuity.CodeInternal, Message: ErrUnreachable.Error() + ": " + msg,
		Err: fmt.Errorf("%w: %s", ErrUnreachable, msg)}
}

// decodeAnswer reads an answer of route rt into out, or returns its error:
// the server's *continuity.Error (with the partial result of an episode
// call read into out beside it), else the code of the status.
//
// A success is the route's only when it is: its status exactly, and for a
// route that answers a body, a JSON object (every route's answer is one:
// TestEveryAnswerIsAnObject) holding every member the route always answers.
// Anything else (a proxy's or another server's 200, an empty body, a JSON
// null, {}, another route's answer) is internal: it is never read as a
// result nobody sent.
func decodeAnswer(rt *route, status int, ctype string, answer []byte, out any) error {
	if len(answer) > maxAnswerBytes {
		return continuity.Errorf(continuity.CodeInternal, "the server answered %d with a body of more than %d bytes, which the client does not read", status, maxAnswerBytes)
	}
	if status >= 200 && status < 300 {
		if err := isRouteAnswer(rt, status, ctype, answer); err != nil {
			return &continuity.Error{Code: continuity.CodeInternal, Message: "the server's answer is not this route's", Err: err}
		}
		if rt.response == nil {
			return nil
		}
		if err := json.Unmarshal(answer, out); err != nil {
			return &continuity.Error{Code: continuity.CodeInternal, Message: "the server's answer cannot be read", Err: err}
		}
		return nil
	}
	if status >= 300 && status < 400 {
		// Whatever its body says: the Location is not read, let alone
		// echoed (it may hold the URL's or the key's secrets).
		return continuity.Errorf(continuity.CodeInternal, "the server answered %d %s, a redirect, which a baton server never answers and the client does not follow: is the URL the server's own (scheme, host and path)?", status, http.StatusText(status))
	}
	var eb ErrorBody
	switch {
	case json.Unmarshal(answer, &eb) != nil || eb.Error == nil || eb.Error.Code == "":
		if status == http.StatusNotFound {
			// Another server's page, or a host's route beside baton's.
			return noBatonRoute("the server answered 404 Not Found, not as a baton server does")
		}
		return continuity.Errorf(codeOf(status), "the server answered %d %s", status, http.StatusText(status))
	case status == http.StatusNotFound && eb.Error.Code == continuity.CodeNotFound && eb.Error.Message == noRoute:
		// A baton handler, reached under a path that is not its own: the
		// URL's path is not the one it is mounted under.
		return noBatonRoute("the server has no such route")
	}
	if rt.traits&partial != 0 {
		_ = json.Unmarshal(answer, out) // a failed episode call's result so far
	}
	return serverError(eb.Error, status)
}

// serverError returns the error of an error answer as text a caller may
// print on one line of a terminal, as the hook prints it on its one stderr
// line and every command on the person's terminal: a code outside baton's
// set is the status's, and the message and the fields are on one line
// each (runes.OneLine: no control character, no escape sequence, no line
// separator) and bounded (maxErrorText, maxErrorFields). A baton server's
// errors are such text already, and come back as they were.
func serverError(e *continuity.Error, status int) *continuity.Error {
	text := func(s string) string { return runes.Ellipsize(runes.OneLine(s), maxErrorText) }
	out := &continuity.Error{Code: e.Code, Message: text(e.Message)}
	if _, ok := statuses[e.Code]; !ok {
		out.Code = codeOf(status)
	}
	if len(e.Fields) == 0 {
		return out
	}
	names := slices.Sorted(maps.Keys(e.Fields))
	names = names[:min(len(names), maxErrorFields)]
	out.Fields = make(map[string]string, len(names))
	for _, k := range names {
		out.Fields[text(k)] = text(e.Fields[k])
	}
	return out
}

// isRouteAnswer reports why a success answer is not one route rt gives.
func isRouteAnswer(rt *route, status int, ctype string, answer []byte) error {
	if status != rt.status {
		return fmt.Errorf("status %d, the route answers %d", status, rt.status)
	}
	body := bytes.TrimSpace(answer)
	if rt.response == nil {
		if len(body) != 0 {
			return errors.New("a body where the route answers none")
		}
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ctype); err != nil || mt != "application/json" {
		return fmt.Errorf("Content-Type %q, the route answers application/json", ctype)
	}
	var members map[string]json.RawMessage
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &members) != nil {
		return errors.New("the body is not a JSON object")
	}
	// Every member the route always answers is there: an object without
	// them is another route's, a proxy's or another server's answer (an
	// empty {}), and read as this route's it would be a zero result. A
	// member the route does not know is not refused: a newer server may
	// answer more.
	if rt.response.Kind() == reflect.Struct {
		for _, f := range fieldsOf(rt.response) {
			if _, ok := members[f.name]; !ok && !f.optional {
				return fmt.Errorf("the answer lacks the route's member %q", f.name)
			}
		}
	}
	return nil
}

// expand fills a route's path values.
func expand(pattern string, values map[string]string) string {
	for name, v := range values {
		pattern = strings.Replace(pattern, "{"+name+"}", segment(v), 1)
	}
	return pattern
}

// segment escapes a path value as one path segment: every byte but
// letters, digits, '-', '_' and '~' percent-encoded, so that no value (a
// '/', a "..") changes which route it reaches. An empty value, and a lone
// '/' (which ServeMux does not route as a segment), travel after one
// space, which every id parser trims: the service, not the router, then
// refuses them, naming the field.
func segment(v string) string {
	if v == "" || v == "/" {
		v = " " + v
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := range len(v) {
		c := v[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// keepInvalidUTF8 undoes encoding/json's one silent change to a request:
// it writes each byte of a string that is not UTF-8 as the escape \ufffd
// (and a real U+FFFD as itself). The byte goes out as a byte that is not
// UTF-8 (0xFF) instead, so the server refuses the text, naming its field,
// as the local service would, rather than store a replacement character.
func keepInvalidUTF8(b []byte) []byte {
	const replaced = `\ufffd`
	if !bytes.Contains(b, []byte(replaced)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] != '\\' || i+1 >= len(b):
			out = append(out, b[i])
		case bytes.HasPrefix(b[i:], []byte(replaced)):
			out = append(out, 0xff)
			i += len(replaced) - 1
		default: // another escape: its backslash and the byte after it
			out = append(out, b[i], b[i+1])
			i++
		}
	}
	return out
}

// SessionStart implements continuity.API.
func (c *Client) SessionStart(ctx context.Context, p continuity.StartParams) (continuity.StartResult, error) {
	return call[continuity.StartResult](ctx, c, "SessionStart", nil, p)
}

// UserPrompt implements continuity.API.
func (c *Client) UserPrompt(ctx context.Context, p continuity.PromptParams) (continuity.PromptEventResult, error) {
	return call[continuity.PromptEventResult](ctx, c, "UserPrompt", nil, p)
}

// Stop implements continuity.API.
func (c *Client) Stop(ctx context.Context, p continuity.StopParams) (continuity.StopResult, error) {
	return call[continuity.StopResult](ctx, c, "Stop", nil, p)
}

// PreCompact implements continuity.API.
func (c *Client) PreCompact(ctx context.Context, p continuity.PreCompactParams) (continuity.PreCompactResult, error) {
	return call[continuity.PreCompactResult](ctx, c, "PreCompact", nil, p)
}

// SessionEnd implements continuity.API, within the close timeout.
func (c *Client) SessionEnd(ctx context.Context, p continuity.EndParams) (continuity.EndResult, error) {
	return call[continuity.EndResult](ctx, c, "SessionEnd", nil, p)
}

// RecordFailure implements continuity.API.
func (c *Client) RecordFailure(ctx context.Context, p continuity.FailureParams) error {
	_, err := call[none](ctx, c, "RecordFailure", nil, p)
	return err
}

// Open implements continuity.API. A startup is retried (its natural key is
// its request token); a resume is not.
func (c *Client) Open(ctx context.Context, p continuity.OpenParams) (continuity.OpenResult, error) {
	return call[continuity.OpenResult](ctx, c, "Open", nil, p)
}

// Heartbeat implements continuity.API.
func (c *Client) Heartbeat(ctx context.Context, p continuity.HeartbeatParams) (continuity.HeartbeatResult, error) {
	return call[continuity.HeartbeatResult](ctx, c, "Heartbeat", nil, p)
}

// Close implements continuity.API, within the close timeout.
func (c *Client) Close(ctx context.Context, p continuity.CloseParams) (continuity.CloseResult, error) {
	return call[continuity.CloseResult](ctx, c, "Close", nil, p)
}

// Session implements continuity.API.
func (c *Client) Session(ctx context.Context, agent, sessionID string) (continuity.SessionView, error) {
	return call[continuity.SessionView](ctx, c, "Session", nil, SessionKey{Agent: agent, SessionID: sessionID})
}

// TriageBegin implements continuity.API.
func (c *Client) TriageBegin(ctx context.Context, p continuity.TriageParams) (continuity.TriageBeginResult, error) {
	return call[continuity.TriageBeginResult](ctx, c, "TriageBegin", nil, p)
}

// TriageComplete implements continuity.API.
func (c *Client) TriageComplete(ctx context.Context, p continuity.TriageCompleteParams) (continuity.TriageCompleteResult, error) {
	return call[continuity.TriageCompleteResult](ctx, c, "TriageComplete", nil, p)
}

// Debrief implements continuity.API.
func (c *Client) Debrief(ctx context.Context, p continuity.DebriefParams) (string, error) {
	r, err := call[TextResult](ctx, c, "Debrief", nil, p)
	return r.Text, err
}

// Remember implements continuity.API.
func (c *Client) Remember(ctx context.Context, p continuity.RememberParams) (continuity.WriteResult, error) {
	return call[continuity.WriteResult](ctx, c, "Remember", nil, p)
}

// Revise implements continuity.API.
func (c *Client) Revise(ctx context.Context, id string, p continuity.ReviseParams) (continuity.WriteResult, error) {
	return call[continuity.WriteResult](ctx, c, "Revise", map[string]string{"id": id}, p)
}

// Resolve implements continuity.API.
func (c *Client) Resolve(ctx context.Context, id string, p continuity.TransitionParams) (continuity.WriteResult, error) {
	return call[continuity.WriteResult](ctx, c, "Resolve", map[string]string{"id": id}, p)
}

// Unresolve implements continuity.API.
func (c *Client) Unresolve(ctx context.Context, id string, p continuity.TransitionParams) (continuity.WriteResult, error) {
	return call[continuity.WriteResult](ctx, c, "Unresolve", map[string]string{"id": id}, p)
}

// Archive implements continuity.API.
func (c *Client) Archive(ctx context.Context, id string, p continuity.TransitionParams) (continuity.WriteResult, error) {
	return call[continuity.WriteResult](ctx, c, "Archive", map[string]string{"id": id}, p)
}

// Import implements continuity.API. The actor is the server's (user_api).
func (c *Client) Import(ctx context.Context, p continuity.ImportParams, _ continuity.ActorKind) (continuity.WriteResult, error) {
	return call[continuity.WriteResult](ctx, c, "Import", nil, p)
}

// Memory implements continuity.API.
func (c *Client) Memory(ctx context.Context, id string) (continuity.Memory, error) {
	return call[continuity.Memory](ctx, c, "Memory", map[string]string{"id": id}, nil)
}

// Briefing implements continuity.API.
func (c *Client) Briefing(ctx context.Context, p continuity.BriefingParams) (continuity.Briefing, error) {
	return call[continuity.Briefing](ctx, c, "Briefing", nil, p)
}

// RunEvents implements continuity.API.
func (c *Client) RunEvents(ctx context.Context, runID, cursor string, limit int) (provenance.Page, error) {
	return call[provenance.Page](ctx, c, "RunEvents", map[string]string{"sessionRunId": runID}, EventsQuery{Cursor: cursor, Limit: limit})
}

// Records implements continuity.API.
func (c *Client) Records(ctx context.Context, q continuity.RecordQuery) ([]continuity.Record, error) {
	r, err := call[RecordList](ctx, c, "Records", nil, q)
	return r.Items, err
}

// AppendReceipt implements continuity.API.
func (c *Client) AppendReceipt(ctx context.Context, p continuity.ReceiptParams) (uuid.UUID, error) {
	r, err := call[IDResult](ctx, c, "AppendReceipt", nil, p)
	return r.ID, err
}

// Ledger implements continuity.API.
func (c *Client) Ledger(ctx context.Context, after uuid.UUID, limit int) ([]continuity.LedgerEntry, error) {
	r, err := call[LedgerPage](ctx, c, "Ledger", nil, LedgerQuery{After: after, Limit: limit})
	return r.Items, err
}

// ArmBottle implements continuity.API.
func (c *Client) ArmBottle(ctx context.Context, agent string, m bottle.Marker) error {
	_, err := call[none](ctx, c, "ArmBottle", nil, ArmRequest{Agent: agent, Marker: m})
	return err
}

// ClaimBottle implements continuity.API.
func (c *Client) ClaimBottle(ctx context.Context, agent, sessionID string) (bottle.Marker, bool, error) {
	r, err := call[ClaimResult](ctx, c, "ClaimBottle", nil, SessionKey{Agent: agent, SessionID: sessionID})
	if !r.Claimed || r.Marker == nil {
		return bottle.Marker{}, false, err
	}
	return *r.Marker, true, err
}

// SessionHistory implements continuity.API.
func (c *Client) SessionHistory(ctx context.Context, agent, sessionID string) (bottle.Record, error) {
	return call[bottle.Record](ctx, c, "SessionHistory", nil, SessionKey{Agent: agent, SessionID: sessionID})
}

// RecordPrompt implements continuity.API.
func (c *Client) RecordPrompt(ctx context.Context, agent, sessionID, text string) (continuity.PromptResult, error) {
	return call[continuity.PromptResult](ctx, c, "RecordPrompt", nil, PromptRequest{Agent: agent, SessionID: sessionID, Text: text})
}

// Doctor implements continuity.API.
func (c *Client) Doctor(ctx context.Context) (continuity.DoctorReport, error) {
	return call[continuity.DoctorReport](ctx, c, "Doctor", nil, nil)
}

// Sessions implements continuity.API.
func (c *Client) Sessions(ctx context.Context, q continuity.SessionQuery) ([]continuity.SessionView, error) {
	r, err := call[SessionList](ctx, c, "Sessions", nil, q)
	return r.Items, err
}

// SessionLedger implements continuity.API.
func (c *Client) SessionLedger(ctx context.Context, sessionID string, after uuid.UUID, limit int) ([]continuity.LedgerEntry, error) {
	r, err := call[LedgerPage](ctx, c, "SessionLedger", nil, SessionLedgerQuery{SessionID: sessionID, After: after, Limit: limit})
	return r.Items, err
}
