// Queries of mnemo_users: a chat app's end users, and the first round trip of a handoff.

package store

import (
	"context"
	"errors"
	"fmt"
)

const userCols = "id, app, display_name, timezone, memory_disabled, created_at, updated_at"

func scanUser(r rows) (User, error) {
	var u User
	err := r.Scan(userDest(&u)...)
	return u, err
}

// userDest are the scan destinations of userCols.
func userDest(u *User) []any {
	return []any{&u.ID, &u.App, &u.DisplayName, &u.Timezone, &u.MemoryDisabled, scanTime{&u.CreatedAt}, scanTime{&u.UpdatedAt}}
}

// openUser opens a user's display name, sealed when the app's data is.
func (q queries) openUser(u User) (User, error) {
	var err error
	u.DisplayName, err = q.openText(u.App, "user:"+u.ID+":display_name", u.DisplayName)
	return u, err
}

func (q queries) UpsertUser(ctx context.Context, u User) error {
	name, err := q.sealText(u.App, "user:"+u.ID+":display_name", u.DisplayName)
	if err != nil {
		return err
	}
	u.DisplayName = name
	_, err = q.e.exec(ctx, `INSERT INTO mnemo_users (`+userCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET
			display_name = CASE WHEN excluded.display_name <> '' THEN excluded.display_name ELSE mnemo_users.display_name END,
			timezone = CASE WHEN excluded.timezone <> '' THEN excluded.timezone ELSE mnemo_users.timezone END,
			updated_at = excluded.updated_at`,
		u.ID, u.App, u.DisplayName, u.Timezone, u.MemoryDisabled, u.CreatedAt, u.UpdatedAt)
	if err != nil {
		return fmt.Errorf("upsert user: %w", err)
	}
	return nil
}

func (q queries) LockUser(ctx context.Context, id string) error {
	return q.queryOne(ctx, "SELECT id FROM mnemo_users WHERE id = $1 FOR UPDATE", []any{id}, func(r rows) error {
		var got string
		return r.Scan(&got)
	})
}

func (q queries) GetUser(ctx context.Context, id string) (User, error) {
	var u User
	err := q.queryOne(ctx, "SELECT "+userCols+" FROM mnemo_users WHERE id = $1", []any{id}, func(r rows) (err error) {
		if u, err = scanUser(r); err != nil {
			return err
		}
		u, err = q.openUser(u)
		return err
	})
	return u, err
}

func (q queries) GetUserForUpdate(ctx context.Context, id string) (User, error) {
	var u User
	err := q.queryOne(ctx, "SELECT "+userCols+" FROM mnemo_users WHERE id = $1 FOR UPDATE", []any{id}, func(r rows) (err error) {
		if u, err = scanUser(r); err != nil {
			return err
		}
		u, err = q.openUser(u)
		return err
	})
	return u, err
}

func (q queries) EnsureUser(ctx context.Context, u User, zoneNamed bool) (User, error) {
	var got User
	found := false
	s, err := q.ensureUserStep(u, zoneNamed, "", &got, &found)
	if err != nil {
		return User{}, err
	}
	if err := q.runStep(ctx, s); err != nil {
		return User{}, err
	}
	if !found {
		return User{}, otherAppUser(u.ID)
	}
	return got, nil
}

// ErrOtherAppUser is EnsureUser's and OpenHandoff's answer for a user id
// that another app's user has: it is also ErrConflict.
var ErrOtherAppUser = errors.New("the user belongs to another app")

func otherAppUser(id string) error {
	return fmt.Errorf("user %s: %w (%w)", id, ErrOtherAppUser, ErrConflict)
}

// ensureUserStep is EnsureUser's statement; the user as stored goes to got
// and found. unlessClosed, when set, is a session id: a user is then
// neither inserted nor updated when that session is there and no longer
// active (OpenHandoff).
func (q queries) ensureUserStep(u User, zoneNamed bool, unlessClosed string, got *User, found *bool) (step, error) {
	name, err := q.sealText(u.App, "user:"+u.ID+":display_name", u.DisplayName)
	if err != nil {
		return step{}, err
	}
	args := []any{u.ID, u.App, name, u.Timezone, u.MemoryDisabled, u.CreatedAt, u.UpdatedAt, zoneNamed}
	cond := ""
	if unlessClosed != "" {
		// Only the update needs the condition: a user not there yet has
		// no session.
		args = append(args, unlessClosed)
		cond = " AND NOT EXISTS (SELECT 1 FROM mnemo_sessions WHERE id = $9 AND status <> 'active')"
	}
	return step{what: "ensure user", sql: `INSERT INTO mnemo_users (` + userCols + `) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (id) DO UPDATE SET
			display_name = CASE WHEN excluded.display_name <> '' THEN excluded.display_name ELSE mnemo_users.display_name END,
			timezone = CASE WHEN excluded.timezone <> '' AND ($8 OR mnemo_users.timezone = '') THEN excluded.timezone ELSE mnemo_users.timezone END,
			updated_at = excluded.updated_at
		WHERE mnemo_users.app = excluded.app` + cond + `
		RETURNING ` + userCols, args: args, scan: func(r rows) (err error) {
		if *got, err = scanUser(r); err != nil {
			return err
		}
		*found = true
		*got, err = q.openUser(*got)
		return err
	}}, nil
}

// HandoffStart is what a handoff reads first (OpenHandoff).
type HandoffStart struct {
	Session Session // the session as it was, locked, when Found
	Found   bool
	User    User // the user as stored after the upsert; zero when the session was closed already
}

func (q queries) OpenHandoff(ctx context.Context, sessionID string, u User, zoneNamed bool) (HandoffStart, error) {
	var h HandoffStart
	userFound := false
	ensure, err := q.ensureUserStep(u, zoneNamed, sessionID, &h.User, &userFound)
	if err != nil {
		return HandoffStart{}, err
	}
	err = q.pipeline(ctx,
		step{what: "read session", sql: "SELECT " + sessionCols + " FROM mnemo_sessions WHERE id = $1 FOR UPDATE", args: []any{sessionID},
			scan: func(r rows) (err error) {
				h.Session, err = scanSession(r)
				h.Found = true
				return err
			}},
		ensure)
	switch {
	case err != nil:
		return HandoffStart{}, err
	case h.Found && h.Session.Status != StatusActive:
		return HandoffStart{Session: h.Session, Found: true}, nil // sent again: nothing written
	case userFound:
		return h, nil
	}
	// No user row: the user is another app's, or the session was closed
	// by a concurrent handoff between the two statements (Postgres reads
	// each with a snapshot of its own). Which, a second read says.
	if _, err := q.GetSessionForUpdate(ctx, sessionID); err == nil && !h.Found {
		return HandoffStart{}, fmt.Errorf("session %s closed by a concurrent handoff: %w", sessionID, ErrConflict)
	}
	return HandoffStart{}, otherAppUser(u.ID)
}
