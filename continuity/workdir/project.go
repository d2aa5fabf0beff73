package workdir

import (
	"context"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Project is the project facet of a working directory, the one rule the hook
// CLI and every command use so that a hook's session and a CLI write from the
// same repository meet: the base name of the git top-level directory
// containing dir (a linked worktree's own directory, as git reports it),
// else dir's own base name (a relative dir is made absolute first). It is
// never a placeholder such as "unknown", and never "." or a bare separator:
// when there is nothing meaningful (an empty dir, the filesystem root, a
// repository whose top level is the root) it is empty. Git runs bounded by
// Timeout; when git is missing or fails, the directory's name is the answer.
func Project(dir string) string {
	if dir == "" {
		return ""
	}
	return name(TopLevel(dir))
}

// TopLevel is the root of the project dir is in, where a harness's project
// configuration lives: the git top-level directory containing dir (a linked
// worktree's own directory), else dir itself, made absolute; empty when dir
// is. Git runs bounded by Timeout.
func TopLevel(dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if f, ok := native(dir); ok {
		return f.TopLevel
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if top, ok, _ := run(ctx, dir, "rev-parse", "--show-toplevel"); ok && top != "" {
		return filepath.FromSlash(top)
	}
	return dir
}

// name returns path's base name, or empty when that names no directory of
// its own (git prints Windows top levels with forward slashes; filepath.Base
// accepts both there).
func name(path string) string {
	switch base := filepath.Base(path); base {
	case ".", "..", "/", `\`:
		return ""
	default:
		return facet(base)
	}
}

// MaxProjectLen is the most characters a project facet holds: the
// service's bound on a facet (continuity.MaxFacetLen). A directory's name
// may be longer (255 bytes on most file systems).
const MaxProjectLen = 200

// facet makes a directory's name a project facet the service stores: bytes
// that are not UTF-8 and control characters (NUL among them, which a name
// cannot hold on most systems but can on some) become U+FFFD, surrounding
// white space goes, and a name longer than MaxProjectLen characters is cut
// to it. The same name always gives the same facet, so a session and a
// later write from that directory still meet.
func facet(base string) string {
	base = strings.ToValidUTF8(base, "\uFFFD")
	base = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return utf8.RuneError
		}
		return r
	}, base)
	base = strings.TrimSpace(base)
	if utf8.RuneCountInString(base) > MaxProjectLen {
		base = strings.TrimSpace(string([]rune(base)[:MaxProjectLen]))
	}
	return base
}
