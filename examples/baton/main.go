// Command baton is the reference binary over the baton SDK: a scripted demo,
// curated-memory commands, the briefing and the bottle commands. Each command
// is a kong struct with a Run method; dependencies are bound, so every
// command runs in-process in tests.
package main

import (
	"fmt"
	"os"

	"github.com/alecthomas/kong"
)

// Version is baton's version, set at build time with -ldflags.
var Version = "dev"

// CLI is the baton command line.
type CLI struct {
	Demo      DemoCmd      `cmd:"" help:"Run a scripted session against an embedded store in a temporary BATON_HOME."`
	Remember  RememberCmd  `cmd:"" help:"Remember one curated atom; prints its id."`
	Resolve   ResolveCmd   `cmd:"" help:"Resolve a memory."`
	Unresolve UnresolveCmd `cmd:"" help:"Reopen a resolved memory."`
	Archive   ArchiveCmd   `cmd:"" help:"Archive a memory."`
	Briefing  BriefingCmd  `cmd:"" help:"Print the briefing for a project."`
	Bottle    BottleCmd    `cmd:"" help:"Render and show bottles."`
	Version   VersionCmd   `cmd:"" help:"Print baton's version."`
}

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints the version.
func (VersionCmd) Run(env *Env) error {
	_, err := fmt.Fprintln(env.Stdout, "baton", Version)
	return err
}

func main() {
	var cli CLI
	env := EnvFromOS()
	ctx := kong.Parse(&cli, kong.Name("baton"), kong.Description("Carry a coding agent's work across sessions and harnesses."),
		kong.UsageOnError(), kong.Bind(env))
	if err := ctx.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "baton:", err)
		os.Exit(1)
	}
}
