package httpapi

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/batonhq/baton/continuity"
)

// Authenticator decides which tenant a request acts for. The tenant comes
// from authentication only, never from a request's body or query.
type Authenticator interface {
	// Authenticate returns the tenant whose credentials r carries.
	//
	// Errors: unauthorized when r carries no credentials or unknown ones
	// (the handler answers 401 with one message whatever the error says,
	// so an answer never tells whether a key or tenant exists); forbidden
	// when the credentials are known but may not use the API (403, with
	// the error's message).
	Authenticate(r *http.Request) (tenant string, err error)
}

// errUnauthorized is the one answer to missing and unknown credentials.
var errUnauthorized = &continuity.Error{Code: continuity.CodeUnauthorized, Message: "a valid API key is required (Authorization: Bearer KEY)"}

// KeyAuthenticator authenticates by API key: "Authorization: Bearer KEY".
// It keeps only each key's SHA-256 hash, and compares a presented key's
// hash with every known one in constant time, so neither memory nor timing
// gives a key away.
type KeyAuthenticator struct {
	keys []keyHash
}

type keyHash struct {
	hash   [sha256.Size]byte
	tenant string
}

var _ Authenticator = (*KeyAuthenticator)(nil)

// MaxKeyLen bounds an API key, in bytes: far over any generated key, and
// far under the request headers a server reads (64 KiB for baton serve),
// so that a key the server holds is one a client can send.
const MaxKeyLen = 4096

// SendableKey reports whether key can travel as a bearer token in an
// Authorization header, the one rule the server's keys and the client's
// key are both held to: 1 to MaxKeyLen visible ASCII characters (no
// space, control character or byte outside ASCII).
func SendableKey(key string) bool {
	if len(key) > MaxKeyLen {
		return false
	}
	for _, c := range []byte(key) {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return key != ""
}

// ParseKeys returns the authenticator of spec, the form of BATON_API_KEYS:
// key=tenant pairs separated by commas or new lines, blank entries and
// lines starting with # ignored. Neither a key nor a tenant may hold '='
// or ','. A key may not repeat; a tenant may have several keys.
//
// Errors: invalid, naming the entry by its position (never its key) when
// it has no key, a key SendableKey refuses, more than one '=', an invalid
// tenant, or a repeated key,
// or when spec holds no key at all.
func ParseKeys(spec string) (*KeyAuthenticator, error) {
	a := &KeyAuthenticator{}
	seen := map[[sha256.Size]byte]bool{}
	n := 0
	// Split, not scanned: a bufio.Scanner refuses a line over 64 KiB, and
	// its error said the keys "could not be read".
	for line := range strings.SplitSeq(spec, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		for entry := range strings.SplitSeq(line, ",") {
			entry = strings.TrimSpace(entry)
			if entry == "" {
				continue
			}
			n++
			key, tenant, found := strings.Cut(entry, "=")
			key, tenant = strings.TrimSpace(key), strings.TrimSpace(tenant)
			where := fmt.Sprintf("keys[%d]", n)
			switch {
			case !found || key == "":
				return nil, continuity.Invalid(where, "must be key=tenant")
			case !SendableKey(key):
				return nil, continuity.Invalid(where, fmt.Sprintf("must be a key of 1 to %d visible ASCII characters, as an Authorization header carries it", MaxKeyLen))
			case strings.Contains(tenant, "="):
				// Which '=' parts key from tenant cannot be told: a key's
				// own (base64 padding) would leave a shorter key than meant.
				return nil, continuity.Invalid(where, "must be key=tenant with one '=': neither a key nor a tenant may hold '='")
			case continuity.ValidateTenant(tenant) != nil:
				return nil, continuity.Invalid(where, "must name a tenant of 1 to 128 characters of UTF-8 text")
			}
			h := sha256.Sum256([]byte(key))
			if seen[h] {
				return nil, continuity.Invalid(where, "repeats a key")
			}
			seen[h] = true
			a.keys = append(a.keys, keyHash{hash: h, tenant: tenant})
		}
	}
	if len(a.keys) == 0 {
		return nil, continuity.Invalid("keys", "must hold at least one key=tenant")
	}
	return a, nil
}

// MaxKeysFileBytes bounds the key file ReadKeys reads: thousands of keys
// fit far below it, and a path naming a device (/dev/zero) or an endless
// pipe cannot fill the server's memory.
const MaxKeysFileBytes = 1 << 20

// ReadKeys returns the authenticator of the key file at path, in
// ParseKeys's form.
//
// Errors: not_found when the file does not exist, internal when it cannot
// be read, too_large when it holds more than MaxKeysFileBytes, and those
// of ParseKeys.
func ReadKeys(path string) (*KeyAuthenticator, error) {
	f, err := os.Open(path)
	switch {
	case os.IsNotExist(err):
		return nil, &continuity.Error{Code: continuity.CodeNotFound, Message: "the API key file does not exist", Err: err}
	case err != nil:
		return nil, &continuity.Error{Code: continuity.CodeInternal, Message: "the API key file cannot be read", Err: err}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxKeysFileBytes+1))
	switch {
	case err != nil:
		return nil, &continuity.Error{Code: continuity.CodeInternal, Message: "the API key file cannot be read", Err: err}
	case len(b) > MaxKeysFileBytes:
		return nil, &continuity.Error{Code: continuity.CodeTooLarge, Message: fmt.Sprintf("the API key file holds more than %d bytes", MaxKeysFileBytes)}
	}
	return ParseKeys(string(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))))
}

// Authenticate implements Authenticator. A request carrying Authorization
// more than once is unauthorized, whichever of its keys is known: taking
// the first would let what a proxy adds or strips decide the tenant.
func (a *KeyAuthenticator) Authenticate(r *http.Request) (string, error) {
	header := r.Header.Values("Authorization")
	if len(header) != 1 {
		return "", errUnauthorized
	}
	scheme, key, _ := strings.Cut(header[0], " ")
	key = strings.TrimSpace(key)
	if !strings.EqualFold(scheme, "Bearer") || key == "" {
		return "", errUnauthorized
	}
	h := sha256.Sum256([]byte(key))
	match := -1
	for i, k := range a.keys {
		// Every known hash is compared, whichever matches.
		eq := subtle.ConstantTimeCompare(h[:], k.hash[:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match < 0 {
		return "", errUnauthorized
	}
	return a.keys[match].tenant, nil
}
