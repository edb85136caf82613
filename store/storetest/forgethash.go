package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

// Issue 34 §7, §9: a forget marker keeps a keyed hash of the key, never
// its text, and one marker of each key, category and profile stays.

func init() {
	cases = append(cases, forgetHashCases...)
}

var forgetHashCases = []testCase{
	{"ForgetMarkersKeepAKeyedHash", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		forget := func(memoryID, key string, minutes int) {
			must(t, s.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: memoryID, UserID: "u-1", Action: "forget", Actor: "user",
				At: T0.Add(time.Duration(minutes) * time.Minute), Key: key}))
		}
		forget("m-1", "goal:quit_drinking", 1)
		forget("m-2", "goal:quit_drinking", 2) // the same key again, another memory
		forget("m-3", "allergy:shellfish", 3)
		for i := range 5 {
			forget("category:event", "", 4+i)
		}
		forget("profile", "", 10)
		forget("profile", "", 11)
		h, err := s.ForgetKeyHasher(ctx)
		must(t, err)
		marks, err := s.ListMemoryChangesOf(ctx, "u-1", "forget")
		must(t, err)
		byWhat := map[string]store.MemoryChange{}
		for _, m := range marks {
			if strings.Contains(m.Key, "drinking") || strings.Contains(m.Key, "shellfish") {
				t.Fatalf("marker %+v keeps the key's text", m)
			}
			byWhat[m.MemoryID+"|"+m.Key] = m
		}
		want := map[string]int{"m-2|" + h("goal:quit_drinking"): 2, "m-3|" + h("allergy:shellfish"): 3, "category:event|": 8, "profile|": 11}
		if len(marks) != len(want) {
			t.Fatalf("%d markers %+v; want one of each key, category and profile (%d)", len(marks), marks, len(want))
		}
		for k, minutes := range want {
			if m, ok := byWhat[k]; !ok || !m.At.Equal(T0.Add(time.Duration(minutes)*time.Minute)) {
				t.Errorf("marker %s: %+v; want the newest, at +%dm", k, m, minutes)
			}
		}
		if !store.IsHashedKey(h("goal:quit_drinking")) || store.HashedKeyCategory(h("goal:quit_drinking")) != "goal" ||
			h("goal:quit_drinking") == h("goal:quit_smoking") || h(h("pet:dog")) != h("pet:dog") {
			t.Fatalf("hashes: %q %q", h("goal:quit_drinking"), h("goal:quit_smoking"))
		}
		// Another user's marker of the same key stays.
		seedSession(t, s, "u-2", "s-2")
		must(t, s.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: "m-9", UserID: "u-2", Action: "forget", Actor: "user", At: T0, Key: "goal:quit_drinking"}))
		if again, err := s.ListMemoryChangesOf(ctx, "u-1", "forget"); err != nil || len(again) != len(want) {
			t.Fatalf("u-1's markers after u-2's forget: %d, %v", len(again), err)
		}
	}},
	{"Migration0018HashesStoredForgetKeys", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		h, err := s.ForgetKeyHasher(ctx)
		must(t, err)
		rollBackTo(t, s, 18, "forget_key_hash")
		// Markers as the store wrote them before 0018: the key as text, and
		// a category forgotten three times.
		for _, row := range []string{
			"('f-1', 'm-1', 'u-1', 'forget', 'user', '', '2026-11-20T09:01:00.000000Z', 'goal:quit_drinking')",
			"('f-2', 'category:event', 'u-1', 'forget', 'user', '', '2026-11-20T09:02:00.000000Z', '')",
			"('f-3', 'category:event', 'u-1', 'forget', 'user', '', '2026-11-20T09:03:00.000000Z', '')",
			"('f-4', 'category:event', 'u-1', 'forget', 'user', '', '2026-11-20T09:04:00.000000Z', '')",
			"('f-5', 'm-5', 'u-1', 'insert', 'extraction', 's-1', '2026-11-20T09:05:00.000000Z', '')",
		} {
			rawSQL(t, s, "INSERT INTO mnemo_memory_history (id, memory_id, user_id, action, actor, session_id, at, key) VALUES "+row)
		}
		_, err = s.MigrateUp(ctx)
		must(t, err)
		if n := rawSQL(t, s, "SELECT count(*) FROM mnemo_memory_history WHERE key LIKE '%drinking%'"); n != 0 {
			t.Fatalf("%d rows keep the key's text after 0018", n)
		}
		changes, err := s.ListMemoryChanges(ctx, "u-1")
		must(t, err)
		ids := []string{}
		for _, c := range changes {
			ids = append(ids, c.ID)
		}
		if strings.Join(ids, ",") != "f-1,f-4,f-5" || changes[0].Key != h("goal:quit_drinking") {
			t.Fatalf("after 0018: %+v; want f-1 keyed by the hash the store makes now, the newest category marker f-4, the insert f-5", changes)
		}
	}},
}

// rollBackTo rolls migration version (named name) and every newer one back.
func rollBackTo(t *testing.T, s store.Store, version int, name string) {
	t.Helper()
	ctx := context.Background()
	all, err := s.MigrationStatus(ctx)
	must(t, err)
	back := 0
	for _, m := range all {
		if m.Version >= version {
			back++
		}
		if m.Version == version && m.Name != name {
			t.Fatalf("migration %04d is %s; this test is written for %04d_%s", version, m.Name, version, name)
		}
	}
	_, err = s.MigrateDown(ctx, back)
	must(t, err)
}
