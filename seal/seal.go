// Package seal encrypts chat transcripts so that Mnemo keeps them at rest
// only as ciphertext.
//
// # Keys
//
// A Keyring holds one or more 256-bit keys, each named by a short key id. The
// last key given is the primary key: every new chunk is sealed under it. All
// keys open chunks, which is how keys are rotated: append a new key to
// MNEMO_ENCRYPTION_KEY, rewrap the stored chunks (see Keyring.NeedsRewrap and
// Keyring.Rewrap), then drop the old key. ParseKeys documents the syntax of
// MNEMO_ENCRYPTION_KEY, and LoadOrCreateKeyFile provides a random key for a
// deployment that configures none.
//
// # Chunks
//
// Keyring.Seal splits a transcript into chunks of at most 64 KiB of
// plaintext (by default) and seals each one with AES-256-GCM under a fresh
// random 12-byte nonce. A transcript always has at least one chunk; an empty
// transcript is one chunk of empty plaintext. Each chunk is stored as its
// sequence number, key id, nonce, ciphertext (which ends with the 16-byte GCM
// tag) and a SHA-256 checksum.
//
// Every chunk is bound to its place by the chunk header, which is
// authenticated as GCM additional data but not stored: Open rebuilds it from
// the session id it is asked for, the chunk's position, the number of chunks
// it is given and the nonce of the first chunk. The header of format
// version 1 is, in order:
//
//	bytes  field
//	10     magic, the ASCII text "mnemo/seal"
//	1      format version, 0x01
//	12     transcript nonce: the nonce of chunk 0
//	4      seq: the chunk's position, 0-based, big-endian uint32
//	4      total: the transcript's number of chunks, big-endian uint32
//	2      length of the key id in bytes, big-endian uint16
//	k      key id, UTF-8
//	4      length of the session id in bytes, big-endian uint32
//	s      session id, UTF-8
//
// Because the header carries the session id, the sequence number and the
// chunk count, a chunk moved to another session, a reordered transcript, a
// transcript missing its last chunks and one with extra chunks all fail to
// open with ErrTampered, even if whoever changed them also recomputed the
// checksums. The transcript nonce, random for each call of Seal or Rewrap,
// ties the chunks of one sealing together, so chunks of two sealings of the
// same session cannot be spliced into a transcript that was never written.
// The key id is in the header so that a chunk relabelled with another key id
// fails too. Variable-length fields are length-prefixed, so no two different
// headers have the same encoding.
//
// The checksum is SHA-256(header || ciphertext). It is not a MAC (anyone who
// can read a row can recompute it); it detects corruption and lets tools
// verify rows without a key. Authenticity comes from GCM.
//
// Each AES-GCM key must not seal more than about 2³² chunks, the bound for
// random 96-bit nonces; at 64 KiB per chunk that is 256 TiB of transcripts
// per key, and rotation resets it.
package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

const (
	// DefaultChunkSize is the largest plaintext piece of a chunk when Seal is
	// given no chunk size.
	DefaultChunkSize = 64 << 10

	// NonceSize is the length in bytes of a chunk's nonce.
	NonceSize = 12

	// Overhead is how many bytes longer a chunk's ciphertext is than its
	// plaintext (the GCM tag).
	Overhead = 16

	formatVersion = 1
	magic         = "mnemo/seal"
)

var (
	// ErrTampered reports a chunk or transcript that does not open as it was
	// sealed: its bytes were changed or corrupted, or chunks were moved
	// between sessions, reordered, dropped or added.
	ErrTampered = errors.New("seal: transcript tampered with or corrupted")

	// ErrUnknownKey reports a chunk sealed under a key id that is not in the
	// keyring, typically an old key removed before its chunks were rewrapped.
	ErrUnknownKey = errors.New("seal: chunk sealed under a key not in the keyring")
)

// Key is one 256-bit AES key and the id it is stored under. Formatting a Key
// with the fmt package prints only its id.
type Key struct {
	// ID names the key in every chunk sealed under it.
	ID  string
	key [32]byte
}

// Format prints the key's id and never its bytes, for every verb, so that a
// key that reaches a log line or an error message does not leak.
func (k Key) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "seal.Key{ID: %q}", k.ID)
}

// Keyring is a set of keys: the last one, the primary key, seals new chunks
// and all of them open chunks. A Keyring is immutable and safe for
// concurrent use. Formatting it with the fmt package prints only key ids.
type Keyring struct {
	keys []Key // in the order given; the last is primary
}

// Format prints the keyring's key ids and never key bytes.
func (k Keyring) Format(f fmt.State, verb rune) {
	fmt.Fprint(f, "seal.Keyring{")
	for i, key := range k.keys {
		if i > 0 {
			fmt.Fprint(f, ", ")
		}
		fmt.Fprintf(f, "%q", key.ID)
	}
	fmt.Fprint(f, "}")
}

// PrimaryID returns the id of the key new chunks are sealed under, or ""
// for a nil or empty keyring.
func (k *Keyring) PrimaryID() string {
	if k == nil || len(k.keys) == 0 {
		return ""
	}
	return k.keys[len(k.keys)-1].ID
}

// Chunk is one sealed piece of a transcript, as stored.
type Chunk struct {
	// Seq is the chunk's position in its transcript, from 0.
	Seq int
	// KeyID names the key the chunk was sealed under.
	KeyID string
	// Nonce is the chunk's random 12-byte GCM nonce.
	Nonce []byte
	// Ciphertext is the encrypted piece followed by the GCM tag.
	Ciphertext []byte
	// SHA256 is SHA-256(header || Ciphertext), a checksum against corruption.
	SHA256 []byte
}

// Seal encrypts plaintext as the transcript of sessionID under the primary
// key. It splits plaintext into pieces of chunkSize bytes
// (DefaultChunkSize when chunkSize ≤ 0); empty plaintext gives one chunk.
func (k *Keyring) Seal(sessionID string, plaintext []byte, chunkSize int) ([]Chunk, error) {
	if chunkSize <= 0 {
		chunkSize = DefaultChunkSize
	}
	n := len(plaintext)/chunkSize + 1
	if uint64(n) > math.MaxUint32 {
		return nil, fmt.Errorf("seal: %d chunks exceed the format's limit; use a larger chunk size", n)
	}
	pieces := make([][]byte, 0, n)
	for len(plaintext) > chunkSize {
		pieces = append(pieces, plaintext[:chunkSize])
		plaintext = plaintext[chunkSize:]
	}
	pieces = append(pieces, plaintext)
	return k.sealPieces(sessionID, pieces)
}

// Open verifies and decrypts the chunks of sessionID's transcript, which
// must be given in order (Seq 0, 1, …), all of them. Any chunk that fails
// verification gives an error naming it that wraps ErrTampered, or
// ErrUnknownKey if it was sealed under a key the keyring lacks. Open returns
// no plaintext unless every chunk opens.
func (k *Keyring) Open(sessionID string, chunks []Chunk) ([]byte, error) {
	_, plaintext, err := k.openPieces(sessionID, chunks)
	return plaintext, err
}

// NeedsRewrap reports whether c was sealed under a key other than the
// primary key and so must be rewrapped before its key is retired.
func (k *Keyring) NeedsRewrap(c Chunk) bool {
	return c.KeyID != k.PrimaryID()
}

// Rewrap opens the chunks of sessionID's transcript and seals them again
// under the primary key, keeping the number of chunks and each one's
// plaintext, so each stored row can be replaced by the chunk with the same
// Seq. It fails, changing nothing, if any chunk does not open.
func (k *Keyring) Rewrap(sessionID string, chunks []Chunk) ([]Chunk, error) {
	pieces, _, err := k.openPieces(sessionID, chunks)
	if err != nil {
		return nil, err
	}
	return k.sealPieces(sessionID, pieces)
}

func (k *Keyring) sealPieces(sessionID string, pieces [][]byte) ([]Chunk, error) {
	if k == nil || len(k.keys) == 0 {
		return nil, errors.New("seal: keyring has no keys")
	}
	if sessionID == "" {
		return nil, errors.New("seal: empty session id")
	}
	if uint64(len(pieces)) > math.MaxUint32 {
		return nil, fmt.Errorf("seal: %d chunks exceed the format's limit; use a larger chunk size", len(pieces))
	}
	primary := k.keys[len(k.keys)-1]
	aead, err := newAEAD(&primary)
	if err != nil {
		return nil, err
	}
	chunks := make([]Chunk, len(pieces))
	var first []byte
	for i, piece := range pieces {
		nonce := make([]byte, NonceSize)
		_, _ = rand.Read(nonce) // never fails: it crashes the program instead
		if i == 0 {
			first = nonce
		}
		hdr, err := header(sessionID, first, i, len(pieces), primary.ID)
		if err != nil {
			return nil, err
		}
		ct := aead.Seal(nil, nonce, piece, hdr)
		chunks[i] = Chunk{Seq: i, KeyID: primary.ID, Nonce: nonce, Ciphertext: ct, SHA256: checksum(hdr, ct)}
	}
	return chunks, nil
}

// openPieces opens chunks into one plaintext buffer and returns it along
// with each chunk's piece of it.
func (k *Keyring) openPieces(sessionID string, chunks []Chunk) ([][]byte, []byte, error) {
	total := len(chunks)
	if total == 0 {
		// Seal always writes at least one chunk, so none at all is a loss.
		return nil, nil, fmt.Errorf("open: no chunks: %w", ErrTampered)
	}
	size := 0
	for _, c := range chunks {
		size += max(len(c.Ciphertext)-Overhead, 0)
	}
	plaintext := make([]byte, 0, size)
	pieces := make([][]byte, total)
	for i, c := range chunks {
		if c.Seq != i {
			return nil, nil, fmt.Errorf("open chunk %d of %d: out of sequence (stored seq %d): %w", i, total, c.Seq, ErrTampered)
		}
		if len(c.Nonce) != NonceSize {
			// Checked before use: GCM panics on a nonce of the wrong length.
			return nil, nil, fmt.Errorf("open chunk %d of %d: nonce is %d bytes, want %d: %w", i, total, len(c.Nonce), NonceSize, ErrTampered)
		}
		hdr, err := header(sessionID, chunks[0].Nonce, i, total, c.KeyID)
		if err != nil {
			return nil, nil, fmt.Errorf("open chunk %d of %d: %v: %w", i, total, err, ErrTampered)
		}
		// The checksum goes first, so that a damaged key id is reported as
		// damage rather than as a missing key.
		if !bytes.Equal(c.SHA256, checksum(hdr, c.Ciphertext)) {
			return nil, nil, fmt.Errorf("open chunk %d of %d: sha-256 does not match the chunk: %w", i, total, ErrTampered)
		}
		key := k.find(c.KeyID)
		if key == nil {
			return nil, nil, fmt.Errorf("open chunk %d of %d: key id %q: %w", i, total, c.KeyID, ErrUnknownKey)
		}
		aead, err := newAEAD(key)
		if err != nil {
			return nil, nil, err
		}
		start := len(plaintext)
		plaintext, err = aead.Open(plaintext, c.Nonce, c.Ciphertext, hdr)
		if err != nil {
			return nil, nil, fmt.Errorf("open chunk %d of %d: authentication failed (wrong session, order, count or bytes): %w", i, total, ErrTampered)
		}
		pieces[i] = plaintext[start:]
	}
	return pieces, plaintext, nil
}

func (k *Keyring) find(id string) *Key {
	if k == nil {
		return nil
	}
	for i := range k.keys {
		if k.keys[i].ID == id {
			return &k.keys[i]
		}
	}
	return nil
}

func newAEAD(key *Key) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key.key[:])
	if err != nil {
		return nil, fmt.Errorf("seal: aes key %s: %w", key.ID, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("seal: gcm key %s: %w", key.ID, err)
	}
	return aead, nil
}

// header encodes the chunk header documented in the package comment. Its
// errors never occur for chunks Seal wrote.
func header(sessionID string, transcriptNonce []byte, seq, total int, keyID string) ([]byte, error) {
	switch {
	case len(transcriptNonce) != NonceSize:
		return nil, fmt.Errorf("transcript nonce of %d bytes", len(transcriptNonce))
	case seq < 0 || total <= 0 || seq >= total || uint64(total) > math.MaxUint32:
		return nil, fmt.Errorf("chunk %d of %d out of range", seq, total)
	case len(keyID) > math.MaxUint16:
		return nil, fmt.Errorf("key id of %d bytes is too long", len(keyID))
	case uint64(len(sessionID)) > math.MaxUint32:
		return nil, fmt.Errorf("session id of %d bytes is too long", len(sessionID))
	}
	b := make([]byte, 0, len(magic)+1+NonceSize+4+4+2+len(keyID)+4+len(sessionID))
	b = append(b, magic...)
	b = append(b, formatVersion)
	b = append(b, transcriptNonce...)
	b = binary.BigEndian.AppendUint32(b, uint32(seq))
	b = binary.BigEndian.AppendUint32(b, uint32(total))
	b = binary.BigEndian.AppendUint16(b, uint16(len(keyID)))
	b = append(b, keyID...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(sessionID)))
	b = append(b, sessionID...)
	return b, nil
}

func checksum(hdr, ciphertext []byte) []byte {
	h := sha256.New()
	h.Write(hdr)
	h.Write(ciphertext)
	return h.Sum(nil)
}
