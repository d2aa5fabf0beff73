// Package inject renders every text baton injects into a model: the
// SessionStart context after a startup or a clear that started a
// conversation (briefing, handover, id instruction), the pointer to a
// session's bottle after a compaction or resume, the fallback when no bottle
// marker was claimed, and the Stop nudge; and the briefing `baton briefing`
// prints for a person, cleaned as the injected one. It is the one place their wording
// lives, each text pinned by golden files under testdata (go test
// ./continuity/inject -update rewrites them).
//
// Its functions are pure: plain values in, text out, no I/O and no clock.
// It never imports continuity; the service and the hook adapter fetch what a
// text needs (the rendered briefing and handover, the claimed marker, the
// debrief prompt) and pass it in.
//
// Every text is valid UTF-8 with no NUL. Blocks rendered elsewhere
// (briefing, handover, debrief) are passed through with their line
// structure; values that come from outside (the task, the bottle path, the
// agent, the run id) are rendered on one line inside a line baton writes, so
// they can never start a line and fake a heading or a section.
//
// Files:
//
//	inject.go   IDInstruction, Startup, Overhead, Briefing, Fallback, Nudge, and the budget cut
//	pointer.go  PointerInput, FromMarker, Continuation (the bottle pointer's wording)
//	text.go     clean, the block sanitizer (runes.OneLine is the line's)
package inject
