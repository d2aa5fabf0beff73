package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/batonhq/baton/bottle"
	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/internal/runes"
)

// RoleSubagent is the BATON_HOOK_ROLE value that makes every hook a no-op:
// a harness that runs its subagents with their own hooks sets it for them.
// It is compared ignoring case and the space around it (" Subagent " is
// it), so that a role set by hand in a harness's configuration is not
// missed and a subagent's events not recorded as the main agent's.
const RoleSubagent = "subagent"

// Invocation is one `baton hook` process: the harness's JSON on Stdin, its
// envelope on Stdout, at most one line on Stderr. Run never fails and never
// blocks the person's work: whatever goes wrong, the hook exits 0, prints
// nothing or one whole envelope, says on one stderr line what failed (never
// memory content or prompt text) and, when the store can be reached, leaves
// a receipt and its failure in the ledger.
type Invocation struct {
	// Harness is --harness; Event the optional EVENT argument.
	Harness string
	Event   string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// Dir is the process's working directory: the event's when its
	// payload names none.
	Dir string
	// Home is the baton home the bottles are kept under; "" keeps none.
	Home string
	// HomeErr, when set, says why the person's home cannot be used (it is
	// a file, the root, a path with space around it): the event is not
	// handled, as a payload that cannot be read is not, so that no bottle
	// is written elsewhere or silently not kept; the error is the stderr
	// line and, when the store can be reached, the receipt's failure.
	HomeErr error
	// Role is $BATON_HOOK_ROLE; RoleSubagent (in any case, with space
	// around it) skips the hook.
	Role string
	// Nudge is $BATON_STOP_NUDGE=1 (exactly "1"): the Stop triage
	// handshake.
	Nudge bool
	// Open returns the tenant-bound API. It is called only once the event
	// is known to be handled (after the main-agent checks), at most once.
	Open func(ctx context.Context) (continuity.API, error)
	// Now is the clock a handover's age is read at; nil is time.Now.
	Now func() time.Time
	// Timeout bounds the event's work, the open included; 0 is three
	// quarters of the timeout `baton install` gives the event's hook, so a
	// locked database is reported before the harness kills the process.
	// Open's context carries the deadline.
	Timeout time.Duration
}

// timeout is the event's budget: Timeout, else three quarters of the
// installed hook timeout of kind, else (no kind known) of the shortest.
func (inv *Invocation) timeout(kind continuity.HookKind) time.Duration {
	if inv.Timeout > 0 {
		return inv.Timeout
	}
	ms, ok := table().HookTimeoutsMillis[kind]
	if !ok {
		for _, v := range table().HookTimeoutsMillis {
			if !ok || v < ms {
				ms, ok = v, true
			}
		}
	}
	return time.Duration(ms) * time.Millisecond * 3 / 4
}

// Run runs the hook. See Invocation.
func (inv *Invocation) Run(ctx context.Context) {
	var problems []string
	var out []byte
	defer func() {
		if r := recover(); r != nil {
			// Nothing partial reaches stdout: it is written last, whole.
			out, problems = nil, append(problems, "internal error")
		}
		if len(out) > 0 {
			if _, err := inv.Stdout.Write(out); err != nil {
				problems = append(problems, "write stdout: "+err.Error())
			}
		}
		if len(problems) > 0 {
			// The line quotes the payload (an event's name, a key) and the
			// server's errors: it is one line of text, its format
			// characters shown, whatever they held.
			fmt.Fprintln(inv.Stderr, "baton hook: "+runes.Visible(runes.OneLine(strings.Join(problems, "; "))))
		}
	}()
	say := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if strings.EqualFold(strings.TrimSpace(inv.Role), RoleSubagent) {
		return
	}
	h, err := Lookup(inv.Harness)
	if err != nil {
		say("%v", err)
		return
	}
	// The budget runs from here: a harness that is slow to write its
	// payload, or never closes the pipe, spends it as the work would.
	start := time.Now()
	data, rerr := readStdin(inv.Stdin, table().StdinLimit, inv.timeout(argKind(h, inv.Event))/2)
	var ev Event
	if rerr == nil {
		ev, err = Normalize(h, inv.Event, data, inv.Dir)
	} else {
		ev, _ = Normalize(h, inv.Event, nil, inv.Dir)
		err = rerr
	}
	ctx, cancel := context.WithDeadline(ctx, start.Add(inv.timeout(ev.Kind)))
	defer cancel()
	what := h.Name
	if ev.ProviderEvent != "" {
		what += " " + ev.ProviderEvent
	}
	cwd := ev.Cwd
	if cwd == "" {
		cwd = inv.Dir
	}
	switch {
	case errors.Is(err, ErrUnhandled):
		say("%v", err)
		return
	case ev.Subagent || LinkedWorktree(cwd):
		// Main agent only, decided before any store is touched.
		return
	case err != nil:
		say("%s: %s", what, describe(err))
		if ev.ProviderEvent != "" {
			if ferr := inv.recordFailure(ctx, h, ev, "stdin: "+describe(err)); ferr != nil {
				say("record the failure: %s", describe(ferr))
			}
		}
		return
	case inv.HomeErr != nil:
		reason := describe(inv.HomeErr)
		say("%s: %s", what, reason)
		// With the default store, in that home, the open fails for the
		// same reason: said once.
		if ferr := inv.recordFailure(ctx, h, ev, reason); ferr != nil && describe(ferr) != reason {
			say("record the failure: %s", describe(ferr))
		}
		return
	}
	missing := false
	if rendersTranscript(ev.Kind) && ev.TranscriptPath != "" {
		if _, serr := os.Stat(ev.TranscriptPath); serr != nil {
			missing = true
			say("%s: transcript not readable, the bottle is rebuilt from history", what)
		}
	}
	// The store opens while a render or seal runs; every path waits for
	// the open before Run returns, so the caller may close the store.
	api := startOpening(ctx, inv.Open, rendersTranscript(ev.Kind))
	defer func() { <-api.done }()
	e := continuity.NewEpisodes(api, h.Agent, inv.Home)
	e.Nudge, e.Now = inv.Nudge, inv.Now
	e.EndBudget = time.Duration(h.EndBudgetMillis) * time.Millisecond
	res, herr := e.Handle(ctx, ev.HookEvent)
	if err := api.wait(); err != nil {
		say("%s: open the store: %s", what, describe(err))
		return
	}
	if res.LocalFailure != "" && !missing {
		// The work ran; the ledger keeps the same words.
		say("%s: the bottle: %s", what, res.LocalFailure)
	}
	if herr != nil {
		say("%s: %s", what, describe(herr))
	}
	out, err = h.Envelope(ev.HookEvent, res)
	if err != nil {
		out = nil
		say("%s: envelope: %v", what, err)
	}
}

// rendersTranscript reports whether rendering the bottle from the
// transcript is the local work of events of kind k (Stop's incremental
// render, PreCompact's seal): there a missing transcript is worth a line.
func rendersTranscript(k continuity.HookKind) bool {
	return k == continuity.HookStop || k == continuity.HookPreCompact
}

// recordFailure leaves the receipt of an event whose payload could not be
// read, and its failure: the evidence that it arrived. The session id is
// kept only when it is one.
func (inv *Invocation) recordFailure(ctx context.Context, h *Harness, ev Event, reason string) error {
	api, err := inv.Open(ctx)
	if err != nil {
		return err
	}
	p := continuity.EventParams{Provider: h.Name, ProviderEvent: ev.ProviderEvent, Agent: h.Agent}
	if bottle.ValidateSessionID(ev.SessionID) == nil {
		p.SessionID = ev.SessionID
	}
	id, err := api.AppendReceipt(ctx, continuity.ReceiptParams{Provider: p.Provider, ProviderEvent: p.ProviderEvent, Agent: p.Agent, SessionID: p.SessionID})
	if err != nil {
		return err
	}
	return api.RecordFailure(ctx, continuity.FailureParams{EventParams: p, ReceiptID: id.String(), Reason: reason})
}

// argKind is the kind of the event the EVENT argument names in any of
// h's dialects, "" when it names none: the budget stdin is read within is
// known before the payload is.
func argKind(h *Harness, arg string) continuity.HookKind {
	for i := range h.Dialects {
		if e, ok := h.Dialects[i].event(arg); ok {
			return e.Kind
		}
	}
	return ""
}

// readStdin is readBounded within wait: a harness that keeps the pipe open
// without completing a payload costs the hook at most wait, and the
// event then fails, naming stdin, with the rest of its budget left to
// record the failure. The read goes on behind a timed-out call until the
// process exits.
func readStdin(r io.Reader, limit int64, wait time.Duration) ([]byte, error) {
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := readBounded(r, limit)
		done <- read{data, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case got := <-done:
		return got.data, got.err
	case <-timer.C:
		return nil, continuity.Invalid("stdin", fmt.Sprintf("held no whole JSON object after %v and was not closed", wait.Round(time.Millisecond)))
	}
}

// readBounded reads r up to limit bytes; more is too_large. It stops at
// the end of the first JSON value rather than waiting for the end of
// stdin, so that a harness that writes its payload and keeps the pipe open
// is answered at once: what follows the value in the same read is kept,
// for Normalize to refuse, what a later write would add is not read. Input
// that is not JSON is read no further than where it stops being JSON. A
// UTF-8 byte order mark before the value (a Windows shell's pipe may write
// one) is passed over, as RFC 8259 lets a parser do.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	if r == nil {
		return nil, continuity.Invalid("stdin", "must be one JSON object")
	}
	br := bufio.NewReader(r)
	// One byte first: a payload as short as "{}" on a pipe kept open must
	// not wait for a third byte that never comes.
	if b, _ := br.Peek(1); len(b) == 1 && b[0] == utf8BOM[0] {
		if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
			br.Discard(len(utf8BOM))
		}
	}
	var data bytes.Buffer
	var first json.RawMessage
	err := json.NewDecoder(io.TeeReader(io.LimitReader(br, limit+1), &data)).Decode(&first)
	var syntax *json.SyntaxError
	switch {
	case int64(data.Len()) > limit:
		return nil, continuity.Errorf(continuity.CodeTooLarge, "stdin is larger than %d bytes", limit)
	case err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &syntax):
		return nil, &continuity.Error{Code: continuity.CodeInvalid, Message: "stdin could not be read", Err: err}
	}
	return data.Bytes(), nil
}

// describe renders an error for the stderr line and the ledger: a baton
// error as its code, message and fields (safe by construction), anything
// else as its code and first line, cut short.
func describe(err error) string {
	var be *continuity.Error
	if errors.As(err, &be) {
		return be.Error()
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return string(continuity.ErrorCode(err)) + ": " + msg
}
