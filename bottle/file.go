package bottle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidSession is returned for a session id that is not safe to use as a
// file name.
var ErrInvalidSession = errors.New("bottle: invalid session id")

// ErrNotRegular is returned for a transcript path that names something
// other than a regular file (a directory, a FIFO, a device): reading one
// would fail, block until a writer came, or never end.
var ErrNotRegular = errors.New("bottle: the transcript is not a regular file")

// OpenRegular opens the regular file at path (following symbolic links)
// for reading, and refuses anything else with ErrNotRegular without
// opening it: opening a FIFO blocks. The file is checked again once open,
// so one swapped in after the first check is refused too (a FIFO swapped
// in between the two blocks the open; only a writer to the directory can
// do that).
func OpenRegular(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = notRegular(fi.Mode())
		}
		return nil, err
	}
	return f, nil
}

// notRegular is ErrNotRegular, naming what the file is.
func notRegular(m os.FileMode) error {
	what := "another kind of file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&os.ModeDevice != 0:
		what = "a device"
	case m&os.ModeSocket != 0:
		what = "a socket"
	}
	return fmt.Errorf("%w: it is %s", ErrNotRegular, what)
}

// MaxSessionIDLen is the longest session id, in characters (the id is
// ASCII, so also in bytes). It is the whole library's bound: continuity
// refers to it by name.
const MaxSessionIDLen = 128

// sessionIDShape admits the ids harnesses use (UUIDs and similar) and
// nothing that could leave the bottles directory: no separators, no leading
// dot. It is what ^[A-Za-z0-9][A-Za-z0-9._-]{0,MaxSessionIDLen-1}$ matches,
// written out: that regexp's counted repetition made it the costliest thing
// a hook process compiled at start-up.
func sessionIDShape(id string) bool {
	if id == "" || len(id) > MaxSessionIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '.' || c == '_' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return true
}

// windowsDevice reports whether id names one of Windows' reserved devices
// (CON, PRN, AUX, NUL, COM0-9, LPT0-9, in any case) before its first '.':
// a file named so, with any extension, is that device there, not a file in
// the bottles directory.
func windowsDevice(id string) bool {
	base, _, _ := strings.Cut(id, ".")
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(base) == 4 && '0' <= base[3] && base[3] <= '9' {
		switch strings.ToUpper(base[:3]) {
		case "COM", "LPT":
			return true
		}
	}
	return false
}

// SessionIDRule is ValidateSessionID's rule in words, the reason a caller
// reads when an id is refused.
var SessionIDRule = "must be 1-" + strconv.Itoa(MaxSessionIDLen) + ` letters, digits, '.', '_' or '-', start with a letter or digit, not contain ".." and not be a Windows device name (CON, PRN, AUX, NUL, COM0-9, LPT0-9) before its first '.'`

// ValidateSessionID returns ErrInvalidSession unless id is 1–MaxSessionIDLen
// characters of letters, digits, '.', '_' and '-', starting with a letter or
// digit, containing no "..", and not a Windows device name before its first
// '.': a name that stays inside the bottles directory on every operating
// system. It is the one session-id rule of the library: continuity refuses
// at Open every id a bottle would refuse.
func ValidateSessionID(id string) error {
	if !sessionIDShape(id) || strings.Contains(id, "..") || windowsDevice(id) {
		return fmt.Errorf("%w: %q", ErrInvalidSession, id)
	}
	return nil
}

// WriteFileAtomic replaces path with data so that a reader sees the old file
// or the new one, never a mix: it writes a temporary sibling, syncs it and
// renames it over path (on Windows, os.Rename replaces an existing file;
// while another process holds path open the rename is retried briefly, see
// retryRename).
// When anything fails the temporary file is removed and path is untouched.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, true)
}

// replaceFile is WriteFileAtomic, syncing the file and its directory only
// when sync is set. Unsynced, the replacement is still atomic for readers
// and for a crash of the process; only its survival of a power cut is left
// to the file system.
func replaceFile(path string, data []byte, perm os.FileMode, sync bool) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("bottle: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("bottle: write %s: %w", path, err)
	}
	if sync {
		if err = tmp.Sync(); err != nil {
			return fmt.Errorf("bottle: sync %s: %w", path, err)
		}
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("bottle: close %s: %w", path, err)
	}
	if perm != tempPerm { // CreateTemp made it tempPerm: spare the inode update
		if err = os.Chmod(tmp.Name(), perm); err != nil {
			return fmt.Errorf("bottle: chmod %s: %w", path, err)
		}
	}
	if err = retryRename(os.Rename, renameBusy, tmp.Name(), path); err != nil {
		return fmt.Errorf("bottle: rename %s: %w", path, err)
	}
	if sync {
		syncDir(dir)
	}
	return nil
}

// renameRetryFor bounds how long a rename over a busy file is retried.
const renameRetryFor = 250 * time.Millisecond

// retryRename renames from to to, and retries, waiting 1 ms, 2 ms, 4 ms …
// for up to renameRetryFor, while busy says the failure is a passing one.
// On Windows a rename over a file another process holds open without
// FILE_SHARE_DELETE (as every Go os.Open does: a `baton bottle show`
// reading the bottle, a virus scanner) fails until that handle closes;
// elsewhere busy is always false and a failure is returned at once.
func retryRename(rename func(from, to string) error, busy func(error) bool, from, to string) error {
	err := rename(from, to)
	deadline := time.Now().Add(renameRetryFor)
	for wait := time.Millisecond; err != nil && busy(err) && time.Now().Before(deadline); wait *= 2 {
		time.Sleep(wait)
		err = rename(from, to)
	}
	return err
}

// busyErrno reports whether a Windows error number is one a rename meets
// while another handle is open on its target: ERROR_ACCESS_DENIED (5, what
// MoveFileEx returns for a file open without FILE_SHARE_DELETE),
// ERROR_SHARING_VIOLATION (32) and ERROR_LOCK_VIOLATION (33).
func busyErrno(n uintptr) bool { return n == 5 || n == 32 || n == 33 }

// tempPerm is the mode os.CreateTemp gives a new file.
const tempPerm = 0o600

// syncDir makes a rename durable where the platform allows opening a
// directory to sync it. It is best effort: the rename has already happened
// and is visible; only its survival of a power cut is at stake, and Windows
// cannot sync a directory at all.
func syncDir(dir string) { _ = syncFile(dir) }

// syncFile flushes the file (or directory) at path to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
