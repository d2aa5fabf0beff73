// Package bottle renders a session into a "bottle": a privacy-filtered,
// near-lossless record of the conversation that a model reads after a
// compaction, /clear, crash or resume to continue where the session stood.
//
// A bottle is a derived view, never a source of truth. It merges the
// transcript's verbatim user and assistant messages with one-line
// observations in place of tool traffic (a host's, or derived from the
// transcript's own tool calls), and ends with an honest tail of tool events
// not yet observed. Its index declares the rung of the degradation ladder
// it was rendered on: full (transcript), reconstructed (stored prompts, Stop
// excerpts, observations and generated summaries) or timeline (nothing to
// bottle; the caller falls back to the briefing). After a compaction only a
// short pointer is injected; the model reads the bottle itself.
//
// The model reads it with its harness's file tool, which returns a bounded
// read (ReadLimits, declared per harness). So a bottle is a directory: an
// index (session facts, the original request, a table of pages by leg and
// turn) and numbered pages, each within the limits; a line longer than the
// limit is wrapped with ContinuationMark, never cut. The pointer names the
// exact reads, newest first (ReadPlan): the index and the last page, then
// older pages only as needed.
//
// The renderer is a pure function of values and a time; the Bottler wraps
// it with the I/O: an incremental transcript cursor with its parse cache, a
// window that lays out again only the pages that may still change and
// rewrites only those whose bytes did, a cross-process render lock, atomic
// replacement of every file written, archiving (with a clear point, so a
// transcript a harness goes on writing across a /clear under the same id is
// bottled from the clear on), Seal (which syncs what it
// hands on) and the marker claim. Storage of markers and history belongs to
// the host (continuity.BottleStore implements MarkerArmer, MarkerClaimer and
// History).
//
// Files:
//
//	privacy/       Scrub, the one privacy filter (shared with continuity), and ContextTag
//	transcript.go  Entry, Transcript (parsed state), Brief (tool-call gist)
//	reader.go      Format, the format table, ReadLines (live: complete lines only), ReadAll (a finished file), ResolveTranscript, unwrap (harness envelopes, slash commands)
//	skim.go        a JSON structure walker that skips bulk values unread
//	claude.go      Claude Code JSONL lines
//	codex.go       Codex CLI rollout lines
//	gemini.go      Gemini CLI chat recording lines, $set.messages reconciliation, the stray resume file
//	observe.go     Observation, ObservationSource, Stub, Queue, DeriveObservations, FirstClause
//	history.go     Prompt, StopExcerpt, Summary, Record, History
//	limits.go      ReadLimits per harness, ContinuationMark and line wrapping
//	render.go      Mode, Page, Result, Render (full and reconstructed) into blocks
//	layout.go      blocks poured into pages, the index, PageName, IndexName
//	pointer.go     PageRead, ReadPlan, PlanReads, Bottler.Continuation, AsItIs (package continuity/inject words the pointer)
//	bottler.go     Bottler: Render, Read, Archive and its clear point; the cache, its window and the page writes
//	statecodec.go  the cache's binary encoding (its fields in order, any bytes kept)
//	seal.go        Drainer, Marker, MarkerArmer, MarkerClaimer, Bottler.Seal
//	file.go        ValidateSessionID (the one session-id rule), WriteFileAtomic
//	lock*.go       the per-session lock file (flock, LockFileEx)
//	bench.sh       the marathon benchmarks with their ratios (see BENCH.md)
package bottle
