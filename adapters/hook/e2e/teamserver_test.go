//go:build linux

package e2e

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
)

// The one API key of a world's team server, and its tenant.
const (
	teamKey    = "e2e-team-key-7f3c2a9e4b1d"
	teamTenant = "e2e-team"
)

// serveStartTimeout bounds `baton serve` from its start to its first
// line saying where it listens (it runs the migrations first).
const serveStartTimeout = 2 * time.Minute

// teamServer is `baton serve`, the built binary, serving a world.
type teamServer struct {
	url    string
	client *httpapi.Client
	log    *logBuffer
	stop   func()
}

// logBuffer keeps a process's stderr, written line by line while the test
// reads it.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(line + "\n")
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// requirePostgres returns BATON_TEST_POSTGRES_DSN, the database the team
// server runs on; without it the test fails in CI (which sets it) and
// skips, loudly, elsewhere.
func requirePostgres(t *testing.T) *string {
	t.Helper()
	dsn := os.Getenv(sqltest.EnvPostgres)
	if dsn == "" {
		msg := sqltest.EnvPostgres + " is not set: the team-server end-to-end test runs baton serve on Postgres"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		loudSkip(t, "%s", msg)
	}
	return &dsn
}

// servingLine is serve's log line saying where it listens.
var servingLine = regexp.MustCompile(`msg=serving url=(http://\S+)`)

// serveTeam starts `baton serve` on a fresh schema of the Postgres
// database base, on a free loopback port, with the world's API key, and
// points every baton process the world runs from now on at it. The server
// is stopped with SIGTERM when the test ends (or by stop), and must exit 0.
func (w *world) serveTeam(base string) {
	t := w.t
	t.Helper()
	// The schema is dropped when the test ends, after the server stopped
	// (cleanups run last registered, first run).
	_, dsn := sqltest.PostgresStore(t, base)
	cmd := exec.Command(w.baton, "serve", "--addr", "127.0.0.1:0", "--dsn", dsn)
	cmd.Dir = w.project
	cmd.Env = append(append([]string{}, w.env...), "BATON_API_KEYS="+teamKey+"="+teamTenant)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("baton serve: %v", err)
	}
	srv := &teamServer{log: &logBuffer{}}
	listening := make(chan string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			srv.log.add(sc.Text())
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case listening <- m[1]:
				default:
				}
			}
		}
	}()
	exited := make(chan error, 1)
	go func() {
		<-read // Wait closes the pipe: read it to its end first
		exited <- cmd.Wait()
	}()
	var once sync.Once
	srv.stop = func() {
		once.Do(func() {
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			var err error
			select {
			case err = <-exited:
			case <-time.After(time.Minute):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				err = errors.Join(errors.New("killed a minute after SIGTERM"), <-exited)
			}
			w.mu.Lock()
			w.logs = append(w.logs, "--- baton serve (stderr)\n"+tail(srv.log.String(), 8000))
			w.mu.Unlock()
			if err != nil {
				t.Errorf("baton serve did not exit 0 after SIGTERM: %v", err)
			}
		})
	}
	t.Cleanup(srv.stop)
	select {
	case srv.url = <-listening:
	case err := <-exited:
		t.Fatalf("baton serve exited before it listened: %v\n%s", err, srv.log.String())
	case <-time.After(serveStartTimeout):
		t.Fatalf("baton serve did not listen within %s:\n%s", serveStartTimeout, srv.log.String())
	}
	srv.client = httpapi.NewClient(srv.url, teamKey, httpapi.ClientOptions{Timeout: time.Minute, CloseTimeout: time.Minute})
	w.team = srv
	w.env = append(w.env, "BATON_SERVER_URL="+srv.url, "BATON_API_KEY="+teamKey)
}
