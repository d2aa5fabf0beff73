package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strings"
)

// lockPath is the file under tmp that Windows installs lock for the
// directory dir (see lockDir): one name for every spelling of dir Windows
// reads as the same, its case and its separators aside, and another for
// each other directory.
func lockPath(tmp, dir string) string {
	key := strings.ToLower(strings.TrimRight(strings.ReplaceAll(dir, "/", `\`), `\`))
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(tmp, "baton-install-"+hex.EncodeToString(sum[:8])+".lock")
}
