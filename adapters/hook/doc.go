// Package hook is the harness side of `baton hook`: it reads a coding-agent
// harness's hook payload from stdin, normalizes it into one
// continuity.HookEvent, lets continuity.Episodes handle it with one call,
// and writes that harness's envelope on stdout.
//
// Every fact about a harness (Claude Code, Codex CLI, Gemini CLI, Copilot
// CLI in both payload dialects, Cursor) is a row of one embedded data table,
// harnesses.json: its agent name, its event vocabulary mapped to the five
// kinds, the JSON keys of each normalized field, its SessionStart sources,
// the tags it prefixes to prompts, its transcript format, its envelope
// templates, its SessionEnd budget, the stdin limit, and what `baton
// install` writes into the harness's own configuration (the file in each
// scope, how it nests entries, the matchers, the handler's fields and the
// unit of its timeout, the hooks' timeouts). The code reads the table; it
// never names a harness.
//
// A hook never blocks the person's work: Invocation.Run exits 0 whatever
// happens, prints one whole envelope or nothing, says on one stderr line
// what failed, and leaves a receipt and its failure in the ledger when the
// store can be reached. Only the main agent is hooked: a subagent's event,
// BATON_HOOK_ROLE=subagent and a linked git worktree are skipped before any
// store is opened.
//
// Files:
//
//	harnesses.json    the harness table
//	table.go          Table, Harness, Dialect, Fields, EventName, Envelopes, Install; Lookup; the table's checks
//	normalize.go      Normalize: payload → Event (event name, fields, sources, prompt tags, loop guard, provisional PreCompact)
//	transcript.go     the last model message read from a transcript's tail, per format
//	envelope.go       Harness.Envelope: the templates filled
//	worktree.go       LinkedWorktree
//	run.go            Invocation.Run: the whole hook, its failure posture
//	install.go        PlanInstall, PlanUninstall, Apply, Diff: `baton install` and `baton uninstall` from the table's Install rows
//	install_codex.go  Codex's trust entries in config.toml
//	install_json.go   the order-keeping JSON editor install edits configurations with
//	install_diff.go   the unified diff --dry-run prints
//	install_quote.go  the binary's path quoted for each shell
package hook
