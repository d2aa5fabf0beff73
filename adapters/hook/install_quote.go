package hook

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
)

// quoteStyle is the shell, or the shells, a harness hands a hook's command
// line to; the table names one per command field.
type quoteStyle int

const (
	// quotePOSIX is sh or bash everywhere.
	quotePOSIX quoteStyle = iota
	// quotePowerShell is PowerShell everywhere.
	quotePowerShell
	// quotePOSIXOrPowerShell is for a harness that hands the command to sh
	// or bash on Unix and to PowerShell on Windows (Gemini CLI's
	// getShellConfiguration; Cursor): the double-quoted Windows form is, to
	// PowerShell, a string followed by an unexpected token, not a command.
	quotePOSIXOrPowerShell
	// quoteGitBashOrPowerShell is Claude Code's: sh on Unix; on Windows Git
	// Bash (bash --login -i -c) where it finds one, PowerShell where it
	// does not.
	quoteGitBashOrPowerShell
	// quoteCmdOrPowerShell is Codex's: sh on Unix; on Windows the session's
	// shell, PowerShell (-Command), or without one %COMSPEC% /C, the command
	// passed as one argument that Rust's quoting escapes each " in, which
	// cmd.exe does not read back.
	quoteCmdOrPowerShell
)

// quoteNames are the styles' names in the harness table.
var quoteNames = map[string]quoteStyle{"posix": quotePOSIX, "powershell": quotePowerShell, "posix-or-powershell": quotePOSIXOrPowerShell,
	"git-bash-or-powershell": quoteGitBashOrPowerShell, "cmd-or-powershell": quoteCmdOrPowerShell}

func (s *quoteStyle) UnmarshalText(b []byte) error {
	q, ok := quoteNames[string(b)]
	if !ok {
		return fmt.Errorf("quote %q is not one of posix, powershell, posix-or-powershell, git-bash-or-powershell, cmd-or-powershell", b)
	}
	*s = q
	return nil
}

// shellHost is what quoting needs to know of the platform the hooks run on.
type shellHost struct {
	goos string
	// gitBash reports whether Claude Code finds Git Bash there (Windows
	// only; see claudeFindsGitBash).
	gitBash bool
}

// localShellHost is this platform; getenv (nil reads none) reads
// CLAUDE_CODE_GIT_BASH_PATH as Claude Code would.
func localShellHost(getenv func(string) string) shellHost {
	h := shellHost{goos: runtime.GOOS}
	if h.goos == "windows" {
		h.gitBash = claudeFindsGitBash(getenv, fileExists, exec.LookPath)
	}
	return h
}

// quoteForm is one way of writing the path as a command's first word.
type quoteForm int

const (
	formPOSIX      quoteForm = iota // bare, or single-quoted for sh
	formPowerShell                  // bare, or & '…' for PowerShell
	formDouble                      // "…", for Git Bash (and cmd.exe)
	formBare                        // bare with backslashes, for cmd.exe and PowerShell
)

// quotePathOn quotes path as the first word of a command line in style s,
// for hooks run on host.
//
// On Windows, Claude Code's path is written bare with forward slashes
// when it is a bareWord that way, which Git Bash and PowerShell both run
// (so the hooks keep working when Git Bash comes or goes); else
// double-quoted where Claude Code finds Git Bash, and in PowerShell's
// & '…' where it does not. Codex's is written bare with backslashes, the
// one form both of its shells run: a path that is not a bareWord is
// refused with an invalid error naming it (a quoted path never launches
// under cmd.exe /C, and under PowerShell a quoted first word is a string).
func quotePathOn(path string, s quoteStyle, host shellHost) (string, error) {
	var form quoteForm
	switch {
	case host.goos != "windows" && s != quotePowerShell:
		form = formPOSIX
	case s == quotePOSIX:
		form = formPOSIX
	case s == quotePowerShell, s == quotePOSIXOrPowerShell:
		form = formPowerShell
	case s == quoteGitBashOrPowerShell:
		if slashed := strings.ReplaceAll(path, `\`, "/"); bareWord(slashed) && !strings.HasPrefix(slashed, "//") {
			return slashed, nil
		}
		form = formPowerShell
		if host.gitBash {
			form = formDouble
		}
	default:
		form = formBare
	}
	switch form {
	case formDouble:
		return doubleQuoted(path)
	case formBare:
		native := strings.ReplaceAll(path, "/", `\`)
		if !bareWord(native) {
			r := firstNotBare(native)
			return "", continuity.Invalid("binary", fmt.Sprintf("%s holds %s, which Codex cannot run on Windows: it hands a hook's command to PowerShell or cmd.exe /C, where a quoted path never starts, so the path must stand bare; install baton under a path of letters, digits and _ . - + ~ only (no spaces), or pass --binary with one (dir /x shows a folder's short 8.3 name)", path, r))
		}
		return native, nil
	case formPowerShell:
		if plainPath(path) {
			return path, nil
		}
		// A quoted string is a value to PowerShell; & runs it. PowerShell
		// ends a single-quoted string at any of psQuotes, each doubled inside.
		var b strings.Builder
		b.WriteString("& '")
		for _, r := range path {
			if strings.ContainsRune(psQuotes, r) {
				b.WriteRune(r)
			}
			b.WriteRune(r)
		}
		b.WriteString("'")
		return b.String(), nil
	default:
		if plainPath(path) {
			return path, nil
		}
		return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'", nil
	}
}

// doubleQuoted is path in double quotes, which Git Bash (and cmd.exe,
// where an older Claude Code ran hooks) reads. Git Bash expands $ and
// backquotes, eats a backslash before $, reads two backslashes as one (a
// UNC path's \\server would become \server), and, started interactive,
// expands ! from its history; cmd.exe expands %VAR%: a path holding one
// of windowsUnsafe, or two backslashes in a row, is refused with an
// invalid error rather than written as a command that runs something else
// or nothing.
func doubleQuoted(path string) (string, error) {
	if i := strings.IndexFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f || strings.ContainsRune(windowsUnsafe, r) }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(path[i:])
		return "", continuity.Invalid("binary", fmt.Sprintf("%s holds %q, which a double-quoted command line cannot carry safely for Git Bash; install baton under a path without %s or control characters, or pass --binary with one", path, r, strings.Join(strings.Split(windowsUnsafe, ""), " ")))
	}
	if strings.Contains(path, `\\`) {
		return "", continuity.Invalid("binary", fmt.Sprintf(`%s holds two backslashes in a row (a UNC or \\?\ path), which Git Bash reads as one inside a double-quoted command line; install baton under a drive-letter path (a mapped drive for a share), or pass --binary with one`, path))
	}
	return `"` + path + `"`, nil
}

// windowsUnsafe are the characters the double-quoted form cannot carry
// (besides control characters).
const windowsUnsafe = "$`%\"!"

// plainPath reports whether path needs no quoting in any of the shells: it
// holds only letters, digits and characters none of them treat specially.
func plainPath(path string) bool {
	return path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:+-") == ""
}

// bareWord reports whether s is one word, the same program, to cmd.exe,
// PowerShell and Git Bash alike when written without quotes (backslashes
// aside, which Git Bash eats): letters and digits (any script's), _ . - +
// ~ : and the separators, and not starting with - or ~. Everything else
// is special to one of them: a space or , ; = splits the word in
// cmd.exe, & | < > ( ) ^ % ! " end or change it there, $ ` ' # @ { } [ ]
// * ? mean something to PowerShell or bash, and so do the Unicode dashes,
// quotes and spaces PowerShell reads as their ASCII kin.
func bareWord(s string) bool {
	return s != "" && s[0] != '-' && s[0] != '~' && firstNotBare(s) == ""
}

// firstNotBare is the first character of s bareWord refuses, quoted; ""
// when there is none.
func firstNotBare(s string) string {
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf && strings.ContainsRune(`abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+~:\/`, r):
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)):
		default:
			return fmt.Sprintf("%q", r)
		}
	}
	return ""
}

// unquotePath reads back a path quotePathOn wrote, in any of its forms;
// false for anything else (a second word, a path needing quotes left bare,
// one quoted otherwise).
func unquotePath(s string) (string, bool) {
	switch {
	case bareWord(s):
		return s, true
	case len(s) >= 4 && strings.HasPrefix(s, "& '") && strings.HasSuffix(s, "'"):
		return undouble(s[3 : len(s)-1])
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' && !strings.Contains(s[1:len(s)-1], `"`):
		return s[1 : len(s)-1], true
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		inner := s[1 : len(s)-1]
		if strings.Contains(strings.ReplaceAll(inner, `'\''`, ""), "'") {
			return "", false
		}
		return strings.ReplaceAll(inner, `'\''`, "'"), true
	}
	return "", false
}

// undouble reads a PowerShell single-quoted string's content, where each
// quote character stands doubled.
func undouble(s string) (string, bool) {
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		if strings.ContainsRune(psQuotes, rs[i]) {
			if i+1 == len(rs) || rs[i+1] != rs[i] {
				return "", false
			}
			i++
		}
		b.WriteRune(rs[i])
	}
	return b.String(), true
}

// psQuotes are the characters PowerShell ends a single-quoted string at:
// the apostrophe and the typographic single quotes.
const psQuotes = "'\u2018\u2019\u201a\u201b"

// absolutePath reports whether path is absolute on Unix or on Windows
// (C:\…, C:/…, \\server\…): a configuration may be read on either.
func absolutePath(path string) bool {
	switch {
	case strings.HasPrefix(path, "/"), strings.HasPrefix(path, `\\`):
		return true
	case len(path) >= 3 && path[1] == ':' && (path[2] == '\\' || path[2] == '/'):
		c := path[0] | 0x20
		return 'a' <= c && c <= 'z'
	}
	return false
}

// claudeFindsGitBash reports whether Claude Code on Windows finds Git Bash
// to run hooks in, looking where it looks, in its order:
// CLAUDE_CODE_GIT_BASH_PATH, Git for Windows' two default folders, then
// bin\bash.exe beside the cmd folder of the git on PATH (as
// thedotmack/claude-mem#3649 read it from the Claude Code binary).
// Without one, Claude Code runs hooks in PowerShell.
func claudeFindsGitBash(getenv func(string) string, exists func(string) bool, lookPath func(string) (string, error)) bool {
	if getenv != nil {
		if p := getenv("CLAUDE_CODE_GIT_BASH_PATH"); p != "" && exists(p) {
			return true
		}
	}
	for _, p := range []string{`C:\Program Files\Git\bin\bash.exe`, `C:\Program Files (x86)\Git\bin\bash.exe`} {
		if exists(p) {
			return true
		}
	}
	git, err := lookPath("git")
	if err != nil {
		return false
	}
	// git.exe is in <Git>\cmd; bash.exe in <Git>\bin.
	dir := git
	for range 2 {
		dir = dir[:max(strings.LastIndexAny(dir, `\/`), 0)]
	}
	return dir != "" && exists(dir+`\bin\bash.exe`)
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
