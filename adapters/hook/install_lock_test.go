package hook

import (
	"path/filepath"
	"testing"
)

// TestLockPath: the Windows lock file for a directory is under the temp
// directory, the same for spellings Windows reads as one directory (case,
// separators, a trailing one) and different for different directories,
// so installs of one configuration wait for each other and others do not.
func TestLockPath(t *testing.T) {
	const tmp = "tmp"
	base := lockPath(tmp, `C:\Users\Zoë\.codex`)
	if filepath.Dir(base) != tmp {
		t.Errorf("lockPath = %s, not under %s", base, tmp)
	}
	for _, same := range []string{`c:\users\zoë\.codex`, `C:/Users/Zoë/.codex`, `C:\Users\Zoë\.codex\`, `C:\USERS\ZOË\.CODEX`} {
		if got := lockPath(tmp, same); got != base {
			t.Errorf("lockPath(%s) = %s, want %s as for C:\\Users\\Zoë\\.codex", same, got, base)
		}
	}
	for _, other := range []string{`C:\Users\Zoë\.claude`, `D:\Users\Zoë\.codex`, `C:\Users\Zoë\project\.codex`} {
		if got := lockPath(tmp, other); got == base {
			t.Errorf("lockPath(%s) = %s, the same as C:\\Users\\Zoë\\.codex's", other, got)
		}
	}
}
