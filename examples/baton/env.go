package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	// DSN is $BATON_DSN; empty means baton.db in Home.
	DSN string
	// Tenant is $BATON_TENANT (default "local").
	Tenant string
	// Dir is the working directory, for the project facet.
	Dir    string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// HookRole is $BATON_HOOK_ROLE: "subagent" makes every hook a no-op.
	HookRole string
	// StopNudge is $BATON_STOP_NUDGE=1: the Stop hook's triage nudge.
	StopNudge bool
	// Closer is $BATON_CLOSER=1: the worker runs the resolve-only closer.
	Closer bool

	// noHome says why Home is empty: the platform has no home directory.
	noHome error
}

// EnvFromOS reads the process environment. The user's home directory is the
// platform's (os.UserHomeDir: $HOME on Unix, %USERPROFILE% on Windows, $home
// on Plan 9); when there is none and BATON_HOME is unset, Home stays empty
// rather than falling back to the working directory.
func EnvFromOS() *Env {
	env := &Env{Home: os.Getenv("BATON_HOME"), DSN: os.Getenv("BATON_DSN"), Tenant: os.Getenv("BATON_TENANT"),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		HookRole: os.Getenv("BATON_HOOK_ROLE"), StopNudge: os.Getenv("BATON_STOP_NUDGE") == "1",
		Closer: os.Getenv("BATON_CLOSER") == "1"}
	if env.Home == "" {
		if h, err := os.UserHomeDir(); err != nil {
			env.noHome = err
		} else {
			env.Home = filepath.Join(h, ".baton")
		}
	}
	if env.Tenant == "" {
		env.Tenant = "local"
	}
	env.Dir, _ = os.Getwd()
	return env
}

// home returns Home, or an error naming BATON_HOME when there is none.
func (e *Env) home() (string, error) {
	if e.Home != "" {
		return e.Home, nil
	}
	why := e.noHome
	if why == nil {
		why = errors.New("none given")
	}
	return "", fmt.Errorf("no home directory (%v): set BATON_HOME to the directory baton keeps its store and bottles in", why)
}

// Open opens the store named by the DSN (baton.db in Home by default) and
// returns the API of the tenant over it, and the function that closes the
// store. It is the one place baton opens a store: commands take the API it
// returns through the bindings (see newParser), the demo calls it for its
// own temporary home.
func (e *Env) Open(ctx context.Context, opts ...continuity.Option) (continuity.API, func(), error) {
	svc, done, err := e.OpenService(ctx, "", opts...)
	if err != nil {
		return nil, nil, err
	}
	return svc.For(e.Tenant), done, nil
}

// OpenService opens the store named by dsn, else by the DSN (baton.db in
// Home by default), and returns the service over it, bound to no tenant
// (the worker and the server serve every tenant), and the function that
// closes the store.
func (e *Env) OpenService(ctx context.Context, dsn string, opts ...continuity.Option) (*continuity.Service, func(), error) {
	if dsn == "" {
		dsn = e.DSN
	}
	if dsn == "" {
		home, err := e.home()
		if err != nil {
			return nil, nil, err
		}
		dsn = filepath.Join(home, "baton.db")
	}
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	return continuity.New(st, opts...), func() { st.Close() }, nil
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
// bound itself, so that a failure to open the store reads as it is.
func episodes(api continuity.API, env *Env) *continuity.Episodes {
	return continuity.NewEpisodes(api, defaultAgent, env.Home)
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
