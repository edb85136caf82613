package seal

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func TestParseKeys(t *testing.T) {
	t.Parallel()
	// 0xfb bytes encode to '+' and '/' in standard base64 and to '-' and
	// '_' in URL-safe base64.
	var rawURL [32]byte
	for i := range rawURL {
		rawURL[i] = 0xfb
	}
	tests := []struct {
		name        string
		spec        string
		wantIDs     []string
		wantKeys    [][32]byte
		wantPrimary string
	}{
		{"bare base64 key", keyA, []string{"k1"}, [][32]byte{rawA}, "k1"},
		{"named key", "main:" + keyA, []string{"main"}, [][32]byte{rawA}, "main"},
		{"standard base64 unpadded", "k1:" + base64.RawStdEncoding.EncodeToString(rawURL[:]), []string{"k1"}, [][32]byte{rawURL}, "k1"},
		{"URL-safe base64", "k1:" + base64.URLEncoding.EncodeToString(rawURL[:]), []string{"k1"}, [][32]byte{rawURL}, "k1"},
		{"URL-safe base64 unpadded", "k1:" + base64.RawURLEncoding.EncodeToString(rawURL[:]), []string{"k1"}, [][32]byte{rawURL}, "k1"},
		{"last entry is primary", "k1:" + keyA + ",k2:" + keyB, []string{"k1", "k2"}, [][32]byte{rawA, rawB}, "k2"},
		{"order decides, not id", "new:" + keyB + ",old:" + keyA, []string{"new", "old"}, [][32]byte{rawB, rawA}, "old"},
		{"bare entries numbered by position", keyA + "," + keyB, []string{"k1", "k2"}, [][32]byte{rawA, rawB}, "k2"},
		{"named then bare", "legacy:" + keyA + "," + keyB, []string{"legacy", "k2"}, [][32]byte{rawA, rawB}, "k2"},
		{"spaces and newline ignored", "  k1 : " + keyA + " ,\n\tk2:" + keyB + "\n", []string{"k1", "k2"}, [][32]byte{rawA, rawB}, "k2"},
		{"id characters", "prod-2025.q1_a:" + keyA, []string{"prod-2025.q1_a"}, [][32]byte{rawA}, "prod-2025.q1_a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ring := mustParse(t, tt.spec)
			if len(ring.keys) != len(tt.wantIDs) {
				t.Fatalf("got %d keys, want %d", len(ring.keys), len(tt.wantIDs))
			}
			for i, k := range ring.keys {
				if k.ID != tt.wantIDs[i] || k.key != tt.wantKeys[i] {
					t.Errorf("key %d: id %q, want %q; bytes match: %v", i, k.ID, tt.wantIDs[i], k.key == tt.wantKeys[i])
				}
			}
			if got := ring.PrimaryID(); got != tt.wantPrimary {
				t.Errorf("PrimaryID = %q, want %q", got, tt.wantPrimary)
			}
		})
	}
}

func TestParseKeysEncodingsInteroperate(t *testing.T) {
	t.Parallel()
	std := mustParse(t, "k1:"+keyA)
	url := mustParse(t, base64.RawURLEncoding.EncodeToString(rawA[:]))
	chunks := mustSeal(t, std, "s1", []byte("same key, other spelling"), 0)
	if _, err := url.Open("s1", chunks); err != nil {
		t.Fatalf("a key given in URL-safe base64 does not open what its standard spelling sealed: %v", err)
	}
}

func TestParseKeysErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		spec    string
		wantMsg string
		secrets []string // must not appear in the error
	}{
		{"empty", "", "no encryption key", nil},
		{"blank", " \n ", "no encryption key", nil},
		{"empty entry", "k1:" + keyA + ",,k3:" + keyB, "entry 2 of 3 is empty", []string{keyA, keyB}},
		{"trailing comma", keyA + ",", "entry 2 of 2 is empty", []string{keyA}},
		{"empty id", ":" + "open sesame 1234", "entry 1: the id", []string{"open sesame"}},
		{"id with a space", "my secret:pass phrase 1234", "entry 1: the id", []string{"my secret", "pass phrase"}},
		{"id too long", strings.Repeat("a", 65) + ":" + keyA, "entry 1: the id", []string{keyA, "aaaaaaaa"}},
		{"empty key", "k1:", "at least 12 characters", nil},
		{"short passphrase", "k1:hunter2-pw", "at least 12 characters, this one has 10", []string{"hunter2"}},
		{"short bare passphrase", keyA + ",tiny-secret", "entry 2: a passphrase needs at least 12", []string{keyA, "tiny-secret"}},
		{"short passphrase counted in characters", "k1:ééééééééééé", "this one has 11", []string{"ééé"}},
		{"duplicate id", "k1:" + keyA + ",k1:" + keyB, "entries 1 and 2 have the same id", []string{keyA, keyB}},
		{"bare entry collides with named", "k2:" + keyA + "," + keyB, "entries 1 and 2 have the same id", []string{keyA, keyB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ring, err := ParseKeys(tt.spec)
			if err == nil {
				t.Fatalf("ParseKeys succeeded with keys %v", ring)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("error %q does not say %q", msg, tt.wantMsg)
			}
			for _, s := range tt.secrets {
				if strings.Contains(msg, s) {
					t.Errorf("error %q contains key material %q", msg, s)
				}
			}
		})
	}
}

func TestPassphraseDerivation(t *testing.T) {
	t.Parallel()
	const pass = "correct horse battery staple"
	// Computed independently with Python:
	// hashlib.pbkdf2_hmac("sha256", pass, b"mnemo/seal/v1/"+id, 600000).hex()
	want := map[string]string{
		"k1": "2fe0c890a17dd95489fd3f55badb47162fbf2cac47fd0922e7f917ed102ba7e2",
		"k2": "49704b4f57752d7113aed18426a8e718513b84ad813b6f912824c60c82359a22",
	}
	tests := []struct {
		name string
		spec string
		id   string
	}{
		{"named", "k1:" + pass, "k1"},
		{"bare, so k1", pass, "k1"},
		{"other id", "k2:" + pass, "k2"},
	}
	rings := make([]*Keyring, len(tests))
	for i, tt := range tests {
		rings[i] = mustParse(t, tt.spec)
		got := rings[i].keys[0]
		if got.ID != tt.id || hex.EncodeToString(got.key[:]) != want[tt.id] {
			t.Errorf("%s: derived key %s under id %q, want %s under %q", tt.name, hex.EncodeToString(got.key[:]), got.ID, want[tt.id], tt.id)
		}
	}

	// Two workers parsing the same configuration read each other's chunks;
	// the same passphrase under another id does not.
	chunks := mustSeal(t, rings[0], "s1", []byte("sealed by worker one"), 0)
	if got, err := rings[1].Open("s1", chunks); err != nil || !bytes.Equal(got, []byte("sealed by worker one")) {
		t.Errorf("a second parse of the same passphrase does not open the first one's chunks: %v", err)
	}
	if bytes.Equal(rings[0].keys[0].key[:], rings[2].keys[0].key[:]) {
		t.Error("the same passphrase derives the same key under ids k1 and k2")
	}
}
