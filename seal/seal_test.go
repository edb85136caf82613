package seal

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Test keys: fixed so that failures reproduce, and random-looking so that a
// leak of their bytes is recognisable in any encoding.
var (
	rawA = sha256.Sum256([]byte("test key A"))
	rawB = sha256.Sum256([]byte("test key B"))
	keyA = base64.StdEncoding.EncodeToString(rawA[:])
	keyB = base64.StdEncoding.EncodeToString(rawB[:])
)

func mustParse(t testing.TB, spec string) *Keyring {
	t.Helper()
	ring, err := ParseKeys(spec)
	if err != nil {
		t.Fatalf("ParseKeys: %v", err)
	}
	return ring
}

func mustSeal(t testing.TB, ring *Keyring, sessionID string, plaintext []byte, chunkSize int) []Chunk {
	t.Helper()
	chunks, err := ring.Seal(sessionID, plaintext, chunkSize)
	if err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return chunks
}

// forge renumbers chunks and recomputes their checksums for sessionID, as
// someone able to write the database could, so that only the
// authentication of the chunk header can catch the change.
func forge(t *testing.T, sessionID string, chunks []Chunk) []Chunk {
	t.Helper()
	out := slices.Clone(chunks)
	for i := range out {
		hdr, err := header(sessionID, out[0].Nonce, i, len(out), out[i].KeyID)
		if err != nil {
			t.Fatalf("header: %v", err)
		}
		out[i].Seq = i
		out[i].SHA256 = checksum(hdr, out[i].Ciphertext)
	}
	return out
}

// pattern returns n bytes of readable, non-repeating text.
func pattern(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of a secret chat transcript. ", i)
	}
	return b.Bytes()[:n]
}

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	const size = 100
	tests := []struct {
		name       string
		plaintext  []byte
		chunkSize  int
		wantChunks int
	}{
		{"empty", nil, size, 1},
		{"empty non-nil", []byte{}, size, 1},
		{"one byte", pattern(1), size, 1},
		{"exactly one chunk", pattern(size), size, 1},
		{"one byte over", pattern(size + 1), size, 2},
		{"several chunks", pattern(5*size + 7), size, 6},
		{"exact multiple", pattern(3 * size), size, 3},
		{"default chunk size fits", pattern(DefaultChunkSize), 0, 1},
		{"default chunk size over", pattern(DefaultChunkSize + 1), -1, 2},
	}
	ring := mustParse(t, keyA)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			chunks := mustSeal(t, ring, "session-1", tt.plaintext, tt.chunkSize)
			if len(chunks) != tt.wantChunks {
				t.Fatalf("got %d chunks, want %d", len(chunks), tt.wantChunks)
			}
			nonces := map[string]bool{}
			for i, c := range chunks {
				if c.Seq != i || c.KeyID != "k1" || len(c.Nonce) != NonceSize || len(c.SHA256) != sha256.Size {
					t.Errorf("chunk %d: seq %d, key %q, nonce %d bytes, sha %d bytes", i, c.Seq, c.KeyID, len(c.Nonce), len(c.SHA256))
				}
				if nonces[string(c.Nonce)] {
					t.Errorf("chunk %d reuses a nonce", i)
				}
				nonces[string(c.Nonce)] = true
			}
			got, err := ring.Open("session-1", chunks)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if !bytes.Equal(got, tt.plaintext) {
				t.Errorf("Open returned %d bytes, want the %d sealed", len(got), len(tt.plaintext))
			}
		})
	}
}

func TestSealHidesPlaintext(t *testing.T) {
	t.Parallel()
	ring := mustParse(t, keyA)
	secret := []byte("my bank password is hunter2, please remember it")
	plaintext := bytes.Repeat(secret, 50)
	first := mustSeal(t, ring, "s1", plaintext, 256)
	second := mustSeal(t, ring, "s1", plaintext, 256)
	for i, c := range first {
		for _, field := range [][]byte{c.Ciphertext, c.Nonce, c.SHA256} {
			if bytes.Contains(field, []byte("hunter2")) || bytes.Contains(field, secret[:8]) {
				t.Fatalf("chunk %d holds plaintext", i)
			}
		}
		if bytes.Equal(c.Ciphertext, second[i].Ciphertext) {
			t.Errorf("chunk %d: sealing the same text twice gave the same ciphertext", i)
		}
	}
}

func TestOpenDetectsFlippedBytes(t *testing.T) {
	t.Parallel()
	ring := mustParse(t, keyA)
	chunks := mustSeal(t, ring, "s1", pattern(40), 16)
	if len(chunks) != 3 {
		t.Fatalf("got %d chunks, want 3", len(chunks))
	}
	fields := []struct {
		name string
		get  func(*Chunk) []byte
	}{
		{"ciphertext", func(c *Chunk) []byte { return c.Ciphertext }},
		{"nonce", func(c *Chunk) []byte { return c.Nonce }},
		{"sha256", func(c *Chunk) []byte { return c.SHA256 }},
	}
	for _, f := range fields {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			for i := range chunks {
				for j := range f.get(&chunks[i]) {
					tampered := slices.Clone(chunks)
					b := slices.Clone(f.get(&tampered[i]))
					b[j] ^= 0x01
					switch f.name {
					case "ciphertext":
						tampered[i].Ciphertext = b
					case "nonce":
						tampered[i].Nonce = b
					case "sha256":
						tampered[i].SHA256 = b
					}
					_, err := ring.Open("s1", tampered)
					if !errors.Is(err, ErrTampered) {
						t.Fatalf("chunk %d byte %d flipped: got %v, want ErrTampered", i, j, err)
					}
					if want := fmt.Sprintf("chunk %d of 3", i); !strings.Contains(err.Error(), want) {
						t.Fatalf("chunk %d byte %d flipped: error %q does not name %q", i, j, err, want)
					}
				}
			}
		})
	}
}

func TestOpenDetectsDamagedFields(t *testing.T) {
	t.Parallel()
	ring := mustParse(t, "k1:"+keyA+",k2:"+keyB)
	good := mustSeal(t, ring, "s1", pattern(40), 16)
	tests := []struct {
		name   string
		damage func(c *Chunk)
	}{
		{"key id relabelled to another known key", func(c *Chunk) { c.KeyID = "k1" }},
		{"key id changed", func(c *Chunk) { c.KeyID = "k3" }},
		{"nonce missing", func(c *Chunk) { c.Nonce = nil }},
		{"nonce too long", func(c *Chunk) { c.Nonce = append(slices.Clone(c.Nonce), 0) }},
		{"ciphertext missing", func(c *Chunk) { c.Ciphertext = nil }},
		{"ciphertext shorter than the tag", func(c *Chunk) { c.Ciphertext = c.Ciphertext[:Overhead-1] }},
		{"ciphertext truncated", func(c *Chunk) { c.Ciphertext = c.Ciphertext[:len(c.Ciphertext)-1] }},
		{"sha256 missing", func(c *Chunk) { c.SHA256 = nil }},
		{"sha256 truncated", func(c *Chunk) { c.SHA256 = c.SHA256[:31] }},
		{"negative seq", func(c *Chunk) { c.Seq = -1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i := range good {
				chunks := slices.Clone(good)
				tt.damage(&chunks[i])
				_, err := ring.Open("s1", chunks)
				if !errors.Is(err, ErrTampered) {
					t.Fatalf("chunk %d damaged: got %v, want ErrTampered", i, err)
				}
				if want := fmt.Sprintf("chunk %d of 3", i); !strings.Contains(err.Error(), want) {
					t.Errorf("chunk %d damaged: error %q does not name %q", i, err, want)
				}
			}
		})
	}
}

func TestOpenRejectsRearrangedChunks(t *testing.T) {
	t.Parallel()
	ring := mustParse(t, keyA)
	a := mustSeal(t, ring, "session-a", pattern(48), 16)
	b := mustSeal(t, ring, "session-b", pattern(48), 16)
	again := mustSeal(t, ring, "session-a", pattern(48), 16) // a second sealing of session-a
	tests := []struct {
		name   string
		chunks []Chunk
		// forged chunks carry valid checksums, so only GCM can catch them.
		forged bool
	}{
		{"nil", nil, false},
		{"empty", []Chunk{}, false},
		{"reordered", []Chunk{a[1], a[0], a[2]}, false},
		{"reordered and renumbered", forge(t, "session-a", []Chunk{a[1], a[0], a[2]}), true},
		{"last chunk dropped", a[:2], false},
		{"last chunk dropped, checksums redone", forge(t, "session-a", a[:2]), true},
		{"first chunk dropped and renumbered", forge(t, "session-a", a[1:]), true},
		{"chunk duplicated at the end", forge(t, "session-a", append(slices.Clone(a), a[2])), true},
		{"other session's transcript", b, false},
		{"other session's transcript, checksums redone", forge(t, "session-a", b), true},
		{"one chunk from the other session", []Chunk{a[0], b[1], a[2]}, false},
		{"one chunk from the other session, checksums redone", forge(t, "session-a", []Chunk{a[0], b[1], a[2]}), true},
		{"spliced with another sealing of the same session", []Chunk{a[0], again[1], a[2]}, false},
		{"spliced with another sealing, checksums redone", forge(t, "session-a", []Chunk{a[0], again[1], a[2]}), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ring.Open("session-a", tt.chunks)
			if !errors.Is(err, ErrTampered) {
				t.Fatalf("got %v, want ErrTampered", err)
			}
			if got != nil {
				t.Errorf("returned %d bytes of plaintext along with the error", len(got))
			}
			if tt.forged && !strings.Contains(err.Error(), "authentication failed") {
				t.Errorf("error %q: want the forgery caught by authentication", err)
			}
		})
	}
	if _, err := ring.Open("session-a", a); err != nil {
		t.Fatalf("the untouched transcript does not open: %v", err)
	}
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	old := mustParse(t, "k1:"+keyA)
	both := mustParse(t, "k1:"+keyA+",k2:"+keyB)
	onlyNew := mustParse(t, "k2:"+keyB)
	plaintext := pattern(300)

	sealed := mustSeal(t, old, "s1", plaintext, 100)
	if got := both.PrimaryID(); got != "k2" {
		t.Fatalf("PrimaryID = %q, want k2", got)
	}
	if got, err := both.Open("s1", sealed); err != nil || !bytes.Equal(got, plaintext) {
		t.Fatalf("keyring with old and new key does not open old chunks: %v", err)
	}
	for i, c := range sealed {
		if !both.NeedsRewrap(c) {
			t.Errorf("chunk %d under k1: NeedsRewrap false with primary k2", i)
		}
		if old.NeedsRewrap(c) {
			t.Errorf("chunk %d under k1: NeedsRewrap true with primary k1", i)
		}
	}

	_, err := onlyNew.Open("s1", sealed)
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "chunk 0 of 3") || !strings.Contains(err.Error(), `"k1"`) {
		t.Errorf("keyring without k1 opening k1 chunks: got %v, want ErrUnknownKey naming chunk 0 and k1", err)
	}

	rewrapped, err := both.Rewrap("s1", sealed)
	if err != nil {
		t.Fatalf("Rewrap: %v", err)
	}
	if len(rewrapped) != len(sealed) {
		t.Fatalf("Rewrap gave %d chunks for %d", len(rewrapped), len(sealed))
	}
	for i, c := range rewrapped {
		if c.KeyID != "k2" || both.NeedsRewrap(c) {
			t.Errorf("rewrapped chunk %d: key %q, NeedsRewrap %v", i, c.KeyID, both.NeedsRewrap(c))
		}
		if c.Seq != sealed[i].Seq || len(c.Ciphertext) != len(sealed[i].Ciphertext) {
			t.Errorf("rewrapped chunk %d: seq %d, %d bytes; want the layout of the original", i, c.Seq, len(c.Ciphertext))
		}
	}
	if got, err := onlyNew.Open("s1", rewrapped); err != nil || !bytes.Equal(got, plaintext) {
		t.Fatalf("keyring with only k2 does not open rewrapped chunks: %v", err)
	}
	if _, err := old.Open("s1", rewrapped); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("keyring with only k1 opening rewrapped chunks: got %v, want ErrUnknownKey", err)
	}
	if _, err := both.Rewrap("other", sealed); !errors.Is(err, ErrTampered) {
		t.Errorf("Rewrap under the wrong session: got %v, want ErrTampered", err)
	}
	if fresh := mustSeal(t, both, "s2", plaintext, 0); fresh[0].KeyID != "k2" {
		t.Errorf("new chunk sealed under %q, want the primary k2", fresh[0].KeyID)
	}
}

func TestMisuse(t *testing.T) {
	t.Parallel()
	var nilRing *Keyring
	ring := mustParse(t, keyA)
	chunks := mustSeal(t, ring, "s1", []byte("hi"), 0)

	if _, err := ring.Seal("", []byte("hi"), 0); err == nil {
		t.Error("Seal with an empty session id succeeded")
	}
	if _, err := nilRing.Seal("s1", []byte("hi"), 0); err == nil {
		t.Error("Seal with a nil keyring succeeded")
	}
	if _, err := nilRing.Open("s1", chunks); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("Open with a nil keyring: got %v, want ErrUnknownKey", err)
	}
	if _, err := nilRing.Rewrap("s1", chunks); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("Rewrap with a nil keyring: got %v, want ErrUnknownKey", err)
	}
	if got := nilRing.PrimaryID(); got != "" {
		t.Errorf("nil keyring PrimaryID = %q", got)
	}
}

func TestFormatHidesKeyBytes(t *testing.T) {
	t.Parallel()
	ring := mustParse(t, "k1:"+keyA+",k2:"+keyB)
	values := []any{ring, *ring, ring.keys[0], &ring.keys[1], ring.keys, []*Keyring{ring}, map[string]any{"r": ring}}
	var leaks []string
	for _, raw := range [][32]byte{rawA, rawB} {
		leaks = append(leaks,
			base64.StdEncoding.EncodeToString(raw[:]),
			fmt.Sprintf("%x", raw[:8]),
			fmt.Sprintf("%X", raw[:8]),
			fmt.Sprintf("%d %d %d %d", raw[0], raw[1], raw[2], raw[3]),
			fmt.Sprintf("%#x, %#x", raw[0], raw[1]),
			string(raw[:8]),
		)
	}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X"} {
			out := fmt.Sprintf(verb, v)
			for _, leak := range leaks {
				if strings.Contains(out, leak) {
					t.Errorf("Sprintf(%s, %T) = %q leaks key bytes", verb, v, out)
				}
			}
			if !strings.Contains(out, "k1") && !strings.Contains(out, "k2") {
				t.Errorf("Sprintf(%s, %T) = %q does not show the key id", verb, v, out)
			}
		}
	}
}
