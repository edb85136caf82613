package extract_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

func TestSensitive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want string // "" when the text is fine to keep
	}{
		// Payment cards: Visa, Mastercard, Amex, typed every way people type them.
		{"my card is 4111 1111 1111 1111", extract.SensitiveCardNumber},
		{"4111-1111-1111-1111 expires 12/29", extract.SensitiveCardNumber},
		{"card:4111111111111111.", extract.SensitiveCardNumber},
		{"5500 0000 0000 0004", extract.SensitiveCardNumber},
		{"amex 3782 822463 10005", extract.SensitiveCardNumber},
		{"4111 - 1111 - 1111 - 1111", extract.SensitiveCardNumber},
		{"x4111111111111111x", extract.SensitiveCardNumber},
		// Whatever stands between the groups, a quote, a slash, an underscore or
		// an invisible character, does not split the card (FuzzRules found a
		// quote that did).
		{`I like 4111 1111"010110000`, extract.SensitiveCardNumber},
		{"4111 1111 \u201c1111\u201d 1111", extract.SensitiveCardNumber},
		{"4111/1111/1111/1111", extract.SensitiveCardNumber},
		{"4111_1111_1111_1111", extract.SensitiveCardNumber},
		{"4111\u200b1111\u200b1111\u200b1111", extract.SensitiveCardNumber},
		{"(4111) '1111' 1111, 1111", extract.SensitiveCardNumber},
		// A card with a typo is still not something to keep.
		{"4111 1111 1111 1112", extract.SensitiveLongNumber},
		{"my cvv is 123", extract.SensitiveCardCode},
		// Social security numbers.
		{"my ssn is 123-45-6789", extract.SensitiveSSN},
		{"123-45-6789", extract.SensitiveSSN},
		{"a1123-45-67890", extract.SensitiveSSN},
		{"Social Security number 123 45 6789", extract.SensitiveSSN},
		{"my SSN: 123456789", extract.SensitiveSSN},
		// Passwords and PINs.
		{"my password is hunter2", extract.SensitivePassword},
		{"Password: correct horse battery staple", extract.SensitivePassword},
		{"my password’s tr0ub4dor", extract.SensitivePassword},
		{"pw: hunter2", extract.SensitivePassword},
		{"I changed my passcode to 0000", extract.SensitivePassword},
		{"the passcode 4829", extract.SensitivePassword},
		{"my pin is 1234", extract.SensitivePassword},
		{"PIN 4321 for the door", extract.SensitivePassword},
		{"my paſsword is hunter2", extract.SensitivePassword}, // (?i) folds ſ to s; so must the guard
		// Bank details.
		{"IBAN DE89 3704 0044 0532 0130 00", extract.SensitiveIBAN},
		{"gb82west12345698765432", extract.SensitiveIBAN},
		{"my account number is 12345678", extract.SensitiveBankAccount},
		{"routing: 021000021", extract.SensitiveBankAccount},
		// Keys and tokens.
		{"here is my key sk-proj-abcdefghijklmnop1234", extract.SensitiveAPIKey},
		{"AKIAIOSFODNN7EXAMPLE", extract.SensitiveAPIKey},
		{"token ghp_abcdefghijklmnopqrstuvwxyz0123456789", extract.SensitiveAPIKey},
		{"api key: 9f8e7d6c5b4a39281706", extract.SensitiveAPIKey},
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlX2hlcmU", extract.SensitiveAPIKey},
		{"aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z", extract.SensitiveAPIKey},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE...", extract.SensitivePrivateKey},
		// Long numbers of any kind.
		{"order 12345678901234567890123", extract.SensitiveLongNumber},
		// Ordinary chat stays ordinary.
		{"I forgot my password again", ""},
		{"password reset emails are annoying", ""},
		{"I have 3 cats and 2 dogs", ""},
		{"call me at 555-123-4567", ""},
		{"it was 2023-11-20 at 10:30", ""},
		{"I have 3 cats, 2 dogs, and 1 fish (5 pets in all)", ""},
		{"I am 25 years old and 180 cm tall", ""},
		{"my account is 3 years old", ""},
		{"ok12 times I went home", ""},
		{"I like pin-up art", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			got, ok := extract.Sensitive(tt.text)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("Sensitive(%q) = %q, %v; want %q", tt.text, got, ok, tt.want)
			}
		})
	}
}

// TestRulesNeverStoresSensitive checks the whole path a user would see: a
// message with a card, SSN or password gives no memory at all (not even the
// harmless part of it), one Dropped entry with the reason, and the result
// printed as JSON does not contain the secret.
func TestRulesNeverStoresSensitive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg, secret, reason string
	}{
		{"My name is John and my card is 4111 1111 1111 1111", "1111", "sensitive:card_number"},
		{"I like pizza. My card number is 5500-0000-0000-0004.", "0004", "sensitive:card_number"},
		{"My favorite number is 4111111111111111", "4111111111111111", "sensitive:card_number"},
		{`I like 4111 1111"010110000`, "010110000", "sensitive:card_number"},
		{"I'm feeling tired, my SSN is 123-45-6789", "6789", "sensitive:ssn"},
		{"my social security number is 123456789 and I like tea", "123456789", "sensitive:ssn"},
		{"My name is Ann. My password is hunter2", "hunter2", "sensitive:password"},
		{"I like my pin 8642", "8642", "sensitive:password"},
		{"I love my IBAN DE89370400440532013000", "DE89", "sensitive:iban"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			t.Parallel()
			got := rulesSay(tt.msg)
			if len(got.Memories) != 0 {
				t.Errorf("memories %+v, want none", kvs(got.Memories))
			}
			if len(got.Dropped) != 1 || got.Dropped[0] != (extract.Dropped{MessageID: "m1", Reason: tt.reason}) {
				t.Errorf("dropped %+v, want one %q for m1", got.Dropped, tt.reason)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), tt.secret) {
				t.Errorf("result JSON contains %q: %s", tt.secret, b)
			}
		})
	}
}

func FuzzSensitive(f *testing.F) {
	for _, s := range []string{
		"my card is 4111 1111 1111 1111",
		"my ssn is 123-45-6789",
		"password: hunter2",
		"IBAN DE89 3704 0044 0532 0130 00",
		"sk-abcdefghijklmnop1234",
		"I have 3 cats",
		"",
	} {
		f.Add(s)
	}
	known := []string{
		extract.SensitivePrivateKey, extract.SensitiveAPIKey, extract.SensitivePassword, extract.SensitiveSSN,
		extract.SensitiveCardNumber, extract.SensitiveCardCode, extract.SensitiveIBAN,
		extract.SensitiveBankAccount, extract.SensitiveLongNumber,
	}
	f.Fuzz(func(t *testing.T, text string) {
		reason, ok := extract.Sensitive(text)
		if ok != (reason != "") {
			t.Fatalf("Sensitive(%q) = %q, %v", text, reason, ok)
		}
		if ok && !slices.Contains(known, reason) {
			t.Errorf("unknown reason %q", reason)
		}
		if r2, ok2 := extract.Sensitive(text); r2 != reason || ok2 != ok {
			t.Errorf("not deterministic: %q then %q", reason, r2)
		}
		// Whatever surrounds them, a card, an SSN and a password are caught.
		for _, secret := range []string{"4111 1111 1111 1111", "4111-1111-1111-1111", "123-45-6789", "my password is hunter2"} {
			for _, s := range []string{text + " " + secret, secret + " " + text, text + secret + text} {
				if _, ok := extract.Sensitive(s); !ok {
					t.Errorf("Sensitive(%q) = false", s)
				}
			}
		}
	})
}
