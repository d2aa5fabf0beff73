// Command baton is the reference binary over the baton SDK: a scripted demo,
// curated-memory commands, the briefing and the bottle commands. Each command
// is a kong struct with a Run method that takes what it needs from the
// bindings: the environment, a context, the tenant-bound continuity.API
// (the store is opened in one place, Env.Open, and only when a command takes
// the API). Every command runs in-process in tests, over the real store or
// over another API bound in its place.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	// First, for its init: a hook process's runtime settings, made before
	// the other packages initialize.
	_ "github.com/batonhq/baton/examples/baton/internal/hookproc"

	"github.com/alecthomas/kong"
	"github.com/batonhq/baton/internal/runes"
	"github.com/uptrace/bun/schema"
)

// Version is baton's version, set at build time with -ldflags.
var Version = "dev"

// Exit statuses, as Go tools use them.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed
	exitUsage   = 2 // the command line could not be parsed
)

// description heads `baton --help`; it documents the exit statuses.
const description = `Carry a coding agent's work across sessions and harnesses.

Exit status: 0 on success; 1 when a command fails; 2 on a usage error (an
unknown command or flag, a missing or malformed argument), with the error and
the usage on stderr. baton hook always exits 0: a hook never blocks the
person's work.`

// CLI is the baton command line.
type CLI struct {
	Demo      DemoCmd      `cmd:"" help:"Run a scripted session against an embedded store in a temporary BATON_HOME."`
	Remember  RememberCmd  `cmd:"" help:"Remember one curated atom; prints its id."`
	Resolve   ResolveCmd   `cmd:"" help:"Resolve a memory."`
	Unresolve UnresolveCmd `cmd:"" help:"Reopen a resolved memory."`
	Archive   ArchiveCmd   `cmd:"" help:"Archive a memory."`
	Briefing  BriefingCmd  `cmd:"" help:"Print the briefing for a project."`
	Bottle    BottleCmd    `cmd:"" help:"Render and show bottles."`
	HookCLI   `embed:""`
	Install   InstallCmd   `cmd:"" help:"Register baton's hooks in a harness's configuration."`
	Uninstall UninstallCmd `cmd:"" help:"Remove baton's hooks from a harness's configuration."`
	Version   VersionCmd   `cmd:"" help:"Print baton's version."`
	Eval      EvalCmd      `cmd:"" help:"Measure a judge over labelled sessions against the closer's validation bar."`
	Doctor    DoctorCmd    `cmd:"" help:"Report what baton has stopped writing (checkpoints, handovers, closes); exits 1 when a finding is a failure."`
	Export    ExportCmd    `cmd:"" help:"Write every row of the tenant as JSON lines (stdout, or --out FILE with the bottle files beside it)."`
	Import    ImportCmd    `cmd:"" help:"Import an export into the tenant, which must own nothing yet."`
	Forget    ForgetCmd    `cmd:"" help:"Erase every row of the tenant and the local bottles and archives (--yes)."`
	Serve     ServeCmd     `cmd:"" help:"Serve the HTTP API over a store, for a team's hooks and commands (BATON_SERVER_URL)."`
	Worker    WorkerCmd    `cmd:"" help:"Sweep lapsed sessions of every tenant, and run the resolve-only closer when BATON_CLOSER=1."`
}

// HookCLI is the command line a `baton hook` process parses: the hook
// command alone (CLI embeds it), under the same name and grammar.
type HookCLI struct {
	Hook HookCmd `cmd:"" help:"Run one hook event of a coding-agent harness (stdin in, envelope out; always exits 0)."`
}

// defaultAgent is the agent the commands' bottles and runner default to.
const defaultAgent = "claude-code"

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run(env *Env) error {
	_, err := fmt.Fprintln(env.Stdout, "baton", Version)
	return err
}

// newParser builds the command line over cli. Commands take what is bound:
// env, a context, and the API over the store that s opens on first use.
// opts come last, so they may bind another API in the store's place.
func newParser(cli any, env *Env, s *lazyStore, exit func(int), opts ...kong.Option) (*kong.Kong, error) {
	return kong.New(cli, append([]kong.Option{
		kong.Name("baton"), kong.Description(description),
		kong.Writers(env.Stdout, env.Stderr), kong.Exit(exit),
		kong.Vars{"defaultAgent": defaultAgent},
		kong.Bind(env), kong.BindTo(context.Background(), (*context.Context)(nil)),
		kong.BindSingletonProvider(s.API), kong.Help(printHelp), verbatimArgs(),
	}, opts...)...)
}

// printedHelper is a command whose detailed help reads something a parse
// must not pay for (the harness table): kong asks a HelpProvider for its text
// while it builds the command line, in every process, every hook's included;
// printHelp asks a printedHelper only when help is printed.
type printedHelper interface{ PrintedHelp() string }

// printHelp fills in the printedHelpers' details, then prints kong's help.
func printHelp(o kong.HelpOptions, ctx *kong.Context) error {
	err := kong.Visit(ctx.Model.Node, func(v kong.Visitable, next kong.Next) error {
		if n, ok := v.(*kong.Node); ok && n.Target.IsValid() && n.Target.CanAddr() {
			if h, ok := n.Target.Addr().Interface().(printedHelper); ok {
				n.Detail = h.PrintedHelp()
			}
		}
		return next(nil)
	})
	if err != nil {
		return err
	}
	return kong.DefaultHelpPrinter(o, ctx)
}

// exitRequest carries the status kong asks to exit with (after --help) back
// to execute, so the command line runs in-process without ending the process.
type exitRequest int

// execute runs the command line args against env and returns the exit
// status. Parse errors print the error and the usage to stderr, never to
// stdout, so `baton bottle render ... > bottle.md` holds a bottle or nothing.
// opts are added to the parser's (see newParser).
func execute(args []string, env *Env, opts ...kong.Option) (status int) {
	defer func() {
		if r := recover(); r != nil {
			req, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			status = int(req)
		}
	}()
	// A hook runs on every event of the person's session: it builds the
	// command line of the hook command alone, so it does not pay for the
	// reflection over every other command's flags and help.
	var cli any = new(CLI)
	if isHook(args) {
		cli = new(HookCLI)
	}
	store := &lazyStore{env: env}
	defer store.Close()
	parser, err := newParser(cli, env, store, func(code int) { panic(exitRequest(code)) }, opts...)
	if err != nil {
		fmt.Fprintln(env.Stderr, "baton:", err)
		return exitFailure
	}
	if isHook(args) {
		// A hook's stdout is its harness's: one envelope or nothing, even
		// when a person asks the hook command for its help.
		parser.Stdout = env.Stderr
	}
	ctx, err := parser.Parse(args)
	if err != nil && isHook(args) {
		// A hook never blocks the person's work, not even when its command
		// line is wrong: one line (a flag's name may hold a newline), exit 0.
		fmt.Fprintln(env.Stderr, "baton hook:", runes.Visible(strings.Join(strings.Fields(err.Error()), " ")))
		return exitOK
	}
	if err != nil {
		var perr *kong.ParseError
		if errors.As(err, &perr) && perr.Context != nil {
			parser.Stdout = env.Stderr
			_ = perr.Context.PrintUsage(true)
			fmt.Fprintln(env.Stderr)
		}
		fmt.Fprintln(env.Stderr, "baton: error:", errorText(err))
		return exitUsage
	}
	if err := ctx.Run(); err != nil {
		// An error may quote what a person typed or a server answered:
		// its characters are shown, as every display shows them.
		fmt.Fprintln(env.Stderr, "baton:", errorText(err))
		return exitFailure
	}
	return exitOK
}

// errorText renders err for the one line baton prints it on: each error an
// errors.Join holds (its text being theirs, a newline apart) after the
// other, "; " between them, and every other character as
// runes.VisibleInLine shows it. An error may quote a flag's value, an
// environment variable, a path or a server's message, any of them holding
// an escape sequence, a carriage return, a right-to-left override or a
// newline: none can drive the terminal, overwrite the "baton:" that names
// the line, or start a line of its own that reads as baton's.
func errorText(err error) string {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		texts := make([]string, len(errs))
		for i, e := range errs {
			texts[i] = e.Error()
		}
		if strings.Join(texts, "\n") == err.Error() {
			for i, e := range errs {
				texts[i] = errorText(e)
			}
			return strings.Join(texts, "; ")
		}
	}
	return runes.VisibleInLine(err.Error())
}

// isHook reports whether args run `baton hook`.
func isHook(args []string) bool {
	return len(args) > 0 && args[0] == "hook"
}

func main() {
	keepModelNames()
	os.Exit(execute(os.Args[1:], EnvFromOS()))
}

// keepModelNames makes bun keep a model's name as its default table name.
// bun derives that default for every model on first use, by
// jinzhu/inflection's English rules (some thirty regular expressions a
// name), and every model of the store names its table
// (sqlstore's TestModelsNameTheirTables), so the default is never used:
// the process does without the rules rather than pay for them in every hook
// (0.6 ms of CPU a start event). It sets a process-wide setting of bun's, so
// only main (and TestMain) call it; a program that imports the library keeps
// bun's default.
func keepModelNames() {
	schema.SetTableNameInflector(func(name string) string { return name })
}
