package storetest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, readCases...)
}

// readCases cover the reads that answer a request with the rows it shows,
// filtered in SQL: a session's records and cues, and the summaries with their
// sessions' ends (issue 24).
var readCases = []testCase{
	{"PackMemoriesAreTheActiveOnesWithThePacksColumns", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		must(t, s.UpsertUser(ctx, store.User{ID: "u-2", App: appE, CreatedAt: T0, UpdatedAt: T0}))
		var ms []store.Memory
		for i := range 5 {
			m := store.Memory{ID: fmt.Sprintf("m%d", i), UserID: "u-1", App: appE, Key: fmt.Sprintf("k%d", i), Value: fmt.Sprintf("v%d", i),
				Category: "fact", Importance: 10 * i, Confidence: 0.5, Status: store.MemoryActive, SourceSessionID: "s-1", Confirmations: 2,
				CreatedAt: T0, UpdatedAt: T0.Add(time.Duration(i) * time.Hour), StatedAt: T0.Add(-time.Hour), EventDate: "2026-12-01", Wording: "soon"}
			switch i {
			case 1:
				m.ExpiresAt, m.LastUsedAt = ptr(T0.Add(time.Hour)), ptr(T0.Add(time.Minute))
			case 3:
				m.Status, m.InvalidatedAt, m.InvalidatedBy = store.MemoryDeprecated, ptr(T0), "m4"
			case 4:
				m.UserID = "u-2" // another user's
			}
			ms = append(ms, m)
		}
		must(t, s.InsertMemories(ctx, ms))
		got, err := s.ListPackMemories(ctx, "u-1")
		must(t, err)
		full, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{})
		must(t, err)
		if len(got) != 3 || len(full) != 3 {
			t.Fatalf("ListPackMemories = %d memories, ListMemories %d; want u-1's 3 active ones", len(got), len(full))
		}
		byID := map[string]store.PackMemory{}
		for _, m := range got {
			byID[m.ID] = m
		}
		for _, f := range full {
			want := store.PackMemory{ID: f.ID, Key: f.Key, Value: f.Value, Category: f.Category, Importance: f.Importance,
				ExpiresAt: f.ExpiresAt, LastUsedAt: f.LastUsedAt, UpdatedAt: f.UpdatedAt, StatedAt: f.StatedAt, EventDate: f.EventDate}
			if g, ok := byID[f.ID]; !ok || !reflect.DeepEqual(g, want) {
				t.Fatalf("ListPackMemories has %+v; want %+v", g, want)
			}
		}
		empty, err := s.ListPackMemories(ctx, "nobody")
		must(t, err)
		if empty == nil || len(empty) != 0 {
			t.Fatalf("ListPackMemories(nobody) = %#v; want empty, not nil", empty)
		}

		// MarkMemoriesUsed sets last_used_at and nothing else, on the
		// user's memories of the ids alone.
		at := T0.Add(48 * time.Hour)
		before, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		must(t, s.MarkMemoriesUsed(ctx, "u-1", []string{"m1", "m3", "m4", "nope"}, at))
		must(t, s.MarkMemoriesUsed(ctx, "u-1", nil, at))
		after, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		for i, b := range before {
			a := after[i]
			if b.ID == "m1" || b.ID == "m3" {
				if a.LastUsedAt == nil || !a.LastUsedAt.Equal(at) {
					t.Fatalf("%s: last used %v; want %v", a.ID, a.LastUsedAt, at)
				}
				b.LastUsedAt = a.LastUsedAt
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("after MarkMemoriesUsed %+v; before %+v", a, b)
			}
		}
		other, err := s.GetMemory(ctx, "u-2", "m4")
		must(t, err)
		if other.LastUsedAt != nil {
			t.Fatalf("another user's memory was marked: %v", other.LastUsedAt)
		}
	}},
	{"SessionRecordsAreTheSessionsOwn", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-1", "s-2")
		seedSession(t, s, "u-2", "s-3")
		rec := func(user, session, kind, key string) {
			must(t, s.UpsertRecord(ctx, store.Record{UserID: user, App: appE, Type: kind, Key: key,
				Data: json.RawMessage(`{"n":1}`), SessionID: session, UpdatedAt: T0}))
		}
		rec("u-1", "s-1", "pref", "b")
		rec("u-1", "s-1", "pref", "a")
		rec("u-1", "s-1", "count", "z")
		rec("u-1", "s-2", "pref", "c")
		rec("u-1", "s-1", "pref", "moved")
		rec("u-1", "s-2", "pref", "moved") // a later session wrote it last
		rec("u-2", "s-3", "pref", "a")
		got, err := s.ListSessionRecords(ctx, "s-1")
		must(t, err)
		if names := recordNames(got); names != "u-1/count/z u-1/pref/a u-1/pref/b" {
			t.Fatalf("ListSessionRecords(s-1) = %s; want s-1's three, by kind and key", names)
		}
		if string(compact(t, got[0].Data)) != `{"n":1}` || got[0].SessionID != "s-1" || !got[0].UpdatedAt.Equal(T0) {
			t.Fatalf("record read back as %+v", got[0])
		}
		got, err = s.ListSessionRecords(ctx, "s-2")
		must(t, err)
		if names := recordNames(got); names != "u-1/pref/c u-1/pref/moved" {
			t.Fatalf("ListSessionRecords(s-2) = %s", names)
		}
		// What ListSessionRecords answers is what ListRecords filtered by
		// session answered before it.
		all, err := s.ListRecords(ctx, "u-1", nil)
		must(t, err)
		var want []store.Record
		for _, r := range all {
			if r.SessionID == "s-2" {
				want = append(want, r)
			}
		}
		if recordNames(want) != recordNames(got) {
			t.Fatalf("ListRecords filtered = %s; ListSessionRecords = %s", recordNames(want), recordNames(got))
		}
		for _, id := range []string{"s-none", ""} {
			got, err := s.ListSessionRecords(ctx, id)
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("ListSessionRecords(%q) = %v, %v; want empty", id, got, err)
			}
		}
	}},
	{"SessionCuesAreTheSessionsOwn", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-1", "s-2")
		seedSession(t, s, "u-2", "s-3")
		cue := func(id, user, session, kind, field string, at time.Time, resolved bool) {
			c := store.Cue{ID: id, UserID: user, App: appE, Type: kind, Field: field, Detail: json.RawMessage(`{"severity":"high"}`),
				SessionID: session, CreatedAt: at}
			if resolved {
				c.ResolvedAt = ptr(at.Add(time.Hour))
			}
			must(t, s.InsertCue(ctx, c))
		}
		cue("c-3", "u-1", "s-1", "risk", "m-2", T0.Add(2*time.Minute), false)
		cue("c-1", "u-1", "s-1", "risk", "m-1", T0.Add(time.Minute), true) // resolved cues are listed too
		cue("c-2", "u-1", "s-1", "change", "mood", T0.Add(2*time.Minute), false)
		cue("c-4", "u-1", "s-2", "risk", "m-1", T0, false)
		cue("c-5", "u-2", "s-3", "risk", "m-1", T0, false)
		got, err := s.ListSessionCues(ctx, "s-1")
		must(t, err)
		if ids := cueIDs(got); ids != "c-1 c-2 c-3" {
			t.Fatalf("ListSessionCues(s-1) = %s; want s-1's three, oldest first, then by id", ids)
		}
		if c := got[0]; c.UserID != "u-1" || c.Type != "risk" || c.Field != "m-1" || c.ResolvedAt == nil ||
			string(compact(t, c.Detail)) != `{"severity":"high"}` || !c.CreatedAt.Equal(T0.Add(time.Minute)) {
			t.Fatalf("cue read back as %+v", c)
		}
		all, err := s.ListCues(ctx, "u-1", false)
		must(t, err)
		var want []store.Cue
		for _, c := range all {
			if c.SessionID == "s-1" {
				want = append(want, c)
			}
		}
		if cueIDs(want) != cueIDs(got) {
			t.Fatalf("ListCues filtered = %s; ListSessionCues = %s", cueIDs(want), cueIDs(got))
		}
		for _, id := range []string{"s-none", ""} {
			got, err := s.ListSessionCues(ctx, id)
			if err != nil || got == nil || len(got) != 0 {
				t.Fatalf("ListSessionCues(%q) = %v, %v; want empty", id, got, err)
			}
		}
	}},
	{"SummariesCarryTheirSessionsEnd", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		s1 := seedSession(t, s, "u-1", "s-1")
		s2 := store.Session{ID: "s-2", UserID: "u-1", App: appE, Status: store.StatusClosed, StartedAt: T0.Add(48 * time.Hour),
			EndedAt: T0.Add(49 * time.Hour), Timezone: "UTC", BodySHA256: "def", UpdatedAt: T0}
		must(t, s.CreateSession(ctx, s2))
		// Written in the other order than the sessions ended: the list
		// follows the sessions, and each carries its session's end.
		must(t, s.UpsertSummary(ctx, store.Summary{SessionID: "s-2", PromptVersion: "v1", UserID: "u-1", App: appE, Source: "rules",
			Data: json.RawMessage(`{"n":2}`), CreatedAt: T0.Add(50 * time.Hour)}))
		must(t, s.UpsertSummary(ctx, store.Summary{SessionID: "s-1", PromptVersion: "v1", UserID: "u-1", App: appE, Source: "rules",
			Data: json.RawMessage(`{"n":1}`), CreatedAt: T0.Add(72 * time.Hour)}))
		got, err := s.ListSummaries(ctx, "u-1", 10)
		must(t, err)
		if len(got) != 2 || got[0].SessionID != "s-2" || got[1].SessionID != "s-1" {
			t.Fatalf("ListSummaries = %v; want s-2 then s-1", got)
		}
		for i, sess := range []store.Session{s2, s1} {
			stored, err := s.GetSession(ctx, sess.ID)
			must(t, err)
			if !got[i].SessionAt.Equal(stored.EndedAt) || !got[i].SessionAt.Equal(sess.EndedAt) {
				t.Fatalf("summary of %s: SessionAt %v; want the session's end %v", sess.ID, got[i].SessionAt, stored.EndedAt)
			}
		}
	}},
}

func recordNames(rs []store.Record) string {
	out := ""
	for i, r := range rs {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprintf("%s/%s/%s", r.UserID, r.Type, r.Key)
	}
	return out
}

func cueIDs(cs []store.Cue) string {
	out := ""
	for i, c := range cs {
		if i > 0 {
			out += " "
		}
		out += c.ID
	}
	return out
}

func init() {
	cases = append(cases, testCase{"ReadPackMemoriesReadsWhatTheBoundNames", readPackMemories})
}

// readPackMemories: ReadPackMemories reads the user's active, unexpired
// memories of the keys asked, used since the time asked, holding a word
// asked however upper case writes it (the Kelvin sign, İ, É), the most
// important of each list (by importance, then update), and every irregular
// one (a key or category in another case or with spaces, a value that may
// be blank); each once, and nothing else; and counts the active unexpired
// ones.
func readPackMemories(t *testing.T, s store.Store) {
	ctx := context.Background()
	seedSession(t, s, "u-1", "s-1")
	must(t, s.UpsertUser(ctx, store.User{ID: "u-2", App: appE, CreatedAt: T0, UpdatedAt: T0}))
	now := T0.Add(123456789 * time.Nanosecond)
	since := now.Add(-7 * 24 * time.Hour)
	type mem struct {
		id, key, value, category string
		importance               int
		updated                  time.Duration // before T0
		expires, used            *time.Time
		status, user             string
	}
	mems := []mem{
		{id: "name", key: "name", value: "Sam", category: "fact", importance: 1},
		{id: "Name", key: " Name", value: "Sam", category: "fact", importance: 1},
		{id: "nick-kelvin", key: "nic\u212aname", value: "Sammy", category: "fact", importance: 1},
		{id: "blank", key: "likes:x", value: "\u200b ", category: "fact", importance: 1},
		{id: "cjk", key: "plan:trip", value: "東京", category: "fact", importance: 1},
		{id: "cat-upper", key: "likes:y", value: "y", category: "Preference", importance: 1},
		{id: "cat-space", key: "likes:z", value: "z", category: "preference\u00a0", importance: 1},
		{id: "top1", key: "k1", value: "v", category: "fact", importance: 90, updated: time.Hour},
		{id: "top2", key: "k2", value: "v", category: "fact", importance: 90},
		{id: "top-expired", key: "k3", value: "v", category: "fact", importance: 95, expires: ptr(now.Truncate(time.Microsecond))},
		{id: "top-old", key: "k4", value: "v", category: "fact", importance: 99, status: store.MemoryDeprecated},
		{id: "top3", key: "k5", value: "v", category: "preference", importance: 80, expires: ptr(now.Truncate(time.Microsecond).Add(time.Microsecond))},
		{id: "pref1", key: "likes:a", value: "a", category: "preference", importance: 50},
		{id: "pref2", key: "likes:b", value: "b", category: "preference", importance: 50, updated: time.Second},
		{id: "pref3", key: "likes:c", value: "c", category: "preference", importance: 40},
		{id: "used", key: "k6", value: "v", category: "fact", importance: 2, used: ptr(since.Truncate(time.Microsecond).Add(time.Microsecond))},
		{id: "used-long-ago", key: "k7", value: "v", category: "fact", importance: 2, used: ptr(since.Add(-time.Second))},
		{id: "king", key: "works_at", value: "\u212aING's bakery", category: "fact", importance: 3},
		{id: "istanbul", key: "lives_in", value: "İSTANBUL", category: "fact", importance: 3},
		{id: "cafe", key: "favorite_drink", value: "CAFÉ au lait", category: "fact", importance: 3},
		{id: "tokyo-key", key: "plan:東京", value: "soon", category: "fact", importance: 3},
		{id: "tea-key", key: "likes:green_TEA", value: "yes", category: "fact", importance: 3},
		{id: "plain", key: "k8", value: "nothing asked", category: "fact", importance: 3},
		{id: "other-user", key: "name", value: "Kim", category: "fact", importance: 100, user: "u-2"},
	}
	var ms []store.Memory
	for _, m := range mems {
		ms = append(ms, store.Memory{ID: m.id, UserID: cmp.Or(m.user, "u-1"), App: appE, Key: m.key, Value: m.value, Category: m.category,
			Importance: m.importance, Confidence: 0.5, Status: cmp.Or(m.status, store.MemoryActive), Confirmations: 1,
			ExpiresAt: m.expires, LastUsedAt: m.used, CreatedAt: T0, UpdatedAt: T0.Add(-m.updated), StatedAt: T0})
	}
	must(t, s.InsertMemories(ctx, ms))
	got, err := s.ReadPackMemories(ctx, "u-1", store.PackRead{Now: now, Keys: []string{"name", "nickname"}, UsedSince: since,
		Words: []string{"king", "istanbul", "café", "東京", "tea"},
		Tops:  []store.PackTop{{Limit: 3}, {Category: "preference", Limit: 2}, {Category: "event", Limit: 2}}})
	must(t, err)
	var ids []string
	for _, m := range got.Memories {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	want := []string{"Name", "blank", "cafe", "cat-space", "cat-upper", "cjk", "istanbul", "king", "name", "nick-kelvin",
		"pref1", "tea-key", "tokyo-key", "top1", "top2", "top3", "used"}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("ReadPackMemories read %v; want %v", ids, want)
	}
	// pref1 and pref2 tie on importance: the newer first.
	if tops := [][]string{{"top2", "top1", "top3"}, {"top3", "pref1"}, nil}; !reflect.DeepEqual(got.Tops, tops) {
		t.Fatalf("ReadPackMemories lists %v; want %v", got.Tops, tops)
	}
	if active := len(mems) - 3; got.Active != active {
		t.Fatalf("ReadPackMemories counts %d active unexpired memories; want %d", got.Active, active)
	}
	for _, m := range got.Memories {
		if m.ID == "top3" && (m.Key != "k5" || m.Value != "v" || m.Category != "preference" || m.Importance != 80 || m.ExpiresAt == nil ||
			!m.UpdatedAt.Equal(T0) || !m.StatedAt.Equal(T0)) {
			t.Fatalf("ReadPackMemories reads %+v", m)
		}
	}
	// A user with few memories has them all read, the lists as the
	// statement makes them.
	must(t, s.UpsertUser(ctx, store.User{ID: "u-3", App: appE, CreatedAt: T0, UpdatedAt: T0}))
	var few []store.Memory
	for i, m := range ms[:16] {
		m.UserID, m.ID, m.Key = "u-3", "few-"+m.ID, m.Key+"_3"
		m.Importance = i
		if m.ID == "few-pref2" {
			m.Importance = 14 // as pref3, which is newer
		}
		few = append(few, m)
	}
	must(t, s.InsertMemories(ctx, few))
	small, err := s.ReadPackMemories(ctx, "u-3", store.PackRead{Now: now, Tops: []store.PackTop{{Limit: 4}, {Category: "preference", Limit: 2}}})
	must(t, err)
	// 16 memories: one deprecated, one expired at now.
	if len(small.Memories) != 14 || small.Active != 14 {
		t.Fatalf("ReadPackMemories(u-3) read %d memories and counted %d; want the 14 active unexpired ones", len(small.Memories), small.Active)
	}
	if tops := [][]string{{"few-used", "few-pref3", "few-pref2", "few-pref1"}, {"few-pref3", "few-pref2"}}; !reflect.DeepEqual(small.Tops, tops) {
		t.Fatalf("ReadPackMemories(u-3) lists %v; want %v", small.Tops, tops)
	}
	empty, err := s.ReadPackMemories(ctx, "nobody", store.PackRead{Now: now, Tops: []store.PackTop{{Limit: 3}}})
	must(t, err)
	if empty.Memories == nil || len(empty.Memories) != 0 || empty.Active != 0 || len(empty.Tops) != 1 || len(empty.Tops[0]) != 0 {
		t.Fatalf("ReadPackMemories(nobody) = %#v; want nothing", empty)
	}
}
