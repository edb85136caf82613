package jobs

import (
	"encoding/json"
	"fmt"

	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
)

// DerivedSealer seals the derived data of apps whose policy sets
// seal_derived: the store seals summaries, the profile and its
// history and the display name with the transcripts' keyring (AES-256-GCM,
// key id, nonce, SHA-256 over header and ciphertext, bound to the row), and
// opens them on read.
type DerivedSealer struct {
	Keys *seal.Keyring
	Apps map[string]*prompts.App
}

var _ store.Sealer = DerivedSealer{}

// sealedValue is one sealed value as the store keeps it (encoded).
type sealedValue struct {
	KeyID      string `json:"k"`
	Nonce      []byte `json:"n"`
	Ciphertext []byte `json:"c"`
	SHA256     []byte `json:"h"`
}

// Sealed reports whether app's policy seals its derived data.
func (s DerivedSealer) Sealed(app string) bool {
	a := s.Apps[app]
	return a != nil && a.Policy.SealDerived && s.Keys != nil
}

// Seal seals plaintext for the row id under the keyring's primary key.
func (s DerivedSealer) Seal(id string, plaintext []byte) (string, error) {
	chunks, err := s.Keys.Seal(id, plaintext, len(plaintext)+1)
	if err != nil {
		return "", err
	}
	if len(chunks) != 1 {
		return "", fmt.Errorf("seal: %d pieces for one value", len(chunks))
	}
	c := chunks[0]
	b, err := json.Marshal(sealedValue{c.KeyID, c.Nonce, c.Ciphertext, c.SHA256})
	if err != nil {
		return "", err
	}
	return store.EncodeSealed(b), nil
}

func decodeSealed(sealed string) (seal.Chunk, error) {
	b, err := store.DecodeSealed(sealed)
	if err != nil {
		return seal.Chunk{}, fmt.Errorf("%w: not a sealed value", seal.ErrTampered)
	}
	var v sealedValue
	if err := json.Unmarshal(b, &v); err != nil {
		return seal.Chunk{}, fmt.Errorf("%w: not a sealed value", seal.ErrTampered)
	}
	return seal.Chunk{KeyID: v.KeyID, Nonce: v.Nonce, Ciphertext: v.Ciphertext, SHA256: v.SHA256}, nil
}

// Open verifies and opens a value sealed for the row id.
func (s DerivedSealer) Open(id, sealed string) ([]byte, error) {
	if s.Keys == nil {
		return nil, fmt.Errorf("%w: no keys", seal.ErrUnknownKey)
	}
	c, err := decodeSealed(sealed)
	if err != nil {
		return nil, err
	}
	return s.Keys.Open(id, []seal.Chunk{c})
}

// Stale reports whether sealed was sealed under a key other than the primary.
func (s DerivedSealer) Stale(sealed string) bool {
	c, err := decodeSealed(sealed)
	return err == nil && s.Keys != nil && s.Keys.NeedsRewrap(c)
}
