package hook

import (
	"fmt"
	"runtime"
	"strings"
)

// quoteStyle is the shell a harness hands a hook's command line to.
type quoteStyle int

const (
	// quoteShell is the platform's: POSIX sh on Unix; on Windows the harness
	// may use cmd.exe or Git Bash, so the path is always double-quoted
	// (which both read, and which keeps Git Bash from eating backslashes).
	quoteShell quoteStyle = iota
	quotePOSIX
	quoteWindows
	quotePowerShell
)

// quoteNames are the styles' names in the harness table.
var quoteNames = map[string]quoteStyle{"shell": quoteShell, "posix": quotePOSIX, "windows": quoteWindows, "powershell": quotePowerShell}

func (s *quoteStyle) UnmarshalText(b []byte) error {
	q, ok := quoteNames[string(b)]
	if !ok {
		return fmt.Errorf("quote %q is not one of shell, posix, windows, powershell", b)
	}
	*s = q
	return nil
}

// quotePath quotes path as the first word of a command line in style s.
func quotePath(path string, s quoteStyle) string {
	if s == quoteShell {
		s = quotePOSIX
		if runtime.GOOS == "windows" {
			s = quoteWindows
		}
	}
	switch s {
	case quoteWindows:
		return `"` + path + `"` // Windows paths cannot contain '"'
	case quotePowerShell:
		if plainPath(path) {
			return path
		}
		// A quoted string is a value to PowerShell; & runs it.
		return "& '" + strings.ReplaceAll(path, "'", "''") + "'"
	default:
		if plainPath(path) {
			return path
		}
		return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
	}
}

// plainPath reports whether path needs no quoting in any of the shells: it
// holds only letters, digits and characters none of them treat specially.
func plainPath(path string) bool {
	return path != "" && strings.Trim(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:+-") == ""
}
