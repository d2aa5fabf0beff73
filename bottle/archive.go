package bottle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ArchiveStampLayout is the UTC time an archived bottle's directory name
// starts with (Archive writes <stamp>-<session>.bottle, or
// <stamp>-<n>-<session>.bottle when the name is taken).
const ArchiveStampLayout = "20060102T150405Z"

// ArchivedAt returns when the archived bottle named name was archived, read
// from its name; false for a name Archive does not write.
func ArchivedAt(name string) (time.Time, bool) {
	stamp, rest, ok := strings.Cut(name, "-")
	if !ok || !strings.HasSuffix(rest, bottleSuffix) {
		return time.Time{}, false
	}
	t, err := time.Parse(ArchiveStampLayout, stamp)
	return t, err == nil
}

// ArchiveDirs returns the archive directories under home that exist: the
// agentless bottles/archive and each agent's bottles/<agent>/archive.
func ArchiveDirs(home string) ([]string, error) {
	root := filepath.Join(home, "bottles")
	dirs := []string{filepath.Join(root, "archive")}
	entries, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() && validAgentDir(e.Name()) && e.Name() != "archive" {
			dirs = append(dirs, filepath.Join(root, e.Name(), "archive"))
		}
	}
	out := dirs[:0]
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out, nil
}

// PruneArchives removes each archived bottle under home archived before the
// instant, judged by the time in its name (Archive's clock, to the second),
// and returns how many it removed. An entry whose name Archive does not
// write is left alone, whatever its age.
func PruneArchives(home string, before time.Time) (int, error) {
	dirs, err := ArchiveDirs(home)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			return n, err
		}
		for _, e := range entries {
			at, ok := ArchivedAt(e.Name())
			if !ok || !e.IsDir() || !at.Before(before) {
				continue
			}
			if err := os.RemoveAll(filepath.Join(d, e.Name())); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
