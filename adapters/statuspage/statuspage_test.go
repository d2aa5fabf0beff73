package statuspage_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/adapters/statuspage"
	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/batonhq/baton/continuity/sqlstore/sqltest"
	"github.com/batonhq/baton/continuity/storetest"
	"github.com/batonhq/baton/internal/gittest"
	"github.com/batonhq/baton/internal/runes"
)

const (
	agent  = "claude-code"
	keyA   = "key-a"
	tenant = "tenant-a"
	// hostile is bottle and memory text that would be markup if it were
	// not escaped.
	hostile = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`
)

// fixture is a seeded service, its clock and the status page over it.
type fixture struct {
	svc   *continuity.Service
	clock *storetest.Clock
	api   continuity.API
	run   string
}

func ev(name, sid string) continuity.EventParams {
	return continuity.EventParams{Provider: agent, ProviderEvent: name, Agent: agent, SessionID: sid}
}

// must returns v, and panics on err: a seeding step that fails ends the
// test with its stack.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// seed writes three conversations: s1 in project baton (a checkpoint, a
// decision and a commitment attributed to it, a failure, a handover,
// closed), s2 in project other (live), s3 in baton (lapsed).
func seed(t testing.TB) *fixture {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "baton.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := storetest.NewClock()
	svc := continuity.New(st, continuity.WithClock(clock.Now))
	api := svc.For(tenant)
	ctx := context.Background()
	f := &fixture{svc: svc, clock: clock, api: api}

	_ = must(api.SessionStart(ctx, continuity.StartParams{EventParams: ev("SessionStart", "s3"), Source: continuity.SourceStartup, Project: "baton"}))
	clock.Advance(25 * time.Hour) // s3 lapses
	start := must(api.SessionStart(ctx, continuity.StartParams{EventParams: ev("SessionStart", "s1"), Source: continuity.SourceStartup, Project: "baton"}))
	f.run = start.SessionRunID.String()
	_ = must(api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindDecision, Topic: "storage", Content: "Use bun " + hostile,
		Project: "baton", SessionRunID: f.run, Actor: continuity.ActorUserAPI}))
	_ = must(api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: "lease rules", Content: "Ship the lease rules.",
		Project: "baton", SessionRunID: f.run, Actor: continuity.ActorUserAPI}))
	_ = must(api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindBlocker, Topic: "ci", Content: "CI lacks Postgres.",
		Project: "other", Actor: continuity.ActorUserCLI}))
	stop := must(api.Stop(ctx, continuity.StopParams{EventParams: ev("Stop", "s1"), LastMessage: ptr("Turn done.\n\nNext: write the tests.")}))
	if err := api.RecordFailure(ctx, continuity.FailureParams{EventParams: ev("Stop", "s1"), ReceiptID: stop.ReceiptID.String(), Reason: "internal: render failed"}); err != nil {
		t.Fatal(err)
	}
	_ = must(api.PreCompact(ctx, continuity.PreCompactParams{EventParams: ev("PreCompact", "s1"), Trigger: "auto",
		Episode: continuity.Episode{GitCommit: "0a1b2c3d", GitBranch: "main"}}))
	clock.Advance(13 * time.Hour) // the checkpoint ages
	_ = must(api.SessionEnd(ctx, continuity.EndParams{EventParams: ev("SessionEnd", "s1"), Reason: "exit"}))
	_ = must(api.SessionStart(ctx, continuity.StartParams{EventParams: ev("SessionStart", "s2"), Source: continuity.SourceStartup, Project: "other"}))
	return f
}

func ptr[T any](v T) *T { return &v }

// keys authenticates keyA as tenant.
func keys(t *testing.T) httpapi.Authenticator {
	t.Helper()
	return must(httpapi.ParseKeys(keyA + "=" + tenant))
}

// serve mounts the page as httpapi.NewHandler does and returns its base URL.
func (f *fixture) serve(t *testing.T, opts statuspage.Options, wrap func(continuity.API) continuity.API) string {
	t.Helper()
	if opts.Authenticator == nil {
		opts.Authenticator = keys(t)
	}
	opts.Now = f.clock.Now
	api := func(tn string) continuity.API {
		a := continuity.API(f.svc.For(tn))
		if wrap != nil {
			a = wrap(a)
		}
		return a
	}
	mux := http.NewServeMux()
	mux.Handle("/status/", http.StripPrefix("/status", statuspage.New(api, opts)))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/status/"
}

// get fetches u with the Bearer key (none when key is "") and returns the
// status and body; redirects are not followed.
func get(t *testing.T, u, key string, cookies ...*http.Cookie) (*http.Response, string) {
	t.Helper()
	req := must(http.NewRequest(http.MethodGet, u, nil))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp := must(c.Do(req))
	defer resp.Body.Close()
	return resp, string(must(io.ReadAll(resp.Body)))
}

// page fetches a page that must answer 200.
func page(t *testing.T, u string) string {
	t.Helper()
	resp, body := get(t, u, keyA)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", u, resp.StatusCode, body)
	}
	return body
}

// rows returns the <tr> elements of the table with the id.
func rows(body, id string) []string {
	i := strings.Index(body, `<table id="`+id+`">`)
	if i < 0 {
		return nil
	}
	table := body[i:]
	table = table[:strings.Index(table, "</table>")]
	table = table[strings.Index(table, "<tbody>"):]
	return regexp.MustCompile(`(?s)<tr[ >].*?</tr>`).FindAllString(table, -1)
}

func wantIn(t *testing.T, what, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(body, s) {
			t.Errorf("%s lacks %q", what, s)
		}
	}
}

func wantNotIn(t *testing.T, what, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(body, s) {
			t.Errorf("%s holds %q", what, s)
		}
	}
}

// wantOneScript asserts that the page's only script is the local-time
// script, allowed by its hash in the Content-Security-Policy.
func wantOneScript(t *testing.T, what string, resp *http.Response, body string) {
	t.Helper()
	scripts := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(body, -1)
	if n := strings.Count(strings.ToLower(body), "<script"); n != 1 || len(scripts) != 1 {
		t.Fatalf("%s has %d script tags, want the one local-time script", what, n)
	}
	h := sha256.Sum256([]byte(scripts[0][1]))
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'sha256-"+base64.StdEncoding.EncodeToString(h[:])+"'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("%s: the policy %q does not allow exactly its script", what, csp)
	}
	wantNotIn(t, what, body, "http://", "https://", "<link", "<img")
	if tag := regexp.MustCompile(`<[a-z]+[^>]*\s(src|href)="?[a-z]+:`).FindString(body); tag != "" {
		t.Errorf("%s loads or links elsewhere: %s", what, tag)
	}
}

func TestSessionsPage(t *testing.T) {
	f := seed(t)
	base := f.serve(t, statuspage.Options{Refresh: 15 * time.Second}, nil)
	resp, body := get(t, base, keyA)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("sessions: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	wantOneScript(t, "sessions", resp, body)
	wantIn(t, "sessions", body, `<meta http-equiv="refresh" content="15">`, "tenant <span class=\"mono\">tenant-a</span>")
	wantNotIn(t, "a keyed server's page", body, `id="keyless"`)
	all := rows(body, "sessions")
	if len(all) != 3 {
		t.Fatalf("%d rows, want 3:\n%s", len(all), body)
	}
	// Newest first: s2 (live), s1 (explicitly closed), s3 (lapsed).
	for i, want := range []struct{ sid, project, state, epoch, stops string }{
		{"s2", "other", "live", "1", "0"},
		{"s1", "baton", "explicitly_closed", "1", "1"},
		{"s3", "baton", "implicitly_closed", "1", "0"},
	} {
		r := all[i]
		wantIn(t, "row "+want.sid, r, `href="session?agent=claude-code&amp;id=`+want.sid+`">`+want.sid+`</a>`,
			`<a href="?project=`+want.project+`">`, `<span class="label `+want.state+`">`+want.state+`</span>`,
			`<td class="num">`+want.epoch+`</td>`, `<td>idle</td>`, `<td class="num">`+want.stops+`</td>`, "<td>claude-code</td>")
	}
	// The last seen time: UTC in the element and its title, machine-readable in datetime.
	s2, _ := f.svc.Session(context.Background(), tenant, agent, "s2")
	at := s2.LastSeenAt.UTC()
	wantIn(t, "s2's last seen", all[0], `<time datetime="`+at.Format(time.RFC3339)+`" title="UTC `+at.Format("2006-01-02 15:04:05")+` UTC">`)

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?state=live", []string{"s2"}},
		{"?state=explicitly_closed", []string{"s1"}},
		{"?state=implicitly_closed", []string{"s3"}},
		{"?project=baton", []string{"s1", "s3"}},
		{"?project=baton&state=implicitly_closed", []string{"s3"}},
		{"?project=nowhere", nil},
		{"?project=&state=", []string{"s2", "s1", "s3"}},
	} {
		body := page(t, base+tc.query)
		got := rows(body, "sessions")
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d rows, want %v", tc.query, len(got), tc.want)
			continue
		}
		for i, sid := range tc.want {
			wantIn(t, tc.query, got[i], "id="+sid+`">`)
		}
		if len(tc.want) == 0 {
			wantIn(t, tc.query, body, `id="none"`)
		}
	}
	resp, body = get(t, base+"?state=open", keyA)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown state: %d", resp.StatusCode)
	}
	wantIn(t, "an unknown state", body, "invalid input")
	if resp, _ := get(t, base+"nowhere", keyA); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown page: %d", resp.StatusCode)
	}
}

func TestSessionPage(t *testing.T) {
	f := seed(t)
	bottles := map[string]string{"s1": "# Bottle\n\nThe user wrote " + hostile + " & more.\n"}
	read := func(ag, sid string) ([]byte, error) {
		b, ok := bottles[sid]
		if !ok || ag != agent {
			return nil, fs.ErrNotExist
		}
		return []byte(b), nil
	}
	// Another agent's conversation under the same session id: its lines
	// are not this conversation's.
	_ = must(f.api.SessionStart(context.Background(), continuity.StartParams{EventParams: continuity.EventParams{Provider: "codex",
		ProviderEvent: "SessionStart", Agent: "codex", SessionID: "s1"}, Source: continuity.SourceStartup}))
	base := f.serve(t, statuspage.Options{Bottles: read}, nil)
	resp, body := get(t, base+"session?agent=claude-code&id=s1", keyA)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("session: %d\n%s", resp.StatusCode, body)
	}
	wantOneScript(t, "the session page", resp, body)
	wantIn(t, "the session page", body, "<h1>Session <span class=\"mono\">s1</span></h1>", f.run,
		`<span class="label explicitly_closed">explicitly_closed</span> epoch 1`)

	// The bottle is text: every markup character escaped, in the <pre>.
	wantIn(t, "the bottle", body, `<pre class="bottle" id="bottle"># Bottle

The user wrote &lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt; &amp; more.
</pre>`)

	// The timeline: receipts, the failure and lifecycle lines, oldest first.
	tl := rows(body, "timeline")
	var classes, events []string
	for _, r := range tl {
		classes = append(classes, regexp.MustCompile(`<tr class="(\w+)">`).FindStringSubmatch(r)[1])
		events = append(events, regexp.MustCompile(`<td class="mono">([^<]+)</td>`).FindStringSubmatch(r)[1])
	}
	wantEvents := []string{continuity.EventReceived, continuity.EventSessionStarted, continuity.EventReceived, continuity.EventFailed,
		continuity.EventReceived, "record.checkpoint", continuity.EventReceived, continuity.EventSessionClosed, "record.handover"}
	if strings.Join(events, " ") != strings.Join(wantEvents, " ") {
		t.Errorf("timeline events:\n got %v\nwant %v", events, wantEvents)
	}
	for i, e := range events {
		want := map[string]string{continuity.EventReceived: "receipt", continuity.EventFailed: "failure"}[e]
		if want == "" {
			want = "lifecycle"
		}
		if i < len(classes) && classes[i] != want {
			t.Errorf("timeline line %d (%s) is a %s, want %s", i, e, classes[i], want)
		}
	}
	if len(tl) > 3 {
		wantIn(t, "the failure line", tl[3], "reason=local: internal: render failed", "provider_event=Stop")
	}
	wantNotIn(t, "the timeline", strings.Join(tl, ""), "s2", "s3")

	// The provenance events of the run: the two attributed creates.
	evs := rows(body, "events")
	if len(evs) != 2 {
		t.Errorf("%d provenance events, want 2", len(evs))
	}
	for _, r := range evs {
		wantIn(t, "a provenance event", r, "<td>create</td>", "<td>user_api</td>")
	}

	// The records, newest first, with their labels: the handover fresh,
	// the checkpoint aging (13 h old); no work tree here, so no divergence.
	recs := regexp.MustCompile(`(?s)<div class="card record">.*?</div>`).FindAllString(body, -1)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	wantIn(t, "the handover", recs[0], "<b>handover</b>", "· exit", `<span class="label fresh">fresh</span>`,
		`git <span class="label unknown">unknown</span> <span class="muted">(the record carries no commit)</span>`)
	wantIn(t, "the checkpoint", recs[1], "<b>checkpoint</b>", "· auto", `<span class="label aging">aging</span>`, "13h",
		`<span class="label unknown">unknown</span> <span class="muted">(no work tree of its project here)</span>`,
		"main 0a1b2c3d", "<b>Next action</b> Next: write the tests.")

	// A stale record is history: its next action is not shown as current.
	f.clock.Advance(48 * time.Hour)
	stale := page(t, base+"session?agent=claude-code&id=s1")
	wantIn(t, "a stale record", stale, `<span class="label stale">stale</span>`, "Shown as history: its next action is not current.",
		"<b>Next action then</b>")

	// No bottle for the conversation, or no bottles on the server.
	wantIn(t, "s2", page(t, base+"session?agent=claude-code&id=s2"), `id="nobottle">No bottle here: this conversation has none on this machine.`,
		"No write is attributed to this run.")
	none := f.serve(t, statuspage.Options{}, nil)
	wantIn(t, "a server without bottles", page(t, none+"session?agent=claude-code&id=s1"), `id="nobottle">No bottle here: this server keeps no bottles`)
	broken := f.serve(t, statuspage.Options{Bottles: func(string, string) ([]byte, error) { return nil, errors.New("disk on fire " + hostile) }}, nil)
	b := page(t, broken+"session?agent=claude-code&id=s1")
	wantIn(t, "an unreadable bottle", b, "The bottle could not be read.")
	wantNotIn(t, "an unreadable bottle", b, "disk on fire")

	for _, tc := range []struct {
		query  string
		status int
	}{
		{"session?agent=claude-code&id=nope", http.StatusNotFound},
		{"session?agent=gemini&id=s1", http.StatusNotFound},
		{"session?agent=Claude&id=s1", http.StatusBadRequest},
		{"session?id=s1", http.StatusBadRequest},
	} {
		if resp, body := get(t, base+tc.query, keyA); resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d\n%s", tc.query, resp.StatusCode, tc.status, body)
		}
	}
}

// TestBottleBounds: a bottle is shown up to MaxBottleBytes, cut on a
// character boundary, saying how much was left out; bytes that are not
// UTF-8 are shown as replacement characters.
func TestBottleBounds(t *testing.T) {
	f := seed(t)
	for _, tc := range []struct {
		name string
		text string
		cut  string
	}{
		{"at the bound", strings.Repeat("a", statuspage.MaxBottleBytes), ""},
		{"one byte over", strings.Repeat("a", statuspage.MaxBottleBytes) + "b", "1 more bytes are not shown"},
		{"a character across the bound", strings.Repeat("a", statuspage.MaxBottleBytes-1) + "é", "2 more bytes are not shown"},
		{"not UTF-8", "ok \xff", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := f.serve(t, statuspage.Options{Bottles: func(string, string) ([]byte, error) { return []byte(tc.text), nil }}, nil)
			body := page(t, base+"session?agent=claude-code&id=s1")
			pre := body[strings.Index(body, `<pre class="bottle" id="bottle">`):]
			pre = strings.TrimPrefix(pre[:strings.Index(pre, "</pre>")], `<pre class="bottle" id="bottle">`)
			switch {
			case tc.cut == "" && strings.Contains(body, "more bytes are not shown"):
				t.Error("a bottle within the bound is cut")
			case tc.cut != "":
				wantIn(t, "the cut", body, tc.cut, "baton bottle show s1")
			}
			if tc.name == "not UTF-8" && pre != "ok \uFFFD" {
				t.Errorf("bottle %q", pre)
			}
			if tc.name != "not UTF-8" && len(pre) > statuspage.MaxBottleBytes {
				t.Errorf("%d bytes shown", len(pre))
			}
		})
	}
}

func TestMemoryPage(t *testing.T) {
	f := seed(t)
	base := f.serve(t, statuspage.Options{}, nil)
	resp, body := get(t, base+"memory", keyA)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("memory: %d", resp.StatusCode)
	}
	wantOneScript(t, "the memory page", resp, body)
	sections := regexp.MustCompile(`(?s)<section class="project">.*?</section>`).FindAllString(body, -1)
	if len(sections) != 2 {
		t.Fatalf("%d project sections, want baton and other:\n%s", len(sections), body)
	}
	short := f.run[28:]
	wantIn(t, "baton", sections[0], "<h2>baton</h2>", "<h3>Open commitments and blockers</h3>", "<td>lease rules</td>", "<td>Ship the lease rules.</td>",
		"<h3>Recent decisions</h3>", "<td>Use bun &lt;script&gt;window.pwned=1&lt;/script&gt;&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt;</td>",
		`<a class="mono" href="session?agent=claude-code&amp;id=s1">`+short+`</a>`)
	wantIn(t, "other", sections[1], "<h2>other</h2>", "<td>blocker</td>", "<td>CI lacks Postgres.</td>", `<span class="muted">unattributed</span>`)
	wantNotIn(t, "other", sections[1], "Recent decisions")
	only := page(t, base+"memory?project=other")
	if n := strings.Count(only, `<section class="project">`); n != 1 || !strings.Contains(only, "<h2>other</h2>") {
		t.Errorf("memory of project other: %d sections", n)
	}
	wantIn(t, "an empty project", page(t, base+"memory?project=nowhere"), `id="none"`)
	if resp, _ := get(t, base+"memory?project="+url.QueryEscape(strings.Repeat("p", continuity.MaxFacetLen+1)), keyA); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a project over the bound: %d", resp.StatusCode)
	}
}

// doctored is an API with a doctor that returns a fixed report: the doctor
// itself is tested where it is written.
type doctored struct {
	continuity.API
	report continuity.DoctorReport
}

func (d doctored) Doctor(context.Context) (continuity.DoctorReport, error) { return d.report, nil }

func TestDoctorPage(t *testing.T) {
	f := seed(t)
	real := f.serve(t, statuspage.Options{}, nil)
	wantIn(t, "the store's own doctor", page(t, real+"doctor"), "conversations recorded")

	report := continuity.DoctorReport{GeneratedAt: f.clock.Now(), Sessions: 3, Findings: []continuity.Finding{
		{Check: "receipts_without_events", Severity: continuity.SeverityFailure, Sentence: "Stop receipts arrive but no " + hostile + " advances.",
			Project: "baton", Agent: agent, SessionID: "s1"},
		{Check: "few_sessions", Severity: continuity.SeverityInfo, Sentence: "Only three conversations."},
	}}
	with := f.serve(t, statuspage.Options{}, func(a continuity.API) continuity.API { return doctored{API: a, report: report} })
	resp, body := get(t, with+"doctor", keyA)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("doctor: %d", resp.StatusCode)
	}
	wantOneScript(t, "the doctor page", resp, body)
	rs := rows(body, "findings")
	if len(rs) != 2 {
		t.Fatalf("%d findings, want 2", len(rs))
	}
	wantIn(t, "the failure", rs[0], `<span class="label sev-failure">failure</span>`, "receipts_without_events",
		"Stop receipts arrive but no &lt;script&gt;window.pwned=1&lt;/script&gt;", `href="session?agent=claude-code&amp;id=s1"`)
	wantIn(t, "the info", rs[1], `<span class="label sev-info">info</span>`, "Only three conversations.")
	wantIn(t, "the verdict", body, "at least one finding is a failure", "3 conversations recorded")
	report.Findings = report.Findings[1:]
	healthy := f.serve(t, statuspage.Options{}, func(a continuity.API) continuity.API { return doctored{API: a, report: report} })
	wantIn(t, "a healthy report", page(t, healthy+"doctor"), "Healthy: no finding is a failure.")
}

// forbidding knows keyA's tenant but refuses it.
type forbidding struct{}

func (forbidding) Authenticate(*http.Request) (string, error) {
	return "", &continuity.Error{Code: continuity.CodeForbidden, Message: "this key may not read the status page"}
}

// TestAuthentication: the page is behind the API's keys. A Bearer header
// works; a browser gives the key once as ?key=, which sets an HttpOnly,
// SameSite=Strict cookie and redirects to the URL without the key; no key,
// a wrong key or a wrong cookie is 401 with a form; forbidden is 403.
func TestAuthentication(t *testing.T) {
	f := seed(t)
	base := f.serve(t, statuspage.Options{}, nil)
	for _, path := range []string{"", "session?agent=claude-code&id=s1", "memory", "doctor"} {
		for _, key := range []string{"", "wrong"} {
			resp, body := get(t, base+path, key)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%q with key %q: %d", path, key, resp.StatusCode)
			}
			wantIn(t, "the 401", body, `<input type="password" name="key"`)
			wantNotIn(t, "the 401", body, "tenant-a", "Ship the lease rules", "pwned", "<meta http-equiv=\"refresh\"", `name="key" value=`)
			if path == "session?agent=claude-code&id=s1" {
				// The form sends the page's query again beside the key.
				wantIn(t, "the session page's 401", body, `<input type="hidden" name="agent" value="claude-code">`, `<input type="hidden" name="id" value="s1">`)
			}
		}
		if resp, _ := get(t, base+path+sep(path)+"key=wrong", ""); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%q with a wrong ?key=: %d", path, resp.StatusCode)
		}
	}

	resp, _ := get(t, base+"session?agent=claude-code&id=s1&key="+keyA, "")
	var kept *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "baton_status_key" {
			kept = c
		}
	}
	switch {
	case resp.StatusCode != http.StatusSeeOther:
		t.Fatalf("?key=: %d", resp.StatusCode)
	case resp.Header.Get("Location") != "session?agent=claude-code&id=s1":
		t.Errorf("redirected to %q", resp.Header.Get("Location"))
	case kept == nil || !kept.HttpOnly || kept.SameSite != http.SameSiteStrictMode || kept.Secure || kept.Path != "":
		t.Errorf("cookie %+v", kept)
	}
	if resp, _ := get(t, base+"?key="+keyA, ""); resp.Header.Get("Location") != "./" {
		t.Errorf("?key= on the sessions page redirects to %q", resp.Header.Get("Location"))
	}
	if resp, _ := get(t, base+"?project=baton&key="+keyA, ""); resp.Header.Get("Location") != "./?project=baton" {
		t.Errorf("?key= with a filter redirects to %q", resp.Header.Get("Location"))
	}
	if resp, body := get(t, base+"session?agent=claude-code&id=s1", "", kept); resp.StatusCode != http.StatusOK || !strings.Contains(body, "<h1>Session") {
		t.Errorf("with the cookie: %d", resp.StatusCode)
	}
	if resp, _ := get(t, base, "", &http.Cookie{Name: "baton_status_key", Value: "wrong"}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong cookie: %d", resp.StatusCode)
	}
	// A ?key= is kept only from the address bar or the page's own form: a
	// link or form of another site would log its visitor in as its own
	// tenant. Ignored, the request is authenticated as if it had none.
	for _, tc := range []struct {
		site   string // Sec-Fetch-Site; "" sends none (a browser without it)
		cookie *http.Cookie
		status int
	}{
		{"", nil, http.StatusSeeOther},
		{"none", nil, http.StatusSeeOther},
		{"same-origin", nil, http.StatusSeeOther},
		{"cross-site", nil, http.StatusUnauthorized},
		{"same-site", nil, http.StatusUnauthorized},
		{"cross-site", kept, http.StatusOK},
	} {
		req := must(http.NewRequest(http.MethodGet, base+"memory?key="+keyA, nil))
		if tc.site != "" {
			req.Header.Set("Sec-Fetch-Site", tc.site)
		}
		if tc.cookie != nil {
			req.AddCookie(tc.cookie)
		}
		noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp := must(noFollow.Do(req))
		resp.Body.Close()
		setsCookie := len(resp.Cookies()) > 0
		if resp.StatusCode != tc.status || setsCookie != (tc.status == http.StatusSeeOther) {
			t.Errorf("?key= with Sec-Fetch-Site %q (cookie %v): %d, sets a cookie %v; want %d", tc.site, tc.cookie != nil, resp.StatusCode, setsCookie, tc.status)
		}
	}

	if resp, body := get(t, f.serve(t, statuspage.Options{Authenticator: forbidding{}}, nil), keyA); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "this key may not read the status page") {
		t.Errorf("forbidden: %d", resp.StatusCode)
	}
	keyless := f.serve(t, statuspage.Options{Keyless: true, Authenticator: anyone{}}, nil)
	if resp, body := get(t, keyless, ""); resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="keyless">This server runs without API keys`) {
		t.Errorf("a keyless server: %d, says so: %v", resp.StatusCode, strings.Contains(body, "without API keys"))
	}
}

// anyone authenticates every request as the tenant: a keyless local server.
type anyone struct{}

func (anyone) Authenticate(*http.Request) (string, error) { return tenant, nil }

func sep(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}

// TestHomeBottles reads the bottle a Bottler wrote under a home, and says
// a conversation without one has none.
func TestHomeBottles(t *testing.T) {
	home := t.TempDir()
	b := &bottle.Bottler{Home: home, Agent: agent}
	transcript := t.TempDir() + "/t.jsonl"
	line := `{"type":"user","message":{"role":"user","content":"Hello ` + strings.ReplaceAll(hostile, `"`, `\"`) + `"},"timestamp":"2026-11-30T09:00:00Z","sessionId":"s1","uuid":"u1"}` + "\n"
	if err := writeFile(transcript, line); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Render(context.Background(), "s1", transcript); err != nil {
		t.Fatal(err)
	}
	read := statuspage.HomeBottles(home)
	got, err := read(agent, "s1")
	if err != nil || !strings.Contains(string(got), hostile) {
		t.Fatalf("read: %v\n%s", err, got)
	}
	if _, err := read(agent, "s2"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing bottle: %v", err)
	}
	if _, err := read("codex", "s1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("another agent's bottle: %v", err)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o600) }

// TestDivergenceAgainstWorkDir: with WorkDir set, a record of its project
// is compared with its HEAD (exact, advanced, diverged, different_context);
// a record of another project stays unknown, saying why.
func TestDivergenceAgainstWorkDir(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", root)
	dir := filepath.Join(root, "proj")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, dir, "init")
	gittest.Run(t, dir, "commit", "--allow-empty", "-m", "one")
	one := gittest.Run(t, dir, "rev-parse", "HEAD")
	gittest.Run(t, dir, "checkout", "-b", "side")
	gittest.Run(t, dir, "commit", "--allow-empty", "-m", "side")
	side := gittest.Run(t, dir, "rev-parse", "HEAD")
	gittest.Run(t, dir, "checkout", "main")
	gittest.Run(t, dir, "commit", "--allow-empty", "-m", "two")
	two := gittest.Run(t, dir, "rev-parse", "HEAD")

	st, _ := sqltest.SQLite.New(t)
	clock := storetest.NewClock()
	f := &fixture{svc: continuity.New(st, continuity.WithClock(clock.Now)), clock: clock}
	api := f.svc.For(tenant)
	ctx := context.Background()
	cases := []struct {
		sid, project, commit, branch, want string
	}{
		{"exact", "proj", two, "main", `<span class="label exact">exact</span>`},
		{"advanced", "proj", one, "main", `<span class="label advanced">advanced</span>`},
		{"diverged", "proj", side, "main", `<span class="label diverged">diverged</span>`},
		{"context", "proj", one, "side", `<span class="label different_context">different_context</span>`},
		{"elsewhere", "other", two, "main", `<span class="label unknown">unknown</span> <span class="muted">(no work tree of its project here)</span>`},
	}
	for _, tc := range cases {
		_ = must(api.SessionStart(ctx, continuity.StartParams{EventParams: ev("SessionStart", tc.sid), Source: continuity.SourceStartup, Project: tc.project}))
		_ = must(api.PreCompact(ctx, continuity.PreCompactParams{EventParams: ev("PreCompact", tc.sid),
			Episode: continuity.Episode{GitCommit: tc.commit, GitBranch: tc.branch}}))
	}
	base := f.serve(t, statuspage.Options{WorkDir: dir}, nil)
	for _, tc := range cases {
		wantIn(t, tc.sid, page(t, base+"session?agent=claude-code&id="+tc.sid), tc.want)
	}
	// Without WorkDir no record has a work tree here.
	none := f.serve(t, statuspage.Options{}, nil)
	wantIn(t, "no work dir", page(t, none+"session?agent=claude-code&id=exact"), `(no work tree of its project here)`)
}

// TestPagesShowHiddenCharacters: text a tenant wrote (a project, a
// memory's topic and content, a handover, a ledger field, a doctor
// finding, a bottle) holding format characters (a right-to-left override,
// an isolate, zero-width characters, a byte order mark), control
// characters or invalid UTF-8, at the start, in the middle and at the end,
// reaches no page as it is: each format character and each other
// invisible or blank character (a Hangul filler, the blank Braille
// pattern, a variation selector, a tag) shows as its code
// point, escaped ("&lt;U+202E&gt;"), each control character as a space,
// invalid UTF-8 as U+FFFD, in an element and in an attribute value alike;
// what is stored keeps the characters.
func TestPagesShowHiddenCharacters(t *testing.T) {
	f := seed(t)
	ctx := context.Background()
	// The store refuses invalid UTF-8; a bottle and a finding (which
	// quotes the ledger) are not the store's text and carry it too.
	hidden := func(what string) string {
		return "\u202e" + what + "\u2066x\u2069\u200b\x1b[2J" + what + "\ufeff\u200d\u3164\u2800\ufe0f\U000E0041"
	}
	marked := func(what string) string {
		return "&lt;U+202E&gt;" + what + "&lt;U+2066&gt;x&lt;U+2069&gt;&lt;U+200B&gt; [2J" + what + "&lt;U+FEFF&gt;&lt;U+200D&gt;&lt;U+3164&gt;&lt;U+2800&gt;&lt;U+FE0F&gt;&lt;U+E0041&gt;"
	}
	project := hidden("proj")
	start := must(f.api.SessionStart(ctx, continuity.StartParams{EventParams: ev("SessionStart", "s9"), Source: continuity.SourceStartup, Project: project}))
	_ = must(f.api.Remember(ctx, continuity.RememberParams{Kind: continuity.KindCommitment, Topic: hidden("topic"), Content: hidden("content"),
		Project: project, SessionRunID: start.SessionRunID.String(), Actor: continuity.ActorUserAPI}))
	stop := must(f.api.Stop(ctx, continuity.StopParams{EventParams: ev("Stop", "s9")}))
	if err := f.api.RecordFailure(ctx, continuity.FailureParams{EventParams: ev("Stop", "s9"), ReceiptID: stop.ReceiptID.String(), Reason: hidden("reason")}); err != nil {
		t.Fatal(err)
	}
	_ = must(f.api.SessionEnd(ctx, continuity.EndParams{EventParams: ev("SessionEnd", "s9"), Reason: "exit",
		Episode: continuity.Episode{Objective: hidden("objective"), NextAction: hidden("next")}}))
	if m := must(f.api.Sessions(ctx, continuity.SessionQuery{Project: project, ByProject: true})); len(m) != 1 || !strings.Contains(m[0].Project, "\u202eproj\u2066") {
		t.Fatalf("the store did not keep the project's characters: %+v", m)
	}
	report := continuity.DoctorReport{GeneratedAt: f.clock.Now(), Sessions: 4, Findings: []continuity.Finding{
		{Check: "failed_events", Severity: continuity.SeverityWarning, Sentence: "\xfe" + hidden("sentence") + "\xff", Project: project, Agent: agent, SessionID: "s9"}}}
	bottles := func(string, string) ([]byte, error) {
		return []byte("# Bottle\n\n\xff" + hidden("bottle") + "\xe2\x80\n"), nil
	}
	base := f.serve(t, statuspage.Options{Bottles: bottles}, func(a continuity.API) continuity.API { return doctored{API: a, report: report} })
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"?project=" + url.QueryEscape(project), []string{`value="` + marked("proj") + `"`, ">" + marked("proj") + "</a>"}},
		{"session?agent=claude-code&id=s9", []string{marked("proj"), marked("objective"), marked("next"), marked("reason"), "\uFFFD" + marked("bottle") + "\uFFFD\n"}},
		{"memory?project=" + url.QueryEscape(project), []string{marked("topic"), marked("content"), marked("proj")}},
		{"doctor", []string{"\uFFFD" + marked("sentence") + "\uFFFD", marked("proj")}},
	} {
		resp, body := get(t, base+tc.path, keyA)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d\n%s", tc.path, resp.StatusCode, body)
		}
		wantOneScript(t, tc.path, resp, body)
		for _, r := range body {
			if runes.Hidden(r) || r != '\n' && r != '\t' && runes.Breaks(r) {
				t.Fatalf("%s shows %U as it is", tc.path, r)
			}
		}
		if !utf8.ValidString(body) {
			t.Errorf("%s is not valid UTF-8", tc.path)
		}
		wantIn(t, tc.path, body, tc.want...)
	}
}
