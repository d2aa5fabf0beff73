//go:build !unix

package workdir

// ownedByMe is false where native cannot tell a repository's owner as git
// does (Windows): git then decides.
func ownedByMe(string) bool { return false }
