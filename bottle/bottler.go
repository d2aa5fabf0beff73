package bottle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/batonhq/baton/bottle/privacy"
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
	// Limits are the file-read limits of the harness that reads the
	// bottles; zero is ReadLimitsFor(Agent).
	Limits ReadLimits

	// locked, when set, runs while a render holds the session lock; tests
	// use it to observe that renders never overlap.
	locked func(sessionID string)
}

// Bottle describes a written bottle (or, in ModeTimeline, its absence).
type Bottle struct {
	// Path is the absolute path of the bottle's index; empty in
	// ModeTimeline. Its pages are files beside it.
	Path string
	// Plan is the reads a pointer to the bottle asks for.
	Plan ReadPlan
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

// Path returns where the session's bottle index lives, or
// ErrInvalidSession. The bottle is a directory, <session>.bottle, holding
// the index (IndexName) and the pages (PageName).
func (b *Bottler) Path(sessionID string) (string, error) {
	dir, err := b.bottleDir(sessionID)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, IndexName), nil
}

// bottleDir returns the session's bottle directory, absolute.
func (b *Bottler) bottleDir(sessionID string) (string, error) {
	if err := ValidateSessionID(sessionID); err != nil {
		return "", err
	}
	if !validAgentDir(b.Agent) {
		return "", fmt.Errorf("bottle: agent %q is not a valid agent name", b.Agent)
	}
	p, err := filepath.Abs(filepath.Join(b.Dir(), sessionID+bottleSuffix))
	if err != nil {
		return "", fmt.Errorf("bottle: %w", err)
	}
	return p, nil
}

// bottleSuffix ends a bottle directory's name. A session id cannot end in
// it and name another session's lock or cache, nor be the archive.
const bottleSuffix = ".bottle"

// Read returns the session's current bottle as one document: the index,
// then every page in order, as Render's Markdown. A session with no bottle
// returns an error wrapping os.ErrNotExist.
func (b *Bottler) Read(sessionID string) ([]byte, error) {
	dir, err := b.bottleDir(sessionID)
	if err != nil {
		return nil, err
	}
	data, err := readBottle(dir)
	if err != nil {
		return nil, fmt.Errorf("bottle: read: %w", err)
	}
	return data, nil
}

// readBottle concatenates a bottle directory's index and pages.
func readBottle(dir string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, IndexName))
	if err != nil {
		return nil, err
	}
	pages, err := pageFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, name := range pages {
		pg, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		data = append(data, '\n')
		data = append(data, pg...)
	}
	return data, nil
}

// pageFiles lists a bottle directory's page files in page order.
func pageFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if pageNumber(e.Name()) > 0 {
			names = append(names, e.Name())
		}
	}
	sort.Slice(names, func(i, j int) bool { return pageNumber(names[i]) < pageNumber(names[j]) })
	return names, nil
}

// pageNumber returns the number of a page file name, or 0 for any other
// name.
func pageNumber(name string) int {
	digits, ok := strings.CutPrefix(name, "page-")
	if !ok {
		return 0
	}
	digits, ok = strings.CutSuffix(digits, ".md")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 || PageName(n) != name {
		return 0
	}
	return n
}

func (b *Bottler) limits() ReadLimits {
	if b.Limits != (ReadLimits{}) {
		return b.Limits.orDefault()
	}
	return ReadLimitsFor(b.Agent)
}

// Render brings the session's bottle up to date with its transcript, under
// the session's cross-process render lock. The transcript is parsed only
// from the cached cursor on, only the pages from the cache's window on are
// laid out again, and only the files whose bytes changed are replaced (each
// atomically). transcriptPath may be empty or name a file that no longer
// exists: a full bottle the cache holds of that transcript is then kept
// (laid out again from the cache alone), else the ladder reconstructs the
// bottle from History, or returns ModeTimeline and writes nothing. A path a harness names wrongly (Gemini
// CLI's stray resume file) is first resolved with ResolveTranscript. A
// failed render leaves every file of the previous bottle either as it was
// or replaced whole. When ctx ends while the transcript is still being
// read, the read stops at a line's end: the bottle of what was read is
// written and returned with ErrReadCut, and the next render reads on from
// there (a Seal, instead, fails with it and arms nothing).
func (b *Bottler) Render(ctx context.Context, sessionID, transcriptPath string) (Bottle, error) {
	return b.render(ctx, sessionID, transcriptPath, nil, false)
}

// render is Render with the host's queue, and, when durable is set, with
// the bottle's files synced to disk before it returns (what Seal needs).
func (b *Bottler) render(ctx context.Context, sessionID, transcriptPath string, q *Queue, durable bool) (Bottle, error) {
	dir, lock, err := b.lock(ctx, sessionID)
	if err != nil {
		return Bottle{}, err
	}
	defer func() { _ = lock.unlock() }()
	if b.locked != nil {
		b.locked(sessionID)
	}
	bt, _, err := b.renderHeld(ctx, lock, dir, sessionID, transcriptPath, renderOpts{queue: q, durable: durable})
	return bt, err
}

// lock returns the session's bottle directory and takes its render lock.
func (b *Bottler) lock(ctx context.Context, sessionID string) (string, *fileLock, error) {
	dir, err := b.bottleDir(sessionID)
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(b.Dir(), 0o700); err != nil {
		return "", nil, fmt.Errorf("bottle: %w", err)
	}
	lock, err := lockFile(ctx, filepath.Join(b.Dir(), sessionID+".lock"))
	if err != nil {
		return "", nil, err
	}
	return dir, lock, nil
}

// renderOpts are how a render under a held lock differs from Render's.
type renderOpts struct {
	queue   *Queue // the host's queue; nil: none
	durable bool   // sync the bottle's files before returning (Seal)
	// tail renders only a continuation of what the bottle holds (Archive):
	// the transcript read on from the cache's cursor, or from the clear
	// point when no cache serves (none, or one of other limits). A
	// transcript that is gone, or that no longer holds the bytes the
	// cache's cursor fingerprinted (shrunk, replaced), renders nothing,
	// and neither the cache alone nor History stands in: the bottle is
	// left as it stands.
	tail bool
}

// renderHeld is render with the session's lock held. It also returns the
// parse state the bottle was rendered from (nil: none, the bottle is not of
// the transcript).
func (b *Bottler) renderHeld(ctx context.Context, lock *fileLock, dir, sessionID, transcriptPath string, o renderOpts) (Bottle, *state, error) {
	// Everything below reads its sources after the lock is taken, so of two
	// racing renders the later one sees at least what the earlier one saw.
	lim := b.limits()
	page := Page{SessionID: sessionID, Queue: o.queue, Limits: lim, win: &window{}}
	old := readState(lock.f)
	if _, err := os.Stat(filepath.Join(dir, IndexName)); err != nil {
		old = nil // the pages the cache describes are gone
	}
	var st *state
	var cut error // ErrReadCut: the bottle is of the transcript's head
	if transcriptPath != "" {
		transcriptPath = ResolveTranscript(transcriptPath)
		var replaced bool
		var err error
		st, replaced, err = refresh(ctx, old, b.readClearPoint(sessionID), transcriptPath, lim, b.Observations != nil)
		if o.tail && (err != nil && !errors.Is(err, ErrReadCut) || replaced) {
			if errors.Is(err, os.ErrNotExist) {
				err = nil
			}
			return Bottle{}, nil, err
		}
		if errors.Is(err, ErrReadCut) && !o.durable {
			// A render renders what was read and keeps its cursor; a seal
			// arms nothing short of the transcript's end.
			cut, err = err, nil
		}
		switch {
		case err == nil:
			page.Transcript = &st.Transcript
			page.TranscriptPath = transcriptPath
			page.win = st.window()
		case errors.Is(err, os.ErrNotExist):
			// The transcript is gone (its harness cleaned it up). The
			// full bottle the cache describes is still a better record
			// than one rebuilt from History: it is laid out again from
			// the cache alone, which changes nothing on disk.
			if st = kept(old, transcriptPath, lim, b.Observations != nil); st != nil {
				page.Transcript = &st.Transcript
				page.TranscriptPath = transcriptPath
				page.win = st.window()
			}
		default:
			return Bottle{}, nil, err
		}
	}
	if b.Observations != nil {
		obs, err := b.Observations.Observations(ctx, sessionID)
		if err != nil {
			return Bottle{}, nil, fmt.Errorf("bottle: observations: %w", err)
		}
		page.Observations, page.HostObservations = obs, true
	}
	if page.Transcript == nil && b.History != nil {
		rec, err := b.History.SessionHistory(ctx, sessionID)
		if err != nil {
			return Bottle{}, nil, fmt.Errorf("bottle: history: %w", err)
		}
		page.Record = &rec
	}
	res := render(page, b.clock().Now())
	if res.Mode == ModeTimeline {
		return Bottle{Mode: ModeTimeline}, st, cut
	}
	var prev []pageMeta
	var prevIndex string
	synced := 0 // leading pages known to be on disk
	if old != nil && res.Mode == ModeFull {
		prev, prevIndex, synced = old.Pages, old.Index, old.Synced
	}
	first, err := writePages(dir, res, prev, prevIndex)
	if err != nil {
		return Bottle{}, nil, err
	}
	synced = min(synced, first, len(res.metas))
	if o.durable {
		if err := syncBottle(dir, synced); err != nil {
			return Bottle{}, nil, err
		}
		synced = len(res.metas)
	}
	if res.Mode == ModeFull {
		st.Synced, st.Index = synced, res.sum
		st.advance(res, windowed(st.Transcript.Format, page.HostObservations))
		if err := writeState(lock.f, st); err != nil {
			return Bottle{}, nil, err
		}
	} else if err := lock.f.Truncate(0); err != nil {
		return Bottle{}, nil, fmt.Errorf("bottle: drop state: %w", err)
	}
	return Bottle{Path: filepath.Join(dir, IndexName), Plan: planOf(dir, res), Mode: res.Mode, Gap: res.Gap, Task: res.Task}, st, cut
}

// writePages brings a bottle directory up to date with a render: it
// replaces each laid-out page whose bytes changed since prev (the pages of
// the render the cache came from; nil rewrites every one), then the index
// unless its SHA-256 is prevIndex, then removes any page past the new last
// one. It returns the index of the
// first page it wrote (len(res.metas) when none). Each file is replaced
// whole by rename, so a reader sees it old or new and a render that fails
// leaves the rest as it was; syncing for power loss is Seal's (syncBottle).
func writePages(dir string, res Result, prev []pageMeta, prevIndex string) (first int, err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("bottle: %w", err)
	}
	first = len(res.metas)
	for i, data := range res.Pages {
		n := res.from + i
		if n < len(prev) && prev[n].Sum == res.metas[n].Sum {
			continue
		}
		first = min(first, n)
		if err := replaceFile(filepath.Join(dir, PageName(n+1)), data, 0o600, false); err != nil {
			return 0, err
		}
	}
	if res.sum != prevIndex {
		if err := replaceFile(filepath.Join(dir, IndexName), res.Index, 0o600, false); err != nil {
			return 0, err
		}
	}
	// The directory, not the cache, says which pages exist: a render that
	// crashed after writing pages but before its cache may have left more.
	// Pages are created in order and removed newest first, so any surplus
	// starts right after the last page: without that one there is none.
	last := len(res.metas)
	if _, err := os.Stat(filepath.Join(dir, PageName(last+1))); errors.Is(err, os.ErrNotExist) {
		return first, nil
	}
	names, err := pageFiles(dir)
	if err != nil {
		return 0, fmt.Errorf("bottle: %w", err)
	}
	for _, name := range slices.Backward(names) {
		if pageNumber(name) > last {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return 0, fmt.Errorf("bottle: %w", err)
			}
		}
	}
	return first, nil
}

// syncBottle makes a bottle directory's files and names durable, the pages
// from index from on (those before it are known to be on disk already, and
// a page once synced changes only by being rewritten), the index, and the
// directories: what Seal does before arming a marker that points at them.
func syncBottle(dir string, from int) error {
	names, err := pageFiles(dir)
	if err != nil {
		return fmt.Errorf("bottle: sync: %w", err)
	}
	names = append(names[min(from, len(names)):], IndexName)
	// The files and the two directories are synced at once: each sync
	// mostly waits on the disk, which takes them together, and none needs
	// another's to be done first (every rename has happened; the marker
	// that points at the bottle is armed only once all of them are).
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = syncFile(filepath.Join(dir, name)) })
	}
	wg.Go(func() { syncDir(dir) })
	wg.Go(func() { syncDir(filepath.Dir(dir)) })
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bottle: sync: %w", err)
	}
	return nil
}

// Archive moves the session's bottle directory to
// Home/bottles/archive/<UTC timestamp>-<session>.bottle and drops its
// cache: what /clear does. It returns the archived directory, or "" when
// the session had no bottle.
//
// transcriptPath is the session's transcript as the clear found it ("" or
// a missing file: none). A harness that keeps the session's id across a
// clear goes on writing that transcript, so Archive first renders the
// lines written since the last render into the bottle it archives (read on
// from the cache's cursor; the whole transcript since the last clear when
// there is no cache), then keeps where that read stopped (its last complete
// line's end, fingerprinted as a cursor is, in <session>.clear beside the
// lock): every later parse of it starts there rather than at its first
// byte, and the bottle holds only what followed the clear, for as long as
// the transcript keeps the bytes the clear saw. Each line is in one of the
// two bottles. The bottle after the clear reads as a conversation that
// began there: its header's start is its first line's time and never
// before the clear, its project is the one the clear found, and a Gemini
// CLI message read before the clear is none of its turns when the CLI
// writes it again.
//
// That render never keeps the clear from happening: when the transcript
// no longer holds what the bottle was rendered from (it shrank or was
// replaced), the bottle is archived as it stands and the clear point is the
// transcript's end; when the render fails, or ctx ends it part-way
// (ErrReadCut), the bottle is archived with what was rendered and the
// clear point is the transcript's end too (the lines past the read are in
// neither bottle: a post-clear bottle never holds what was said before the
// clear), and the archived directory is returned with the render's error.
// A transcript that cannot be read at all (not a regular file) leaves the
// clear point as it was; the bottle is archived and the error returned.
func (b *Bottler) Archive(ctx context.Context, sessionID, transcriptPath string) (string, error) {
	dir, lock, err := b.lock(ctx, sessionID)
	if err != nil {
		return "", err
	}
	defer func() { _ = lock.unlock() }()
	at := b.clock().Now() // the clear: the transcript's lines after it are read after this
	upTo := int64(-1)     // the transcript's last line's end
	var read *Transcript  // the parse up to upTo
	var degraded []error
	if transcriptPath != "" {
		_, st, err := b.renderHeld(ctx, lock, dir, sessionID, transcriptPath, renderOpts{tail: true})
		if err == nil && st != nil {
			upTo, read = st.Cursor.Offset, &st.Transcript
		}
		if err != nil {
			degraded = append(degraded, fmt.Errorf("bottle: archive: render the transcript's tail: %w", err))
		}
	}
	if err := lock.f.Truncate(0); err != nil {
		return "", fmt.Errorf("bottle: archive: %w", err)
	}
	// The cache's own file of earlier versions, if one is left.
	if err := os.Remove(filepath.Join(b.Dir(), sessionID+".state.gob")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("bottle: archive: %w", err)
	}
	if err := b.markClear(sessionID, transcriptPath, upTo, read, at); err != nil {
		// A transcript that cannot be read (not a regular file) renders
		// nothing either; the bottle of before the clear is archived all
		// the same, so it is never shown as the conversation after it.
		degraded = append(degraded, fmt.Errorf("bottle: archive: mark the clear: %w", err))
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return "", errors.Join(degraded...)
	}
	archive := filepath.Join(b.Dir(), "archive")
	if err := os.MkdirAll(archive, 0o700); err != nil {
		return "", fmt.Errorf("bottle: archive: %w", err)
	}
	stamp := at.UTC().Format(ArchiveStampLayout)
	dst := filepath.Join(archive, stamp+"-"+sessionID+bottleSuffix)
	for n := 2; ; n++ {
		if _, err := os.Stat(dst); errors.Is(err, os.ErrNotExist) {
			break
		}
		dst = filepath.Join(archive, fmt.Sprintf("%s-%d-%s%s", stamp, n, sessionID, bottleSuffix))
	}
	if err := os.Rename(dir, dst); err != nil {
		return "", fmt.Errorf("bottle: archive: %w", err)
	}
	return dst, errors.Join(degraded...)
}

// clearSuffix ends the name of the file beside a session's lock that
// holds where its transcript stood at the last clear (Archive). A session
// id's own files end in .bottle, .lock and this suffix, so none is another
// session's.
const clearSuffix = ".clear"

// IsLocalState reports whether a file named name beside the bottles is the
// bottler's own state rather than a record of a session: a session's lock
// (which holds its parse cache), an earlier version's cache file, or its
// clear point. An export leaves these out.
func IsLocalState(name string) bool {
	for _, suffix := range []string{".lock", ".state.gob", clearSuffix} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// clearPoint is where the session's transcript stood at its last clear:
// the cursor a fresh parse starts from, and the format the transcript's
// first line told (a Gemini CLI line read alone may not tell it). It also
// keeps what the conversation after the clear inherits of the one before
// and what it must not: when the clear happened (no time before it starts
// the conversation after it), the project (a Gemini CLI transcript tells
// it only in its head), and the fingerprints of the Gemini CLI messages
// read before it, by id (the CLI writes a message again, and a replacement
// lists or replays it, after the clear too: it is none of the new
// conversation's turns).
type clearPoint struct {
	Cursor  Cursor            `json:"cursor"`
	Format  Format            `json:"format,omitempty"`
	At      time.Time         `json:"at,omitzero"`
	Project string            `json:"project,omitempty"`
	Gemini  map[string]uint64 `json:"gemini,omitempty"`
}

// markClear keeps where the transcript at path (resolved as a render
// resolves it) stands as the session's clear point, taken at the instant
// at: at upTo, the end of a line a render read to, when it is one still
// within the file, else at its last complete line's end. read is the parse
// of the transcript up to upTo (nil: none; what the clear point before
// kept of the same transcript is carried on). A transcript that is not
// there leaves the clear point as it was.
func (b *Bottler) markClear(sessionID, path string, upTo int64, read *Transcript, at time.Time) error {
	if path == "" {
		return nil
	}
	path = ResolveTranscript(path)
	c := clearPoint{At: at}
	if read != nil {
		c.Project = read.Project
		if read.Gemini != nil && len(read.Gemini.Messages) > 0 {
			c.Gemini = make(map[string]uint64, len(read.Gemini.Messages))
			for id, m := range read.Gemini.Messages {
				c.Gemini[id] = m.Sum
			}
		}
	} else if prev := b.readClearPoint(sessionID); prev != nil && prev.Cursor.Transcript == path {
		c.Project, c.Gemini = prev.Project, prev.Gemini
	}
	f, err := OpenRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	off := upTo
	if off < 0 || off > fi.Size() {
		if off, err = lastLineEnd(f, fi.Size()); err != nil {
			return err
		}
	}
	c.Cursor, c.Format = Cursor{Transcript: path, Offset: off, PrefixLen: int(min(off, prefixLen))}, headFormat(f)
	if c.Cursor.PrefixSum, err = prefixSum(f, c.Cursor.PrefixLen); err != nil {
		return err
	}
	if c.Cursor.TailSum, err = tailSum(f, off); err != nil {
		return err
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return replaceFile(filepath.Join(b.Dir(), sessionID+clearSuffix), data, 0o600, false)
}

// lastLineEnd is the offset just past the last newline in the first size
// bytes of f (0 when there is none): where a parse of the complete lines
// stops.
func lastLineEnd(f io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, prefixLen)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// readClearPoint returns the session's clear point, or nil when it has none
// usable (never cleared, or a file that does not decode: the parse then
// starts at the transcript's first byte, as before any clear).
func (b *Bottler) readClearPoint(sessionID string) *clearPoint {
	data, err := os.ReadFile(filepath.Join(b.Dir(), sessionID+clearSuffix))
	if err != nil {
		return nil
	}
	var c clearPoint
	if json.Unmarshal(data, &c) != nil || c.Cursor.Offset < 0 || int64(c.Cursor.PrefixLen) != min(c.Cursor.Offset, prefixLen) {
		return nil
	}
	return &c
}

// start is the state a fresh parse of the transcript f at path begins
// with: at the clear point c while f is still the file it was taken of (the
// same path, at least as long, the same bytes where the cursor
// fingerprints them), else at the first byte.
func (c *clearPoint) start(f *os.File, path string, size int64) *state {
	if c == nil || c.Cursor.Transcript != path || !c.Cursor.fits(f, size) {
		return &state{}
	}
	st := &state{Cursor: c.Cursor, Transcript: Transcript{Format: c.Format, Project: c.Project, Cleared: c.At}}
	if len(c.Gemini) > 0 {
		g := &GeminiState{Messages: make(map[string]GeminiMessage, len(c.Gemini))}
		for id, sum := range c.Gemini {
			g.Messages[id] = GeminiMessage{Sum: sum, Cleared: true}
		}
		st.Transcript.Gemini = g
	}
	return st
}

// fits reports whether the transcript f, size bytes long, still holds the
// bytes the cursor fingerprinted: it has not shrunk below the cursor, and
// neither its head nor the bytes just before the cursor changed.
func (c Cursor) fits(f *os.File, size int64) bool {
	if size < c.Offset {
		return false
	}
	if sum, err := prefixSum(f, c.PrefixLen); err != nil || sum != c.PrefixSum {
		return false
	}
	tail, err := tailSum(f, c.Offset)
	return err == nil && tail == c.TailSum
}

// stateVersion changes whenever the cached parse would be read differently;
// a cache of another version is discarded and the transcript reparsed.
const stateVersion = 11

// prefixLen is how much of the transcript's head the cursor fingerprints to
// notice a file replaced by another of at least the same length, and how
// much of what lies just before the cursor it fingerprints to notice one
// that shares the head (a file truncated and written again, a copy of the
// session continued differently): reading on from the old offset there
// would splice two files' lines into one bottle.
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
	// TailSum is the hex SHA-256 of the prefixLen bytes just before
	// Offset, when Offset is past them ("" when the head covers them).
	TailSum string `json:"tailSum,omitempty"`
}

// state is the cache kept beside a bottle, in the session's lock file
// (<session>.lock), read and written only by the lock's holder: the
// cursor, the pages of the last render, and the parse a routine render
// needs. Once a page is followed by settled conversation it never changes
// again (it is frozen); the cache then keeps only the entries from the
// first page that may still change (the window) on, plus what the frozen
// part must still answer for (past), so a routine render decodes, lays out
// and writes work proportional to what was appended, not to the session.
// statecodec.go encodes it: a routine render decodes it whole.
type state struct {
	Version    int
	Cursor     Cursor
	Limits     ReadLimits
	Transcript Transcript // from the window on; whole when Past is nil
	Past       *past      // nil: Transcript is whole and every page is laid out anew
	Pages      []pageMeta // every page of the last render
	Frozen     int        // how many of Pages precede the window
	Turns      int        // prompts before the window
	Task       string     // the current task as of the window's start
	Request    request
	Synced     int    // leading pages synced to disk since they were last written
	Index      string // SHA-256 of the index written
}

// windowed reports whether a render may keep only a window of the parse:
// its observations come from the transcript itself (a host's may be placed
// on any page), and its format only ever appends entries (a format not
// listed here may rewrite what a reader saw, and keeps its whole parse).
func windowed(f Format, host bool) bool {
	return !host && (f == FormatClaudeCode || f == FormatCodex)
}

// window returns what a render lays out after: the frozen pages and what
// the entries before the window carried into it.
func (st *state) window() *window {
	if st.Past == nil {
		return &window{}
	}
	return &window{frozen: st.Pages[:st.Frozen], turns: st.Turns, task: st.Task, request: st.Request}
}

// advance moves the window to the page the next render restarts at: the
// entries before it are dropped from the parse, and what they leave behind
// is kept in Past. When the parse may not be windowed, it stays whole.
func (st *state) advance(res Result, window bool) {
	st.Pages, st.Request = res.metas, res.request
	if !window {
		st.Past, st.Frozen, st.Turns, st.Task = nil, 0, 0, ""
		return
	}
	t := &st.Transcript
	if st.Past == nil {
		st.Past = &past{}
	}
	if st.Past.Open == nil {
		st.Past.Open = map[string]bool{}
	}
	if st.Past.Msgs == nil {
		st.Past.Msgs = map[string]bool{}
	}
	if res.restart >= len(res.metas) { // nothing left to restart at: read it all next time
		*st = state{Version: stateVersion, Limits: st.Limits, Pages: res.metas, Request: res.request}
		return
	}
	pos := res.metas[res.restart].StartPos
	if res.settled < pos {
		// A call still pending sits before the restart page: only possible
		// while nothing before it was laid out (its line will land ahead of
		// everything), so the window keeps it.
		if res.restart > 0 {
			return
		}
		pos = 0
	}
	k := sort.Search(len(t.Entries), func(i int) bool { return t.Entries[i].Pos >= pos })
	for i := range t.Entries[:k] {
		e := &t.Entries[i]
		switch e.Kind {
		case KindUser:
			clear(st.Past.Msgs)
			if text := privacy.Scrub(e.Text); text != "" {
				st.Turns++
				st.Task = oneLine(text, maxBrief)
			}
		case KindAssistant:
			if e.MessageID != "" {
				st.Past.Msgs[e.MessageID] = true
			}
		case KindToolCall:
			if !e.Done && e.ToolUseID != "" {
				st.Past.Open[e.ToolUseID] = true
			}
		}
	}
	t.Entries = append([]Entry(nil), t.Entries[k:]...)
	for i := range t.Entries {
		if t.Entries[i].Kind == KindUser {
			clear(st.Past.Msgs) // no later text can reach past a prompt
			break
		}
	}
	t.calls = nil
	st.Frozen = res.restart
}

// kept returns the cached state of a full bottle of transcriptPath when
// it can be laid out again without reading the transcript (the cache's
// own transcript, read under the same limits, in a form refresh would
// keep), else nil.
func kept(st *state, transcriptPath string, lim ReadLimits, host bool) *state {
	if st == nil || st.Cursor.Transcript != transcriptPath || st.Limits != lim || st.Past != nil && !windowed(st.Transcript.Format, host) {
		return nil
	}
	return st
}

// refresh loads the cached parse, discards it if the transcript shrank or
// was replaced (its head, or the bytes just before the cursor, are not the
// ones the cache fingerprinted), if it was laid out for other limits, or if
// it is a window and this render needs the whole parse, and parses the
// bytes added since. When a new line touches an entry before the window,
// the transcript is parsed again from the start. replaced says the cache
// was discarded because the transcript no longer holds the bytes its
// cursor fingerprinted (it shrank, or another file took its place). It
// returns an error wrapping os.ErrNotExist when the transcript is gone.
func refresh(ctx context.Context, st *state, cleared *clearPoint, transcriptPath string, lim ReadLimits, host bool) (_ *state, replaced bool, _ error) {
	f, err := OpenRegular(transcriptPath)
	if err != nil {
		return nil, false, fmt.Errorf("bottle: open transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("bottle: stat transcript: %w", err)
	}
	if kept(st, transcriptPath, lim, host) == nil || !st.Cursor.fits(f, fi.Size()) {
		replaced = st != nil && st.Cursor.Transcript == transcriptPath && !st.Cursor.fits(f, fi.Size())
		st = cleared.start(f, transcriptPath, fi.Size())
	}
	var cut error // ErrReadCut when ctx ended the read
	read := st.Cursor.Offset
	for {
		st.Version, st.Limits = stateVersion, lim
		st.Cursor.Transcript = transcriptPath
		st.Transcript.past = st.Past
		off, err := st.Transcript.readLinesUntil(ctx, f, st.Cursor.Offset)
		if err != nil && !errors.Is(err, ErrReadCut) {
			return nil, false, fmt.Errorf("bottle: read transcript: %w", err)
		}
		if st.Past != nil && st.Past.stale {
			st = cleared.start(f, transcriptPath, fi.Size()) // a line reached before the window: read it all again
			read = st.Cursor.Offset
			continue
		}
		st.Cursor.Offset = off
		cut = err
		break
	}
	st.Transcript.past = nil
	if n := int(min(st.Cursor.Offset, prefixLen)); n != st.Cursor.PrefixLen || st.Cursor.PrefixSum == "" {
		st.Cursor.PrefixLen = n // a head still growing, or a fresh parse: fingerprint it anew
		if st.Cursor.PrefixSum, err = prefixSum(f, n); err != nil {
			return nil, false, err
		}
	}
	if st.Cursor.Offset != read { // else the tail checked above is still the cursor's
		if st.Cursor.TailSum, err = tailSum(f, st.Cursor.Offset); err != nil {
			return nil, false, err
		}
	}
	return st, replaced, cut
}

func prefixSum(f *os.File, n int) (string, error) {
	return sumAt(f, 0, n)
}

// tailSum is the fingerprint of the prefixLen bytes before offset, or ""
// when offset is within the head, which prefixSum covers.
func tailSum(f *os.File, offset int64) (string, error) {
	if offset <= prefixLen {
		return "", nil
	}
	return sumAt(f, offset-prefixLen, prefixLen)
}

// sumAt is the hex SHA-256 of the n bytes of f at off.
func sumAt(f *os.File, off int64, n int) (string, error) {
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return "", fmt.Errorf("bottle: read transcript fingerprint: %w", err)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:]), nil
}

// readState returns the cached parse held in the lock file f, or nil when
// there is none usable: an empty (new or dropped), torn, corrupt or old
// cache only costs a full parse. So does one whose sum holds but whose
// numbers do not (a cursor before the file's start, a fingerprint of more
// than prefixLen bytes, more pages synced than it has): the sum catches a
// torn write, not a cache written wrong, and such numbers would make the
// render allocate what a length says or index outside its pages.
func readState(f *os.File) *state {
	fi, err := f.Stat()
	if err != nil || fi.Size() < sha256.Size {
		return nil
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil
	}
	sum, body := data[:sha256.Size], data[sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(sum, got[:]) {
		return nil
	}
	st, err := decodeState(body)
	if err != nil || st.Version != stateVersion ||
		st.Frozen < 0 || st.Frozen > len(st.Pages) || (st.Past != nil && st.Frozen == len(st.Pages)) ||
		st.Cursor.Offset < 0 || int64(st.Cursor.PrefixLen) != min(st.Cursor.Offset, prefixLen) ||
		st.Synced < 0 || st.Synced > len(st.Pages) {
		return nil
	}
	return st
}

// writeState overwrites the cache in the lock file f, its SHA-256 first:
// only renders, under the session's lock, read it, and one torn by a crash
// fails its sum and costs one full parse. Keeping it in the lock file, in
// place, costs no file creation (the lock file is there already) and, on
// ext4, no flush on every render, as a replacement by rename would. It is
// not synced: a cache older than the pages describes pages the next render
// lays out again.
func writeState(f *os.File, st *state) error {
	data, err := encodeState(make([]byte, sha256.Size, 4096), st)
	if err != nil {
		return fmt.Errorf("bottle: encode state: %w", err)
	}
	sum := sha256.Sum256(data[sha256.Size:])
	copy(data, sum[:])
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err != nil {
		return fmt.Errorf("bottle: write state: %w", err)
	}
	return nil
}

// AgentRule is ValidateAgent's rule in words, the reason a caller reads
// when an agent is refused.
const AgentRule = "must be lowercase letters, digits and dashes, not starting with a dash, at most 64 characters"

// ValidateAgent returns an error, saying AgentRule, unless agent can name
// a directory of bottles (the empty agent, no directory, passes): a command
// line checks its --agent with it before anything is read or written.
func ValidateAgent(agent string) error {
	if !validAgentDir(agent) {
		return fmt.Errorf("bottle: agent %q %s", agent, AgentRule)
	}
	return nil
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
