package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Sealer seals what Mnemo derives from the sessions of apps whose policy
// asks for it (seal_derived): session summaries, the profile and its
// history, the user's display name. The store seals those columns on write
// and opens them on read, so every reader (the worker, the API, exports)
// sees plaintext and the database holds none. It binds each sealed value to
// its row (id), so that a value copied into another row does not open.
type Sealer interface {
	// Sealed reports whether app's derived data is sealed.
	Sealed(app string) bool
	// Seal seals plaintext for the row id; the result is opaque text.
	Seal(id string, plaintext []byte) (string, error)
	// Open opens what Seal returned for the same id.
	Open(id string, sealed string) ([]byte, error)
	// Stale reports whether sealed was sealed under a key other than the
	// one that writes now (keys rewrap seals it again).
	Stale(sealed string) bool
}

// sealedPrefix marks a sealed text column; a sealed JSON column holds
// {"sealed": "<the same text>"}.
const sealedPrefix = "sealed:v1:"

// sealJSON is raw as the JSON column of row id of app stores it.
func (q queries) sealJSON(app, id string, raw json.RawMessage) (json.RawMessage, error) {
	if q.sealer == nil || !q.sealer.Sealed(app) {
		return raw, nil
	}
	s, err := q.sealer.Seal(id, raw)
	if err != nil {
		return nil, fmt.Errorf("seal %s: %w", id, err)
	}
	return json.Marshal(map[string]string{"sealed": sealedPrefix + s})
}

// openJSON is the plaintext of a JSON column of row id of app, sealed or
// not. The value of an app whose data is not sealed is plaintext whatever it
// looks like: a user's profile field named "sealed" is theirs to keep.
func (q queries) openJSON(app, id string, raw json.RawMessage) (json.RawMessage, error) {
	s, ok := sealedJSON(raw)
	if !ok || (q.sealer != nil && !q.sealer.Sealed(app)) {
		return raw, nil
	}
	return q.open(id, s)
}

// sealedJSON returns the sealed text of a column {"sealed": …}.
func sealedJSON(raw json.RawMessage) (string, bool) {
	// The store writes {"sealed": …} alone; Postgres keeps the key first.
	if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`{"sealed"`)) {
		return "", false
	}
	var env map[string]string
	if json.Unmarshal(raw, &env) != nil || len(env) != 1 {
		return "", false
	}
	s, ok := strings.CutPrefix(env["sealed"], sealedPrefix)
	return s, ok
}

// sealText is a text column of row id of app as stored.
func (q queries) sealText(app, id, text string) (string, error) {
	if text == "" || q.sealer == nil || !q.sealer.Sealed(app) {
		return text, nil
	}
	s, err := q.sealer.Seal(id, []byte(text))
	if err != nil {
		return "", fmt.Errorf("seal %s: %w", id, err)
	}
	return sealedPrefix + s, nil
}

// openText is the plaintext of a text column of row id of app.
func (q queries) openText(app, id, text string) (string, error) {
	s, ok := strings.CutPrefix(text, sealedPrefix)
	if !ok || (q.sealer != nil && !q.sealer.Sealed(app)) {
		return text, nil
	}
	b, err := q.open(id, s)
	return string(b), err
}

func (q queries) open(id, s string) ([]byte, error) {
	if q.sealer == nil {
		return nil, fmt.Errorf("open %s: sealed, and this store has no keys", id)
	}
	b, err := q.sealer.Open(id, s)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", id, err)
	}
	return b, nil
}

// EncodeSealed is the text of sealed bytes; DecodeSealed reads it back.
func EncodeSealed(b []byte) string { return base64.RawStdEncoding.EncodeToString(b) }

// DecodeSealed reads text written by EncodeSealed.
func DecodeSealed(s string) ([]byte, error) { return base64.RawStdEncoding.DecodeString(s) }

// ResealDerived seals again, under the sealer's primary key, every sealed
// derived value (summaries, profiles, profile history, display names)
// sealed under an older key, and returns how many values it resealed: the
// derived-data half of `worker keys rewrap`.
func (q queries) ResealDerived(ctx context.Context) (int64, error) {
	if q.sealer == nil {
		return 0, nil
	}
	type target struct {
		table, col, where string
		keys              []string // key columns, in the WHERE's order
		row               func(keys []string) string
		text              bool
	}
	targets := []target{
		{"mnemo_session_summaries", "data", "session_id = $2 AND prompt_version = $3", []string{"session_id", "prompt_version"},
			func(k []string) string { return "summary:" + k[0] + ":" + k[1] }, false},
		{"mnemo_profiles", "doc", "user_id = $2", []string{"user_id"}, func(k []string) string { return "profile:" + k[0] }, false},
		{"mnemo_users", "display_name", "id = $2", []string{"id"}, func(k []string) string { return "user:" + k[0] + ":display_name" }, true},
	}
	for _, col := range []string{"doc", "changed", "older", "said"} {
		targets = append(targets, target{"mnemo_profile_history", col, "user_id = $2 AND version = $3", []string{"user_id", "version"},
			func(k []string) string { return "profile_history:" + k[0] + ":" + k[1] + ":" + col }, false})
	}
	var n int64
	for _, t := range targets {
		type found struct {
			keys []string
			v    string
		}
		var sel []string
		for _, k := range t.keys {
			sel = append(sel, "CAST("+k+" AS TEXT)")
		}
		list, err := queryAll(ctx, q, "SELECT "+strings.Join(sel, ", ")+", CAST("+t.col+" AS TEXT) FROM "+t.table+
			" WHERE CAST("+t.col+" AS TEXT) LIKE '%"+sealedPrefix+"%'", nil, func(r rows) (found, error) {
			f := found{keys: make([]string, len(t.keys))}
			dest := make([]any, 0, len(t.keys)+1)
			for i := range f.keys {
				dest = append(dest, &f.keys[i])
			}
			dest = append(dest, &f.v)
			return f, r.Scan(dest...)
		})
		if err != nil {
			return n, fmt.Errorf("reseal %s.%s: %w", t.table, t.col, err)
		}
		for _, f := range list {
			id := t.row(f.keys)
			var plain []byte
			if t.text {
				s, ok := strings.CutPrefix(f.v, sealedPrefix)
				if !ok || !q.sealer.Stale(s) {
					continue
				}
				if plain, err = q.open(id, s); err != nil {
					return n, err
				}
			} else {
				s, ok := sealedJSON(json.RawMessage(f.v))
				if !ok || !q.sealer.Stale(s) {
					continue
				}
				if plain, err = q.open(id, s); err != nil {
					return n, err
				}
			}
			fresh, err := q.sealer.Seal(id, plain)
			if err != nil {
				return n, err
			}
			var arg any = sealedPrefix + fresh
			if !t.text {
				b, _ := json.Marshal(map[string]string{"sealed": sealedPrefix + fresh})
				arg = string(b)
			}
			args := []any{arg}
			for _, k := range f.keys {
				args = append(args, k)
			}
			if t.table == "mnemo_profile_history" {
				v, _ := strconv.Atoi(f.keys[1])
				args[2] = v
			}
			if _, err := q.e.exec(ctx, "UPDATE "+t.table+" SET "+t.col+" = $1 WHERE "+t.where, args...); err != nil {
				return n, fmt.Errorf("reseal %s.%s: %w", t.table, t.col, err)
			}
			n++
		}
	}
	return n, nil
}
