// Queries of mnemo_profiles and mnemo_profile_history: a user's profile and its versions.

package store

import (
	"context"
	"encoding/json"
	"fmt"
)

func (q queries) GetProfile(ctx context.Context, userID string) (Profile, error) {
	var p Profile
	err := q.queryOne(ctx, "SELECT user_id, app, doc, version, stated, updated_at FROM mnemo_profiles WHERE user_id = $1",
		[]any{userID}, func(r rows) (err error) {
			if err = r.Scan(&p.UserID, &p.App, scanJSON{&p.Doc}, &p.Version, scanJSON{&p.Stated}, scanTime{&p.UpdatedAt}); err != nil {
				return err
			}
			p.Doc, err = q.openJSON(p.App, "profile:"+p.UserID, p.Doc)
			return err
		})
	return p, err
}

func (q queries) SaveProfile(ctx context.Context, p Profile, c ProfileChange) error {
	// The history row's columns are sealed as the profile is, each bound to
	// its row and column.
	hist := fmt.Sprintf("profile_history:%s:%d:", p.UserID, p.Version)
	doc, err := q.sealJSON(p.App, "profile:"+p.UserID, json.RawMessage(jsonArg(p.Doc, "{}")))
	if err != nil {
		return err
	}
	hdoc, err := q.sealJSON(p.App, hist+"doc", json.RawMessage(jsonArg(p.Doc, "{}")))
	if err != nil {
		return err
	}
	if c.Changed, err = q.sealJSON(p.App, hist+"changed", json.RawMessage(jsonArg(c.Changed, "{}"))); err != nil {
		return err
	}
	if c.Older, err = q.sealJSON(p.App, hist+"older", json.RawMessage(jsonArg(c.Older, "{}"))); err != nil {
		return err
	}
	if c.Said, err = q.sealJSON(p.App, hist+"said", json.RawMessage(jsonArg(c.Said, "{}"))); err != nil {
		return err
	}
	p.Doc = doc // p is a copy: the caller's document stays plaintext
	var n int64
	if p.Version == 1 {
		n, err = q.e.exec(ctx, `INSERT INTO mnemo_profiles (user_id, app, doc, version, stated, updated_at) VALUES ($1, $2, $3, 1, $4, $5)
			ON CONFLICT (user_id) DO NOTHING`, p.UserID, p.App, jsonArg(p.Doc, "{}"), jsonArg(p.Stated, "{}"), p.UpdatedAt)
	} else {
		n, err = q.e.exec(ctx, "UPDATE mnemo_profiles SET doc = $2, version = $3, stated = $4, updated_at = $5 WHERE user_id = $1 AND version = $6",
			p.UserID, jsonArg(p.Doc, "{}"), p.Version, jsonArg(p.Stated, "{}"), p.UpdatedAt, p.Version-1)
	}
	if err != nil {
		return fmt.Errorf("save profile: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("save profile version %d: %w", p.Version, ErrConflict)
	}
	if _, err := q.e.exec(ctx, `INSERT INTO mnemo_profile_history (user_id, version, doc, changed, actor, session_id, at, stated_at, older, said)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, p.UserID, p.Version, jsonArg(hdoc, "{}"), jsonArg(c.Changed, "{}"), c.Actor, c.SessionID, c.At,
		statedOr(c.StatedAt, c.At), jsonArg(c.Older, "{}"), jsonArg(c.Said, "{}")); err != nil {
		return fmt.Errorf("record profile history: %w", err)
	}
	return nil
}

func (q queries) ListProfileHistory(ctx context.Context, userID string) ([]ProfileChange, error) {
	return queryAll(ctx, q, `SELECT h.user_id, h.version, h.doc, h.changed, h.actor, h.session_id, h.at, h.stated_at, h.older, h.said, u.app
		FROM mnemo_profile_history h JOIN mnemo_users u ON u.id = h.user_id WHERE h.user_id = $1 ORDER BY h.version`,
		[]any{userID}, func(r rows) (ProfileChange, error) {
			var c ProfileChange
			var app string
			err := r.Scan(&c.UserID, &c.Version, scanJSON{&c.Doc}, scanJSON{&c.Changed}, &c.Actor, &c.SessionID, scanTime{&c.At},
				scanTime{&c.StatedAt}, scanJSON{&c.Older}, scanJSON{&c.Said}, &app)
			hist := fmt.Sprintf("profile_history:%s:%d:", c.UserID, c.Version)
			for _, col := range []struct {
				name string
				v    *json.RawMessage
			}{{"doc", &c.Doc}, {"changed", &c.Changed}, {"older", &c.Older}, {"said", &c.Said}} {
				if err == nil {
					*col.v, err = q.openJSON(app, hist+col.name, *col.v)
				}
			}
			return c, err
		})
}
