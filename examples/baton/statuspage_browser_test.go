package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/batonhq/baton/adapters/httpapi"
	"github.com/batonhq/baton/adapters/statuspage"
	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/sqlstore"
	"github.com/google/uuid"
)

// The browser test's switches: BATON_BROWSER=1 runs it (.ci/run sets it),
// BATON_CHROMIUM names the browser (default: chromium on PATH), and
// BATON_SCREENSHOTS=DIR writes the sessions and session pages' screenshots
// into DIR (adapters/statuspage/screenshots is where they are committed).
const (
	envBrowser     = "BATON_BROWSER"
	envChromium    = "BATON_CHROMIUM"
	envScreenshots = "BATON_SCREENSHOTS"
)

// The bottle a conversation of the seeded server holds: text a model and a
// person wrote that is markup, which the page must show as text.
const (
	hostileScript = `<script>window.pwned=1</script>`
	hostileImg    = `<img src=x onerror="window.pwned=2">`
	hostileSID    = "hostile-bottle"
	demoSID       = "7f3c2a9e-4b1d-4e8a-9c2f-1a6b5d8e0f42"
	browserKey    = "browser-key"
)

// TestStatusPageBrowser seeds a server with the demo scenario and a
// conversation whose bottle holds a <script> and an <img onerror>, mounts
// the handler with its status page under a prefix, and loads every page in
// headless Chromium: the DOM after the page's script ran shows what the
// page should, the hostile bottle is text (no script but the page's own,
// no image element), and times are shown in the viewer's zone with the UTC
// value in their title.
func TestStatusPageBrowser(t *testing.T) {
	if os.Getenv(envBrowser) != "1" {
		t.Skip(envBrowser + "=1 runs the status page in a real browser (.ci/run sets it)")
	}
	chromium := os.Getenv(envChromium)
	if chromium == "" {
		chromium = "chromium"
	}
	if _, err := exec.LookPath(chromium); err != nil {
		t.Fatalf("%s=1 but the browser %q is not found: %v", envBrowser, chromium, err)
	}
	ctx := context.Background()
	home := t.TempDir()
	if err := (&DemoCmd{Home: home}).Run(ctx, &Env{Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.Open(ctx, filepath.Join(home, "baton.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The page reads the store at the demo's last instant: the demo's
	// clock ran a day ahead of the wall clock.
	es, err := continuity.New(st).For(demoTenant).Ledger(ctx, uuid.Nil, continuity.MaxLedgerRead)
	if err != nil || len(es) == 0 {
		t.Fatalf("the demo's ledger: %d lines, %v", len(es), err)
	}
	now := es[len(es)-1].At.Add(time.Minute)
	clock := func() time.Time { return now }
	svc := continuity.New(st, continuity.WithClock(clock))
	api := svc.For(demoTenant)
	seedHostileBottle(t, api, home)

	keys, err := httpapi.ParseKeys(browserKey + "=" + demoTenant)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/baton/", http.StripPrefix("/baton", httpapi.NewHandler(func(tenant string) continuity.API { return svc.For(tenant) },
		httpapi.Options{Authenticator: keys, Status: &statuspage.Options{Bottles: statuspage.HomeBottles(home), Now: clock}})))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	base := srv.URL + "/baton/status/"
	b := &browser{t: t, path: chromium, profile: t.TempDir()}

	// Each load is a new browser process, and the page's cookie lives as
	// long as the browser's session: every load gives the key as ?key=,
	// the page keeps it in the cookie and redirects to the URL without it,
	// which the browser loads with the cookie.
	sessions := b.dom(base + "?key=" + browserKey)
	want(t, "the sessions page", sessions, "<h1>Sessions</h1>", `<table id="sessions">`, demoSID, "demo-session-2", hostileSID,
		">explicitly_closed<", ">live<", "tenant <span class=\"mono\">demo</span>")
	wantLocalTimes(t, "the sessions page", sessions)
	wantOnlyOwnScript(t, "the sessions page", sessions)

	session := b.dom(base + "session?agent=claude-code&id=" + demoSID + "&key=" + browserKey)
	want(t, "the demo session", session, "<h1>Session <span class=\"mono\">"+demoSID+"</span></h1>",
		`<table id="timeline">`, "provider.event.received", "provider.event.failed", "session.closed", "record.checkpoint", "record.handover",
		`<table id="events">`, "<td>create</td>", "<td>resolve</td>",
		"<b>checkpoint</b>", "<b>handover</b>", `class="label aging">aging<`, `git <span class="label unknown">unknown</span>`,
		`<pre class="bottle" id="bottle">`)
	wantLocalTimes(t, "the demo session", session)
	wantOnlyOwnScript(t, "the demo session", session)

	hostile := b.dom(base + "session?agent=claude-code&id=" + hostileSID + "&key=" + browserKey)
	want(t, "the hostile bottle", hostile, `<pre class="bottle" id="bottle">`,
		"&lt;script&gt;window.pwned=1&lt;/script&gt;", "&lt;img src=x onerror=\"window.pwned=2\"&gt;")
	wantOnlyOwnScript(t, "the hostile bottle", hostile)
	if regexp.MustCompile(`(?i)<img[\s>]`).MatchString(hostile) {
		t.Error("the hostile bottle made an <img> element")
	}

	memory := b.dom(base + "memory?key=" + browserKey)
	want(t, "the memory page", memory, "<h1>Memory</h1>", `<section class="project">`, "<h2>baton</h2>",
		"Recent decisions", "Use bun over SQLite and Postgres from one set of migrations.", `href="session?agent=claude-code&amp;id=`+demoSID+`"`)
	wantOnlyOwnScript(t, "the memory page", memory)

	doctor := b.dom(base + "doctor?key=" + browserKey)
	want(t, "the doctor page", doctor, "<h1>Doctor</h1>")
	if !strings.Contains(doctor, "The doctor is not available on this server.") && !strings.Contains(doctor, "finding") {
		t.Errorf("the doctor page shows neither findings nor that the doctor is unavailable:\n%s", doctor)
	}

	// Without the cookie (a fresh profile), the page asks for the key.
	login := (&browser{t: t, path: chromium, profile: t.TempDir()}).dom(base)
	want(t, "the page without a key", login, "A key is required", `name="key"`)
	if strings.Contains(login, demoSID) {
		t.Error("the page without a key shows a session")
	}

	if dir := os.Getenv(envScreenshots); dir != "" {
		b.screenshot(base+"?key="+browserKey, filepath.Join(dir, "sessions.png"))
		b.screenshot(base+"session?agent=claude-code&id="+demoSID+"&key="+browserKey, filepath.Join(dir, "session.png"))
	}
}

// seedHostileBottle opens a conversation whose transcript's user message
// is markup, and renders its bottle where the page reads bottles.
func seedHostileBottle(t *testing.T, api continuity.API, home string) {
	t.Helper()
	ctx := context.Background()
	if _, err := api.SessionStart(ctx, continuity.StartParams{EventParams: continuity.EventParams{Provider: demoAgent,
		ProviderEvent: "SessionStart", Agent: demoAgent, SessionID: hostileSID}, Source: continuity.SourceStartup, Project: "baton"}); err != nil {
		t.Fatal(err)
	}
	text := "Render this verbatim: " + hostileScript + " and " + hostileImg
	line := `{"type":"user","message":{"role":"user","content":` + jsonString(text) + `},"timestamp":"2026-11-30T09:00:00Z","sessionId":"` + hostileSID + `","uuid":"u1"}` + "\n"
	transcript := filepath.Join(t.TempDir(), hostileSID+".jsonl")
	if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	b := &bottle.Bottler{Home: home, Agent: demoAgent}
	if _, err := b.Render(ctx, hostileSID, transcript); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Read(hostileSID); err != nil || !strings.Contains(string(got), hostileScript) || !strings.Contains(string(got), hostileImg) {
		t.Fatalf("the bottle does not hold the markup verbatim: %v\n%s", err, got)
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// browser runs headless Chromium with one profile, so a cookie one load
// sets is sent by the next.
type browser struct {
	t       *testing.T
	path    string
	profile string
}

func (b *browser) run(args ...string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.path, append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
		"--disable-extensions", "--disable-background-networking", "--user-data-dir=" + b.profile}, args...)...)
	// A zone other than UTC, so that the local time differs from the UTC one.
	cmd.Env = append(os.Environ(), "TZ=Asia/Tokyo", "LANG=en_US.UTF-8")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.t.Fatalf("%s %v: %v\n%s", b.path, args, err, stderr.String())
	}
	return string(out)
}

// dom loads url and returns the DOM after its script ran.
func (b *browser) dom(url string) string {
	b.t.Helper()
	return b.run("--dump-dom", url)
}

// screenshot writes the page at url as a 1280×900 PNG.
func (b *browser) screenshot(url, file string) {
	b.t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		b.t.Fatal(err)
	}
	b.run("--hide-scrollbars", "--window-size=1280,900", "--screenshot="+file, url)
	if fi, err := os.Stat(file); err != nil || fi.Size() == 0 {
		b.t.Fatalf("no screenshot at %s: %v", file, err)
	}
}

func want(t *testing.T, what, dom string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(dom, s) {
			t.Errorf("%s does not show %q", what, s)
		}
	}
}

var (
	scriptTag = regexp.MustCompile(`(?is)<script\b[^>]*>(.*?)</script>`)
	timeTag   = regexp.MustCompile(`<time datetime="([^"]+)" title="UTC ([^"]+)">([^<]*)</time>`)
)

// wantOnlyOwnScript: the DOM holds one script, the page's own local-time
// script, and no element carries an event handler.
func wantOnlyOwnScript(t *testing.T, what, dom string) {
	t.Helper()
	scripts := scriptTag.FindAllStringSubmatch(dom, -1)
	if len(scripts) != 1 || !strings.Contains(scripts[0][1], `querySelectorAll("time[datetime]")`) {
		t.Errorf("%s holds %d scripts, want the page's one", what, len(scripts))
	}
	if strings.Contains(dom, "window.pwned") && !strings.Contains(dom, "&lt;script&gt;window.pwned") && !strings.Contains(dom, "window.pwned=1&lt;") {
		t.Errorf("%s holds the hostile text unescaped", what)
	}
	if regexp.MustCompile(`(?i)<[a-z]+[^>]*\son[a-z]+=`).MatchString(dom) {
		t.Errorf("%s has an element with an event handler", what)
	}
}

// wantLocalTimes: every <time> shows the viewer's local time (the script
// rewrote it: it no longer reads as UTC), its title the UTC value.
func wantLocalTimes(t *testing.T, what, dom string) {
	t.Helper()
	ts := timeTag.FindAllStringSubmatch(dom, -1)
	if len(ts) == 0 {
		t.Errorf("%s shows no time", what)
	}
	for _, m := range ts {
		at, err := time.Parse(time.RFC3339, m[1])
		if err != nil || m[2] != at.UTC().Format("2006-01-02 15:04:05")+" UTC" {
			t.Errorf("%s: a time's datetime %q and title %q disagree", what, m[1], m[2])
		}
		if strings.Contains(m[3], "UTC") || m[3] == "" {
			t.Errorf("%s: a time still reads %q: the local-time script did not run", what, m[3])
		}
	}
}
