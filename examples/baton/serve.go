package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/adapters/statuspage"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
)

// The server's bounds on a client, declared once. A request's body is at
// most httpapi.MaxBodyBytes, so a minute to send or receive one is only
// ever reached by a client that stalls.
const (
	serveReadHeaderTimeout = 10 * time.Second
	serveReadTimeout       = time.Minute
	serveWriteTimeout      = time.Minute
	serveIdleTimeout       = 2 * time.Minute
	serveMaxHeaderBytes    = 64 << 10
)

// ServeCmd is `baton serve`: the HTTP surface over a store, for a team's
// hooks and commands (BATON_SERVER_URL + BATON_API_KEY on their side).
type ServeCmd struct {
	Addr            string        `default:"127.0.0.1:8377" help:"The address to listen on (host:port). Without API keys, only a loopback address (127.0.0.1, ::1, localhost)."`
	DSN             string        `name:"dsn" help:"The store: a Postgres URL (postgres://...) or a SQLite file; default $BATON_DSN, else the embedded SQLite at $BATON_HOME/baton.db."`
	KeysFile        string        `name:"keys-file" type:"existingfile" help:"A file of key=tenant entries, one a line or comma-separated (instead of BATON_API_KEYS); a missing file or a directory is a usage error."`
	ShutdownTimeout time.Duration `name:"shutdown-timeout" default:"10s" help:"On SIGINT or SIGTERM, how long in-flight requests may take to finish before they are cut off."`
	WorkerEvery     time.Duration `name:"worker-every" default:"1m" help:"Time between the worker's passes (the sweep across tenants, retention, and the closer with BATON_CLOSER=1); every replica runs one, and their claims keep them from working a row twice."`
	NoWorker        bool          `name:"no-worker" help:"Serve without the worker (run baton worker elsewhere)."`

	// Background are run beside the server, each in its own goroutine,
	// with the service every tenant's requests are served by; serve adds
	// the worker (sweep, retention, closer) unless --no-worker. Their context ends when shutdown begins; serve returns once
	// every one of them has.
	Background []func(ctx context.Context, svc *continuity.Service) `kong:"-"`

	// ready, when set, is told the address the server listens on before
	// it serves the first request (tests listen on port 0).
	ready func(net.Addr) `kong:"-"`
}

// Validate refuses a --dsn that cannot be what the person meant (see
// dsnProblem; an empty one is no value, the default) and an --addr that is
// not host:port (see addrFlag). kong reports either as a usage error.
func (c *ServeCmd) Validate() error {
	if err := dsnFlag(c.DSN); err != nil {
		return err
	}
	return addrFlag(c.Addr)
}

// maxAddrLen bounds --addr: a host name of at most 253 characters, or an
// IPv6 literal with its zone, in brackets, and a port.
const maxAddrLen = 300

// addrFlag refuses an --addr that is not host:port as typed, naming the
// flag: blank (given empty, net.Listen would listen on every interface, on
// a port nobody chose), with space at either end (taken as typed, it names
// no host or no port the person meant), holding a NUL byte, or without a
// port ("127.0.0.1:" would listen on one nobody chose; port 0 asks for
// that). An empty host is every interface, as net.Listen reads it.
func addrFlag(addr string) error {
	why := typedProblem(addr, "give host:port, for example 127.0.0.1:8377")
	_, port, err := net.SplitHostPort(addr)
	switch {
	case why != "":
	case len(addr) > maxAddrLen:
		// Refused before the listen's error would repeat it whole.
		why = fmt.Sprintf("is %d bytes long: no host:port is over %d", len(addr), maxAddrLen)
	case err != nil:
		why = "is not host:port, for example 127.0.0.1:8377 (:8377 for every interface)"
	case port == "":
		why = "names no port: give one, for example 127.0.0.1:8377 (port 0 picks a free one)"
	}
	if why == "" {
		return nil
	}
	return continuity.Invalid("--addr", why)
}

// Help details the authentication modes and the exit statuses.
func (c *ServeCmd) Help() string {
	return `With API keys (BATON_API_KEYS=key=tenant,... or --keys-file), each request's tenant is its key's ("Authorization: Bearer KEY"). Without keys, every request acts as the local tenant (BATON_TENANT, default local), and baton serves only on a loopback address and answers only requests addressed to a loopback host, never one a web page sends from another origin.

Each request is logged on stderr (its id, route pattern, status and duration; never a body or a query). SIGINT or SIGTERM stops accepting connections and lets in-flight requests finish, for at most --shutdown-timeout; a second signal ends the process at once.

Exit status: 0 after a clean shutdown; 1 when the keys, the address or the store are refused, or when in-flight requests had to be cut off; 2 on a usage error, an --addr that is not host:port (blank, with space at either end, without a port), a --keys-file that is missing or a directory, or a --dsn that cannot be one.`
}

// Run serves until ctx ends or the process is signalled, then shuts down.
func (c *ServeCmd) Run(ctx context.Context, env *Env) error {
	if c.WorkerEvery != 0 && c.WorkerEvery < time.Second {
		return errors.New("serve: --worker-every must be at least 1s")
	}
	if c.ShutdownTimeout < 0 {
		return fmt.Errorf("serve: --shutdown-timeout must be 0 or more, not %s", c.ShutdownTimeout)
	}
	home, err := env.bottleHome()
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	background := c.Background
	if !c.NoWorker {
		cfg := WorkerConfig{Every: cmp.Or(c.WorkerEvery, DefaultWorkerEvery), Closer: env.Closer, Judge: closerJudge, Home: home}
		worker, err := cfg.runner(env.Stderr)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		background = append(slices.Clip(background), worker)
	}
	auth, who, err := c.authenticator(env)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	// The address is bound before the store is opened: an address that
	// cannot be served (no port, one in use) creates no store.
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("serve: --addr %s: %w", c.Addr, err)
	}
	defer ln.Close() // Serve closes it; this, when the store is refused
	svc, closeStore, err := env.openService(ctx, c.DSN, nil)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer closeStore()
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	_, keyless := auth.(localAuthenticator)
	// The page labels records' ages on the store's clock, as the briefing
	// does, not on this replica's.
	status := &statuspage.Options{Keyless: keyless, WorkDir: env.Dir, Now: svc.Now}
	if keyless && home != "" {
		// Bottles are rendered where the transcripts are, by this machine's
		// hooks for the local tenant: a keyless server, every request the
		// local tenant's, shows them. Bottle files carry no tenant, so a
		// server with keys shows them to none (a tenant may open a
		// conversation under any session id, the local one's included).
		status.Bottles = statuspage.HomeBottles(home)
	}
	srv := &http.Server{
		Handler: httpapi.NewHandler(func(tenant string) continuity.API { return svc.For(tenant) },
			httpapi.Options{Authenticator: auth, Logger: log, Status: status}),
		ReadHeaderTimeout: serveReadHeaderTimeout,
		ReadTimeout:       serveReadTimeout,
		WriteTimeout:      serveWriteTimeout,
		IdleTimeout:       serveIdleTimeout,
		MaxHeaderBytes:    serveMaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// Requests keep the background context: a signal stops the
		// server, not the work of a request it accepted.
	}
	store := "sqlite"
	if sqlstore.IsPostgresDSN(cmp.Or(c.DSN, env.DSN)) {
		store = "postgres" // the DSN itself may hold a password
	}
	log.Info("serving", slog.String("url", "http://"+ln.Addr().String()), slog.String("tenants", who), slog.String("store", store))
	if c.ready != nil {
		c.ready(ln.Addr())
	}

	backgroundCtx, stopBackground := context.WithCancel(ctx)
	defer stopBackground()
	var workers sync.WaitGroup
	for _, run := range background {
		workers.Go(func() { run(backgroundCtx, svc) })
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var failed error
	select {
	case err := <-served:
		failed = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// A second signal now ends the process as Go does by default.
	stopSignals()
	log.Info("shutting down", slog.Duration("timeout", c.ShutdownTimeout))
	stopBackground()
	shutdown, cancel := context.WithTimeout(context.Background(), c.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		srv.Close()
		failed = cmp.Or(failed, fmt.Errorf("serve: in-flight requests were cut off after --shutdown-timeout %s", c.ShutdownTimeout))
	}
	workers.Wait()
	if failed == nil {
		log.Info("stopped")
	}
	return failed
}

// authenticator returns the Authenticator of the configured keys and who
// the tenants are, for the log; without keys, the local tenant's, on a
// loopback address only.
func (c *ServeCmd) authenticator(env *Env) (httpapi.Authenticator, string, error) {
	// Set, BATON_API_KEYS is keys: one of space alone holds none, and is
	// refused as a "," is, never read as unset (a server of no keys).
	spec := env.APIKeys
	switch {
	case c.KeysFile != "" && spec != "":
		return nil, "", errors.New("both BATON_API_KEYS and --keys-file are set: give the keys one way")
	case c.KeysFile != "":
		keys, err := httpapi.ReadKeys(c.KeysFile)
		if err != nil {
			return nil, "", fmt.Errorf("--keys-file %s: %w", c.KeysFile, err)
		}
		return keys, "API keys", nil
	case spec != "":
		keys, err := httpapi.ParseKeys(spec)
		if err != nil {
			return nil, "", fmt.Errorf("BATON_API_KEYS: %w", err)
		}
		return keys, "API keys", nil
	}
	if !loopbackAddr(c.Addr) {
		return nil, "", fmt.Errorf("--addr %s is not a loopback address and no API keys are configured: without keys every request acts as the local tenant, so baton serves only on 127.0.0.1, ::1 or localhost; set BATON_API_KEYS (key=tenant,...) or --keys-file to serve on another address", c.Addr)
	}
	if err := env.checkTenant(); err != nil {
		return nil, "", err
	}
	return localAuthenticator{tenant: env.Tenant}, "local tenant " + env.Tenant + " (no API keys; loopback only)", nil
}

// loopbackAddr reports whether a listen address's host is a loopback one.
// An empty host listens on every interface.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && loopbackHost(host)
}

// loopbackHost reports whether host (without a port) is localhost or a
// loopback IP.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// localAuthenticator binds every request to one tenant: serve without
// keys, on a loopback address. A loopback port is open to every program of
// the machine, web pages included, so it answers only requests addressed
// to a loopback host (a page that rebinds its own name to 127.0.0.1 still
// sends that name) and none that a page of another origin sends: a page's
// Origin must be the server's own, scheme, host and port (a page served on
// another port of localhost is another origin, and could otherwise plant
// memories that the agent's next briefing shows), nor a Sec-Fetch-Site
// other than the server's own (a tag's GET sends no Origin). The handler takes only
// JSON bodies, which a browser sends to another origin only after asking.
type localAuthenticator struct{ tenant string }

// errNotLocal is the answer to a request a local server refuses.
var errNotLocal = &continuity.Error{Code: continuity.CodeForbidden,
	Message: "this baton server has no API keys: it answers only requests to a loopback host, and none from a web page of another origin"}

// Authenticate implements httpapi.Authenticator.
func (a localAuthenticator) Authenticate(r *http.Request) (string, error) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if !loopbackHost(strings.Trim(host, "[]")) {
		return "", errNotLocal
	}
	if origin := r.Header.Get("Origin"); origin != "" && !strings.EqualFold(origin, serverOrigin(r)) {
		return "", errNotLocal
	}
	// A page's script, style or image tag loads a GET with no Origin; the
	// browser says whence in Sec-Fetch-Site (same-site: another port of
	// localhost). Only the server's own pages, what the user typed and a
	// link followed to a whole window (whose page the linking one cannot
	// read) pass.
	switch site := strings.ToLower(r.Header.Get("Sec-Fetch-Site")); site {
	case "", "same-origin", "none":
	default:
		if !windowNavigation(r) {
			return "", errNotLocal
		}
	}
	return a.tenant, nil
}

// windowNavigation reports whether r, by its fetch metadata, is a GET that
// loads a window's document (a followed link), not a frame or a
// subresource.
func windowNavigation(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Sec-Fetch-Mode"), "navigate") &&
		strings.EqualFold(r.Header.Get("Sec-Fetch-Dest"), "document")
}

// serverOrigin is the origin a page served by this server sends: the
// scheme and the host the request was addressed to.
func serverOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
