package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/batonhq/baton/adapters/hook"
	"github.com/batonhq/baton/continuity/workdir"
	"github.com/batonhq/baton/internal/runes"
)

// HookConfigFlags are the flags install and uninstall share (exported, so
// kong can set them through the embedding).
type HookConfigFlags struct {
	Harness string `required:"" placeholder:"NAME" help:"The harness whose configuration to edit (the harnesses are listed below)."`
	Scope   string `placeholder:"user|project" help:"The user's configuration (the default) or the project's: the git top level of the working directory, else the directory itself. A harness that reads hooks only from the project defaults to it."`
	DryRun  bool   `help:"Print the changes as a unified diff and write nothing."`
}

// Validate refuses a harness or a scope install does not know as the usage
// error it is (exit 2), before any file is read.
func (f *HookConfigFlags) Validate() error {
	return hook.CheckInstallTarget(f.Harness, hook.InstallScope(f.Scope))
}

// InstallCmd registers baton's hooks in a harness's configuration.
type InstallCmd struct {
	HookConfigFlags `embed:""`
	// Binary overrides the program the hooks run, for a packager that wants
	// a stable symlink rather than the versioned file it points to.
	Binary string `hidden:"" type:"path" help:"The program the hooks run (default: this binary, by the path it was run by)."`
}

// UninstallCmd removes what InstallCmd registered.
type UninstallCmd struct {
	HookConfigFlags `embed:""`
}

// PrintedHelp lists the harnesses and what install writes for each.
func (InstallCmd) PrintedHelp() string { return hookConfigHelp("Registers") }

// PrintedHelp lists the harnesses and what uninstall edits for each.
func (UninstallCmd) PrintedHelp() string { return hookConfigHelp("Removes") }

func hookConfigHelp(verb string) string {
	return verb + " `<this binary> hook EVENT --harness NAME` for the events baton handles " +
		"(session start, prompt, stop, pre-compaction, session end) in the harness's own configuration. " +
		"Every file changed is backed up first as FILE.baton-backup-<UTC time>; other entries and keys keep their order. " +
		"Harnesses: " + strings.Join(hook.InstallHarnesses(), ", ") + "."
}

// Run plans the install and shows or applies it.
func (c *InstallCmd) Run(env *Env) error {
	binary, err := hookBinary(c.Binary)
	if err != nil {
		return err
	}
	if tmp := os.TempDir(); c.Binary == "" && strings.HasPrefix(binary, tmp) && strings.Contains(binary, "go-build") {
		fmt.Fprintf(env.Stderr, "baton: warning: %s is a temporary build (go run?) and will vanish; the hooks need an installed baton (go install, or go build -o)\n", runes.VisibleInLine(binary))
	}
	o := c.options(env)
	o.Binary = binary
	p, err := hook.PlanInstall(o)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	return c.finish(env, p, "install")
}

// Run plans the uninstall and shows or applies it.
func (c *UninstallCmd) Run(env *Env) error {
	p, err := hook.PlanUninstall(c.options(env))
	if err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	return c.finish(env, p, "uninstall")
}

// options reads the user's home and the project's root for the plan. The
// home is the platform's, not BATON_HOME: the harnesses' files are there.
// Without one, the plan's error names it.
func (f *HookConfigFlags) options(env *Env) hook.InstallOptions {
	home, _ := os.UserHomeDir()
	return hook.InstallOptions{Harness: f.Harness, Scope: hook.InstallScope(f.Scope), Getenv: os.Getenv,
		Home: home, Project: workdir.TopLevel(env.Dir)}
}

// finish prints the plan's diff on a dry run, else applies it and says
// what it wrote.
func (f *HookConfigFlags) finish(env *Env, p *hook.InstallPlan, verb string) error {
	if f.DryRun {
		var diff bytes.Buffer
		if err := p.Diff(&diff); err != nil {
			return err
		}
		if !p.Changed() {
			fmt.Fprintf(env.Stderr, "baton: %s: nothing to change\n", verb)
		}
		_, err := env.Stdout.Write(diff.Bytes())
		return err
	}
	if err := p.Apply(time.Now()); err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	// The paths may come from the environment (CODEX_HOME) or a project's
	// directory name: each is shown as text (runes.VisibleInLine).
	for _, c := range p.Changes {
		path, backup := runes.VisibleInLine(c.Path), runes.VisibleInLine(c.Backup)
		switch {
		case !c.Changed():
			fmt.Fprintf(env.Stdout, "unchanged %s\n", path)
		case c.Before == nil:
			fmt.Fprintf(env.Stdout, "created %s\n", path)
		case c.After == nil:
			fmt.Fprintf(env.Stdout, "removed %s (backup %s)\n", path, backup)
		default:
			fmt.Fprintf(env.Stdout, "updated %s (backup %s)\n", path, backup)
		}
	}
	return nil
}

// hookBinary is the program the hooks run: explicit as given (made
// absolute; it must exist), else this binary by the path it was run by
// (see runningBinary).
func hookBinary(explicit string) (string, error) {
	path := explicit
	if path == "" {
		var err error
		if path, err = runningBinary(os.Args[0], os.Executable, exec.LookPath); err != nil {
			return "", err
		}
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("install: %w", err)
	}
	info, err := os.Stat(path)
	if err == nil && info.IsDir() {
		err = fmt.Errorf("%s is a directory", path)
	}
	if err != nil {
		return "", fmt.Errorf("install: the hooks' binary: %w", err)
	}
	return path, nil
}

// runningBinary is this binary's path for the hooks: the path it was run by
// (arg0 when absolute, or the file PATH finds for a bare name) when that is
// this very file, else the executable's own path. A package manager's link
// (bin/baton → ../Cellar/baton/1.0/bin/baton) so stays the command, and an
// upgrade that replaces the versioned file keeps the hooks working.
func runningBinary(arg0 string, executable func() (string, error), lookPath func(string) (string, error)) (string, error) {
	exe, err := executable()
	if err != nil {
		return "", fmt.Errorf("install: cannot tell where this binary is: %w", err)
	}
	ran := arg0
	if !strings.ContainsAny(arg0, `/\`) {
		if ran, err = lookPath(arg0); err != nil {
			return exe, nil
		}
	}
	if !filepath.IsAbs(ran) {
		return exe, nil
	}
	a, errA := os.Stat(ran)
	b, errB := os.Stat(exe)
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		return exe, nil
	}
	return filepath.Clean(ran), nil
}
