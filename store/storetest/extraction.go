package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, extractionCases...)
}

// extractionCases cover the methods an extraction reads and writes with in
// few round trips (issue 14): each must leave, and read, what the methods
// it stands for would.
var extractionCases = []testCase{
	{"GetSessionInputReadsSessionChunksAndEvents", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-1", "s-2")
		must(t, s.InsertChunks(ctx, []store.Chunk{
			{SessionID: "s-1", Seq: 1, UserID: "u-1", KeyID: "k1", Nonce: []byte{3}, Ciphertext: []byte("b"), SHA256: []byte{4}, CreatedAt: T0},
			{SessionID: "s-1", Seq: 0, UserID: "u-1", KeyID: "k1", Nonce: []byte{1}, Ciphertext: []byte("a"), SHA256: []byte{2}, CreatedAt: T0},
			{SessionID: "s-2", Seq: 0, UserID: "u-1", KeyID: "k1", Nonce: []byte{5}, Ciphertext: []byte("c"), SHA256: []byte{6}, CreatedAt: T0}}))
		must(t, s.InsertEvents(ctx, []store.Event{
			{SessionID: "s-1", Seq: 1, UserID: "u-1", Type: "emotion", At: T0.Add(time.Minute), MessageID: "m2", Data: json.RawMessage(`{"emotion":"calm"}`)},
			{SessionID: "s-1", Seq: 0, UserID: "u-1", Type: "emotion", At: T0, MessageID: "m1"}}))
		for _, id := range []string{"s-1", "s-2"} {
			in, err := s.GetSessionInput(ctx, id)
			must(t, err)
			sess, err := s.GetSession(ctx, id)
			must(t, err)
			chunks, err := s.ListChunks(ctx, id)
			must(t, err)
			events, err := s.ListEvents(ctx, id)
			must(t, err)
			if !reflect.DeepEqual(in.Session, sess) || !reflect.DeepEqual(in.Chunks, chunks) || !reflect.DeepEqual(in.Events, events) {
				t.Fatalf("%s: input %+v; want %+v, %+v, %+v", id, in, sess, chunks, events)
			}
			if in.Chunks == nil || in.Events == nil {
				t.Fatalf("%s: nil lists %+v", id, in)
			}
		}
		if _, err := s.GetSessionInput(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("missing session: %v; want ErrNotFound", err)
		}
		// In a transaction too.
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			in, err := tx.GetSessionInput(ctx, "s-1")
			if err == nil && (in.Session.ID != "s-1" || len(in.Chunks) != 2 || len(in.Events) != 2) {
				err = fmt.Errorf("input in a transaction %+v", in)
			}
			return err
		}))
	}},
	{"LockExtractionReadsWhatItStandsFor", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		must(t, s.UpsertUser(ctx, store.User{ID: "u-1", App: appE, DisplayName: "Peggy", CreatedAt: T0, UpdatedAt: T0.Add(time.Hour)}))
		mems := []store.Memory{
			{ID: "m-1", UserID: "u-1", App: appE, Key: "name", Value: "Peggy", Category: "fact", Importance: 90, Confidence: 0.9,
				Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0, SourceSessionID: "s-1"},
			{ID: "m-2", UserID: "u-1", App: appE, Key: "food", Value: "ramen", Category: "preference", Importance: 70, Confidence: 0.8,
				Status: store.MemoryDeprecated, CreatedAt: T0, UpdatedAt: T0, InvalidatedAt: ptr(T0.Add(time.Hour)), InvalidatedBy: "m-3",
				ExpiresAt: ptr(T0.Add(90 * 24 * time.Hour))},
			{ID: "m-3", UserID: "u-1", App: appE, Key: "food", Value: "pho", Category: "preference", Importance: 70, Confidence: 0.8,
				Status: store.MemoryActive, SupersedesID: "m-2", CreatedAt: T0.Add(time.Hour), UpdatedAt: T0, StatedAt: T0.Add(time.Hour), EventDate: "2026-12-01", Wording: "next week"},
			{ID: "m-4", UserID: "u-2", App: appE, Key: "name", Value: "Meg", Category: "fact", Importance: 90, Confidence: 0.9,
				Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
		}
		must(t, s.InsertMemories(ctx, mems))
		must(t, s.InsertStatements(ctx, []store.Statement{
			{ID: "st-1", MemoryID: "m-1", UserID: "u-1", Key: "name", Value: "Peggy", StatedAt: T0, SessionID: "s-1", CreatedAt: T0},
			{ID: "st-2", MemoryID: "m-3", UserID: "u-1", Key: "food", Value: "pho", StatedAt: T0.Add(time.Hour), SessionID: "s-1", Weight: 2, CreatedAt: T0},
			{ID: "st-0", MemoryID: "m-2", UserID: "u-1", Key: "food", Value: "ramen", StatedAt: T0, SessionID: "s-1", CreatedAt: T0},
			{ID: "st-4", MemoryID: "m-4", UserID: "u-2", Key: "name", Value: "Meg", StatedAt: T0, SessionID: "s-2", CreatedAt: T0}}))
		must(t, s.InsertMemoryChanges(ctx, []store.MemoryChange{
			{ID: "c-1", MemoryID: "m-1", UserID: "u-1", Action: "insert", Actor: "extraction", SessionID: "s-1", At: T0},
			{ID: "c-3", MemoryID: "m-9", UserID: "u-1", Action: "forget", Actor: "user", At: T0.Add(2 * time.Hour), Key: "city"},
			{ID: "c-2", MemoryID: "category:health", UserID: "u-1", Action: "forget", Actor: "user", At: T0.Add(time.Hour)},
			{ID: "c-4", MemoryID: "m-8", UserID: "u-2", Action: "forget", Actor: "user", At: T0, Key: "pet"}}))

		for _, reads := range []store.ExtractionReads{{}, {Forgets: true}, {Memories: true}, {Forgets: true, Memories: true}} {
			must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				l, err := tx.LockExtraction(ctx, "s-1", reads)
				if err != nil {
					return err
				}
				sess, err := tx.GetSession(ctx, "s-1")
				if err != nil {
					return err
				}
				user, err := tx.GetUser(ctx, "u-1")
				if err != nil {
					return err
				}
				if !reflect.DeepEqual(l.Session, sess) || !reflect.DeepEqual(l.User, user) {
					return fmt.Errorf("%+v: read %+v and %+v; want %+v and %+v", reads, l.Session, l.User, sess, user)
				}
				forgets, err := tx.ListMemoryChangesOf(ctx, "u-1", "forget")
				if err != nil {
					return err
				}
				all, err := tx.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
				if err != nil {
					return err
				}
				stmts, err := tx.ListStatements(ctx, "u-1", nil)
				if err != nil {
					return err
				}
				if len(forgets) != 2 || len(all) != 3 || len(stmts) != 3 {
					return fmt.Errorf("fixture: %d forgets, %d memories, %d statements", len(forgets), len(all), len(stmts))
				}
				if !reads.Forgets {
					forgets = nil
				}
				if !reads.Memories {
					all, stmts = nil, nil
				}
				if !reflect.DeepEqual(l.Forgets, forgets) || !reflect.DeepEqual(l.Memories, all) || !reflect.DeepEqual(l.Statements, stmts) {
					return fmt.Errorf("%+v: read %+v, %+v, %+v; want %+v, %+v, %+v", reads, l.Forgets, l.Memories, l.Statements, forgets, all, stmts)
				}
				return nil
			}))
		}
		// A user without any: empty, not nil, when asked.
		seedSession(t, s, "u-3", "s-3")
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			l, err := tx.LockExtraction(ctx, "s-3", store.ExtractionReads{Forgets: true, Memories: true})
			if err == nil && (l.Forgets == nil || l.Memories == nil || l.Statements == nil || len(l.Forgets)+len(l.Memories)+len(l.Statements) != 0) {
				err = fmt.Errorf("a new user's reads %+v", l)
			}
			return err
		}))
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if _, err := tx.LockExtraction(ctx, "nope", store.ExtractionReads{Forgets: true, Memories: true}); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("missing session: %v; want ErrNotFound", err)
			}
			return nil
		}))
	}},
	{"LockExtractionReadsTheKeysAsked", func(t *testing.T, s store.Store) {
		// With Keys, the memories and statements of those keys, and the
		// memories those statements belong to, whatever their key: what
		// the full reads hold of them, in the same order.
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		mem := func(id, user, key, value string, at time.Time) store.Memory {
			return store.Memory{ID: id, UserID: user, App: appE, Key: key, Value: value, Category: "preference", Importance: 60,
				Confidence: 0.8, Status: store.MemoryActive, CreatedAt: at, UpdatedAt: at, StatedAt: at}
		}
		must(t, s.InsertMemories(ctx, []store.Memory{mem("m-a", "u-1", "likes:tea", "tea", T0), mem("m-b", "u-1", "dislikes:tea", "tea", T0.Add(time.Hour)),
			mem("m-c", "u-1", "city", "Oslo", T0), mem("m-d", "u-1", "name", "Ana", T0), mem("m-e", "u-2", "likes:tea", "tea", T0)}))
		stmt := func(id, memory, user, key string, at time.Time) store.Statement {
			return store.Statement{ID: id, MemoryID: memory, UserID: user, Key: key, Value: "x", StatedAt: at, SessionID: "s-1", CreatedAt: at}
		}
		must(t, s.InsertStatements(ctx, []store.Statement{stmt("st-1", "m-a", "u-1", "likes:tea", T0), stmt("st-2", "m-b", "u-1", "dislikes:tea", T0.Add(time.Hour)),
			stmt("st-3", "m-c", "u-1", "city", T0), stmt("st-4", "m-d", "u-1", "likes:tea", T0.Add(2*time.Hour)),
			stmt("st-5", "m-e", "u-2", "likes:tea", T0)}))
		keys := []string{"dislikes:tea", "likes:tea"}
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			l, err := tx.LockExtraction(ctx, "s-1", store.ExtractionReads{Memories: true, Keys: keys})
			if err != nil {
				return err
			}
			all, err := tx.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
			if err != nil {
				return err
			}
			want := slices.DeleteFunc(all, func(m store.Memory) bool { return m.ID == "m-c" }) // m-d: st-4 is likes:tea
			stmts, err := tx.ListStatements(ctx, "u-1", keys)
			if err != nil {
				return err
			}
			if len(want) != 3 || len(stmts) != 3 {
				return fmt.Errorf("fixture: %d memories, %d statements", len(want), len(stmts))
			}
			if !reflect.DeepEqual(l.Memories, want) || !reflect.DeepEqual(l.Statements, stmts) {
				return fmt.Errorf("read %+v and %+v; want %+v and %+v", l.Memories, l.Statements, want, stmts)
			}
			// A key nobody has: empty, not nil.
			l, err = tx.LockExtraction(ctx, "s-1", store.ExtractionReads{Memories: true, Keys: []string{"pet"}})
			if err == nil && (l.Memories == nil || l.Statements == nil || len(l.Memories)+len(l.Statements) != 0) {
				err = fmt.Errorf("reads of a key nobody has: %+v", l)
			}
			return err
		}))
	}},
	{"LockExtractionHoldsTheUserUntilTheTransactionEnds", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-1", "s-2")
		locked, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if _, err := tx.LockExtraction(ctx, "s-1", store.ExtractionReads{}); err != nil {
					close(locked)
					return err
				}
				close(locked)
				<-release
				return tx.SetMemoryDisabled(ctx, "u-1", true, T0.Add(time.Hour))
			})
		}()
		<-locked
		// Another session of the same user waits for the first
		// transaction, and then reads what it wrote.
		second := make(chan store.ExtractionLock, 1)
		go func() {
			_ = s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				l, err := tx.LockExtraction(ctx, "s-2", store.ExtractionReads{})
				second <- l
				return err
			})
		}()
		select {
		case l := <-second:
			t.Fatalf("a second extraction of the user locked while the first held it: %+v", l)
		case <-time.After(200 * time.Millisecond):
		}
		close(release)
		must(t, <-done)
		if l := <-second; !l.User.MemoryDisabled || l.Session.ID != "s-2" {
			t.Fatalf("the second read %+v; want the first's write", l)
		}
	}},
	{"UpdateMemoriesIsABatchOfUpdateMemory", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		// Two users' twin memories: one updated one by one, the other in a batch.
		var ones, batch []store.Memory
		for _, u := range []string{"u-1", "u-2"} {
			must(t, s.UpsertUser(ctx, store.User{ID: u, App: appE, CreatedAt: T0, UpdatedAt: T0}))
			var ms []store.Memory
			for i := range 3 {
				ms = append(ms, store.Memory{ID: fmt.Sprintf("%s-m%d", u, i), UserID: u, App: appE, Key: fmt.Sprintf("k%d", i), Value: "v",
					Category: "fact", Importance: 50, Confidence: 0.5, Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0})
			}
			must(t, s.InsertMemories(ctx, ms))
			for i := range ms {
				m := ms[i]
				m.Value, m.Importance, m.Confidence, m.Confirmations = fmt.Sprintf("v%d", i), 60+i, 0.25*float64(i+1), 2+i
				m.UpdatedAt, m.LastUsedAt, m.SourceSessionID, m.SourceMessageID = T0.Add(time.Hour), ptr(T0.Add(2*time.Hour)), "s-1", "m1"
				m.Category, m.EventDate, m.Wording, m.StatedAt = "preference", "2026-12-0"+fmt.Sprint(i+1), "soon", T0.Add(-time.Hour)
				m.Key = "not written" // UpdateMemory does not write the key
				switch i {
				case 0:
					m.Status, m.InvalidatedAt, m.InvalidatedBy, m.ExpiresAt = store.MemoryDeprecated, ptr(T0.Add(3*time.Hour)), u+"-m1", ptr(T0.Add(time.Hour))
				case 1:
					m.SupersedesID = u + "-m0"
				case 2:
					m.StatedAt = time.Time{} // unknown: its creation time
				}
				ms[i] = m
			}
			if u == "u-1" {
				ones = ms
			} else {
				batch = ms
			}
		}
		for _, m := range ones {
			must(t, s.UpdateMemory(ctx, m))
		}
		// A memory written twice leaves the later write.
		first := batch[1]
		first.Value = "overwritten"
		must(t, s.UpdateMemories(ctx, append([]store.Memory{first}, batch...)))
		got1, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		got2, err := s.ListMemories(ctx, "u-2", store.MemoryFilter{All: true})
		must(t, err)
		if len(got1) != 3 || len(got2) != 3 {
			t.Fatalf("%d and %d memories", len(got1), len(got2))
		}
		for i := range got1 {
			a, b := got1[i], got2[i]
			a.ID, a.UserID, a.InvalidatedBy, a.SupersedesID = "", "", strings.TrimPrefix(a.InvalidatedBy, "u-1"), strings.TrimPrefix(a.SupersedesID, "u-1")
			b.ID, b.UserID, b.InvalidatedBy, b.SupersedesID = "", "", strings.TrimPrefix(b.InvalidatedBy, "u-2"), strings.TrimPrefix(b.SupersedesID, "u-2")
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("memory %d: batch %+v; one by one %+v", i, b, a)
			}
		}
		must(t, s.UpdateMemories(ctx, nil))
		// A missing memory, or one of another user, is ErrNotFound.
		other := batch[0]
		other.UserID = "u-1"
		for _, ms := range [][]store.Memory{{batch[0], {ID: "nope", UserID: "u-2"}}, {other}} {
			err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.UpdateMemories(ctx, ms) })
			if !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("update of a missing memory: %v; want ErrNotFound", err)
			}
		}
		// More memories than one statement's parameters hold.
		many := make([]store.Memory, 2000)
		for i := range many {
			many[i] = store.Memory{ID: fmt.Sprintf("x-%04d", i), UserID: "u-1", App: appE, Key: fmt.Sprintf("x%d", i), Value: "v",
				Category: "fact", Importance: 1, Confidence: 0.5, Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0}
		}
		must(t, s.InsertMemories(ctx, many))
		for i := range many {
			many[i].Value, many[i].Importance = fmt.Sprint(i), i%100
		}
		must(t, s.UpdateMemories(ctx, many))
		for _, i := range []int{0, 1999} {
			m, err := s.GetMemory(ctx, "u-1", many[i].ID)
			must(t, err)
			if m.Value != fmt.Sprint(i) || m.Importance != i%100 {
				t.Fatalf("memory %d: %+v", i, m)
			}
		}
	}},
	{"UpdateMemoriesRefusesTwoActiveOfAKey", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		must(t, s.UpsertUser(ctx, store.User{ID: "u-1", App: appE, CreatedAt: T0, UpdatedAt: T0}))
		ms := []store.Memory{
			{ID: "m-1", UserID: "u-1", App: appE, Key: "food", Value: "ramen", Category: "preference", Importance: 50, Confidence: 0.5,
				Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
			{ID: "m-2", UserID: "u-1", App: appE, Key: "food", Value: "pho", Category: "preference", Importance: 50, Confidence: 0.5,
				Status: store.MemoryDeprecated, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
		}
		must(t, s.InsertMemories(ctx, ms))
		m2 := ms[1]
		m2.Status = store.MemoryActive
		if err := s.UpdateMemories(ctx, []store.Memory{m2}); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a second active memory of a key: %v; want ErrConflict", err)
		}
	}},
	{"FinishExtractionWritesWhatItStandsFor", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		for _, keep := range []bool{false, true} {
			// Two users: one written with FinishExtraction, its twin with
			// the methods it stands for; then both are compared.
			for _, u := range []string{"a", "b"} {
				u += fmt.Sprint(keep)
				seedSession(t, s, u, "s-"+u)
				must(t, s.InsertChunks(ctx, []store.Chunk{{SessionID: "s-" + u, Seq: 0, UserID: u, KeyID: "k1", Nonce: []byte{1},
					Ciphertext: []byte("a"), SHA256: []byte{2}, CreatedAt: T0}}))
				must(t, s.InsertMemories(ctx, []store.Memory{
					{ID: u + "-old", UserID: u, App: appE, Key: "food", Value: "ramen", Category: "preference", Importance: 50,
						Confidence: 0.5, Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
					{ID: u + "-older", UserID: u, App: appE, Key: "drink", Value: "tea", Category: "preference", Importance: 50,
						Confidence: 0.5, Status: store.MemoryDeprecated, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
					{ID: u + "-now", UserID: u, App: appE, Key: "drink", Value: "coffee", Category: "preference", Importance: 50,
						Confidence: 0.5, Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0.Add(time.Minute)},
				}))
				must(t, s.InsertStatements(ctx, []store.Statement{
					{ID: u + "-st1", MemoryID: u + "-old", UserID: u, Key: "food", Value: "ramen", StatedAt: T0, CreatedAt: T0},
					{ID: u + "-st2", MemoryID: u + "-now", UserID: u, Key: "drink", Value: "coffee", StatedAt: T0.Add(time.Minute), CreatedAt: T0}}))
				// Exports: one requested before the session closed, two since.
				for i, at := range []time.Time{T0, T0.Add(time.Hour), T0.Add(2 * time.Hour)} {
					must(t, s.CreateExport(ctx, store.Export{ID: fmt.Sprintf("%s-x%d", u, i), UserID: u, Status: "pending", CreatedAt: at}))
				}
			}
			// The writes of a session that makes "food" pho (the old
			// memory leaves, a new one enters), brings "tea" back (the
			// newer coffee leaves, the older tea enters) and moves a
			// statement.
			writes := func(u string) store.MemoryWrites {
				at := T0.Add(time.Hour)
				return store.MemoryWrites{
					Leaving: []store.Memory{
						{ID: u + "-old", UserID: u, App: appE, Key: "food", Value: "ramen", Category: "preference", Importance: 50, Confidence: 0.5,
							Status: store.MemoryDeprecated, CreatedAt: T0, UpdatedAt: at, StatedAt: T0, InvalidatedAt: ptr(at), InvalidatedBy: u + "-new"},
						{ID: u + "-now", UserID: u, App: appE, Key: "drink", Value: "coffee", Category: "preference", Importance: 50, Confidence: 0.5,
							Status: store.MemoryDeprecated, CreatedAt: T0, UpdatedAt: at, StatedAt: T0.Add(time.Minute), InvalidatedAt: ptr(at), InvalidatedBy: u + "-older"},
					},
					Entering: []store.Memory{
						{ID: u + "-older", UserID: u, App: appE, Key: "drink", Value: "tea", Category: "preference", Importance: 55, Confidence: 0.5,
							Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: at, StatedAt: at, Confirmations: 2, SupersedesID: u + "-now"},
					},
					New: []store.Memory{
						{ID: u + "-new", UserID: u, App: appE, Key: "food", Value: "pho", Category: "preference", Importance: 60, Confidence: 0.7,
							Status: store.MemoryActive, SupersedesID: u + "-old", SourceSessionID: "s-" + u, CreatedAt: at, UpdatedAt: at, StatedAt: at},
					},
					Changes: []store.MemoryChange{
						{ID: u + "-c1", MemoryID: u + "-old", UserID: u, Action: "deprecate", Actor: "extraction", SessionID: "s-" + u, At: at},
						{ID: u + "-c2", MemoryID: u + "-new", UserID: u, Action: "insert", Actor: "extraction", SessionID: "s-" + u, At: at},
					},
					Moves: []store.Statement{{ID: u + "-st2", MemoryID: u + "-older"}},
					Statements: []store.Statement{
						{ID: u + "-st3", MemoryID: u + "-new", UserID: u, Key: "food", Value: "pho", StatedAt: at, SessionID: "s-" + u, CreatedAt: at},
						{ID: u + "-st4", MemoryID: u + "-older", UserID: u, Key: "drink", Value: "tea", StatedAt: at, SessionID: "s-" + u, CreatedAt: at},
					},
				}
			}
			settle := func(u string) store.Settlement {
				st := store.Settlement{SessionID: "s-" + u, UserID: u, ExportsSince: T0.Add(20 * time.Minute), At: T0.Add(3 * time.Hour),
					Summary: store.Summary{SessionID: "s-" + u, PromptVersion: "v1", UserID: u, App: appE, Source: "rules",
						Data: json.RawMessage(`{"mood":"calm"}`), CreatedAt: T0.Add(3 * time.Hour)},
					Run: store.ExtractionRun{ID: "run-" + u, SessionID: "s-" + u, UserID: u, App: appE, PromptVersion: "v1", Source: "rules",
						Outcome: "ok", Attempt: 1, Final: true, DurationMS: 3, CreatedAt: T0.Add(3 * time.Hour)}}
				if keep {
					st.KeepUntil = ptr(T0.Add(72 * time.Hour))
				}
				return st
			}
			a, b := "a"+fmt.Sprint(keep), "b"+fmt.Sprint(keep)
			must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				return tx.FinishExtraction(ctx, writes(a), settle(a))
			}))
			must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				w, st := writes(b), settle(b)
				for _, m := range append(w.Leaving, w.Entering...) {
					if err := tx.UpdateMemory(ctx, m); err != nil {
						return err
					}
				}
				if err := tx.InsertMemories(ctx, w.New); err != nil {
					return err
				}
				if err := tx.InsertMemoryChanges(ctx, w.Changes); err != nil {
					return err
				}
				for _, m := range w.Moves {
					if err := tx.MoveStatement(ctx, store.Statement{UserID: b, ID: m.ID, MemoryID: m.MemoryID}); err != nil {
						return err
					}
				}
				if err := tx.InsertStatements(ctx, w.Statements); err != nil {
					return err
				}
				if err := tx.UpsertSummary(ctx, st.Summary); err != nil {
					return err
				}
				if err := tx.InsertExtractionRun(ctx, st.Run); err != nil {
					return err
				}
				if st.KeepUntil == nil {
					n, err := tx.DeleteChunks(ctx, st.SessionID)
					if err != nil {
						return err
					}
					if n > 0 {
						if _, err := tx.DeleteUserExports(ctx, b, st.ExportsSince); err != nil {
							return err
						}
					}
				}
				return tx.SetSessionProcessed(ctx, st.SessionID, st.KeepUntil != nil, st.KeepUntil, st.At)
			}))
			sameUsers(t, s, a, b)
			exports, err := s.ListUserExports(ctx, a)
			must(t, err)
			if want := map[bool]int{false: 1, true: 3}[keep]; len(exports) != want {
				t.Fatalf("keep=%v: %d exports left; want %d", keep, len(exports), want)
			}
		}
		// No transcript left: the exports stay.
		seedSession(t, s, "c", "s-c")
		must(t, s.CreateExport(ctx, store.Export{ID: "c-x", UserID: "c", Status: "pending", CreatedAt: T0.Add(time.Hour)}))
		must(t, s.FinishExtraction(ctx, store.MemoryWrites{}, store.Settlement{SessionID: "s-c", UserID: "c", At: T0.Add(time.Hour),
			Summary: store.Summary{SessionID: "s-c", PromptVersion: "v1", UserID: "c", App: appE, Source: "rules", CreatedAt: T0},
			Run:     store.ExtractionRun{SessionID: "s-c", UserID: "c", App: appE, PromptVersion: "v1", Source: "rules", Final: true, CreatedAt: T0}}))
		if ex, err := s.ListUserExports(ctx, "c"); err != nil || len(ex) != 1 {
			t.Fatalf("exports of a session without a transcript: %v, %v", ex, err)
		}
		if sess, err := s.GetSession(ctx, "s-c"); err != nil || sess.Status != store.StatusProcessed || sess.TranscriptRetained {
			t.Fatalf("session %+v, %v", sess, err)
		}
	}},
	{"FinishExtractionSaidAgainAndFolded", func(t *testing.T, s store.Store) {
		// A memory said again: its update and one new statement, no audit
		// row; and its timeline's three oldest statements folded into the
		// first (issue 25).
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		must(t, s.InsertMemories(ctx, []store.Memory{{ID: "m-1", UserID: "u-1", App: appE, Key: "food", Value: "ramen",
			Category: "preference", Importance: 50, Confidence: 0.5, Status: store.MemoryActive, Confirmations: 5, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0}}))
		var sts []store.Statement
		for i := range 5 {
			sts = append(sts, store.Statement{ID: fmt.Sprintf("st-%d", i+1), MemoryID: "m-1", UserID: "u-1", Key: "food", Value: "ramen",
				Importance: 50, Confidence: 0.5, StatedAt: T0.Add(time.Duration(i) * time.Hour), SessionID: fmt.Sprintf("s-old-%d", i), CreatedAt: T0})
		}
		must(t, s.InsertStatements(ctx, sts))
		at := T0.Add(10 * time.Hour)
		settle := store.Settlement{SessionID: "s-1", UserID: "u-1", At: at,
			Summary: store.Summary{SessionID: "s-1", PromptVersion: "v1", UserID: "u-1", App: appE, Source: "rules", CreatedAt: at},
			Run:     store.ExtractionRun{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v1", Source: "rules", Final: true, CreatedAt: at}}
		exp := T0.Add(1000 * time.Hour)
		w := store.MemoryWrites{
			Entering: []store.Memory{{ID: "m-1", UserID: "u-1", App: appE, Key: "food", Value: "ramen", Category: "preference",
				Importance: 80, Confidence: 0.9, Status: store.MemoryActive, Confirmations: 6, CreatedAt: T0, UpdatedAt: at, StatedAt: T0}},
			Statements: []store.Statement{{ID: "st-6", MemoryID: "m-1", UserID: "u-1", Key: "food", Value: "ramen", Importance: 60,
				Confidence: 0.9, StatedAt: at, SessionID: "s-1", CreatedAt: at}},
			Folds: []store.Statement{{ID: "st-1", UserID: "u-1", Weight: 3, Importance: 60, Confidence: 0.7, ExpiresAt: &exp,
				EventDate: "2026-01-02", Wording: "on Friday"}},
			Folded: []string{"st-2", "st-3"},
		}
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.FinishExtraction(ctx, w, settle) }))
		got, err := s.ListStatements(ctx, "u-1", nil)
		must(t, err)
		var ids []string
		for _, st := range got {
			ids = append(ids, st.ID)
		}
		if fmt.Sprint(ids) != "[st-1 st-4 st-5 st-6]" {
			t.Fatalf("statements %v; want st-1 (the fold), st-4, st-5 and the new st-6", ids)
		}
		f := got[0]
		if f.Weight != 3 || f.Importance != 60 || f.Confidence != 0.7 || f.ExpiresAt == nil || !f.ExpiresAt.Equal(exp) ||
			f.EventDate != "2026-01-02" || f.Wording != "on Friday" || f.Value != "ramen" || !f.StatedAt.Equal(T0) || f.SessionID != "s-old-0" {
			t.Fatalf("fold = %+v", f)
		}
		if m, err := s.GetMemory(ctx, "u-1", "m-1"); err != nil || m.Confirmations != 6 || m.Importance != 80 {
			t.Fatalf("memory %+v, %v", m, err)
		}
		if changes, err := s.ListMemoryChanges(ctx, "u-1"); err != nil || len(changes) != 0 {
			t.Fatalf("audit rows %+v, %v; want none for a memory said again", changes, err)
		}
	}},
	{"FinishExtractionFailsAsWhatItStandsFor", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		must(t, s.InsertMemories(ctx, []store.Memory{{ID: "m-1", UserID: "u-1", App: appE, Key: "food", Value: "ramen",
			Category: "preference", Importance: 50, Confidence: 0.5, Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0}}))
		settle := store.Settlement{SessionID: "s-1", UserID: "u-1", At: T0.Add(time.Hour),
			Summary: store.Summary{SessionID: "s-1", PromptVersion: "v1", UserID: "u-1", App: appE, Source: "rules", CreatedAt: T0},
			Run:     store.ExtractionRun{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v1", Source: "rules", Final: true, CreatedAt: T0}}
		missing := store.Memory{ID: "nope", UserID: "u-1", Status: store.MemoryActive}
		twice := store.Memory{ID: "m-2", UserID: "u-1", App: appE, Key: "food", Value: "pho", Category: "preference",
			Status: store.MemoryActive, CreatedAt: T0, UpdatedAt: T0}
		gone := settle
		gone.SessionID, gone.Summary.SessionID, gone.Run.SessionID = "s-gone", "s-gone", "s-gone"
		for name, c := range map[string]struct {
			w    store.MemoryWrites
			s    store.Settlement
			want error
		}{
			"missing leaving memory":   {store.MemoryWrites{Leaving: []store.Memory{missing}}, settle, store.ErrNotFound},
			"missing entering memory":  {store.MemoryWrites{Entering: []store.Memory{missing}}, settle, store.ErrNotFound},
			"missing moved statement":  {store.MemoryWrites{Moves: []store.Statement{{ID: "nope", MemoryID: "m-1"}}}, settle, store.ErrNotFound},
			"missing fold":             {store.MemoryWrites{Folds: []store.Statement{{ID: "nope", Weight: 2}}}, settle, store.ErrNotFound},
			"missing folded statement": {store.MemoryWrites{Folded: []string{"nope"}}, settle, store.ErrNotFound},
			"second active of a key":   {store.MemoryWrites{New: []store.Memory{twice}}, settle, store.ErrConflict},
			"missing session":          {store.MemoryWrites{}, gone, nil}, // its summary has no session to belong to
			"second final run":         {store.MemoryWrites{}, settle, store.ErrConflict},
		} {
			err := s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if name == "second final run" {
					if err := tx.InsertExtractionRun(ctx, settle.Run); err != nil {
						return err
					}
				}
				return tx.FinishExtraction(ctx, c.w, c.s)
			})
			switch {
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("%s: %v; want %v", name, err, c.want)
			case c.want == nil && err == nil:
				t.Fatalf("%s: no error", name)
			}
		}
		// Nothing of the failed ones is left.
		if sess, err := s.GetSession(ctx, "s-1"); err != nil || sess.Status != store.StatusClosed {
			t.Fatalf("session %+v, %v", sess, err)
		}
		if runs, err := s.ListExtractionRuns(ctx, "s-1"); err != nil || len(runs) != 0 {
			t.Fatalf("runs %+v, %v", runs, err)
		}
	}},
	{"ExtractionMethodsSealAndOpen", func(t *testing.T, s store.Store) {
		setter, ok := s.(interface{ SetSealer(store.Sealer) })
		if !ok {
			t.Fatal("the store cannot be given a sealer")
		}
		ctx := context.Background()
		setter.SetSealer(&fakeSealer{key: "k1"})
		defer setter.SetSealer(nil)
		must(t, s.UpsertUser(ctx, store.User{ID: "u-c", App: sealedApp, DisplayName: "Philippa", Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}))
		must(t, s.CreateSession(ctx, store.Session{ID: "s-c", UserID: "u-c", App: sealedApp, Status: store.StatusClosed,
			StartedAt: T0, EndedAt: T0, UpdatedAt: T0}))
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			l, err := tx.LockExtraction(ctx, "s-c", store.ExtractionReads{})
			if err != nil {
				return err
			}
			if l.User.DisplayName != "Philippa" {
				return fmt.Errorf("display name %q", l.User.DisplayName)
			}
			return tx.FinishExtraction(ctx, store.MemoryWrites{}, store.Settlement{SessionID: "s-c", UserID: "u-c", At: T0,
				Summary: store.Summary{SessionID: "s-c", PromptVersion: "v1", UserID: "u-c", App: sealedApp, Source: "rules",
					Data: json.RawMessage(`{"recognition_moment":"I stay quiet"}`), CreatedAt: T0},
				Run: store.ExtractionRun{SessionID: "s-c", UserID: "u-c", App: sealedApp, PromptVersion: "v1", Source: "rules", Final: true, CreatedAt: T0}})
		}))
		sum, err := s.GetSummary(ctx, "s-c")
		if err != nil || !strings.Contains(string(sum.Data), "I stay quiet") {
			t.Fatalf("summary = %s, %v", sum.Data, err)
		}
		setter.SetSealer(nil)
		if _, err := s.GetSummary(ctx, "s-c"); err == nil {
			t.Error("the summary opened without a sealer: it is stored in plaintext")
		}
	}},
}

// sameUsers checks that two users' memories, statements, audit, sessions,
// summaries, runs and transcripts are alike but for the user's name in
// their ids.
func sameUsers(t *testing.T, s store.Store, a, b string) {
	t.Helper()
	ctx := context.Background()
	norm := func(u string, v any) string {
		raw, err := json.Marshal(v)
		must(t, err)
		return strings.ReplaceAll(string(raw), u, "USER")
	}
	for _, read := range []func(u string) (any, error){
		func(u string) (any, error) { return s.ListMemories(ctx, u, store.MemoryFilter{All: true}) },
		func(u string) (any, error) { return s.ListStatements(ctx, u, nil) },
		func(u string) (any, error) { return s.ListMemoryChanges(ctx, u) },
		func(u string) (any, error) { return s.GetSession(ctx, "s-"+u) },
		func(u string) (any, error) { return s.ListSummaries(ctx, u, 10) },
		func(u string) (any, error) { return s.ListExtractionRuns(ctx, "s-"+u) },
		func(u string) (any, error) { return s.ListChunks(ctx, "s-"+u) },
		func(u string) (any, error) {
			ex, err := s.ListUserExports(ctx, u)
			return len(ex), err
		},
	} {
		va, err := read(a)
		must(t, err)
		vb, err := read(b)
		must(t, err)
		if na, nb := norm(a, va), norm(b, vb); na != nb {
			t.Fatalf("%s: %s\n%s: %s", a, na, b, nb)
		}
	}
}
