package seal

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// MinPassphraseLen is the fewest characters a passphrase key may have.
	MinPassphraseLen = 12

	// PBKDF2Iterations is the PBKDF2-HMAC-SHA256 iteration count that turns
	// a passphrase into a key (OWASP's 2023 recommendation).
	PBKDF2Iterations = 600_000

	// PassphraseSaltPrefix followed by the key id is the PBKDF2 salt.
	PassphraseSaltPrefix = "mnemo/seal/v1/"

	maxKeyIDLen = 64
)

// ParseKeys parses the value of MNEMO_ENCRYPTION_KEY into a keyring.
//
// The value is a comma-separated list of entries, each "id:key" or a bare
// "key" whose id is "k" followed by its 1-based position ("k1", "k2", …).
// The last entry is the primary key. An id is 1 to 64 letters, digits, '.',
// '_' or '-'. A key that decodes as standard or URL-safe base64, padded or
// not, to exactly 32 bytes is used as is; generate one with
// `openssl rand -base64 32`. Any other key is a passphrase of at least
// MinPassphraseLen characters. Spaces around entries, ids and keys are
// ignored, so a passphrase cannot contain a comma, begin or end with a
// space, and a bare passphrase containing ':' must be given an id.
//
// A passphrase is stretched with PBKDF2-HMAC-SHA256, PBKDF2Iterations
// iterations, into a 32-byte key, once here (about 0.3 s per passphrase)
// rather than per chunk. The salt is PassphraseSaltPrefix followed by the
// key id, the same for every worker of a deployment. It has to be
// deterministic: workers share nothing but their configuration yet must
// derive the same key, and a salt stored per row would cost a derivation per
// chunk read. That is acceptable because what a salt defends against,
// precomputed tables and one guess testing many keys at once, is already
// handled: the Mnemo-specific prefix makes generic tables useless, the key
// id separates keys within a deployment, and every guess still costs the
// full iteration count against a passphrase of at least 12 characters. A
// random 32-byte key remains the stronger choice.
//
// Errors name entries by position and never contain ids or key material,
// since a mistyped entry may be a secret.
func ParseKeys(spec string) (*Keyring, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New("seal: no encryption key given")
	}
	entries := strings.Split(spec, ",")
	ring := &Keyring{keys: make([]Key, 0, len(entries))}
	seen := make(map[string]int, len(entries))
	for i, entry := range entries {
		pos := i + 1
		entry = strings.TrimSpace(entry)
		if entry == "" {
			return nil, fmt.Errorf("seal: key entry %d of %d is empty", pos, len(entries))
		}
		id, secret, found := strings.Cut(entry, ":")
		if found {
			id, secret = strings.TrimSpace(id), strings.TrimSpace(secret)
		} else {
			id, secret = "k"+strconv.Itoa(pos), entry
		}
		if !validKeyID(id) {
			return nil, fmt.Errorf("seal: key entry %d: the id before ':' must be 1 to %d letters, digits, '.', '_' or '-'", pos, maxKeyIDLen)
		}
		if prev, ok := seen[id]; ok {
			return nil, fmt.Errorf("seal: key entries %d and %d have the same id", prev, pos)
		}
		seen[id] = pos
		key := Key{ID: id}
		if raw, ok := decodeRawKey(secret); ok {
			key.key = raw
		} else {
			if n := utf8.RuneCountInString(secret); n < MinPassphraseLen {
				return nil, fmt.Errorf("seal: key entry %d: a passphrase needs at least %d characters, this one has %d (or give base64 of 32 random bytes)", pos, MinPassphraseLen, n)
			}
			derived, err := pbkdf2.Key(sha256.New, secret, []byte(PassphraseSaltPrefix+id), PBKDF2Iterations, len(key.key))
			if err != nil {
				return nil, fmt.Errorf("seal: key entry %d: derive key from passphrase: %w", pos, err)
			}
			copy(key.key[:], derived)
		}
		ring.keys = append(ring.keys, key)
	}
	return ring, nil
}

// decodeRawKey decodes s as base64 of exactly 32 bytes in any of the four
// common alphabets and paddings.
func decodeRawKey(s string) ([32]byte, bool) {
	var key [32]byte
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if enc.DecodedLen(len(s)) < len(key) || enc.DecodedLen(len(s)) > len(key)+2 {
			continue
		}
		b, err := enc.DecodeString(s)
		if err == nil && len(b) == len(key) {
			copy(key[:], b)
			return key, true
		}
	}
	return key, false
}

func validKeyID(id string) bool {
	if id == "" || len(id) > maxKeyIDLen {
		return false
	}
	for _, r := range id {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
		default:
			return false
		}
	}
	return true
}
