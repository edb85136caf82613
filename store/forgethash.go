package store

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
	"sync"
)

// A forget marker keeps a keyed hash of the forgotten key, never the key's
// text (issue 34 §7): keys are made from values ("goal:quit_drinking",
// "allergy:shellfish"), and the audit is kept for many months. Equality is
// all a marker is read for (was this key forgotten, and when), and the
// hash answers it. The key's category, the part before its colon, stays
// readable (it is the schema's word, never the user's), so that a reader
// of derived text can look for the forgotten subject's words under it
// (memory.Forgotten).
//
// The HMAC's secret is this install's own, made once by migration 0018
// and kept in mnemo_install_secrets: a key of the transcript keyring
// would do as well until it is rotated, after which no stored marker
// would match. Whoever reads the whole database holds the secret too and
// can test guesses of a key; the hash keeps the key out of every row,
// export and log that shows the audit, which is what the text did not.

// KeyHasher is what a forget marker keeps of a memory key: HashedKeyPrefix,
// the key's category, a colon and the HMAC-SHA256 in hex. A key already
// hashed is returned as it is.
type KeyHasher func(key string) string

// HashedKeyPrefix starts every hashed key.
const HashedKeyPrefix = "kh1:"

// forgetSecretName names the secret of forget markers in mnemo_install_secrets.
const forgetSecretName = "forget_keys"

// IsHashedKey reports whether a marker's key is hashed.
func IsHashedKey(s string) bool { return strings.HasPrefix(s, HashedKeyPrefix) }

// HashedKeyCategory is the category a hashed key kept ("" for a key
// without one).
func HashedKeyCategory(s string) string {
	cat, _, _ := strings.Cut(strings.TrimPrefix(s, HashedKeyPrefix), ":")
	return cat
}

func newKeyHasher(secret []byte) KeyHasher {
	// A keyed HMAC is reused (Reset returns it to its keyed state): the
	// pack hashes every run of a text's words, and keying one costs as
	// much as hashing a short key.
	macs := sync.Pool{New: func() any { return hmac.New(sha256.New, secret) }}
	return func(key string) string {
		if IsHashedKey(key) {
			return key
		}
		cat, _, _ := strings.Cut(key, ":")
		if cat == key {
			cat = ""
		}
		mac := macs.Get().(hash.Hash)
		mac.Reset()
		mac.Write([]byte(key))
		var sum [sha256.Size]byte
		out := HashedKeyPrefix + cat + ":" + hex.EncodeToString(mac.Sum(sum[:0]))
		macs.Put(mac)
		return out
	}
}

// secretCache holds a store's hasher once read: the secret never changes.
type secretCache struct {
	mu sync.Mutex
	h  KeyHasher
}

// ForgetKeyHasher is the hasher of this database's forget markers.
func (q queries) ForgetKeyHasher(ctx context.Context) (KeyHasher, error) {
	if q.secrets != nil {
		q.secrets.mu.Lock()
		defer q.secrets.mu.Unlock()
		if q.secrets.h != nil {
			return q.secrets.h, nil
		}
	}
	var secret string
	err := q.queryOne(ctx, "SELECT secret FROM mnemo_install_secrets WHERE name = $1", []any{forgetSecretName},
		func(r rows) error { return r.Scan(&secret) })
	if errors.Is(err, ErrNotFound) {
		return nil, errors.New("forget markers: the install has no secret; run the migrations (worker migrate up)")
	} else if err != nil {
		return nil, fmt.Errorf("forget markers: read the install secret: %w", err)
	}
	raw, err := hex.DecodeString(secret)
	if err != nil || len(raw) < 32 {
		return nil, errors.New("forget markers: the install secret is not 32 bytes in hex")
	}
	h := newKeyHasher(raw)
	if q.secrets != nil {
		q.secrets.h = h
	}
	return h, nil
}

// hashForgetKeys is cs with the key of every forget marker hashed.
func (q queries) hashForgetKeys(ctx context.Context, cs []MemoryChange) ([]MemoryChange, error) {
	var h KeyHasher
	var out []MemoryChange
	for i, c := range cs {
		if c.Action != actionForget || c.Key == "" || IsHashedKey(c.Key) {
			continue
		}
		if h == nil {
			var err error
			if h, err = q.ForgetKeyHasher(ctx); err != nil {
				return nil, err
			}
			out = append([]MemoryChange(nil), cs...)
		}
		out[i].Key = h(c.Key)
	}
	if out == nil {
		return cs, nil
	}
	return out, nil
}

// olderForgetsSQL deletes the markers a new forget marker ($2 its key,
// $3 its memory id, $4 its time) makes redundant: those of the same key
// (or, without a key, of the same category or profile) that are not newer.
// The "stays forgotten" check reads the newest of each, and 200 deletes of
// a category left 200 rows every later extraction read (issue 34 §9).
const olderForgetsSQL = `DELETE FROM mnemo_memory_history WHERE user_id = $1` + forgetsOnly + `
	AND key = $2 AND (key <> '' OR memory_id = $3) AND at <= $4`

// oneForgetOfEachSQL keeps the newest marker of each key, category and
// profile of every user (migration 0018).
const oneForgetOfEachSQL = `DELETE FROM mnemo_memory_history WHERE action = 'forget' AND EXISTS (
	SELECT 1 FROM mnemo_memory_history n WHERE n.user_id = mnemo_memory_history.user_id AND n.action = 'forget'
		AND n.key = mnemo_memory_history.key AND (n.key <> '' OR n.memory_id = mnemo_memory_history.memory_id)
		AND (n.at > mnemo_memory_history.at OR (n.at = mnemo_memory_history.at AND n.id > mnemo_memory_history.id)))`

// hashStoredForgets is migration 0018's work in Go: the install's secret,
// made here unless it was before, every stored marker's key hashed under it, and one marker of
// each key, category and profile kept.
func hashStoredForgets(ctx context.Context, e execer) error {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return err
	}
	// Applied again after a rollback, the migration keeps the secret the
	// markers were hashed under.
	if _, err := e.exec(ctx, "INSERT INTO mnemo_install_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
		forgetSecretName, hex.EncodeToString(fresh)); err != nil {
		return fmt.Errorf("make the install secret: %w", err)
	}
	h, err := queries{e: e}.ForgetKeyHasher(ctx)
	if err != nil {
		return err
	}
	r, err := e.query(ctx, "SELECT id, key FROM mnemo_memory_history WHERE action = 'forget' AND key <> ''")
	if err != nil {
		return err
	}
	var ids, keys []string
	for r.Next() {
		var id, key string
		if err := r.Scan(&id, &key); err != nil {
			r.Close()
			return err
		}
		if !IsHashedKey(key) {
			ids, keys = append(ids, id), append(keys, h(key))
		}
	}
	r.Close()
	if err := r.Err(); err != nil {
		return err
	}
	steps, err := (queries{e: e}).valuesSteps("hash forget keys", 2, len(ids), func(i int) []any { return []any{ids[i], keys[i]} }, []string{"text", "text"},
		func(values string) string {
			return "UPDATE mnemo_memory_history SET key = v.column2 FROM (VALUES " + values + ") AS v WHERE mnemo_memory_history.id = v.column1"
		})
	if err != nil {
		return err
	}
	for _, s := range steps {
		if _, err := e.exec(ctx, s.sql, s.args...); err != nil {
			return fmt.Errorf("hash forget keys: %w", err)
		}
	}
	if _, err := e.exec(ctx, oneForgetOfEachSQL); err != nil {
		return fmt.Errorf("keep one forget marker of each: %w", err)
	}
	return nil
}

// goMigrations are the steps of a migration written in Go, run after its
// SQL in the same transaction.
var goMigrations = map[int]func(ctx context.Context, e execer) error{
	18: hashStoredForgets,
}
