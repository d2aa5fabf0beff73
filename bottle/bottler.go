package bottle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Clock tells the time and waits. Seal and the writes take it so tests run
// without real waiting.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// SystemClock is the real clock.
var SystemClock Clock = systemClock{}

// Bottler renders, writes, seals and archives the bottles kept under one
// baton home. Its zero value is not usable: set Home. The optional sources
// are consulted on every render; without them a bottle is rendered from the
// transcript alone, with observations derived from its tool calls.
type Bottler struct {
	// Home is the baton home ($BATON_HOME); bottles live in Home/bottles.
	Home string
	// Agent, when set, keeps the agent's bottles in Home/bottles/<Agent>:
	// a conversation is keyed by (agent, session id), and two harnesses may
	// reuse one session id. It must be a valid agent name (lowercase
	// letters, digits and dashes).
	Agent string
	// Observations is the host's observation source; nil derives them.
	Observations ObservationSource
	// History reconstructs a bottle when the transcript is gone; nil skips
	// that rung of the ladder.
	History History
	// Drainer lets Seal wait for the host's pending observations; nil seals
	// at once.
	Drainer Drainer
	// Marker is armed by Seal; nil seals without arming.
	Marker MarkerArmer
	// Clock is the time source; nil is SystemClock.
	Clock Clock

	// locked, when set, runs while a render holds the session lock; tests
	// use it to observe that renders never overlap.
	locked func(sessionID string)
}

// Bottle describes a written bottle (or, in ModeTimeline, its absence).
type Bottle struct {
	// Path is the bottle's absolute path; empty in ModeTimeline.
	Path string
	// Mode is the ladder rung rendered.
	Mode Mode
	// Gap counts tool events whose observations are not written yet.
	Gap int
	// Task is the one-line current task.
	Task string
}

func (b *Bottler) clock() Clock {
	if b.Clock == nil {
		return SystemClock
	}
	return b.Clock
}

// Dir returns the directory bottles are written to.
func (b *Bottler) Dir() string {
	if b.Agent != "" {
		return filepath.Join(b.Home, "bottles", b.Agent)
	}
	return filepath.Join(b.Home, "bottles")
}

// Path returns where the session's bottle lives, or ErrInvalidSession.
func (b *Bottler) Path(sessionID string) (string, error) {
	if err := ValidateSessionID(sessionID); err != nil {
		return "", err
	}
	if !validAgentDir(b.Agent) {
		return "", fmt.Errorf("bottle: agent %q is not a valid agent name", b.Agent)
	}
	p, err := filepath.Abs(filepath.Join(b.Dir(), sessionID+".md"))
	if err != nil {
		return "", fmt.Errorf("bottle: %w", err)
	}
	return p, nil
}

// Read returns the session's current bottle. A session with no bottle
// returns an error wrapping os.ErrNotExist.
func (b *Bottler) Read(sessionID string) ([]byte, error) {
	p, err := b.Path(sessionID)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("bottle: read: %w", err)
	}
	return data, nil
}

// Render brings the session's bottle up to date with its transcript and
// writes it whole, under the session's cross-process render lock. The
// transcript is parsed only from the cached cursor on. transcriptPath may
// be empty or name a file that no longer exists: the ladder then
// reconstructs the bottle from History, or returns ModeTimeline and writes
// nothing. A path a harness names wrongly (Gemini CLI's stray resume file)
// is first resolved with ResolveTranscript. A failed render leaves the
// previous bottle intact.
func (b *Bottler) Render(ctx context.Context, sessionID, transcriptPath string) (Bottle, error) {
	return b.render(ctx, sessionID, transcriptPath, nil)
}

func (b *Bottler) render(ctx context.Context, sessionID, transcriptPath string, q *Queue) (Bottle, error) {
	path, err := b.Path(sessionID)
	if err != nil {
		return Bottle{}, err
	}
	if err := os.MkdirAll(b.Dir(), 0o700); err != nil {
		return Bottle{}, fmt.Errorf("bottle: %w", err)
	}
	lock, err := lockFile(ctx, filepath.Join(b.Dir(), sessionID+".lock"))
	if err != nil {
		return Bottle{}, err
	}
	defer func() { _ = lock.unlock() }()
	if b.locked != nil {
		b.locked(sessionID)
	}

	// Everything below reads its sources after the lock is taken, so of two
	// racing renders the later one sees at least what the earlier one saw.
	page := Page{SessionID: sessionID, Queue: q}
	statePath := filepath.Join(b.Dir(), sessionID+".state.gob")
	if transcriptPath != "" {
		transcriptPath = ResolveTranscript(transcriptPath)
		st, err := refresh(statePath, transcriptPath)
		switch {
		case err == nil:
			page.Transcript = &st.Transcript
			if err := writeState(statePath, st); err != nil {
				return Bottle{}, err
			}
		case errors.Is(err, os.ErrNotExist):
		default:
			return Bottle{}, err
		}
	}
	if b.Observations != nil {
		obs, err := b.Observations.Observations(ctx, sessionID)
		if err != nil {
			return Bottle{}, fmt.Errorf("bottle: observations: %w", err)
		}
		page.Observations, page.HostObservations = obs, true
	}
	if page.Transcript == nil && b.History != nil {
		rec, err := b.History.SessionHistory(ctx, sessionID)
		if err != nil {
			return Bottle{}, fmt.Errorf("bottle: history: %w", err)
		}
		page.Record = &rec
	}
	res := Render(page, b.clock().Now())
	if res.Mode == ModeTimeline {
		return Bottle{Mode: ModeTimeline}, nil
	}
	if err := WriteFileAtomic(path, res.Markdown, 0o600); err != nil {
		return Bottle{}, err
	}
	return Bottle{Path: path, Mode: res.Mode, Gap: res.Gap, Task: res.Task}, nil
}

// Archive moves the session's bottle to Home/bottles/archive/<UTC
// timestamp>-<session>.md and drops its parse cache: what /clear does. It
// returns the archived path, or "" when the session had no bottle.
func (b *Bottler) Archive(ctx context.Context, sessionID string) (string, error) {
	path, err := b.Path(sessionID)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(b.Dir(), 0o700); err != nil {
		return "", fmt.Errorf("bottle: %w", err)
	}
	lock, err := lockFile(ctx, filepath.Join(b.Dir(), sessionID+".lock"))
	if err != nil {
		return "", err
	}
	defer func() { _ = lock.unlock() }()
	if err := os.Remove(filepath.Join(b.Dir(), sessionID+".state.gob")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("bottle: archive: %w", err)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	archive := filepath.Join(b.Dir(), "archive")
	if err := os.MkdirAll(archive, 0o700); err != nil {
		return "", fmt.Errorf("bottle: archive: %w", err)
	}
	stamp := b.clock().Now().UTC().Format("20060102T150405Z")
	dst := filepath.Join(archive, stamp+"-"+sessionID+".md")
	for n := 2; ; n++ {
		if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
			break
		}
		dst = filepath.Join(archive, fmt.Sprintf("%s-%d-%s.md", stamp, n, sessionID))
	}
	if err := os.Rename(path, dst); err != nil {
		return "", fmt.Errorf("bottle: archive: %w", err)
	}
	return dst, nil
}

// stateVersion changes whenever the cached parse would be read differently;
// a cache of another version is discarded and the transcript reparsed.
const stateVersion = 2

// prefixLen is how much of the transcript's head the cursor fingerprints to
// notice a file replaced by another of at least the same length.
const prefixLen = 4096

// Cursor is how far a transcript has been parsed.
type Cursor struct {
	// Transcript is the path the cursor belongs to.
	Transcript string `json:"transcript"`
	// Offset is the end of the last complete line parsed.
	Offset int64 `json:"offset"`
	// PrefixLen is how many leading bytes PrefixSum covers.
	PrefixLen int `json:"prefixLen"`
	// PrefixSum is the hex SHA-256 of those bytes.
	PrefixSum string `json:"prefixSum"`
}

// state is the parse cache kept beside a bottle (<session>.state.gob): the
// cursor and everything parsed up to it, already privacy filtered. gob,
// because a routine re-render decodes it whole and it is bottle-sized.
type state struct {
	Version    int        `json:"version"`
	Cursor     Cursor     `json:"cursor"`
	Transcript Transcript `json:"transcript"`
}

// refresh loads the cached parse, discards it if the transcript shrank or
// was replaced, and parses the bytes added since. It returns an error
// wrapping os.ErrNotExist when the transcript is gone.
func refresh(statePath, transcriptPath string) (*state, error) {
	f, err := os.Open(transcriptPath)
	if err != nil {
		return nil, fmt.Errorf("bottle: open transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("bottle: stat transcript: %w", err)
	}
	st := readState(statePath)
	if st == nil || st.Cursor.Transcript != transcriptPath || fi.Size() < st.Cursor.Offset {
		st = &state{}
	} else if sum, err := prefixSum(f, st.Cursor.PrefixLen); err != nil || sum != st.Cursor.PrefixSum {
		st = &state{}
	}
	st.Version = stateVersion
	st.Cursor.Transcript = transcriptPath
	off, err := st.Transcript.ReadLines(f, st.Cursor.Offset)
	if err != nil {
		return nil, fmt.Errorf("bottle: read transcript: %w", err)
	}
	st.Cursor.Offset = off
	st.Cursor.PrefixLen = int(min(off, prefixLen))
	if st.Cursor.PrefixSum, err = prefixSum(f, st.Cursor.PrefixLen); err != nil {
		return nil, err
	}
	return st, nil
}

func prefixSum(f *os.File, n int) (string, error) {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return "", fmt.Errorf("bottle: read transcript head: %w", err)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:]), nil
}

// readState returns the cached parse, or nil when there is none usable: a
// missing, corrupt or old cache only costs a full parse.
func readState(path string) *state {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var st state
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&st) != nil || st.Version != stateVersion {
		return nil
	}
	return &st
}

func writeState(path string, st *state) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(st); err != nil {
		return fmt.Errorf("bottle: encode state: %w", err)
	}
	return WriteFileAtomic(path, buf.Bytes(), 0o600)
}

// validAgentDir reports whether agent can name a directory of bottles: empty
// (no agent directory), or lowercase letters, digits and dashes not starting
// with a dash, at most 64 characters.
func validAgentDir(agent string) bool {
	if len(agent) > 64 || strings.HasPrefix(agent, "-") {
		return false
	}
	for _, r := range agent {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
