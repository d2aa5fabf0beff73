package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"strings"
	"time"

	"github.com/batonhq/baton/adapters/statuspage"
	"github.com/batonhq/baton/continuity"
	"github.com/google/uuid"
)

// MaxBodyBytes bounds a request body; a larger one is too_large.
const MaxBodyBytes = 64 << 10

// Handler defaults, declared once.
const (
	// DefaultBodyTimeout bounds reading a request's body under a server
	// that sets no ReadTimeout of its own (Options.BodyTimeout): a body is
	// at most MaxBodyBytes, so only a client that stalls takes that long.
	DefaultBodyTimeout = time.Minute
	// workTimeout bounds the work of a write once its body is read. The
	// work is not the client's to cancel: a hook that gives up (its own
	// timeout, its process killed by the harness) after sending a whole
	// event would otherwise leave it half done on the server, its receipt
	// never written.
	workTimeout = time.Minute
)

// Options configures a Handler.
type Options struct {
	// Authenticator decides each request's tenant. Nil refuses every
	// request but the health probe.
	Authenticator Authenticator
	// AdminAuthenticator decides the tenant of an administrator's request
	// (POST /api/v1/admin/erase): its keys are a set apart from
	// Authenticator's, in the same key=tenant form (ParseKeys), an admin
	// key administering its tenant. Nil refuses every admin request; a key
	// Authenticator knows is forbidden there.
	AdminAuthenticator Authenticator
	// Logger receives one line per request: its id, route, status and
	// duration, never a body, a query or a tenant's content. Nil logs
	// nothing.
	Logger *slog.Logger
	// Status, when set, serves the read-only status page under /status/
	// (see package statuspage), behind Authenticator unless it names its
	// own.
	Status *statuspage.Options
	// BodyTimeout bounds reading a request's body when the server sets no
	// ReadTimeout of its own (DefaultBodyTimeout): a client that sends its
	// headers and stalls in its body (a slow-loris) is answered invalid,
	// naming the body, rather than holding its connection for ever. A
	// server's ReadTimeout, when it sets one, is left to bound it alone.
	BodyTimeout time.Duration
}

// handler serves the route table.
type handler struct {
	api   func(tenant string) continuity.API
	auth  Authenticator
	admin Authenticator
	log   *slog.Logger
	// body bounds reading a request's body (Options.BodyTimeout).
	body time.Duration
}

// NewHandler returns the HTTP surface over api, which binds a tenant that
// the request's authentication decided to its continuity.API (for the
// local service, Service.For). Its routes are relative: mount it under a
// prefix with http.StripPrefix. It uses the standard library's ServeMux
// only.
func NewHandler(api func(tenant string) continuity.API, opts Options) http.Handler {
	h := &handler{api: api, auth: opts.Authenticator, admin: opts.AdminAuthenticator, log: opts.Logger, body: opts.BodyTimeout}
	if h.body <= 0 {
		h.body = DefaultBodyTimeout
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	for i := range served {
		rt := &served[i]
		mux.Handle(rt.pattern(), h.observe(rt.pattern(), func(w http.ResponseWriter, r *http.Request) { h.serve(w, r, rt) }))
	}
	if opts.Status != nil {
		so := *opts.Status
		if so.Authenticator == nil && opts.Authenticator != nil {
			so.Authenticator = opts.Authenticator
		}
		page := http.StripPrefix("/status", statuspage.New(api, so))
		mux.Handle("GET /status/", h.observe("GET /status/", page.ServeHTTP))
		mux.Handle("GET /status", h.observe("GET /status", func(w http.ResponseWriter, r *http.Request) {
			// Relative, so it holds under whatever prefix the handler is mounted.
			// (http.Redirect would make it absolute from the stripped path.)
			w.Header().Set("Location", "status/")
			w.WriteHeader(http.StatusMovedPermanently)
		}))
	}
	unmatched := h.observe("unmatched", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, ErrorBody{Error: continuity.Errorf(continuity.CodeNotFound, noRoute)})
	})
	mux.Handle("/", unmatched)
	// A path the mux would clean first (an empty, . or .. segment, read
	// as sent: an escaped dot is a path value's) is no route either: the mux would answer it with an HTML redirect, which a
	// client of a JSON API cannot read and should not follow with its key
	// and body.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect && !canonical(r.URL.EscapedPath()) {
			unmatched.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// canonical says whether p is a path ServeMux serves as it is: rooted,
// with no empty, . or .. segment (a trailing slash is kept).
func canonical(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	clean := path.Clean(p)
	if p[len(p)-1] == '/' && clean != "/" {
		clean += "/"
	}
	return clean == p
}

// observe logs each request of a route: its id (also answered as
// X-Request-Id), the route, the status and the duration, and aborted=true
// when the answer was cut off after its status (a stream that failed) or
// never sent (a handler that panicked: net/http then drops the connection),
// the status then 0.
// Nothing a caller sent is logged, so no memory content, excerpt or prompt
// ever is.
func (h *handler) observe(route string, serve http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := uuid.NewString()
		w.Header().Set("X-Request-Id", id)
		// No answer is ever to be read as another type than it says: a
		// page may have a browser fetch any GET as a script or a style, key
		// or not (a keyless server takes every request to its loopback
		// host for the local tenant's).
		w.Header().Set("X-Content-Type-Options", "nosniff")
		sw := &statusWriter{ResponseWriter: w}
		answered := false
		// Deferred, so a request whose answer is aborted (a panic with
		// http.ErrAbortHandler, which net/http then swallows) is logged too.
		defer func() {
			attrs := []slog.Attr{slog.String("id", id), slog.String("route", route),
				slog.Int("status", sw.status), slog.Duration("duration", time.Since(start))}
			if !answered {
				attrs = append(attrs, slog.Bool("aborted", true))
			}
			h.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
		}()
		serve(sw, r)
		answered = true
		if sw.status == 0 {
			sw.status = http.StatusOK // net/http answers a handler that wrote nothing
		}
	})
}

// serve authenticates, decodes, calls the API once and encodes.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, rt *route) {
	var api continuity.API
	if rt.traits&public == 0 {
		authenticate := h.authenticate
		if rt.traits&admin != 0 {
			authenticate = h.authenticateAdmin
		}
		tenant, err := authenticate(r)
		if err != nil {
			writeJSON(w, Status(continuity.ErrorCode(err)), ErrorBody{Error: wireError(err)})
			return
		}
		api = h.api(tenant)
	}
	req, err := decodeRequest(w, r, rt, h.body)
	if err != nil {
		writeJSON(w, Status(continuity.ErrorCode(err)), ErrorBody{Error: wireError(err)})
		return
	}
	// The request's context ends when its client disconnects; a write it
	// sent whole is done all the same (workTimeout says why). A read so
	// abandoned, an export's stream included, has nothing to finish.
	ctx := r.Context()
	if rt.method != http.MethodGet {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), workTimeout)
		defer cancel()
	}
	res, err := rt.serve(ctx, api, req, r.PathValue)
	switch {
	case err != nil && rt.traits&partial != 0:
		writeJSON(w, Status(continuity.ErrorCode(err)), errorAnswer(err, res))
	case err != nil:
		writeJSON(w, Status(continuity.ErrorCode(err)), ErrorBody{Error: wireError(err)})
	case rt.response == nil:
		w.WriteHeader(rt.status)
	case rt.response == reflect.TypeFor[exportStream]():
		writeStream(w, res.(exportStream))
	case rt.response == reflect.TypeFor[healthText]():
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(rt.status)
		io.WriteString(w, string(res.(healthText)))
	default:
		writeJSON(w, rt.status, res)
	}
}

// authenticate returns the request's tenant, or the error to answer:
// unauthorized with one message whatever the authenticator said, or its
// forbidden.
func (h *handler) authenticate(r *http.Request) (string, error) {
	if h.auth == nil {
		return "", errUnauthorized
	}
	tenant, err := h.auth.Authenticate(r)
	switch {
	case err == nil:
		return tenant, nil
	case continuity.ErrorCode(err) == continuity.CodeForbidden:
		return "", err
	}
	return "", errUnauthorized
}

// errNotAdmin answers a tenant's own key on an admin route.
var errNotAdmin = &continuity.Error{Code: continuity.CodeForbidden, Message: "this route needs an administrator's key"}

// authenticateAdmin returns the tenant an administrator's key administers,
// or the error to answer: forbidden for a key only Authenticator knows,
// unauthorized for any other.
func (h *handler) authenticateAdmin(r *http.Request) (string, error) {
	if h.admin != nil {
		tenant, err := h.admin.Authenticate(r)
		switch {
		case err == nil:
			return tenant, nil
		case continuity.ErrorCode(err) == continuity.CodeForbidden:
			return "", err
		}
	}
	if _, err := h.authenticate(r); err == nil {
		return "", errNotAdmin
	}
	return "", errUnauthorized
}

// writeStream answers a streamed route: the status, then the body as the
// stream writes it. A failure once the status is sent can no longer be
// answered, so the response is aborted: the client sees a cut body, never
// a complete-looking one.
func writeStream(w http.ResponseWriter, stream exportStream) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if err := stream(w); err != nil {
		panic(http.ErrAbortHandler)
	}
}

// decodeRequest returns a pointer to the route's request decoded from the
// body (POST, sent as application/json) or the query (GET), at most
// MaxBodyBytes of body read, within timeout when the server bounds no
// read of its own. A route that takes no query (a POST, a read
// of nothing but its path) refuses every query parameter, as a body
// refuses a member its request has not: ignored, it would be one the
// caller meant (a run id to attribute a write to). The health probe
// answers whatever asks it.
//
// Errors: invalid, too_large.
func decodeRequest(w http.ResponseWriter, r *http.Request, rt *route, timeout time.Duration) (any, error) {
	query := r.URL.RawQuery
	if rt.traits&public != 0 {
		query = ""
	}
	// URL.Query would drop a malformed pair without a word, and with it
	// a parameter the caller meant.
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, continuity.Invalid("query", "must be name=value pairs joined by '&', each escape %XX")
	}
	if rt.method != http.MethodGet || rt.request == nil {
		if err := noQuery(q); err != nil {
			return nil, err
		}
	}
	if rt.request == nil {
		return &none{}, nil
	}
	req := reflect.New(rt.request).Interface()
	if rt.method == http.MethodGet {
		return req, decodeQuery(q, req)
	}
	// A body says it is JSON: a web page may send any other type (or none)
	// to any origin without the browser asking the server first (no CORS
	// preflight), and a server that needs no key would act on it.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, continuity.Invalid("Content-Type", "must be application/json")
	}
	// The body is read as sent: one declared compressed (gzip, br, ...) is
	// refused rather than read as its raw bytes, which would act on a body
	// other than the one the header says it is (and decompressing it would
	// let 64 KiB stand for gigabytes).
	if !identityEncoding(r.Header.Values("Content-Encoding")) {
		return nil, continuity.Invalid("Content-Encoding", "must be absent or identity: bodies are read uncompressed")
	}
	if srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server); srv == nil || srv.ReadTimeout <= 0 {
		// Cleared once the body is read: a deadline left on the connection
		// would end the request's context (net/http's read for a closed
		// connection would fail) while its work runs.
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(timeout)) == nil {
			defer rc.SetReadDeadline(time.Time{})
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, continuity.Errorf(continuity.CodeTooLarge, "the request body is over %d bytes", MaxBodyBytes)
	case err != nil:
		return nil, continuity.Invalid("body", "could not be read")
	}
	return req, decodeBody(body, req)
}

// identityEncoding reports whether the Content-Encoding values of a
// request name no coding but identity.
func identityEncoding(values []string) bool {
	for _, v := range values {
		for coding := range strings.SplitSeq(v, ",") {
			if c := strings.TrimSpace(coding); c != "" && !strings.EqualFold(c, "identity") {
				return false
			}
		}
	}
	return true
}

// writeJSON answers status with v as JSON. A 401 carries the challenge
// RFC 9110 (section 11.6.1) requires of it: the scheme the key is sent in.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(ErrorBody{Error: continuity.Errorf(continuity.CodeInternal, "internal error")})
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// statusWriter remembers the status a handler answered: the first final
// one, as net/http sends it; 0 while none is sent.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(status int) {
	if s.status == 0 && status >= 200 {
		s.status = status
	}
	s.ResponseWriter.WriteHeader(status)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }
