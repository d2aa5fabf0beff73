package hook

import (
	"fmt"
	"runtime"
	"strings"
	"unicode/utf8"

	"github.com/batonhq/baton/continuity"
)

// quoteStyle is the shell a harness hands a hook's command line to.
type quoteStyle int

const (
	// quoteShell is the platform's: POSIX sh on Unix; on Windows the harness
	// may use cmd.exe or Git Bash (Claude Code runs hooks in Git Bash), so
	// the path is always double-quoted (which both read, and which keeps Git
	// Bash from eating backslashes).
	quoteShell quoteStyle = iota
	quotePOSIX
	quoteWindows
	quotePowerShell
	// quotePOSIXOrPowerShell is for a harness that hands the command to
	// sh or bash on Unix and to PowerShell on Windows (Gemini CLI's
	// getShellConfiguration; Cursor): the double-quoted Windows form is, to
	// PowerShell, a string followed by an unexpected token, not a command.
	quotePOSIXOrPowerShell
)

// quoteNames are the styles' names in the harness table.
var quoteNames = map[string]quoteStyle{"shell": quoteShell, "posix": quotePOSIX, "windows": quoteWindows, "powershell": quotePowerShell, "posix-or-powershell": quotePOSIXOrPowerShell}

func (s *quoteStyle) UnmarshalText(b []byte) error {
	q, ok := quoteNames[string(b)]
	if !ok {
		return fmt.Errorf("quote %q is not one of shell, posix, windows, powershell, posix-or-powershell", b)
	}
	*s = q
	return nil
}

// quotePath quotes path as the first word of a command line in style s, on
// this platform.
func quotePath(path string, s quoteStyle) (string, error) {
	return quotePathOn(path, s, runtime.GOOS)
}

// platformStyle is the style s stands for on goos: the platform styles
// (shell, posix-or-powershell) become a fixed one.
func platformStyle(s quoteStyle, goos string) quoteStyle {
	switch {
	case s == quoteShell && goos == "windows":
		return quoteWindows
	case s == quotePOSIXOrPowerShell && goos == "windows":
		return quotePowerShell
	case s == quoteShell, s == quotePOSIXOrPowerShell:
		return quotePOSIX
	}
	return s
}

// quotePathOn is quotePath on goos. The double-quoted Windows form is read
// by cmd.exe (which expands %VAR% and, with delayed expansion, !VAR!) and
// by Git Bash (which expands $ and backquotes, eats a backslash before $,
// and reads two backslashes as one, so a UNC path's \\server would become
// \server): a path holding one of windowsUnsafe, or two backslashes in a
// row, is refused with an invalid error rather than written as a command
// that runs something else or nothing.
func quotePathOn(path string, s quoteStyle, goos string) (string, error) {
	switch platformStyle(s, goos) {
	case quoteWindows:
		if i := strings.IndexFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f || strings.ContainsRune(windowsUnsafe, r) }); i >= 0 {
			r, _ := utf8.DecodeRuneInString(path[i:])
			return "", continuity.Invalid("binary", fmt.Sprintf("%s holds %q, which a double-quoted command line cannot carry safely for cmd.exe and Git Bash; install baton under a path without %s or control characters, or pass --binary with one", path, r, strings.Join(strings.Split(windowsUnsafe, ""), " ")))
		}
		if strings.Contains(path, `\\`) {
			return "", continuity.Invalid("binary", fmt.Sprintf(`%s holds two backslashes in a row (a UNC or \\?\ path), which Git Bash reads as one inside a double-quoted command line; install baton under a drive-letter path (a mapped drive for a share), or pass --binary with one`, path))
		}
		return `"` + path + `"`, nil
	case quotePowerShell:
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

// windowsUnsafe are the characters the double-quoted Windows form cannot
// carry (besides control characters).
const windowsUnsafe = "$`%\"!"

// plainPath reports whether path needs no quoting in any of the shells: it
// holds only letters, digits and characters none of them treat specially.
func plainPath(path string) bool {
	return path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:+-") == ""
}

// unquotePath reads back a path quotePath wrote, in any of its styles; false
// for anything else (a second word, a path needing quotes left bare, one
// quoted otherwise).
func unquotePath(s string) (string, bool) {
	switch {
	case plainPath(s):
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
