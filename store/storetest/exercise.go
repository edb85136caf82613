package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

// Exercise runs the conformance suite against a backend. Every case opens its
// own database (a temporary file or a schema of its own).
func Exercise(t *testing.T, b Backend) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, b.Open(t))
		})
	}
}

type testCase struct {
	name string
	run  func(t *testing.T, s store.Store)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// seedSession stores a user and a closed session for them.
func seedSession(t *testing.T, s store.Store, userID, sessionID string) store.Session {
	t.Helper()
	ctx := context.Background()
	must(t, s.UpsertUser(ctx, store.User{ID: userID, App: appE, Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}))
	sess := store.Session{ID: sessionID, UserID: userID, App: appE, Status: store.StatusClosed,
		StartedAt: T0, EndedAt: T0.Add(20 * time.Minute), Timezone: "UTC", MessageCount: 3, BodySHA256: "abc",
		Jobs: []store.JobRef{{ID: 7, Kind: "extract"}}, ClosedAt: ptr(T0.Add(20 * time.Minute)), UpdatedAt: T0}
	must(t, s.CreateSession(ctx, sess))
	return sess
}

func ptr[T any](v T) *T { return &v }

var cases = []testCase{
	{"MigrationsRoundTrip", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		st, err := s.MigrationStatus(ctx)
		must(t, err)
		if len(st) == 0 {
			t.Fatal("no migrations listed")
		}
		for _, m := range st {
			if m.AppliedAt == nil {
				t.Fatalf("migration %04d_%s not applied after MigrateUp", m.Version, m.Name)
			}
		}
		again, err := s.MigrateUp(ctx)
		must(t, err)
		if len(again) != 0 {
			t.Fatalf("second MigrateUp applied %v; want nothing", again)
		}
		newest := st[len(st)-1].Version
		down, err := s.MigrateDown(ctx, 1)
		must(t, err)
		if len(down) != 1 || down[0] != newest {
			t.Fatalf("MigrateDown(1) rolled back %v; want [%d]", down, newest)
		}
		if n, err := s.Pending(ctx); err != nil || n != 1 {
			t.Fatalf("Pending after down 1 = %d, %v; want 1", n, err)
		}
		up, err := s.MigrateUp(ctx)
		must(t, err)
		if len(up) != 1 || up[0] != newest {
			t.Fatalf("MigrateUp after down applied %v; want [%d]", up, newest)
		}
		seedSession(t, s, "u-1", "s-1") // the schema works again
	}},
	{"SessionCreateIsUnique", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		want := seedSession(t, s, "u-1", "s-1")
		err := s.CreateSession(ctx, want)
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second CreateSession: %v; want ErrConflict", err)
		}
		got, err := s.GetSession(ctx, "s-1")
		must(t, err)
		if got.Status != store.StatusClosed || got.MessageCount != 3 || got.BodySHA256 != "abc" ||
			!got.EndedAt.Equal(want.EndedAt) || len(got.Jobs) != 1 || got.Jobs[0] != want.Jobs[0] {
			t.Fatalf("GetSession = %+v; want %+v", got, want)
		}
		if _, err := s.GetSession(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("GetSession(missing): %v; want ErrNotFound", err)
		}
	}},
	{"SessionStatusAndRetention", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		at := T0.Add(time.Hour)
		must(t, s.SetSessionStatus(ctx, "s-1", store.StatusProcessed, at))
		until := at.Add(30 * 24 * time.Hour)
		must(t, s.SetTranscriptRetention(ctx, "s-1", true, &until, at))
		got, err := s.GetSession(ctx, "s-1")
		must(t, err)
		if got.Status != store.StatusProcessed || got.ProcessedAt == nil || !got.ProcessedAt.Equal(at) {
			t.Fatalf("after processed: status %q processed_at %v", got.Status, got.ProcessedAt)
		}
		if !got.TranscriptRetained || got.RetainUntil == nil || !got.RetainUntil.Equal(until) {
			t.Fatalf("retention = %v until %v; want true until %v", got.TranscriptRetained, got.RetainUntil, until)
		}
		if err := s.SetSessionStatus(ctx, "missing", store.StatusFailed, at); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("SetSessionStatus(missing): %v; want ErrNotFound", err)
		}
	}},
	{"TimesKeepMicrosecondsAndOrder", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		base := time.Date(2026, 3, 29, 1, 59, 59, 123456000, time.FixedZone("CET", 3600))
		var evs []store.Event
		// Out of order and across zones: the store must order by instant.
		for i, d := range []time.Duration{3 * time.Second, time.Microsecond, 0} {
			evs = append(evs, store.Event{SessionID: "s-1", Seq: i, UserID: "u-1", Type: "emotion", At: base.Add(d).In(time.UTC),
				Data: json.RawMessage(`{"emotion":"calm"}`)})
		}
		evs[1].At = evs[1].At.In(time.FixedZone("X", -5*3600))
		must(t, s.InsertEvents(ctx, evs))
		got, err := s.ListUserEvents(ctx, "u-1", []string{"emotion"}, base)
		must(t, err)
		if len(got) != 3 {
			t.Fatalf("ListUserEvents returned %d events; want 3", len(got))
		}
		if !got[0].At.Equal(base) || !got[1].At.Equal(base.Add(time.Microsecond)) || !got[2].At.Equal(base.Add(3*time.Second)) {
			t.Fatalf("events out of order or lost precision: %v, %v, %v", got[0].At, got[1].At, got[2].At)
		}
		later, err := s.ListUserEvents(ctx, "u-1", nil, base.Add(time.Second))
		must(t, err)
		if len(later) != 1 {
			t.Fatalf("ListUserEvents(since +1s) = %d events; want 1", len(later))
		}
	}},
	{"EventsKeepDataAndFilterKinds", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		must(t, s.InsertEvents(ctx, []store.Event{
			{SessionID: "s-1", Seq: 0, UserID: "u-1", Type: "urge", At: T0, MessageID: "m1", Data: json.RawMessage(`{"intensity":7,"trigger":"loneliness"}`)},
			{SessionID: "s-1", Seq: 1, UserID: "u-1", Type: "unknown-kind", At: T0, Data: json.RawMessage(`{"x":[1,2]}`)},
		}))
		all, err := s.ListEvents(ctx, "s-1")
		must(t, err)
		if len(all) != 2 || all[1].Type != "unknown-kind" {
			t.Fatalf("ListEvents = %+v; unknown kinds must be stored", all)
		}
		var d struct {
			Intensity int    `json:"intensity"`
			Trigger   string `json:"trigger"`
		}
		must(t, json.Unmarshal(all[0].Data, &d))
		if d.Intensity != 7 || d.Trigger != "loneliness" || all[0].MessageID != "m1" {
			t.Fatalf("event data = %s; want intensity 7 trigger loneliness", all[0].Data)
		}
		urges, err := s.ListUserEvents(ctx, "u-1", []string{"urge"}, T0.Add(-time.Hour))
		must(t, err)
		if len(urges) != 1 {
			t.Fatalf("ListUserEvents(urge) = %d; want 1", len(urges))
		}
	}},
	{"ChunksRoundTripBytes", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		c := store.Chunk{SessionID: "s-1", Seq: 0, UserID: "u-1", KeyID: "k1", Nonce: []byte{0, 1, 2, 255},
			Ciphertext: []byte{9, 0, 8, 0, 7}, SHA256: make([]byte, 32), CreatedAt: T0}
		must(t, s.InsertChunks(ctx, []store.Chunk{c, {SessionID: "s-1", Seq: 1, UserID: "u-1", KeyID: "k1", Nonce: []byte{1}, Ciphertext: []byte{2}, SHA256: []byte{3}, CreatedAt: T0}}))
		got, err := s.ListChunks(ctx, "s-1")
		must(t, err)
		if len(got) != 2 || string(got[0].Nonce) != string(c.Nonce) || string(got[0].Ciphertext) != string(c.Ciphertext) || got[0].KeyID != "k1" {
			t.Fatalf("ListChunks = %+v", got)
		}
		n, err := s.DeleteChunks(ctx, "s-1")
		must(t, err)
		if n != 2 {
			t.Fatalf("DeleteChunks = %d; want 2", n)
		}
		got, err = s.ListChunks(ctx, "s-1")
		must(t, err)
		if len(got) != 0 {
			t.Fatalf("chunks left after delete: %d", len(got))
		}
	}},
	{"SummaryUpsertIsIdempotent", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-1", "s-2")
		sum := store.Summary{SessionID: "s-1", PromptVersion: "v1", UserID: "u-1", App: appE, Source: "rules", Data: json.RawMessage(`{"n":1}`), CreatedAt: T0}
		must(t, s.UpsertSummary(ctx, sum))
		sum.Data = json.RawMessage(`{"n":2}`)
		must(t, s.UpsertSummary(ctx, sum))
		must(t, s.UpsertSummary(ctx, store.Summary{SessionID: "s-2", PromptVersion: "v1", UserID: "u-1", App: appE, Source: "llm", Data: json.RawMessage(`{"n":3}`), CreatedAt: T0.Add(time.Hour)}))
		list, err := s.ListSummaries(ctx, "u-1", 10)
		must(t, err)
		if len(list) != 2 {
			t.Fatalf("ListSummaries = %d summaries; want 2 (one per session)", len(list))
		}
		if list[0].SessionID != "s-2" {
			t.Fatalf("ListSummaries not newest first: %s first", list[0].SessionID)
		}
		got, err := s.GetSummary(ctx, "s-1")
		must(t, err)
		var d map[string]int
		must(t, json.Unmarshal(got.Data, &d))
		if d["n"] != 2 {
			t.Fatalf("summary after second upsert = %s; want n=2", got.Data)
		}
		if _, err := s.GetSummary(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("GetSummary(missing): %v; want ErrNotFound", err)
		}
	}},
	{"ProfileVersionsAreChecked", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		p := store.Profile{UserID: "u-1", App: appC, Doc: json.RawMessage(`{"current_step":3}`), Version: 1, UpdatedAt: T0}
		must(t, s.SaveProfile(ctx, p, store.ProfileChange{Changed: json.RawMessage(`{"current_step":3}`), Actor: "extraction", SessionID: "s-1", At: T0}))
		if err := s.SaveProfile(ctx, p, store.ProfileChange{Actor: "extraction", At: T0}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second version 1: %v; want ErrConflict", err)
		}
		p.Version, p.Doc = 2, json.RawMessage(`{"current_step":4}`)
		must(t, s.SaveProfile(ctx, p, store.ProfileChange{Changed: json.RawMessage(`{"current_step":4}`), Actor: "user", At: T0.Add(time.Hour)}))
		stale := p
		stale.Doc = json.RawMessage(`{"current_step":1}`)
		if err := s.SaveProfile(ctx, stale, store.ProfileChange{Actor: "user", At: T0}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("stale version: %v; want ErrConflict", err)
		}
		got, err := s.GetProfile(ctx, "u-1")
		must(t, err)
		if got.Version != 2 || string(compact(t, got.Doc)) != `{"current_step":4}` {
			t.Fatalf("profile = v%d %s; want v2 step 4", got.Version, got.Doc)
		}
		hist, err := s.ListProfileHistory(ctx, "u-1")
		must(t, err)
		if len(hist) != 2 || hist[0].Actor != "extraction" || hist[1].Actor != "user" || hist[0].SessionID != "s-1" {
			t.Fatalf("history = %+v; want two versions with actors", hist)
		}
	}},
	{"OneActiveMemoryPerKey", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		m := store.Memory{ID: store.NewID(), UserID: "u-1", App: appE, Key: "favorite_food", Value: "pizza", Category: "preference",
			Importance: 80, Confidence: 0.8, Status: store.MemoryActive, SourceSessionID: "s-1", SourceMessageID: "m1", Confirmations: 1, CreatedAt: T0, UpdatedAt: T0}
		must(t, s.InsertMemory(ctx, m))
		dup := m
		dup.ID, dup.Value = store.NewID(), "ramen"
		if err := s.InsertMemory(ctx, dup); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second active memory for the key: %v; want ErrConflict", err)
		}
		// Supersede: deprecate the old, then the new one may be active, linked.
		m.Status, m.UpdatedAt = store.MemoryDeprecated, T0.Add(time.Minute)
		must(t, s.UpdateMemory(ctx, m))
		dup.SupersedesID = m.ID
		must(t, s.InsertMemory(ctx, dup))
		other := m
		other.ID, other.UserID, other.Status = store.NewID(), "u-2", store.MemoryActive
		must(t, s.InsertMemory(ctx, other)) // the same key for another user is fine

		active, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{})
		must(t, err)
		if len(active) != 1 || active[0].Value != "ramen" || active[0].SupersedesID != m.ID {
			t.Fatalf("active memories = %+v; want ramen superseding pizza", active)
		}
		all, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		if len(all) != 2 {
			t.Fatalf("all memories = %d; want 2 (history kept)", len(all))
		}
		if _, err := s.GetMemory(ctx, "u-2", m.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("GetMemory of another user's memory: %v; want ErrNotFound", err)
		}
		byCat, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true, Category: "feeling"})
		must(t, err)
		if len(byCat) != 0 {
			t.Fatalf("category filter returned %d", len(byCat))
		}
	}},
	{"MemoryExpiryAndChanges", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		exp := T0.Add(6 * time.Hour)
		m := store.Memory{ID: store.NewID(), UserID: "u-1", App: appE, Key: "feeling", Value: "tired", Category: "feeling",
			Importance: 70, Confidence: 0.5, Status: store.MemoryActive, Confirmations: 1, ExpiresAt: &exp, CreatedAt: T0, UpdatedAt: T0}
		must(t, s.InsertMemory(ctx, m))
		must(t, s.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: m.ID, UserID: "u-1", Action: "insert", Actor: "extraction", SessionID: "s-1", At: T0}))
		got, err := s.GetMemory(ctx, "u-1", m.ID)
		must(t, err)
		if got.ExpiresAt == nil || !got.ExpiresAt.Equal(exp) || got.LastUsedAt != nil {
			t.Fatalf("expires_at %v last_used_at %v", got.ExpiresAt, got.LastUsedAt)
		}
		ch, err := s.ListMemoryChanges(ctx, "u-1")
		must(t, err)
		if len(ch) != 1 || ch[0].Action != "insert" || ch[0].SessionID != "s-1" {
			t.Fatalf("changes = %+v", ch)
		}
	}},
	{"CuesAreRecordedOnce", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		c := store.Cue{UserID: "u-1", App: appC, Type: "sponsor_change", Field: "sponsor_name", Detail: json.RawMessage(`{"from":"Al"}`), SessionID: "s-1", CreatedAt: T0}
		must(t, s.InsertCue(ctx, c))
		must(t, s.InsertCue(ctx, c))
		cues, err := s.ListCues(ctx, "u-1", true)
		must(t, err)
		if len(cues) != 1 {
			t.Fatalf("cues = %d; a re-run must not duplicate a cue", len(cues))
		}
	}},
	{"RiskLoweringsAreRecordedOnceAndErased", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		l := store.RiskLowering{UserID: "u-1", App: appE, SessionID: "s-1", MessageID: "m3", FromClass: "suicidal",
			FromSeverity: "high", ToClass: "none", Frame: "fiction", CreatedAt: T0}
		ok, err := s.InsertRiskLowering(ctx, l)
		must(t, err)
		if !ok {
			t.Fatal("first insert reported as not recorded")
		}
		ok, err = s.InsertRiskLowering(ctx, l) // a re-run of the same extraction
		must(t, err)
		if ok {
			t.Fatal("second insert of the same session and message reported as recorded")
		}
		l2 := store.RiskLowering{UserID: "u-1", App: appE, SessionID: "s-1", MessageID: "m5", FromClass: "self_harm",
			FromSeverity: "high", ToClass: "self_harm", ToSeverity: "low", Frame: "past", CreatedAt: T0.Add(time.Second)}
		_, err = s.InsertRiskLowering(ctx, l2)
		must(t, err)
		_, err = s.InsertRiskLowering(ctx, store.RiskLowering{UserID: "u-2", App: appE, SessionID: "s-2", MessageID: "m3",
			FromClass: "abuse", FromSeverity: "medium", ToClass: "none", Frame: "topic", CreatedAt: T0})
		must(t, err)
		got, err := s.ListRiskLowerings(ctx, "s-1")
		must(t, err)
		if len(got) != 2 {
			t.Fatalf("lowerings of s-1 = %+v; want 2", got)
		}
		g := got[0]
		if g.MessageID != "m3" || g.FromClass != "suicidal" || g.FromSeverity != "high" || g.ToClass != "none" ||
			g.ToSeverity != "" || g.Frame != "fiction" || g.UserID != "u-1" || g.App != appE || !g.CreatedAt.Equal(T0) || g.ID == "" {
			t.Fatalf("first lowering read back as %+v", g)
		}
		if got[1].MessageID != "m5" || got[1].ToSeverity != "low" || got[1].Frame != "past" {
			t.Fatalf("second lowering read back as %+v", got[1])
		}
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.EraseUser(ctx, "e-1", "u-1") }))
		if got, err = s.ListRiskLowerings(ctx, "s-1"); err != nil || len(got) != 0 {
			t.Fatalf("after erasing the user: %+v, %v; want none", got, err)
		}
		if got, err = s.ListRiskLowerings(ctx, "s-2"); err != nil || len(got) != 1 {
			t.Fatalf("another user's lowerings after an erasure: %+v, %v; want 1", got, err)
		}
	}},
	{"OneFinalExtractionRun", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		run := store.ExtractionRun{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v1", Source: "llm", Outcome: "transient_error", Attempt: 1, CreatedAt: T0}
		must(t, s.InsertExtractionRun(ctx, run))
		run.Attempt, run.Outcome, run.Final, run.CostUSD = 2, "ok", true, 0.25
		must(t, s.InsertExtractionRun(ctx, run))
		if err := s.InsertExtractionRun(ctx, run); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("second final run: %v; want ErrConflict", err)
		}
		runs, err := s.ListExtractionRuns(ctx, "s-1")
		must(t, err)
		if len(runs) != 2 || runs[1].Final != true || runs[0].Final {
			t.Fatalf("runs = %+v", runs)
		}
		sum, err := s.SumExtractionCost(ctx, T0, T0.Add(time.Second))
		must(t, err)
		if sum != 0.25 {
			t.Fatalf("cost in window = %v; want 0.25", sum)
		}
		sum, err = s.SumExtractionCost(ctx, T0.Add(time.Second), T0.Add(time.Hour))
		must(t, err)
		if sum != 0 {
			t.Fatalf("cost outside window = %v; want 0", sum)
		}
	}},
	{"BatchLedgerUpsert", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		started := T0.Add(time.Minute)
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: "memory-ttl", Period: "2026-11-20T09:00:00Z", ScheduledFor: T0, StartedAt: &started}))
		fin := T0.Add(2 * time.Minute)
		must(t, s.UpsertBatchRun(ctx, store.BatchRun{Batch: "memory-ttl", Period: "2026-11-20T09:00:00Z", ScheduledFor: T0, FinishedAt: &fin, RowsTouched: 12, Outcome: "ok"}))
		got, err := s.GetBatchRun(ctx, "memory-ttl", "2026-11-20T09:00:00Z")
		must(t, err)
		if got.StartedAt == nil || !got.StartedAt.Equal(started) || got.RowsTouched != 12 || got.Outcome != "ok" {
			t.Fatalf("batch run = %+v; start must survive the finishing upsert", got)
		}
		list, err := s.ListBatchRuns(ctx, "memory-ttl", 5)
		must(t, err)
		if len(list) != 1 {
			t.Fatalf("ListBatchRuns = %d; want 1", len(list))
		}
	}},
	{"RecordsReplaceByKindAndKey", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		put := func(user, kind, key, data string) {
			t.Helper()
			must(t, s.UpsertRecord(ctx, store.Record{UserID: user, App: appD, Type: kind, Key: key, Data: json.RawMessage(data), SessionID: "s-1", UpdatedAt: T0}))
		}
		put("u-1", "learning", "counting", `{"mastery_level":1}`)
		put("u-1", "learning", "counting", `{"mastery_level":2}`)
		put("u-1", "learning", "colors", `{"mastery_level":0}`)
		put("u-1", "emotional", "counts", `{"frustration_count":1}`)
		put("u-2", "learning", "counting", `{"mastery_level":5}`)
		learning, err := s.ListRecords(ctx, "u-1", []string{"learning"})
		must(t, err)
		if len(learning) != 2 || learning[0].Key != "colors" || string(compact(t, learning[1].Data)) != `{"mastery_level":2}` {
			t.Fatalf("learning records = %+v; want colors and counting at level 2", learning)
		}
		all, err := s.ListRecords(ctx, "u-1", nil)
		must(t, err)
		if len(all) != 3 {
			t.Fatalf("%d records; want 3 (another user's are not listed)", len(all))
		}
		must(t, s.DeleteRecord(ctx, store.RecordKey{UserID: "u-1", Type: "learning", Key: "colors"}))
		left, err := s.ListRecords(ctx, "u-1", []string{"learning"})
		must(t, err)
		if len(left) != 1 {
			t.Fatalf("%d learning records after delete; want 1", len(left))
		}
	}},
	{"BufferAppendsOnceAndRollingSummaryOnlyGrows", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		msg := func(seq int, id string) store.BufferMessage {
			return store.BufferMessage{SessionID: "s-1", Seq: seq, UserID: "u-1", MessageID: id, KeyID: "k1", Nonce: []byte{1},
				Ciphertext: []byte{byte(seq)}, SHA256: []byte{2}, CreatedAt: T0.Add(time.Duration(seq) * time.Second)}
		}
		n, err := s.AppendBuffer(ctx, []store.BufferMessage{msg(0, "m1"), msg(1, "m2")})
		must(t, err)
		again, err := s.AppendBuffer(ctx, []store.BufferMessage{msg(2, "m2"), msg(2, "m3")})
		must(t, err)
		if n != 2 || again != 1 {
			t.Fatalf("appended %d then %d; want 2 then 1 (m2 already buffered)", n, again)
		}
		count, err := s.CountBuffer(ctx, "s-1")
		must(t, err)
		buf, err := s.ListBuffer(ctx, "s-1")
		must(t, err)
		if count != 3 || len(buf) != 3 || buf[2].MessageID != "m3" {
			t.Fatalf("buffer = %d / %+v", count, buf)
		}
		ok, err := s.UpsertRollingSummary(ctx, store.RollingSummary{SessionID: "s-1", UserID: "u-1", App: appE, Summary: json.RawMessage(`{"text":"ten"}`), MessagesCovered: 10, UpdatedAt: T0})
		must(t, err)
		stale, err := s.UpsertRollingSummary(ctx, store.RollingSummary{SessionID: "s-1", UserID: "u-1", App: appE, Summary: json.RawMessage(`{"text":"five"}`), MessagesCovered: 5, UpdatedAt: T0.Add(time.Hour)})
		must(t, err)
		if !ok || stale {
			t.Fatalf("stored %v, stale stored %v; a summary covering fewer messages must not replace one covering more", ok, stale)
		}
		got, err := s.LatestRollingSummary(ctx, "u-1")
		must(t, err)
		if got.MessagesCovered != 10 {
			t.Fatalf("rolling summary covers %d; want 10", got.MessagesCovered)
		}
	}},
	{"CloseActiveSessionOnlyOnce", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		must(t, s.UpsertUser(ctx, store.User{ID: "u-1", App: appE, CreatedAt: T0, UpdatedAt: T0}))
		active := store.Session{ID: "s-1", UserID: "u-1", App: appE, Status: store.StatusActive, StartedAt: T0, EndedAt: T0, UpdatedAt: T0}
		must(t, s.CreateSession(ctx, active))
		closed := active
		closed.Status, closed.EndedAt, closed.MessageCount, closed.BodySHA256 = store.StatusClosed, T0.Add(time.Hour), 4, "fp"
		must(t, s.CloseActiveSession(ctx, closed))
		if err := s.CloseActiveSession(ctx, closed); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("closing a closed session: %v; want ErrConflict", err)
		}
		got, err := s.GetSession(ctx, "s-1")
		must(t, err)
		if got.Status != store.StatusClosed || got.MessageCount != 4 || !got.EndedAt.Equal(T0.Add(time.Hour)) {
			t.Fatalf("session after close = %+v", got)
		}
	}},
	{"TxRollsBackOnError", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		boom := errors.New("boom")
		err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			must(t, tx.UpsertUser(ctx, store.User{ID: "u-rb", App: appE, CreatedAt: T0, UpdatedAt: T0}))
			if tx.Raw() == nil {
				t.Error("Tx.Raw is nil: River could not insert in this transaction")
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("InTx returned %v; want the callback's error", err)
		}
		if _, err := s.GetUser(ctx, "u-rb"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("user written in a rolled-back transaction: %v", err)
		}
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			return tx.UpsertUser(ctx, store.User{ID: "u-ok", App: appE, DisplayName: "Peggy", CreatedAt: T0, UpdatedAt: T0})
		}))
		must(t, s.UpsertUser(ctx, store.User{ID: "u-ok", App: appE, CreatedAt: T0, UpdatedAt: T0.Add(time.Hour)}))
		u, err := s.GetUser(ctx, "u-ok")
		must(t, err)
		if u.DisplayName != "Peggy" {
			t.Fatalf("display name %q; an upsert without a name must keep the known one", u.DisplayName)
		}
	}},
}

func compact(t *testing.T, b json.RawMessage) []byte {
	t.Helper()
	var v any
	must(t, json.Unmarshal(b, &v))
	out, err := json.Marshal(v)
	must(t, err)
	return out
}
