// Command embed shows baton's HTTP surface inside a server that already
// exists: the host keeps its own routes and its own accounts, and mounts
// httpapi.NewHandler under /baton/ with an Authenticator of its own, which
// maps a host session token to the account's team. A team is a baton
// tenant, so teammates share their continuity and other teams see none of
// it.
//
//	go run ./examples/embed [-addr 127.0.0.1:8080] [-dsn embed.db]
//
// prints a demo account's token. Baton's routes are then under /baton/: the
// host's accounts reach them with their token in X-Host-Token, and a hook
// or a baton command with BATON_SERVER_URL=http://ADDR/baton and
// BATON_API_KEY=TOKEN (which baton's client sends as a bearer token, which
// the host accepts too).
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
)

// tokenHeader carries the host's own session token.
const tokenHeader = "X-Host-Token"

// account is one of the host's users.
type account struct {
	Name      string
	Team      string
	Suspended bool
}

// accounts is the host's user table, keyed by the SHA-256 of each token:
// a lookup's timing tells nothing about a token.
type accounts map[[sha256.Size]byte]account

// add registers a token for an account.
func (a accounts) add(token string, acc account) { a[sha256.Sum256([]byte(token))] = acc }

// lookup returns the account of the request's token: its X-Host-Token, or
// its bearer token (what baton's client sends).
func (a accounts) lookup(r *http.Request) (account, bool) {
	token := r.Header.Get(tokenHeader)
	if scheme, bearer, ok := strings.Cut(r.Header.Get("Authorization"), " "); token == "" && ok && strings.EqualFold(scheme, "Bearer") {
		token = strings.TrimSpace(bearer)
	}
	if token == "" {
		return account{}, false
	}
	acc, ok := a[sha256.Sum256([]byte(token))]
	return acc, ok
}

// errSuspended is baton's answer to a suspended account: forbidden, with
// this message.
var errSuspended = &continuity.Error{Code: continuity.CodeForbidden, Message: "this account is suspended"}

// teamAuthenticator is the host's httpapi.Authenticator: a request acts for
// its account's team.
type teamAuthenticator struct{ accounts accounts }

var _ httpapi.Authenticator = teamAuthenticator{}

// Authenticate implements httpapi.Authenticator. An unknown token is
// unauthorized (the handler answers 401 whatever the error says); a
// suspended account is forbidden.
func (a teamAuthenticator) Authenticate(r *http.Request) (string, error) {
	acc, ok := a.accounts.lookup(r)
	switch {
	case !ok:
		return "", fmt.Errorf("no account for the %s", tokenHeader)
	case acc.Suspended:
		return "", errSuspended
	}
	return "team:" + acc.Team, nil
}

// newMux is the host's server: its own routes, and baton under /baton/.
func newMux(svc *continuity.Service, accts accounts, log *slog.Logger) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "the host's home page; baton is under /baton/")
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		acc, ok := accts.lookup(r)
		if !ok {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "%s of team %s\n", acc.Name, acc.Team)
	})
	baton := httpapi.NewHandler(func(tenant string) continuity.API { return svc.For(tenant) },
		httpapi.Options{Authenticator: teamAuthenticator{accounts: accts}, Logger: log})
	mux.Handle("/baton/", http.StripPrefix("/baton", baton))
	return mux
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the address to listen on")
	dsn := flag.String("dsn", "embed.db", "baton's store: a SQLite file or a postgres:// URL")
	flag.Parse()
	if err := serve(*addr, *dsn); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

func serve(addr, dsn string) error {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	b := make([]byte, 16)
	rand.Read(b)
	token := hex.EncodeToString(b)
	accts := accounts{}
	accts.add(token, account{Name: "ada", Team: "compilers"})
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	fmt.Printf("listening on http://%s; try:\n  curl -H '%s: %s' http://%s/baton/api/v1/briefing\n  BATON_SERVER_URL=http://%s/baton BATON_API_KEY=%s baton briefing\n",
		addr, tokenHeader, token, addr, addr, token)
	srv := &http.Server{Addr: addr, Handler: newMux(continuity.New(st), accts, log), ReadHeaderTimeout: 10 * time.Second}
	return srv.ListenAndServe()
}
