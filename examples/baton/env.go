package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
)

// Env is what commands read from the environment, bound into every Run so
// tests can run commands in-process with their own.
type Env struct {
	// Home is $BATON_HOME (default ~/.baton).
	Home string
	// DSN is $BATON_DSN (default $BATON_HOME/baton.db).
	DSN string
	// Tenant is $BATON_TENANT (default "local").
	Tenant string
	// Dir is the working directory, for the project facet.
	Dir    string
	Stdout io.Writer
	Stderr io.Writer
}

// EnvFromOS reads the process environment.
func EnvFromOS() *Env {
	home := os.Getenv("BATON_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".baton")
		}
	}
	dsn := os.Getenv("BATON_DSN")
	if dsn == "" {
		dsn = filepath.Join(home, "baton.db")
	}
	tenant := os.Getenv("BATON_TENANT")
	if tenant == "" {
		tenant = "local"
	}
	dir, _ := os.Getwd()
	return &Env{Home: home, DSN: dsn, Tenant: tenant, Dir: dir, Stdout: os.Stdout, Stderr: os.Stderr}
}

// Service opens the store named by the DSN and returns the service over it.
func (e *Env) Service(ctx context.Context, opts ...continuity.Option) (*continuity.Service, func(), error) {
	st, err := sqlstore.Open(ctx, e.DSN)
	if err != nil {
		return nil, nil, err
	}
	return continuity.New(st, opts...), func() { st.Close() }, nil
}

// ProjectOr returns the explicit project when one was given, else Project.
func (e *Env) ProjectOr(explicit string) string {
	if explicit != "" {
		return explicit
	}
	return e.Project()
}

// Project is the project facet: the base name of the git top-level directory
// containing the working directory, else the working directory's base name.
// It is never the literal "unknown"; with no directory it is empty.
func (e *Env) Project() string {
	if e.Dir == "" {
		return ""
	}
	cmd := exec.Command("git", "rev-parse", "--show-toplevel")
	cmd.Dir = e.Dir
	if out, err := cmd.Output(); err == nil {
		if top := strings.TrimSpace(string(out)); top != "" {
			return filepath.Base(top)
		}
	}
	base := filepath.Base(e.Dir)
	if base == "." || base == string(filepath.Separator) {
		return ""
	}
	return base
}
