// Package e2e holds the end-to-end tests of baton's hooks against the real
// coding-agent clients: Claude Code, Codex CLI and Gemini CLI, each pinned to
// the version whose payloads are captured in the harness contracts, each
// driven with a temporary HOME in which `baton install` did the set-up,
// against a fake model served on 127.0.0.1 by the test itself. The tests
// assert on what reached the fake model's requests and on the store.
//
// They run when BATON_E2E=1 (.ci/run sets it after installing the clients
// from npm and exports their paths in BATON_E2E_CLAUDE, BATON_E2E_CODEX and
// BATON_E2E_GEMINI); without it they skip, saying so on stderr. A client
// that cannot be found fails the test in CI (CI=true) and skips it, loudly,
// elsewhere. TestE2EClaudeCodeTeamServer also needs BATON_TEST_POSTGRES_DSN
// (.ci/run sets it): it runs `baton serve` on a fresh schema of that
// database, and fails in CI and skips elsewhere without it.
//
// Files (tests only):
//
//	e2e_test.go        gating, the baton binary, the temporary world, bounded client runs, store reads
//	fakemodel_test.go  what the fake models share: the request log, text extraction, SSE
//	anthropic_test.go  the fake Messages API (Claude Code)
//	responses_test.go  the fake Responses API (Codex CLI)
//	gemini_api_test.go the fake Gemini API (Gemini CLI)
//	claude_test.go     the Claude Code scenario, against the local store and against a team server
//	teamserver_test.go `baton serve` on a fresh Postgres schema, the world's baton processes pointed at it
//	codex_test.go      the Codex CLI scenario
//	gemini_test.go     the Gemini CLI scenario
package e2e
