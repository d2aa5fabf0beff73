package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/workdir"
)

// Env is what commands read from the environment, bound into every Run so
// tests can run commands in-process with their own.
type Env struct {
	// Home is $BATON_HOME, else .baton in the user's home directory; empty
	// when neither is known, and then commands that need it fail (see home).
	Home string
	// DSN is $BATON_DSN; empty means baton.db in Home. A SQLite path in it
	// must be absolute (see EnvFromOS).
	DSN string
	// Tenant is $BATON_TENANT (default "local").
	Tenant string
	// Dir is the working directory, for the project facet.
	Dir    string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// HookRole is $BATON_HOOK_ROLE as set: "subagent" (hook.RoleSubagent,
	// in any case, with space around it) makes every hook a no-op.
	HookRole string
	// StopNudge is $BATON_STOP_NUDGE=1, exactly "1" (" 1" and "true" are
	// off): the Stop hook's triage nudge.
	StopNudge bool
	// LockWait, when set, is how long a statement of the SQLite store Open
	// opens waits for another process's lock (sqlstore.BusyTimeout): a
	// hook sets it from its budget.
	LockWait time.Duration
	// JudgeURL, JudgeKey and JudgeModel are $BATON_JUDGE_URL, _KEY and
	// _MODEL: the LLM judge's endpoint, API key and model (baton eval).
	JudgeURL, JudgeKey, JudgeModel string
	// ServerURL is $BATON_SERVER_URL and APIKey $BATON_API_KEY: set, every
	// command but serve and worker (which sweep a store's tenants
	// themselves) uses that team server instead of a store (see Open).
	ServerURL string
	APIKey    string
	// APIKeys is $BATON_API_KEYS, the key=tenant pairs serve accepts.
	APIKeys string
	// Closer is $BATON_CLOSER=1: the worker runs the resolve-only closer.
	Closer bool

	// noHome says why Home is empty: the platform has no home directory.
	noHome error
	// badDSN says why DSN is empty though BATON_DSN is set: the store
	// cannot be opened from the environment.
	badDSN error
}

// EnvFromOS reads the process environment. The user's home directory is the
// platform's (os.UserHomeDir: $HOME on Unix, %USERPROFILE% on Windows, $home
// on Plan 9); when there is none and BATON_HOME is unset, Home stays empty
// rather than falling back to the working directory. BATON_HOME is kept as
// set: the commands that use it refuse one that cannot be baton's home
// (see usableHome). A BATON_DSN that is neither a Postgres URL nor an
// absolute SQLite path (nor :memory:) is refused for the same reason: every
// command that opens the store from it fails naming it.
func EnvFromOS() *Env {
	env := &Env{Home: os.Getenv("BATON_HOME"), DSN: os.Getenv("BATON_DSN"), Tenant: os.Getenv("BATON_TENANT"),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		HookRole: os.Getenv("BATON_HOOK_ROLE"), StopNudge: os.Getenv("BATON_STOP_NUDGE") == "1",
		ServerURL: os.Getenv("BATON_SERVER_URL"), APIKey: os.Getenv("BATON_API_KEY"), APIKeys: os.Getenv("BATON_API_KEYS"),
		Closer: os.Getenv("BATON_CLOSER") == "1"}
	env.JudgeURL, env.JudgeKey, env.JudgeModel = os.Getenv("BATON_JUDGE_URL"), os.Getenv("BATON_JUDGE_KEY"), os.Getenv("BATON_JUDGE_MODEL")
	if env.Home == "" {
		if h, err := os.UserHomeDir(); err != nil {
			env.noHome = err
		} else {
			env.Home = filepath.Join(h, ".baton")
		}
	}
	if env.DSN != "" {
		// The value is not echoed: a Postgres URL or key=value string
		// holds a password.
		switch why := dsnProblem(env.DSN); {
		case why != "":
			env.badDSN = continuity.Invalid("BATON_DSN", why+"; or unset it for baton.db in BATON_HOME")
		case !sqlstore.IsPostgresDSN(env.DSN) && env.DSN != ":memory:" && !filepath.IsAbs(env.DSN):
			// Relative, it would name a store in each directory a
			// command runs in, as a relative BATON_HOME would.
			env.badDSN = continuity.Invalid("BATON_DSN", "is neither a postgres:// URL nor an absolute SQLite path: a relative path would name a store in each working directory (a hook's is the project's); set it to an absolute path, or unset it for baton.db in BATON_HOME")
		}
		if env.badDSN != nil {
			env.DSN = ""
		}
	}
	if env.Tenant == "" {
		env.Tenant = "local"
	}
	env.Dir, _ = os.Getwd()
	return env
}

// dsnProblem says what makes a store's DSN (BATON_DSN or a --dsn flag)
// one that cannot be what the person meant (see typedProblem: "/x/baton.db "
// would open a new file whose name ends in a space, a Postgres URL's space
// would reach the driver), or "" when nothing does. It never repeats the
// value, which may hold a password.
func dsnProblem(dsn string) string {
	return typedProblem(dsn, "set it to a postgres:// URL or an absolute SQLite path")
}

// typedProblem says what makes a value a person set (a variable, a flag)
// one that cannot be what they meant, or "" when nothing does: blank (blank
// says what to set instead); with space at either end, since it is taken
// as typed, never trimmed; or holding a NUL byte, which no path, URL or
// address holds. It never repeats the value.
func typedProblem(v, blank string) string {
	switch {
	case strings.TrimSpace(v) == "":
		return "is blank: " + blank
	case strings.TrimSpace(v) != v:
		return "has space at its start or end: the value is taken as typed, so give it without the space"
	case strings.IndexByte(v, 0) >= 0:
		return "holds a NUL byte: no path, URL or address does"
	}
	return ""
}

// home returns Home once it can be used (see usableHome), or an error
// naming BATON_HOME: when there is none, or it cannot be baton's home.
func (e *Env) home() (string, error) {
	if e.Home != "" {
		if err := usableHome(e.Home); err != nil {
			return "", err
		}
		return e.Home, nil
	}
	why := e.noHome
	if why == nil {
		why = errors.New("none given")
	}
	return "", fmt.Errorf("no home directory (%v): set BATON_HOME to the directory baton keeps its store and bottles in", why)
}

// bottleHome is the home the bottles are kept under: "" when no home is
// known (none is kept, as before any home was), else Home once usable,
// else home's error. The commands that keep, show or prune bottles beside
// a store another variable names (a hook, serve, the worker) take it, so
// that a home that cannot be used fails as it would with the default
// store rather than keeping the bottles somewhere else or nowhere.
func (e *Env) bottleHome() (string, error) {
	if e.Home == "" {
		return "", nil
	}
	return e.home()
}

// usableHome refuses, as an invalid error naming BATON_HOME, a home baton
// must not create or write into: one not absolute (relative, it would name
// a home in each directory a command runs in: a hook's is the project's,
// whose repository would then hold a store and verbatim bottles; a ~ no
// shell expanded, in a harness's JSON configuration, is one); one with
// space at either end (a path is taken as typed, and a space pasted after
// it would create a directory beside the one meant); one holding a NUL
// (no file system's path does); the root of a file system (baton.db and
// bottles/ would sit among the system's directories, and forget would
// remove that bottles/: a home is a directory of baton's own); and a path
// that exists but is not a directory, or cannot be followed (a symbolic
// link loop, a link to nothing). A home that does not exist yet is
// usable: the default store's open creates it.
func usableHome(h string) error {
	why := ""
	switch {
	case strings.TrimSpace(h) != h:
		why = "has space at its start or end: the path is taken as typed, so set it without the space"
	case strings.ContainsRune(h, 0):
		why = "holds a NUL byte, which no path can"
	case !filepath.IsAbs(h):
		why = "is not an absolute path, and ~ is not expanded: set BATON_HOME to an absolute path"
	case filepath.Dir(filepath.Clean(h)) == filepath.Clean(h):
		why = "is the root of the file system: baton keeps baton.db and bottles/ in its home, so set BATON_HOME to a directory of its own (the default is .baton in the home directory)"
	}
	if why == "" {
		fi, err := os.Stat(h)
		switch {
		case err == nil && !fi.IsDir():
			why = "is not a directory: set BATON_HOME to a directory, or to a path that does not exist yet for baton to create"
		case errors.Is(err, fs.ErrNotExist):
			if _, lerr := os.Lstat(h); lerr == nil {
				why = "is a symbolic link to nothing: point it at a directory, or set BATON_HOME to another path"
			}
		case err != nil:
			// A symbolic link loop, a component that is a file, no
			// permission: the reason says which.
			why = "cannot be used: " + pathReason(err)
		}
	}
	if why == "" {
		return nil
	}
	return continuity.Invalid("BATON_HOME", strconv.Quote(h)+" "+why)
}

// pathReason is the file system's reason in err, without the operation and
// path a *fs.PathError repeats.
func pathReason(err error) string {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Open returns the API of the tenant, and the function that releases it.
// With BATON_SERVER_URL set it is the team server's, over HTTP: no store is
// opened, BATON_DSN and BATON_TENANT are not read (the API key decides the
// tenant), and opts do not apply (they configure a local service). Without
// it, Open opens the store named by the DSN (baton.db in Home by default).
// Commands take the API it returns through the bindings (see newParser),
// the demo calls it for its own temporary home.
func (e *Env) Open(ctx context.Context, opts ...continuity.Option) (continuity.API, func(), error) {
	if e.ServerURL != "" || e.APIKey != "" {
		c, err := e.client()
		if err != nil {
			return nil, nil, err
		}
		return c, func() {}, nil
	}
	if err := e.checkTenant(); err != nil {
		return nil, nil, err
	}
	// Every command but serve is a short-lived process: one SQLite
	// connection is enough, and opening one file is cheaper than two.
	storeOpts := []sqlstore.Option{sqlstore.OneConnection()}
	if e.LockWait > 0 {
		storeOpts = append(storeOpts, sqlstore.BusyTimeout(e.LockWait))
	}
	svc, done, err := e.openService(ctx, "", storeOpts, opts...)
	if err != nil {
		return nil, nil, err
	}
	return svc.For(e.Tenant), done, nil
}

// openService opens the store flagDSN (a command's --dsn) names, else
// BATON_DSN's, else baton.db in Home, and returns the service over it,
// every tenant's, and the function that closes the store. It is the one
// place baton opens a store: Open binds its tenant, serve serves it to the
// tenants of its API keys. Only the default location is created (Home,
// 0700, as sqlstore.Open creates no directory): an explicit DSN's
// directory must exist, so that a mistyped path creates no tree of
// directories. Its error names the store and what named it.
func (e *Env) openService(ctx context.Context, flagDSN string, storeOpts []sqlstore.Option, opts ...continuity.Option) (*continuity.Service, func(), error) {
	dsn, from := flagDSN, "--dsn"
	if dsn == "" {
		if e.badDSN != nil {
			return nil, nil, e.badDSN
		}
		dsn, from = e.DSN, "BATON_DSN"
	}
	if dsn == "" {
		home, err := e.home()
		if err != nil {
			return nil, nil, err
		}
		dsn, from = filepath.Join(home, "baton.db"), "BATON_HOME"
		if err := os.MkdirAll(home, 0o700); err != nil {
			return nil, nil, storeErr(dsn, from, &continuity.Error{Code: continuity.CodeInternal, Message: "cannot create the database directory", Err: err})
		}
	}
	st, err := sqlstore.Open(ctx, dsn, storeOpts...)
	if err != nil {
		return nil, nil, storeErr(dsn, from, err)
	}
	return continuity.New(st, opts...), func() { st.Close() }, nil
}

// storeErr says which store could not be opened and what named it (a
// flag or a variable), with the file system's reason when there is one (a
// path and what is wrong with it; the store's own message keeps it out). A
// Postgres URL, or a DSN the store refused as no file path (another URL, a
// libpq string), is named by what named it, never echoed: it may hold a
// password. Nor is a DSN holding an "@": the store may read a URL as a
// relative or absolute file path (a space before its scheme, a directory
// before it), whose user:password@ is still a password to whoever typed it;
// nor, then, the file system's reason, which repeats the path. It is a
// *continuity.Error of the store's code, so a hook's one line says it too.
func storeErr(dsn, from string, err error) error {
	what, echo := fmt.Sprintf("the store %s (%s)", dsn, from), !strings.Contains(dsn, "@")
	switch {
	case sqlstore.IsPostgresDSN(dsn):
		what, echo = "the Postgres store "+from+" names", false
	case continuity.ErrorFields(err)["dsn"] != "" || !echo:
		what, echo = "the store "+from+" names", false
	}
	reason, fields := err.Error(), map[string]string(nil)
	if ce := (*continuity.Error)(nil); errors.As(err, &ce) {
		reason, fields = ce.Message, ce.Fields
		if r, ok := fields["dsn"]; ok {
			// The field a person can fix is the flag or the variable.
			fields = maps.Clone(fields)
			delete(fields, "dsn")
			fields[from] = r
		}
	}
	if pe := (*fs.PathError)(nil); echo && errors.As(err, &pe) {
		reason += " (" + pe.Error() + ")"
	}
	return &continuity.Error{Code: continuity.ErrorCode(err), Message: what + " cannot be opened: " + reason, Fields: fields, Err: err}
}

// checkTenant refuses, naming BATON_TENANT as the field, a local tenant
// the service would refuse (as it trims it): before a store is opened, and
// rather than in every answer a server gives. It is a *continuity.Error, so
// a hook's one line says it too.
func (e *Env) checkTenant() error {
	if reason := continuity.ErrorFields(continuity.ValidateTenant(strings.TrimSpace(e.Tenant)))["tenant"]; reason != "" {
		return continuity.Invalid("BATON_TENANT", reason)
	}
	return nil
}

// client returns the team server's client, after checking BATON_SERVER_URL
// and BATON_API_KEY: each error names the variable to fix, and is an
// invalid *continuity.Error, so a hook's one line says it whole, as
// invalid, not internal.
func (e *Env) client() (*httpapi.Client, error) {
	if e.ServerURL == "" {
		return nil, continuity.Errorf(continuity.CodeInvalid, "BATON_API_KEY is set but BATON_SERVER_URL is not: set BATON_SERVER_URL to the team server's URL (for example https://baton.example.com), or unset BATON_API_KEY to use the local store")
	}
	base, err := serverURL(e.ServerURL)
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(e.APIKey)
	if key == "" {
		return nil, continuity.Errorf(continuity.CodeInvalid, "BATON_SERVER_URL is set but BATON_API_KEY is not: set BATON_API_KEY to your key on the team server")
	}
	if len(key) > httpapi.MaxKeyLen {
		return nil, continuity.Errorf(continuity.CodeInvalid, "BATON_API_KEY is longer than %d bytes: no key a server holds is; set it to your key on the team server", httpapi.MaxKeyLen)
	}
	if !httpapi.SendableKey(key) {
		return nil, continuity.Errorf(continuity.CodeInvalid, "BATON_API_KEY holds a space, a control character or a byte outside ASCII: it cannot travel in an Authorization header")
	}
	return httpapi.NewClient(base, key, httpapi.ClientOptions{}), nil
}

// serverURL checks BATON_SERVER_URL as httpapi.ServerURL does, naming the
// variable. The value is not echoed: it may hold a password.
func serverURL(raw string) (string, error) {
	base, err := httpapi.ServerURL(raw)
	if err != nil {
		return "", continuity.Errorf(continuity.CodeInvalid, "BATON_SERVER_URL %v: it must be the team server's http:// or https:// URL, for example https://baton.example.com or http://127.0.0.1:8377", err)
	}
	return base, nil
}

// lazyStore opens env's store when a command first takes the API, so the
// commands that take none (version, bottle, --help) never open one, and
// closes it after the command ran.
type lazyStore struct {
	env   *Env
	close func()
}

// API opens the store; bound as a singleton provider, it runs at most once.
func (s *lazyStore) API(ctx context.Context) (continuity.API, error) {
	api, done, err := s.env.Open(ctx)
	if err != nil {
		return nil, err
	}
	s.close = done
	return api, nil
}

// Close closes the store if API opened it.
func (s *lazyStore) Close() {
	if s.close != nil {
		s.close()
	}
}

// episodes is the episode runner over api, for the commands that render
// what a hook would (the briefing with its handover). Its bottles are the
// default agent's under Home. It is made from the bound API rather than
// bound itself, so that a failure to open the store reads as it is. A home
// that cannot be used is its error (see bottleHome).
func episodes(api continuity.API, env *Env) (*continuity.Episodes, error) {
	home, err := env.bottleHome()
	if err != nil {
		return nil, err
	}
	return continuity.NewEpisodes(api, defaultAgent, home), nil
}

// ProjectOr returns the explicit project when one was given, else Project.
func (e *Env) ProjectOr(explicit string) string {
	if explicit != "" {
		return explicit
	}
	return e.Project()
}

// Project is the project facet of the working directory: the one rule in
// workdir.Project (the git top-level's base name, else the directory's; never
// "unknown"; empty with no directory).
func (e *Env) Project() string {
	return workdir.Project(e.Dir)
}
