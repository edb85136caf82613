package seal

import (
	"errors"
	"strings"
	"testing"
)

// FuzzOpen feeds Open transcripts of up to two chunks with arbitrary fields.
// The seed corpus in testdata/fuzz/FuzzOpen holds transcripts of session
// "s1" sealed under keyA (valid ones, so mutations start from the real
// format) and malformed ones.
func FuzzOpen(f *testing.F) {
	f.Add("s1", uint8(1), 0, "k1", make([]byte, NonceSize), []byte{}, []byte{}, 0, "", []byte(nil), []byte(nil), []byte(nil))
	f.Add("", uint8(2), -1, "", []byte(nil), []byte(nil), []byte(nil), 1<<40, "k2", []byte{1}, []byte{2}, []byte{3})
	f.Add("s1", uint8(1), 0, strings.Repeat("k", 1<<16), make([]byte, NonceSize), make([]byte, Overhead), []byte(nil), 0, "", []byte(nil), []byte(nil), []byte(nil))

	ring := mustParse(f, "k1:"+keyA+",k2:"+keyB)
	f.Fuzz(func(t *testing.T, sessionID string, count uint8,
		seq0 int, key0 string, nonce0, ct0, sum0 []byte,
		seq1 int, key1 string, nonce1, ct1, sum1 []byte,
	) {
		all := []Chunk{
			{Seq: seq0, KeyID: key0, Nonce: nonce0, Ciphertext: ct0, SHA256: sum0},
			{Seq: seq1, KeyID: key1, Nonce: nonce1, Ciphertext: ct1, SHA256: sum1},
		}
		chunks := all[:count%3]
		got, err := ring.Open(sessionID, chunks)
		if err != nil {
			if !errors.Is(err, ErrTampered) && !errors.Is(err, ErrUnknownKey) {
				t.Fatalf("Open error %v is neither ErrTampered nor ErrUnknownKey", err)
			}
			if got != nil {
				t.Fatalf("Open returned plaintext with error %v", err)
			}
			return
		}
		// Only a transcript Seal wrote opens: its layout must be Seal's.
		want := 0
		for _, c := range chunks {
			if len(c.Nonce) != NonceSize || len(c.Ciphertext) < Overhead {
				t.Fatalf("opened a chunk with a %d-byte nonce and %d-byte ciphertext", len(c.Nonce), len(c.Ciphertext))
			}
			want += len(c.Ciphertext) - Overhead
		}
		if len(got) != want {
			t.Fatalf("opened %d bytes from ciphertexts holding %d", len(got), want)
		}
		// Whatever opens must also rewrap and open again to the same text.
		rewrapped, err := ring.Rewrap(sessionID, chunks)
		if err != nil {
			t.Fatalf("Rewrap of a transcript that opens: %v", err)
		}
		again, err := ring.Open(sessionID, rewrapped)
		if err != nil || string(again) != string(got) {
			t.Fatalf("rewrapped transcript does not open to the same text: %v", err)
		}
	})
}
