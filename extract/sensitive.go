package extract

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reasons Sensitive gives. Rules and Plan prefix them with "sensitive:" in
// Dropped and Op reasons.
const (
	SensitivePrivateKey  = "private_key"
	SensitiveAPIKey      = "api_key"
	SensitivePassword    = "password"
	SensitiveSSN         = "ssn"
	SensitiveCardNumber  = "card_number"
	SensitiveCardCode    = "card_security_code"
	SensitiveIBAN        = "iban"
	SensitiveBankAccount = "bank_account"
	SensitiveLongNumber  = "long_number"
)

// guarded is a pattern with the words it cannot match without. Looking for
// the words first keeps the cost of an ordinary message low: most patterns
// are never run.
type guarded struct {
	needles []string // lower case; found in the folded text
	re      *regexp.Regexp
}

func (g guarded) match(text, folded string) bool {
	for _, n := range g.needles {
		if strings.Contains(folded, n) {
			return g.re.MatchString(text)
		}
	}
	return false
}

func guard(re string, needles ...string) guarded {
	return guarded{needles: needles, re: regexp.MustCompile(re)}
}

var (
	privateKey = guard(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----`, "-----begin")

	// apiKeys are the shapes of well-known credentials. They are matched case
	// sensitively because the prefixes are; a chat message that happens to
	// contain "sk-" followed by a dozen letters is dropped, which costs nothing.
	apiKeys = []guarded{
		guard(`\bsk-[A-Za-z0-9_\-]{12,}`, "sk-"),                                           // OpenAI and look-alikes
		guard(`\b[spr]k_(?:live|test)_[A-Za-z0-9]{8,}`, "k_live_", "k_test_"),              // Stripe
		guard(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, "akia", "asia"),                             // AWS access key IDs
		guard(`\bgh[pousr]_[A-Za-z0-9]{20,}`, "ghp_", "gho_", "ghu_", "ghs_", "ghr_"),      // GitHub tokens
		guard(`\bgithub_pat_[A-Za-z0-9_]{20,}`, "github_pat_"),                             // GitHub fine-grained tokens
		guard(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`, "xox"),                                   // Slack
		guard(`\bAIza[0-9A-Za-z_\-]{30,}`, "aiza"),                                         // Google API keys
		guard(`\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`, "eyj"), // JWTs
		guard(`(?i)\b(?:api[ _\-]?key|access[ _\-]?token|auth[ _\-]?token|bearer(?: token)?|client[ _\-]?secret|secret[ _\-]?key)\b(?:'s)?\s*(?:is|=|:)?\s*[A-Za-z0-9_\-.+/=]{12,}`,
			"key", "token", "bearer", "secret"),
	}

	passwords = []guarded{
		// "my password is x", "password: x", "changed my passcode to x".
		guard(`(?i)\b(?:password|passwd|passcode|passphrase|pass code|pass phrase|pwd|pword)s?\b(?:'s|\s+is|\s+was|\s*=|\s*:|\s+to|\s+-|\s+would be|\s+will be)\s*\S`,
			"pass", "pwd", "pword"),
		// "the passcode 4829": a keyword directly followed by something with a digit.
		guard(`(?i)\b(?:password|passwd|passcode|passphrase|pwd)\s+\S*[0-9]\S*`, "pass", "pwd"),
		// "pw: x" only with a separator: "pw" alone is too short a word to trust.
		guard(`(?i)\bpw\s*[:=]\s*\S`, "pw"),
		// "pin is 1234", "PIN 1234", "pin code: 123456".
		guard(`(?i)\bpin(?:\s*code|\s*number)?\b(?:'s)?\s*(?:is|was|=|:|to|-|would be)?\s*[0-9]{3,8}\b`, "pin"),
	}

	// ssnDashRe matches the printed SSN shape anywhere, without word
	// boundaries, so that digits glued to it cannot hide it.
	ssnDashRe    = regexp.MustCompile(`[0-9]{3}-[0-9]{2}-[0-9]{4}`)
	ssnKeyword   = guard(`(?i)\b(?:ssn|ssns|social security|social insurance|sin number|tax id|taxpayer id|itin)\b`, "ssn", "social", "sin number", "tax", "itin")
	nineDigitsRe = regexp.MustCompile(`[0-9]{3}[ .\-]?[0-9]{2}[ .\-]?[0-9]{4}`)

	cardCode    = guard(`(?i)\b(?:cvv2?|cvc2?|csc|security code)\b\D{0,12}[0-9]{3,4}\b`, "cvv", "cvc", "csc", "security code")
	bankAccount = guard(`(?i)\b(?:bank account|account|acct|a/c|routing|sort code|bsb|aba)\b(?:\s*(?:number|no\.?|num|#))?\s*(?:is|was|=|:|-)?\s*([0-9][0-9 \-]{4,30}[0-9])`, "account", "acct", "a/c", "routing", "sort code", "bsb", "aba")
)

// Sensitive reports whether text holds data that must never be stored: a
// password or PIN, a US social security number, a payment card number or its
// security code, an IBAN, a bank account number, an API key, token or private
// key. Any run of 13 or more digits counts, Luhn-valid or not: a companion has
// no use for such numbers and a card typed with one digit wrong is still a
// card. The reason names the first kind found, in a fixed order, so the
// answer is deterministic. Only ASCII digits are recognised.
func Sensitive(text string) (reason string, ok bool) {
	text = apostrophes.Replace(text)
	folded := foldCase(text)
	if privateKey.match(text, folded) {
		return SensitivePrivateKey, true
	}
	for _, g := range apiKeys {
		if g.match(text, folded) {
			return SensitiveAPIKey, true
		}
	}
	if hasMixedToken(text) {
		return SensitiveAPIKey, true
	}
	for _, g := range passwords {
		if g.match(text, folded) {
			return SensitivePassword, true
		}
	}
	if ssnDashRe.MatchString(text) {
		return SensitiveSSN, true
	}
	if ssnKeyword.match(text, folded) && nineDigitsRe.MatchString(text) {
		return SensitiveSSN, true
	}
	// An IBAN is checked before cards: its digits often hold a Luhn-valid run.
	if hasIBAN(text) {
		return SensitiveIBAN, true
	}
	card, long := scanDigitRuns(text)
	if card {
		return SensitiveCardNumber, true
	}
	if cardCode.match(text, folded) {
		return SensitiveCardCode, true
	}
	if bankAccount.match(text, folded) {
		for _, m := range bankAccount.re.FindAllStringSubmatch(text, -1) {
			if n := countDigits(m[1]); n >= 6 && n <= 17 {
				return SensitiveBankAccount, true
			}
		}
	}
	if long {
		return SensitiveLongNumber, true
	}
	return "", false
}

// foldCase maps every rune that case-folds to an ASCII letter onto that
// letter in lower case, so that the needles of a guarded pattern are found
// wherever its case-insensitive regexp could match: (?i) also matches "K"
// (Kelvin sign) for k and "ſ" (long s) for s.
func foldCase(s string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf {
			return unicode.ToLower(r)
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < utf8.RuneSelf {
				return unicode.ToLower(f)
			}
		}
		return r
	}, s)
}

// hasMixedToken looks for an unbroken run of 32 or more of [A-Za-z0-9_-+/=]
// that mixes upper case, lower case and digits: no word does that, a secret
// or token usually does.
func hasMixedToken(text string) bool {
	n := 0
	var upper, lower, digit bool
	for i := 0; i <= len(text); i++ {
		var c byte
		if i < len(text) {
			c = text[i]
		}
		switch {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9':
			digit = true
		case c != 0 && strings.IndexByte("_-+/=", c) >= 0:
		default:
			if n >= 32 && upper && lower && digit {
				return true
			}
			n, upper, lower, digit = 0, false, false, false
			continue
		}
		n++
	}
	return false
}

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// scanDigitRuns finds runs of ASCII digits in which digits may be separated by
// up to three characters that are neither letters nor digits: the spaces,
// dashes and dots people type card numbers with ("4111 1111 1111 1111",
// "4111-1111-1111-1111"), and any other punctuation, quote, symbol or
// invisible character, so that a stray quote or a zero-width space cannot
// split a card number into harmless pieces ("4111 1111\"1111 1111"). long
// is true when any run has 13 or more digits; card is true when such a run
// has at most 19 and passes the Luhn check, which only decides the reason
// given.
func scanDigitRuns(text string) (card, long bool) {
	var run []byte
	sep := 0
	flush := func() {
		if len(run) >= 13 {
			long = true
			card = card || (len(run) <= 19 && luhn(run))
		}
		run = run[:0]
		sep = 0
	}
	for _, c := range text {
		switch {
		case c >= '0' && c <= '9':
			run = append(run, byte(c))
			sep = 0
		case len(run) > 0 && sep < 3 && !unicode.IsLetter(c) && !unicode.IsDigit(c):
			sep++
		default:
			flush()
		}
	}
	flush()
	return card, long
}

func luhn(d []byte) bool {
	sum := 0
	double := false
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}

// ibanLengths is the IBAN length of each country in the ISO 13616 registry.
// Checking the exact length of the country keeps the mod-97 check from firing
// on ordinary words that happen to start with two letters and two digits.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
	"BH": 22, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22,
	"DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27,
	"GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28,
	"IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24,
	"ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24,
	"PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31,
	"SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
	"TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isASCIIDigit(c byte) bool  { return c >= '0' && c <= '9' }

// hasIBAN looks for an IBAN written compactly or in groups of four, in either
// case, starting at a word boundary.
func hasIBAN(text string) bool {
	for i := 0; i+4 <= len(text); i++ {
		if i > 0 && (isASCIILetter(text[i-1]) || isASCIIDigit(text[i-1])) {
			continue
		}
		if !isASCIILetter(text[i]) || !isASCIILetter(text[i+1]) || !isASCIIDigit(text[i+2]) || !isASCIIDigit(text[i+3]) {
			continue
		}
		country := strings.ToUpper(text[i : i+2])
		want, ok := ibanLengths[country]
		if !ok {
			continue
		}
		b := make([]byte, 0, want)
	collect:
		for j := i; j < len(text) && len(b) < want; j++ {
			switch c := text[j]; {
			case isASCIILetter(c):
				b = append(b, c&^0x20) // upper case
			case isASCIIDigit(c):
				b = append(b, c)
			case c == ' ' && j+1 < len(text) && text[j+1] != ' ':
				// A single space between groups.
			default:
				break collect
			}
		}
		if len(b) == want && ibanValid(b) {
			return true
		}
	}
	return false
}

// ibanValid applies the ISO 7064 mod-97 check to an upper-case IBAN.
func ibanValid(b []byte) bool {
	rearranged := append(append([]byte{}, b[4:]...), b[:4]...)
	rem := 0
	for _, c := range rearranged {
		if isASCIIDigit(c) {
			rem = (rem*10 + int(c-'0')) % 97
		} else {
			rem = (rem*100 + int(c-'A') + 10) % 97
		}
	}
	return rem == 1
}
