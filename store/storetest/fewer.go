package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, fewerCases...)
}

// fewerCases cover the methods that do in one statement what took several
// (issue 14): batch inserts, the user upsert that returns the row, the
// locking read, the filtered audit read, the one-statement settling.
var fewerCases = []testCase{
	{"BatchInsertsStoreEveryRow", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		// More rows than one statement's parameters hold, so that batches split.
		events := make([]store.Event, 5000)
		for i := range events {
			events[i] = store.Event{SessionID: "s-1", Seq: i, UserID: "u-1", Type: "emotion", At: T0.Add(time.Duration(i) * time.Second)}
		}
		events[3].Data = json.RawMessage(`{"emotion":"calm"}`)
		must(t, s.InsertEvents(ctx, events))
		got, err := s.ListEvents(ctx, "s-1")
		must(t, err)
		if len(got) != len(events) || got[4999].Seq != 4999 || string(compact(t, got[3].Data)) != `{"emotion":"calm"}` || string(compact(t, got[0].Data)) != `{}` {
			t.Fatalf("%d events back", len(got))
		}
		must(t, s.InsertEvents(ctx, nil))
		if err := s.InsertEvents(ctx, events[:1]); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("event inserted twice: %v; want ErrConflict", err)
		}
		chunks := []store.Chunk{{SessionID: "s-1", Seq: 0, UserID: "u-1", KeyID: "k1", Nonce: []byte{1}, Ciphertext: []byte("a"), SHA256: []byte{2}, CreatedAt: T0},
			{SessionID: "s-1", Seq: 1, UserID: "u-1", KeyID: "k1", Nonce: []byte{3}, Ciphertext: []byte("b"), SHA256: []byte{4}, CreatedAt: T0}}
		must(t, s.InsertChunks(ctx, chunks))
		cs, err := s.ListChunks(ctx, "s-1")
		must(t, err)
		if len(cs) != 2 || string(cs[1].Ciphertext) != "b" {
			t.Fatalf("chunks %+v", cs)
		}

		mems := []store.Memory{
			{ID: "m-1", UserID: "u-1", App: appE, Key: "name", Value: "Peggy", Category: "fact", Importance: 90, Confidence: 0.9,
				Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
			{ID: "m-2", UserID: "u-1", App: appE, Key: "food", Value: "ramen", Category: "preference", Importance: 70, Confidence: 0.8,
				Status: store.MemoryDeprecated, CreatedAt: T0, UpdatedAt: T0, InvalidatedAt: ptr(T0.Add(time.Hour)), InvalidatedBy: "m-3"},
			{ID: "m-3", UserID: "u-1", App: appE, Key: "food", Value: "pho", Category: "preference", Importance: 70, Confidence: 0.8,
				Status: store.MemoryActive, SupersedesID: "m-2", CreatedAt: T0, UpdatedAt: T0, StatedAt: T0.Add(time.Hour), EventDate: "2026-12-01"},
		}
		must(t, s.InsertMemories(ctx, mems))
		all, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		if len(all) != 3 {
			t.Fatalf("%d memories", len(all))
		}
		m2, err := s.GetMemory(ctx, "u-1", "m-2")
		must(t, err)
		if !m2.StatedAt.Equal(T0) || m2.InvalidatedBy != "m-3" || m2.InvalidatedAt == nil {
			t.Fatalf("m-2 = %+v; a missing statement time is the creation time", m2)
		}
		dup := mems[0]
		dup.ID = "m-4"
		if err := s.InsertMemories(ctx, []store.Memory{dup}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a second active memory of a key: %v; want ErrConflict", err)
		}

		must(t, s.InsertStatements(ctx, []store.Statement{
			{MemoryID: "m-1", UserID: "u-1", Key: "name", Value: "Peggy", StatedAt: T0, SessionID: "s-1", CreatedAt: T0},
			{ID: "st-2", MemoryID: "m-3", UserID: "u-1", Key: "food", Value: "pho", StatedAt: T0.Add(time.Hour), SessionID: "s-1", Weight: 2, CreatedAt: T0},
		}))
		st, err := s.ListStatements(ctx, "u-1", nil)
		must(t, err)
		if len(st) != 2 || st[0].ID == "" || st[0].Weight != 1 || st[1].ID != "st-2" || st[1].Weight != 2 {
			t.Fatalf("statements %+v", st)
		}

		must(t, s.InsertMemoryChanges(ctx, []store.MemoryChange{
			{MemoryID: "m-1", UserID: "u-1", Action: "insert", Actor: "extraction", SessionID: "s-1", At: T0},
			{MemoryID: "m-3", UserID: "u-1", Action: "forget", Actor: "user", At: T0.Add(2 * time.Hour), Key: "food"},
			{MemoryID: "category:fact", UserID: "u-1", Action: "forget", Actor: "user", At: T0.Add(time.Hour)},
		}))
		changes, err := s.ListMemoryChanges(ctx, "u-1")
		must(t, err)
		forgets, err := s.ListMemoryChangesOf(ctx, "u-1", "forget")
		must(t, err)
		hash, err := s.ForgetKeyHasher(ctx)
		must(t, err)
		// A forget marker keeps its key hashed (issue 34 §7).
		if len(changes) != 3 || len(forgets) != 2 || forgets[0].MemoryID != "category:fact" || forgets[1].Key != hash("food") {
			t.Fatalf("changes %+v, forgets %+v", changes, forgets)
		}
		none, err := s.ListMemoryChangesOf(ctx, "u-2", "forget")
		must(t, err)
		if len(none) != 0 {
			t.Fatalf("another user's forgets: %+v", none)
		}
	}},
	{"EnsureUserUpsertsAndReturns", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		u, err := s.EnsureUser(ctx, store.User{ID: "u-1", App: appE, DisplayName: "Peggy", Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}, false)
		must(t, err)
		if u.ID != "u-1" || u.Timezone != "UTC" || u.DisplayName != "Peggy" || u.MemoryDisabled {
			t.Fatalf("new user %+v", u)
		}
		// A zone named replaces the stored one; one not named keeps it.
		u, err = s.EnsureUser(ctx, store.User{ID: "u-1", App: appE, Timezone: "Europe/Berlin", CreatedAt: T0, UpdatedAt: T0.Add(time.Hour)}, true)
		must(t, err)
		if u.Timezone != "Europe/Berlin" || u.DisplayName != "Peggy" || !u.UpdatedAt.Equal(T0.Add(time.Hour)) || !u.CreatedAt.Equal(T0) {
			t.Fatalf("named zone: %+v", u)
		}
		u, err = s.EnsureUser(ctx, store.User{ID: "u-1", App: appE, DisplayName: "Peg", Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}, false)
		must(t, err)
		if u.Timezone != "Europe/Berlin" || u.DisplayName != "Peg" {
			t.Fatalf("zone not named: %+v", u)
		}
		// A stored user without a zone takes the one given, named or not.
		must(t, s.UpsertUser(ctx, store.User{ID: "u-2", App: appE, CreatedAt: T0, UpdatedAt: T0}))
		u, err = s.EnsureUser(ctx, store.User{ID: "u-2", App: appE, Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}, false)
		must(t, err)
		if u.Timezone != "UTC" {
			t.Fatalf("zoneless user: %+v", u)
		}
		if _, err := s.EnsureUser(ctx, store.User{ID: "u-1", App: appA, DisplayName: "X", Timezone: "Asia/Tokyo", CreatedAt: T0, UpdatedAt: T0}, true); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("another app's user: %v; want ErrConflict", err)
		}
		got, err := s.GetUser(ctx, "u-1")
		must(t, err)
		if got.App != appE || got.Timezone != "Europe/Berlin" || got.DisplayName != "Peg" {
			t.Fatalf("another app's upsert changed the user: %+v", got)
		}
	}},
	{"OpenHandoffReadsTheSessionAndUpsertsTheUser", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		open := func(session string, u store.User, zoneNamed bool) (h store.HandoffStart, err error) {
			err = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				h, err = tx.OpenHandoff(ctx, session, u, zoneNamed)
				return err
			})
			return h, err
		}
		peggy := store.User{ID: "u-1", App: appE, DisplayName: "Peggy", Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}
		// No session: the user is upserted as EnsureUser upserts a twin.
		h, err := open("s-new", peggy, false)
		must(t, err)
		twin := peggy
		twin.ID = "u-twin"
		want, err := s.EnsureUser(ctx, twin, false)
		must(t, err)
		want.ID = "u-1"
		if h.Found || h.User != want {
			t.Fatalf("a new session: %+v; want the user %+v", h, want)
		}
		// A session closed already: found, as stored, and the user is not
		// touched (a handoff sent again writes nothing).
		closed := seedSession(t, s, "u-1", "s-closed")
		later := store.User{ID: "u-1", App: appE, DisplayName: "Margaret", Timezone: "Asia/Tokyo", CreatedAt: T0, UpdatedAt: T0.Add(time.Hour)}
		h, err = open("s-closed", later, true)
		must(t, err)
		if !h.Found || h.Session.ID != closed.ID || h.Session.BodySHA256 != closed.BodySHA256 || h.Session.Status != store.StatusClosed ||
			len(h.Session.Jobs) != 1 || h.User != (store.User{}) {
			t.Fatalf("a closed session: %+v", h)
		}
		if got, err := s.GetUser(ctx, "u-1"); err != nil || got.DisplayName != "Peggy" || got.Timezone != "UTC" || !got.UpdatedAt.Equal(T0) {
			t.Fatalf("a handoff sent again changed the user: %+v, %v", got, err)
		}
		// An active session: found, and the user upserted.
		must(t, s.CreateSession(ctx, store.Session{ID: "s-active", UserID: "u-1", App: appE, Status: store.StatusActive,
			StartedAt: T0, EndedAt: T0, Timezone: "UTC", UpdatedAt: T0}))
		h, err = open("s-active", later, true)
		must(t, err)
		if !h.Found || h.Session.Status != store.StatusActive || h.User.DisplayName != "Margaret" || h.User.Timezone != "Asia/Tokyo" {
			t.Fatalf("an active session: %+v", h)
		}
		// Another app's user: ErrOtherAppUser, which is ErrConflict, and nothing changed.
		_, err = open("s-other", store.User{ID: "u-1", App: appA, DisplayName: "X", CreatedAt: T0, UpdatedAt: T0}, false)
		if !errors.Is(err, store.ErrOtherAppUser) || !errors.Is(err, store.ErrConflict) {
			t.Fatalf("another app's user: %v; want ErrOtherAppUser and ErrConflict", err)
		}
		if got, err := s.GetUser(ctx, "u-1"); err != nil || got.App != appE || got.DisplayName != "Margaret" {
			t.Fatalf("another app's handoff changed the user: %+v, %v", got, err)
		}
	}},
	{"GetUserForUpdateReadsInATransaction", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		must(t, s.UpsertUser(ctx, store.User{ID: "u-1", App: appE, DisplayName: "Peggy", Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}))
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			u, err := tx.GetUserForUpdate(ctx, "u-1")
			if err != nil {
				return err
			}
			if u.DisplayName != "Peggy" || u.App != appE {
				return fmt.Errorf("user %+v", u)
			}
			if _, err := tx.GetUserForUpdate(ctx, "nobody"); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("missing user: %v; want ErrNotFound", err)
			}
			return nil
		}))
	}},
	{"SetSessionProcessedSettlesInOne", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		until := T0.Add(48 * time.Hour)
		must(t, s.SetSessionProcessed(ctx, "s-1", true, &until, T0.Add(time.Hour)))
		got, err := s.GetSession(ctx, "s-1")
		must(t, err)
		if got.Status != store.StatusProcessed || got.ProcessedAt == nil || !got.ProcessedAt.Equal(T0.Add(time.Hour)) ||
			!got.TranscriptRetained || got.RetainUntil == nil || !got.RetainUntil.Equal(until) || !got.UpdatedAt.Equal(T0.Add(time.Hour)) {
			t.Fatalf("session %+v", got)
		}
		must(t, s.SetSessionProcessed(ctx, "s-1", false, nil, T0.Add(2*time.Hour)))
		got, err = s.GetSession(ctx, "s-1")
		must(t, err)
		if got.TranscriptRetained || got.RetainUntil != nil || !got.ProcessedAt.Equal(T0.Add(2*time.Hour)) {
			t.Fatalf("session %+v", got)
		}
		if err := s.SetSessionProcessed(ctx, "nope", false, nil, T0); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing session: %v; want ErrNotFound", err)
		}
	}},
}
