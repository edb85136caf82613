package riskalert_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/riskalert"
)

const secret = "whsec-test-0123456789abcdef0123456789"

// The signature is HMAC-SHA256 over "<t>.<body>", as any HMAC tool
// computes it (the vector is openssl's:
// printf '%s' '1700000000.{"type":"risk_alert"}' | openssl dgst -sha256 -hmac "$secret").
func TestSignMatchesAPlainHMAC(t *testing.T) {
	got := riskalert.Sign([]byte(secret), []byte(`{"type":"risk_alert"}`), time.Unix(1700000000, 0))
	want := "t=1700000000,v1=52bc3c5e03828c4876e072f470e12298c8a2769e0defbb900ac15d12ff074632"
	if got != want {
		t.Errorf("Sign = %s\nwant  %s", got, want)
	}
}

// A receiver accepts the alert as sent, within the tolerance either side of
// its clock, and refuses a changed body, another secret, a replay older
// than five minutes, a timestamp from the future, and a missing or
// malformed header.
func TestVerify(t *testing.T) {
	body := []byte(`{"type":"risk_alert","session_id":"s-1","class":"suicidal","severity":"high"}`)
	sent := time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC)
	header := riskalert.Sign([]byte(secret), body, sent)
	for _, c := range []struct {
		name   string
		secret string
		body   string
		header string
		now    time.Time
		want   error
	}{
		{"as sent", secret, string(body), header, sent, nil},
		{"received 4 min 59 s later", secret, string(body), header, sent.Add(5*time.Minute - time.Second), nil},
		{"clock 4 min behind", secret, string(body), header, sent.Add(-4 * time.Minute), nil},
		{"several v1, one matching (rotation)", secret, string(body), "t=" + header[2:12] + ",v1=00ff," + header[13:], sent, nil},
		{"replayed 6 min later", secret, string(body), header, sent.Add(6 * time.Minute), riskalert.ErrTooOld},
		{"from the future", secret, string(body), header, sent.Add(-6 * time.Minute), riskalert.ErrTooOld},
		{"body changed", secret, `{"type":"risk_alert","session_id":"s-1","class":"suicidal","severity":"medium"}`, header, sent, riskalert.ErrBadSignature},
		{"other secret", "another secret of the same length, more or less", string(body), header, sent, riskalert.ErrBadSignature},
		{"timestamp changed", secret, string(body), "t=1765155601" + header[12:], sent, riskalert.ErrBadSignature},
		{"no header", secret, string(body), "", sent, riskalert.ErrNoSignature},
		{"no v1", secret, string(body), header[:12], sent, riskalert.ErrNoSignature},
		{"no t", secret, string(body), header[13:], sent, riskalert.ErrNoSignature},
		{"v1 not hex", secret, string(body), header[:12] + ",v1=zz", sent, riskalert.ErrNoSignature},
	} {
		err := riskalert.Verify([]byte(c.secret), []byte(c.body), c.header, c.now, 0)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, err, c.want)
		}
	}
	// A tolerance of the receiver's own.
	if err := riskalert.Verify([]byte(secret), body, header, sent.Add(2*time.Minute), time.Minute); !errors.Is(err, riskalert.ErrTooOld) {
		t.Errorf("2 min late with a 1 min tolerance: %v", err)
	}
}
