package hook

import "time"

// The facts `baton install` needs about each harness, as data: where its
// hooks file is, how that file nests its entries, the harness's own name for
// each event baton handles (and the matcher that selects the sources baton
// wants), the fields of one handler and the unit of its timeout. Sources:
// ../shared/harness/CONTRACTS.md (sections 1.5, 2.4, 3.4, 4.4, 5.4), the
// working configurations captured beside it (codex/hooks.json and
// config.toml, gemini/settings.json) and codex/NOTES.md for the trust
// entries. The hook runtime's own table (payloads and envelopes) is meant to
// absorb this one; until then it stands alone.

// installTimeouts is how long a harness lets each of baton's hooks (by its
// event kind, as `baton hook KIND` takes it) run before killing it. A hook
// keeps its own, shorter budgets; these are the outer limit. The end hook
// closes within 1 s: 1.5 s is Claude Code's default SessionEnd budget (a
// larger per-hook timeout would raise it), and rounded up to whole seconds
// (2 s) it stays under Codex's 3 s clamp.
var installTimeouts = map[string]time.Duration{
	"start":      10 * time.Second,
	"prompt":     5 * time.Second,
	"stop":       30 * time.Second,
	"precompact": 30 * time.Second,
	"end":        1500 * time.Millisecond,
}

// installHarness is how one harness registers hooks.
type installHarness struct {
	name string
	// userDir is the configuration directory under the user's home; empty
	// when the harness reads no user-level hooks file. dirEnv names the
	// variable that, when set, replaces it (as the harness itself reads it).
	userDir, dirEnv string
	// projectDir is the directory under the project holding file.
	projectDir string
	file       string
	// nested: an event lists matcher groups {"matcher", "hooks": [handler]};
	// otherwise it lists handlers.
	nested bool
	// skeleton is the content of a file install creates, before baton's
	// entries are added.
	skeleton string
	// ownFile: the file is baton's alone, so uninstall deletes it once only
	// the skeleton is left. Shared files are never deleted.
	ownFile bool
	// trustFile, in the user directory, holds Codex's trust entries for the
	// hooks (see install_codex.go); empty for harnesses that need none.
	trustFile string
	events    []installEvent
	handler   []installField
}

// installEvent is one of baton's event kinds in the harness's vocabulary.
type installEvent struct {
	kind string
	name string // the key under "hooks"
	// matcher selects the sources baton handles; empty writes none (all).
	matcher string
	// trustName is Codex's snake_case event key in its trust entries.
	trustName string
}

// fieldKind says how a handler field's value is made.
type fieldKind int

const (
	fieldLiteral fieldKind = iota // the literal text
	fieldLabel                    // "baton-" + the event kind
	fieldCommand                  // the quoted binary + " hook KIND --harness NAME"
	fieldTimeout                  // installTimeouts[kind] in unit, rounded up
)

// installField is one field of a handler object, in the order written.
type installField struct {
	key     string
	kind    fieldKind
	literal string
	quote   quoteStyle    // fieldCommand
	unit    time.Duration // fieldTimeout
}

var (
	typeCommand = installField{key: "type", kind: fieldLiteral, literal: "command"}
	shellCmd    = installField{key: "command", kind: fieldCommand, quote: quoteShell}
	seconds     = installField{key: "timeout", kind: fieldTimeout, unit: time.Second}
)

// claudeEvents are the event names Claude Code and Codex share (trustName
// is read for Codex only).
var claudeEvents = []installEvent{
	{kind: "start", name: "SessionStart", matcher: "startup|resume|clear|compact", trustName: "session_start"},
	{kind: "prompt", name: "UserPromptSubmit", trustName: "user_prompt_submit"},
	{kind: "stop", name: "Stop", trustName: "stop"}, // main agent only: never SubagentStop
	{kind: "precompact", name: "PreCompact", trustName: "pre_compact"},
	{kind: "end", name: "SessionEnd", trustName: "session_end"},
}

// installTable lists the harnesses `baton install` knows, in the order help
// lists them.
var installTable = []*installHarness{
	{
		name: "claude-code", userDir: ".claude", dirEnv: "CLAUDE_CONFIG_DIR", projectDir: ".claude",
		file: "settings.json", nested: true, skeleton: "{}\n",
		events:  claudeEvents,
		handler: []installField{typeCommand, shellCmd, seconds},
	},
	{
		name: "codex", userDir: ".codex", dirEnv: "CODEX_HOME", projectDir: ".codex",
		file: "hooks.json", nested: true, skeleton: "{}\n", trustFile: "config.toml",
		events:  claudeEvents,
		handler: []installField{typeCommand, shellCmd, seconds},
	},
	{
		name: "gemini", userDir: ".gemini", projectDir: ".gemini",
		file: "settings.json", nested: true, skeleton: "{}\n",
		events: []installEvent{
			{kind: "start", name: "SessionStart", matcher: "*"},
			{kind: "prompt", name: "BeforeAgent", matcher: "*"},
			{kind: "stop", name: "AfterAgent", matcher: "*"},
			{kind: "precompact", name: "PreCompress", matcher: "*"},
			{kind: "end", name: "SessionEnd", matcher: "*"},
		},
		handler: []installField{
			{key: "name", kind: fieldLabel}, typeCommand, shellCmd,
			{key: "timeout", kind: fieldTimeout, unit: time.Millisecond},
		},
	},
	{
		// Copilot CLI reads hooks from the repository only; the camelCase
		// event names select its camelCase payload dialect.
		name: "copilot", projectDir: ".github/hooks",
		file: "baton.json", skeleton: "{\n  \"version\": 1\n}\n", ownFile: true,
		events: []installEvent{
			{kind: "start", name: "sessionStart"},
			{kind: "prompt", name: "userPromptSubmitted"},
			{kind: "stop", name: "agentStop"},
			{kind: "precompact", name: "preCompact"},
			{kind: "end", name: "sessionEnd"},
		},
		handler: []installField{
			typeCommand,
			{key: "bash", kind: fieldCommand, quote: quotePOSIX},
			{key: "powershell", kind: fieldCommand, quote: quotePowerShell},
			{key: "timeoutSec", kind: fieldTimeout, unit: time.Second},
		},
	},
	{
		name: "cursor", userDir: ".cursor", projectDir: ".cursor",
		file: "hooks.json", skeleton: "{\n  \"version\": 1\n}\n",
		events: []installEvent{
			{kind: "start", name: "sessionStart"},
			{kind: "prompt", name: "beforeSubmitPrompt"},
			{kind: "stop", name: "stop"},
			{kind: "precompact", name: "preCompact"},
			{kind: "end", name: "sessionEnd"},
		},
		handler: []installField{shellCmd, seconds},
	},
}
