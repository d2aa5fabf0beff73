package inject

import (
	"strings"

	"github.com/batonhq/baton/internal/runes"
)

// clean makes a block rendered elsewhere safe to pass on: invalid UTF-8
// becomes U+FFFD, a CRLF becomes a newline, and every control character
// other than newline and tab, and every Unicode line or paragraph
// separator, becomes a space, so the block's lines are exactly its
// newlines. Trailing blank lines are dropped and the block ends with one
// newline; a blank block is "".
func clean(s string) string {
	s = runes.Lines(s)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return strings.TrimRight(s, " \t\n") + "\n"
}
