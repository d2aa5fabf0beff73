//go:build unix

package main

import (
	"net/http"
	"syscall"
	"testing"
)

// TestServeSIGTERM: the process's SIGTERM shuts serve down as a cancelled
// context does (TestServe): no new connection, the request in flight
// answered, a clean return.
func TestServeSIGTERM(t *testing.T) {
	env := testEnv(t)
	s := startServe(t, env, ServeCmd{})
	finish := inflight(t, s, "", "in flight at SIGTERM")
	// serve has registered for the signal before it said it listens, so
	// the signal reaches it and not the test process's default action.
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	refusing(t, s.addr)
	if status, body := finish(); status != http.StatusCreated {
		t.Errorf("the in-flight request was answered %d %s, want 201", status, body)
	}
	if err := s.wait(t); err != nil {
		t.Errorf("serve returned %v after SIGTERM", err)
	}
}
