package hook_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/continuity"
)

// nudgeText is the debrief a Stop's result carries in these tests.
const nudgeText = "Record the commitments this turn made."

// nudgingAPI answers Stop with an injection and err beside it, as the
// service does when the Stop armed the attempt but a later write of the
// event failed.
type nudgingAPI struct {
	continuity.API
	err error
}

func (a nudgingAPI) Stop(context.Context, continuity.StopParams) (continuity.StopResult, error) {
	return continuity.StopResult{Inject: true, Reason: nudgeText}, a.err
}

// TestNoNudgeFromAFailedStop: a Stop nudges only on the answer of a call
// that succeeded. A failed Stop whose result holds an injection (the local
// service's partial result, a team server's error answer carrying one)
// prints no nudge, for every harness, with the nudge on; the one stderr
// line names the failure. The same injection from a call that succeeded
// does nudge.
func TestNoNudgeFromAFailedStop(t *testing.T) {
	stops := []struct{ harness, file, arg string }{
		{"claude-code", "claude-code/stdin-Stop.json", ""},
		{"codex", "codex/stdin-Stop.json", ""},
		{"gemini", "gemini/stdin-AfterAgent.json", ""},
		{"copilot", "synthetic/copilot-agentstop.json", "stop"},
		{"copilot", "written/copilot-pascal-Stop.json", ""},
		{"cursor", "synthetic/cursor-stop.json", ""},
	}
	server := func(status int, body string) continuity.API {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return httpapi.NewClient(srv.URL, "k0123456789", httpapi.ClientOptions{})
	}
	partial := `"sessionRunId":"0195d1b2-7c3e-7abc-9def-000000000001","receiptId":"0195d1b2-7c3e-7abc-9def-000000000002","inject":true,"reason":"` + nudgeText + `"`
	answers := []struct {
		name  string
		api   continuity.API
		nudge bool
	}{
		{"the local service's partial result", nudgingAPI{err: errStore}, false},
		{"a team server's 500 with the partial result", server(500, `{"error":{"code":"internal","message":"internal error"},`+partial+`}`), false},
		{"a team server's 409 with the partial result", server(409, `{"error":{"code":"conflict","message":"busy"},`+partial+`}`), false},
		{"a Stop that succeeded", nudgingAPI{}, true},
		{"a team server's success", server(200, `{"activationEpoch":1,`+partial+`}`), true},
	}
	for _, a := range answers {
		for _, s := range stops {
			data, err := os.ReadFile(filepath.Join("testdata", "payloads", s.file))
			if err != nil {
				t.Fatal(err)
			}
			home := captureDir(t)
			var out, errOut bytes.Buffer
			inv := hook.Invocation{Harness: s.harness, Event: s.arg, Stdin: bytes.NewReader(rehome(data, home)),
				Stdout: &out, Stderr: &errOut, Dir: filepath.Join(home, "project"), Nudge: true,
				Open: func(context.Context) (continuity.API, error) { return a.api, nil }, Now: fixedNow}
			inv.Run(context.Background())
			checkStdout(t, a.name+" "+s.file, out.Bytes())
			nudged := strings.Contains(out.String(), nudgeText)
			switch {
			case nudged != a.nudge:
				t.Errorf("%s, %s: stdout %q, nudged %v, want %v", a.name, s.file, out.String(), nudged, a.nudge)
			case !a.nudge && strings.Count(errOut.String(), "\n") != 1:
				t.Errorf("%s, %s: stderr %q, want one line naming the failure", a.name, s.file, errOut.String())
			}
		}
	}
}
