package statuspage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/freshness"
	"github.com/batonhq/baton/internal/runes"
)

// Authenticator decides which tenant a request acts for; an
// httpapi.Authenticator is one.
type Authenticator interface {
	// Authenticate returns the tenant whose credentials r carries, or an
	// error: forbidden is shown with its message, anything else as 401.
	Authenticate(r *http.Request) (tenant string, err error)
}

// BottleReader returns a conversation's current bottle as one document;
// an error wrapping fs.ErrNotExist when the conversation has none here.
type BottleReader func(agent, sessionID string) ([]byte, error)

// HomeBottles reads the bottles kept under a baton home, as the hooks of
// this machine write them. Give it only to a server whose tenant those
// bottles belong to (a local baton serve): bottle files carry no tenant.
func HomeBottles(home string) BottleReader {
	return func(agent, sessionID string) ([]byte, error) {
		return (&bottle.Bottler{Home: home, Agent: agent}).Read(sessionID)
	}
}

// Options configures the status page.
type Options struct {
	// Authenticator decides each request's tenant; nil refuses every
	// request. httpapi.NewHandler sets it to the API's.
	Authenticator Authenticator
	// Keyless says the server runs without API keys (a local baton serve
	// on loopback): the pages say so.
	Keyless bool
	// Bottles reads a conversation's bottle; nil shows "no bottle here"
	// (a team server keeps none: bottles are rendered where the
	// transcript is).
	Bottles BottleReader
	// WorkDir, when set, is a working directory whose HEAD the records of
	// its project are compared with for divergence; other records'
	// divergence is unknown (it is read where the work tree is).
	WorkDir string
	// Freshness is the thresholds records are labelled by; zero is
	// freshness.Default.
	Freshness freshness.Policy
	// Refresh is how often a page reloads itself; zero is DefaultRefresh.
	Refresh time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// DefaultRefresh is how often a page reloads itself by default.
const DefaultRefresh = 30 * time.Second

// Page bounds, declared once.
const (
	// MaxBottleBytes bounds the bottle text one session page shows.
	MaxBottleBytes = 1 << 20
	// maxLedgerReads bounds the ledger reads (of continuity.MaxLedgerRead
	// lines each) one session page makes of its conversation's lines.
	maxLedgerReads = 10
)

// cookieName holds the key a browser presented once as ?key=.
const cookieName = "baton_status_key"

//go:embed templates/*.html
var templateFS embed.FS

// localTime is the one script of the pages: it rewrites each <time> into
// the viewer's zone; the UTC value stays in its title. The
// Content-Security-Policy allows it by hash and no other script.
const localTime = `for (const t of document.querySelectorAll("time[datetime]")) { const d = new Date(t.getAttribute("datetime")); if (!isNaN(d)) t.textContent = d.toLocaleString(); }`

// csp and pages are built on first use, not at init: every hook process
// links this package (through httpapi's client) and never serves a page.
var csp = sync.OnceValue(func() string {
	h := sha256.Sum256([]byte(localTime))
	return "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(h[:]) + "'"
})

// pages are the templates, each the layout with its page's content.
var pages = sync.OnceValue(func() map[string]*template.Template {
	funcs := template.FuncMap{
		"utc":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"rfc3339": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"short":   func(s string) string { return shortID(s) },
		"script":  func() template.JS { return template.JS(localTime) },
		"sessionURL": func(agent, sid string) string {
			return "session?" + url.Values{"agent": {agent}, "id": {sid}}.Encode()
		},
	}
	base := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	out := map[string]*template.Template{}
	names, _ := fs.Glob(templateFS, "templates/*.html")
	for _, name := range names {
		if name == "templates/layout.html" {
			continue
		}
		t := template.Must(template.Must(base.Clone()).ParseFS(templateFS, name))
		out[strings.TrimSuffix(path.Base(name), ".html")] = t
	}
	return out
})

// shortID shows a UUID's random tail: UUIDv7s made in one second share their head.
func shortID(s string) string {
	if len(s) == 36 {
		return s[28:]
	}
	return s
}

// handler serves the pages.
type handler struct {
	api  func(tenant string) continuity.API
	opts Options
}

// New returns the status page over api, which binds a tenant that the
// request's authentication decided to its continuity.API. Its paths are
// relative to where it is mounted ("/", "/session", "/memory", "/doctor"),
// and so are its links: mount it under a directory with http.StripPrefix
// (httpapi.NewHandler mounts it under /status/).
func New(api func(tenant string) continuity.API, opts Options) http.Handler {
	if opts.Refresh <= 0 {
		opts.Refresh = DefaultRefresh
	}
	if opts.Freshness == (freshness.Policy{}) {
		opts.Freshness = freshness.Default
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	pages() // parsed now, when the server starts, rather than by its first request
	h := &handler{api: api, opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page("sessions", h.sessions))
	mux.HandleFunc("GET /session", h.page("session", h.session))
	mux.HandleFunc("GET /memory", h.page("memory", h.memory))
	mux.HandleFunc("GET /doctor", h.page("doctor", h.doctor))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		h.render(w, http.StatusNotFound, "error", view{Title: "Not found", Data: "There is no such page."})
	})
	return mux
}

// view is what every page renders: the layout's facts and the page's data.
type view struct {
	Title   string
	Tenant  string
	Keyless bool
	Refresh int
	Now     time.Time
	Nav     string
	Data    any
}

// loader reads a page's data through the tenant's API.
type loader func(ctx context.Context, api continuity.API, q url.Values, now time.Time) (title string, data any, err error)

// page authenticates, loads and renders one page.
func (h *handler) page(name string, load loader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tenant, key, err := h.authenticate(r)
		switch {
		case err != nil && continuity.ErrorCode(err) == continuity.CodeForbidden:
			h.render(w, http.StatusForbidden, "error", view{Title: "Forbidden", Data: continuity.ErrorMessage(err)})
			return
		case err != nil:
			w.Header().Set("WWW-Authenticate", `Bearer realm="baton"`)
			h.render(w, http.StatusUnauthorized, "login", view{Title: "A key is required", Keyless: h.opts.Keyless, Data: kept(r.URL.Query())})
			return
		case key != "":
			h.keep(w, r, key)
			return
		}
		now := h.opts.Now()
		title, data, err := load(r.Context(), h.api(tenant), r.URL.Query(), now)
		v := view{Title: title, Tenant: tenant, Keyless: h.opts.Keyless, Refresh: int(h.opts.Refresh / time.Second), Now: now, Nav: name, Data: data}
		if err != nil {
			v.Title, v.Data = "Error", continuity.ErrorMessage(err)
			h.render(w, statusOf(err), "error", v)
			return
		}
		h.render(w, http.StatusOK, name, v)
	}
}

// statusOf is the status a page answers an API error with.
func statusOf(err error) int {
	switch continuity.ErrorCode(err) {
	case continuity.CodeInvalid:
		return http.StatusBadRequest
	case continuity.CodeNotFound:
		return http.StatusNotFound
	case continuity.CodeForbidden:
		return http.StatusForbidden
	}
	return http.StatusInternalServerError
}

// authenticate returns the request's tenant. A key given as ?key= is
// checked and returned, to be kept in the cookie; otherwise the cookie, if
// any, is presented as the Bearer key, and else the request as it came.
//
// A ?key= a browser says came from another site (Sec-Fetch-Site
// cross-site or same-site: a link or a form of another page) is ignored:
// keeping it would let any page log its visitor in as the page's own
// tenant (a login CSRF), the cookie then showing that tenant's pages as
// the visitor's. A key typed in the address bar or sent by the page's own
// form is kept.
func (h *handler) authenticate(r *http.Request) (tenant, key string, err error) {
	if h.opts.Authenticator == nil {
		return "", "", errors.New("no authenticator")
	}
	presented, given := "", r.URL.Query().Get("key")
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		given = ""
	}
	if given != "" {
		presented = given
	} else if c, err := r.Cookie(cookieName); err == nil && c.Value != "" {
		presented, _ = url.QueryUnescape(c.Value)
	}
	as := r
	if presented != "" {
		as = r.Clone(r.Context())
		as.Header.Set("Authorization", "Bearer "+presented)
	}
	tenant, err = h.opts.Authenticator.Authenticate(as)
	if err != nil {
		return "", "", err
	}
	return tenant, given, nil
}

// kept lists a query's parameters but the key, which the login form
// sends again beside the key: a GET form replaces the whole query.
func kept(q url.Values) []field {
	var out []field
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if k == "key" {
			continue
		}
		for _, v := range q[k] {
			out = append(out, field{k, v})
		}
	}
	return out
}

// keep sets the cookie holding key and redirects to the URL without it,
// so the key leaves the address bar and the history.
func (h *handler) keep(w http.ResponseWriter, r *http.Request, key string) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: url.QueryEscape(key), HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	q := r.URL.Query()
	q.Del("key")
	loc := path.Base(r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") {
		loc = "./"
	}
	if len(q) > 0 {
		loc += "?" + q.Encode()
	}
	w.Header().Set("Location", loc)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusSeeOther)
}

// render writes one page, shown as visible leaves it; a template that
// fails renders nothing of it.
func (h *handler) render(w http.ResponseWriter, status int, name string, v view) {
	var buf bytes.Buffer
	if err := pages()[name].ExecuteTemplate(&buf, "layout.html", v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("<!doctype html><title>baton status</title><p>The page could not be rendered.</p>\n")
	}
	page := visible(buf.String())
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp())
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	io.WriteString(w, page)
}

// visible is a rendered page as a person should read it, by the rule the
// CLI prints text by (runes.Lines, then runes.Visible): no control
// character but the newline and the tab, no line separator, and each
// character that shows nothing or a blank (runes.Hidden: a right-to-left
// override, a zero-width space, a Hangul filler, a variation selector)
// shown as its code point, escaped, so that no memory, session id, ledger field
// or bottle makes its row or its line read other than it is. It runs over
// the whole page, after html/template escaped every value, so the marks it
// writes are text in an element and in an attribute value alike (a URL's
// value is percent-encoded already); the templates hold no such character.
func visible(page string) string {
	page = runes.Lines(page)
	if strings.IndexFunc(page, runes.Hidden) < 0 {
		return page
	}
	var b strings.Builder
	for _, r := range page {
		if runes.Hidden(r) {
			b.WriteString(template.HTMLEscapeString(runes.Mark(r)))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
