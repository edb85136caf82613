// Package riskalert is what a receiver of Mnemo's risk alerts needs: the
// body an alert carries and how to check its signature.
//
// Mnemo POSTs one alert per session and risk class (the user's own finding
// of medium or high severity, the strongest of the session) to the URL the
// operator set for the app (MNEMO_RISK_ALERTS). The body is JSON (Alert);
// it carries ids, the class and the severity, never the user's words. The
// request is signed with the app's secret (MNEMO_RISK_ALERT_SECRETS):
//
//	Mnemo-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">
//
// A receiver verifies the signature over the raw body as received (before
// decoding it), and refuses a timestamp further than Tolerance from its own
// clock, so that a captured request cannot be replayed later. A retried
// alert is signed anew at each attempt; the same alert may arrive twice
// (a timeout after the receiver had answered), so a receiver treats
// (session_id, class) as the alert's identity.
//
// This package uses the standard library only: a Go receiver may import it,
// and one in another language can follow Verify line by line.
package riskalert

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Header names of an alert request.
const (
	// SignatureHeader carries the timestamp and the signature.
	SignatureHeader = "Mnemo-Signature"
	// TypeHeader names what the body is: "risk_alert".
	TypeHeader = "Mnemo-Event"
)

// Type is the value of Alert.Type and of TypeHeader.
const Type = "risk_alert"

// Tolerance is how far from the receiver's clock an alert's timestamp may
// be: older is a replay (or a clock too far off), and refused.
const Tolerance = 5 * time.Minute

// Alert is an alert's JSON body.
type Alert struct {
	// Type is always "risk_alert".
	Type      string `json:"type"`
	UserID    string `json:"user_id"`
	SessionID string `json:"session_id"`
	App       string `json:"app"`
	// Class is the risk class (suicidal, self_harm, distress, …).
	Class string `json:"class"`
	// Severity is the strongest of the session's findings of Class: medium
	// or high.
	Severity string `json:"severity"`
	// MessageID is the first message of the session with that severity,
	// and At when it was said.
	MessageID string    `json:"message_id"`
	At        time.Time `json:"at"`
	// Findings is how many of the session's messages had a finding of
	// Class that alerts (the user's own, medium or high).
	Findings int `json:"findings"`
}

// Errors of Verify.
var (
	ErrNoSignature  = errors.New("riskalert: no signature header, or one without t= and v1=")
	ErrBadSignature = errors.New("riskalert: the signature does not match the body")
	ErrTooOld       = errors.New("riskalert: the timestamp is outside the tolerance (a replay, or a clock off)")
)

// Sign returns the SignatureHeader value for body sent at t with secret.
func Sign(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

// Verify checks header (the SignatureHeader value) against the raw body
// with secret, and that its timestamp lies within tolerance of now (0 means
// Tolerance). A header may carry several v1 values (a secret being
// rotated); one matching is enough.
func Verify(secret, body []byte, header string, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = Tolerance
	}
	var ts string
	var sigs [][]byte
	for part := range strings.SplitSeq(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			ts = v
		case "v1":
			if sig, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, sig)
			}
		}
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrNoSignature
	}
	want := mac(secret, ts, body)
	ok := false
	for _, sig := range sigs {
		ok = ok || hmac.Equal(sig, want)
	}
	if !ok {
		return ErrBadSignature
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return ErrTooOld
	}
	return nil
}

// mac is HMAC-SHA256 with secret over ts + "." + body.
func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return m.Sum(nil)
}
