package extract_test

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

var mergeNow = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

var mergePolicy = prompts.Policy{
	MinConfidence: 0.6,
	MemoryTTL: map[string]prompts.Duration{
		extract.CategoryFeeling: prompts.Duration(6 * time.Hour),
		extract.CategoryEvent:   prompts.Duration(7 * 24 * time.Hour),
	},
}

func categoryFor(key string) string {
	switch {
	case key == "name" || key == "nickname":
		return extract.CategoryFact
	case key == "feeling":
		return extract.CategoryFeeling
	case strings.HasPrefix(key, "event:"):
		return extract.CategoryEvent
	}
	return extract.CategoryPreference
}

// cand is a candidate from message m1 with the rules' confidence.
func cand(key, value string) extract.Memory {
	return extract.Memory{Key: key, Value: value, Category: categoryFor(key), Importance: 75, Confidence: extract.ConfidenceRules, SourceMessageID: "m1"}
}

func stored(id, key, value string) extract.Stored {
	return extract.Stored{ID: id, Key: key, Value: value, Category: categoryFor(key), Importance: 75, Confidence: 0.7,
		Status: extract.StatusActive, Confirmations: 1, SourceSessionID: "s-old", SourceMessageID: "m-old"}
}

// opView is what a reader of the plan cares about.
type opView struct {
	Kind          extract.OpAction
	Key, Value    string
	Target        string
	Reason        string
	Importance    int
	Confirmations int
}

func views(ops []extract.Op) []opView {
	out := []opView{}
	for _, o := range ops {
		out = append(out, opView{o.Action, o.Memory.Key, o.Memory.Value, o.Target, o.Reason, o.Memory.Importance, o.Confirmations})
	}
	return out
}

func TestPlan(t *testing.T) {
	t.Parallel()
	withConf := func(m extract.Memory, c float64) extract.Memory { m.Confidence = c; return m }
	withImp := func(s extract.Stored, imp, conf int) extract.Stored {
		s.Importance, s.Confirmations = imp, conf
		return s
	}
	deprecated := func(s extract.Stored) extract.Stored { s.Status = extract.StatusDeprecated; return s }

	tests := []struct {
		name       string
		stored     []extract.Stored
		candidates []extract.Memory
		want       []opView
	}{
		{
			"a new key is inserted",
			nil,
			[]extract.Memory{cand("likes:pizza", "pizza")},
			[]opView{{extract.OpInsert, "likes:pizza", "pizza", "", "new", 75, 0}},
		},
		{
			"the same fact again is a bump, however it is spelled",
			[]extract.Stored{withImp(stored("1", "favorite_food", "Pizza"), 80, 2)},
			[]extract.Memory{cand("favorite_food", "pizza!")},
			[]opView{{extract.OpBump, "favorite_food", "Pizza", "1", "confirmed", 85, 3}},
		},
		{
			"a bump stops at importance 100",
			[]extract.Stored{withImp(stored("1", "name", "John"), 98, 7)},
			[]extract.Memory{cand("name", "john")},
			[]opView{{extract.OpBump, "name", "John", "1", "confirmed", 100, 8}},
		},
		{
			"a leading article does not make a new fact",
			[]extract.Stored{stored("1", "likes:beach", "the beach")},
			[]extract.Memory{cand("likes:beach", "beach")},
			[]opView{{extract.OpBump, "likes:beach", "the beach", "1", "confirmed", 80, 2}},
		},
		{
			"a changed value supersedes",
			[]extract.Stored{stored("1", "favorite_food", "pizza")},
			[]extract.Memory{cand("favorite_food", "ramen")},
			[]opView{{extract.OpSupersede, "favorite_food", "ramen", "1", "changed", 75, 0}},
		},
		{
			"dislikes supersedes the likes it contradicts",
			[]extract.Stored{stored("1", "likes:pizza", "pizza"), stored("2", "likes:tea", "tea")},
			[]extract.Memory{cand("dislikes:pizza", "pizza")},
			[]opView{{extract.OpSupersede, "dislikes:pizza", "pizza", "1", "contradiction", 75, 0}},
		},
		{
			"likes supersedes the dislikes it contradicts",
			[]extract.Stored{stored("7", "dislikes:jazz", "jazz")},
			[]extract.Memory{cand("likes:jazz", "jazz")},
			[]opView{{extract.OpSupersede, "likes:jazz", "jazz", "7", "contradiction", 75, 0}},
		},
		{
			"a deprecated memory is history, not a fact",
			[]extract.Stored{deprecated(stored("1", "likes:pizza", "pizza"))},
			[]extract.Memory{cand("likes:pizza", "pizza")},
			[]opView{{extract.OpInsert, "likes:pizza", "pizza", "", "new", 75, 0}},
		},
		{
			"below the policy's confidence nothing is written",
			[]extract.Stored{stored("1", "feeling", "happy")},
			[]extract.Memory{withConf(cand("feeling", "tired"), 0.5)},
			[]opView{{extract.OpSkip, "feeling", "tired", "", "low_confidence", 75, 0}},
		},
		{
			"a low-confidence candidate does not override a confident one",
			nil,
			[]extract.Memory{cand("likes:pizza", "pizza"), withConf(cand("dislikes:pizza", "pizza"), 0.3)},
			[]opView{
				{extract.OpSkip, "dislikes:pizza", "pizza", "", "low_confidence", 75, 0},
				{extract.OpInsert, "likes:pizza", "pizza", "", "new", 75, 0},
			},
		},
		{
			"the same candidate twice is counted once",
			nil,
			[]extract.Memory{cand("likes:pizza", "pizza"), cand("likes:pizza", "Pizza.")},
			[]opView{
				{extract.OpSkip, "likes:pizza", "pizza", "", "duplicate", 75, 0},
				{extract.OpInsert, "likes:pizza", "Pizza.", "", "new", 75, 0},
			},
		},
		{
			"within a batch the last value of a key wins",
			[]extract.Stored{stored("1", "favorite_color", "red")},
			[]extract.Memory{cand("favorite_color", "blue"), cand("favorite_color", "green")},
			[]opView{
				{extract.OpSkip, "favorite_color", "blue", "", "overridden", 75, 0},
				{extract.OpSupersede, "favorite_color", "green", "1", "changed", 75, 0},
			},
		},
		{
			"within a batch a later dislike overrides a like",
			nil,
			[]extract.Memory{cand("likes:olives", "olives"), cand("dislikes:olives", "olives")},
			[]opView{
				{extract.OpInsert, "dislikes:olives", "olives", "", "new", 75, 0},
				{extract.OpSkip, "likes:olives", "olives", "", "overridden", 75, 0},
			},
		},
		{
			"keys in another spelling are the same key",
			[]extract.Stored{stored("1", "event:went_to_dentist", "went to the dentist"), stored("2", "likes:ice_cream", "ice cream")},
			[]extract.Memory{cand("event:went-to-the-dentist", "Went to the dentist."), cand(" Likes:Ice Cream", "ice-cream")},
			[]opView{
				{extract.OpBump, "event:went_to_dentist", "went to the dentist", "1", "confirmed", 80, 2},
				{extract.OpBump, "likes:ice_cream", "ice cream", "2", "confirmed", 80, 2},
			},
		},
		{
			"malformed, too long and sensitive candidates are refused",
			nil,
			[]extract.Memory{
				cand("Favorite Food", "pizza"),
				cand("likes:!!!", "pizza"),
				cand("likes:tea", "  "),
				cand("likes:walks", strings.Repeat("x", extract.MaxValueRunes+1)),
				cand("favorite_number", "4111 1111 1111 1111"),
				cand("likes:4111_1111_1111_1111", "cards"),
			},
			[]opView{
				{extract.OpSkip, "Favorite Food", "pizza", "", "invalid_key", 75, 0},
				{extract.OpSkip, "favorite_number", "4111 1111 1111 1111", "", "sensitive:card_number", 75, 0},
				{extract.OpSkip, "likes:!!!", "pizza", "", "invalid_key", 75, 0},
				{extract.OpSkip, "likes:4111_1111_1111_1111", "cards", "", "sensitive:card_number", 75, 0},
				{extract.OpSkip, "likes:tea", "", "", "empty_value", 75, 0},
				{extract.OpSkip, "likes:walks", strings.Repeat("x", extract.MaxValueRunes+1), "", "too_long", 75, 0},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := extract.Plan(tt.stored, tt.candidates, "s-new", mergePolicy, mergeNow)
			if !reflect.DeepEqual(views(got), tt.want) {
				t.Errorf("plan\n got %+v\nwant %+v", views(got), tt.want)
			}
		})
	}
}

func TestPlanExpiry(t *testing.T) {
	t.Parallel()
	said := mergeNow.Add(-time.Hour)
	fromRules := cand("event:went_to_dentist", "went to the dentist")
	fromRules.ExpiresAt = new(said.Add(7 * 24 * time.Hour))
	fromLLM := cand("feeling", "tired") // the LLM gives no expiry: the policy does
	fromLLM.Confidence = extract.ConfidenceLLM

	old := stored("1", "event:went_to_dentist", "went to the dentist")
	old.ExpiresAt = new(said.Add(-24 * time.Hour))

	ops := extract.Plan([]extract.Stored{old}, []extract.Memory{fromRules, fromLLM, cand("likes:tea", "tea")}, "s-new", mergePolicy, mergeNow)
	want := map[string]*time.Time{
		"event:went_to_dentist": new(said.Add(7 * 24 * time.Hour)), // refreshed by the bump
		"feeling":               new(mergeNow.Add(6 * time.Hour)),
		"likes:tea":             nil,
	}
	for _, op := range ops {
		if w := want[op.Memory.Key]; !reflect.DeepEqual(op.Memory.ExpiresAt, w) {
			t.Errorf("%s %s expires %v, want %v", op.Action, op.Memory.Key, op.Memory.ExpiresAt, w)
		}
	}

	// A bump never shortens a longer expiry already stored.
	later := stored("2", "feeling", "tired")
	later.ExpiresAt = new(mergeNow.Add(48 * time.Hour))
	ops = extract.Plan([]extract.Stored{later}, []extract.Memory{fromLLM}, "s-new", mergePolicy, mergeNow)
	if len(ops) != 1 || ops[0].Action != extract.OpBump || !ops[0].Memory.ExpiresAt.Equal(*later.ExpiresAt) {
		t.Errorf("bump of a longer-lived memory: %+v", ops)
	}
}

// TestPlanDeterministic: the plan does not depend on the order the store
// returned its rows in, and is sorted by key.
func TestPlanDeterministic(t *testing.T) {
	t.Parallel()
	rows := []extract.Stored{
		stored("1", "favorite_color", "red"), stored("2", "likes:pizza", "pizza"),
		stored("3", "name", "John"), stored("4", "dislikes:jazz", "jazz"), stored("5", "feeling", "sad"),
	}
	cands := []extract.Memory{
		cand("name", "John"), cand("likes:jazz", "jazz"), cand("favorite_color", "green"),
		cand("dislikes:pizza", "pizza"), cand("nickname", "Johnny"), cand("feeling", "happy"),
	}
	want := extract.Plan(rows, cands, "s-new", mergePolicy, mergeNow)
	keys := []string{}
	for _, op := range want {
		keys = append(keys, op.Memory.Key)
	}
	if !slices.IsSorted(keys) {
		t.Errorf("keys not sorted: %q", keys)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		shuffled := slices.Clone(rows)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if got := extract.Plan(shuffled, cands, "s-new", mergePolicy, mergeNow); !reflect.DeepEqual(got, want) {
			t.Fatalf("order of stored rows changed the plan:\n%+v\n%+v", views(got), views(want))
		}
	}
}

// memStore applies plans the way the store is expected to: inserts get the
// session as their source, supersedes deprecate their target, bumps record
// the session in ConfirmedBy.
type memStore struct {
	rows []extract.Stored
}

func (s *memStore) apply(t *testing.T, sessionID string, ops []extract.Op) {
	t.Helper()
	find := func(id string) *extract.Stored {
		for i := range s.rows {
			if s.rows[i].ID == id {
				return &s.rows[i]
			}
		}
		t.Fatalf("op targets unknown memory %q", id)
		return nil
	}
	insert := func(m extract.Memory) {
		s.rows = append(s.rows, extract.Stored{
			ID: strconv.Itoa(len(s.rows) + 100), Key: m.Key, Value: m.Value, Category: m.Category,
			Importance: m.Importance, Confidence: m.Confidence, Status: extract.StatusActive, Confirmations: 1,
			ExpiresAt: m.ExpiresAt, SourceSessionID: sessionID, SourceMessageID: m.SourceMessageID,
		})
	}
	for _, op := range ops {
		switch op.Action {
		case extract.OpInsert:
			insert(op.Memory)
		case extract.OpSupersede:
			find(op.Target).Status = extract.StatusDeprecated
			insert(op.Memory)
		case extract.OpBump:
			row := find(op.Target)
			row.Importance, row.Confidence, row.ExpiresAt = op.Memory.Importance, op.Memory.Confidence, op.Memory.ExpiresAt
			row.Confirmations = op.Confirmations
			row.ConfirmedBy = append(row.ConfirmedBy, sessionID)
		}
	}
}

func (s *memStore) active() map[string]string {
	out := map[string]string{}
	for _, r := range s.rows {
		if r.Status == extract.StatusActive {
			out[r.Key] = r.Value
		}
	}
	return out
}

// TestPlanRerunIsIdempotent: a job that dies after writing and runs again
// plans nothing more, whatever the first run did.
func TestPlanRerunIsIdempotent(t *testing.T) {
	t.Parallel()
	s := &memStore{rows: []extract.Stored{
		stored("1", "name", "John"), stored("2", "favorite_color", "red"), stored("3", "likes:pizza", "pizza"),
	}}
	cands := []extract.Memory{
		cand("name", "john"),            // bump
		cand("favorite_color", "blue"),  // supersede
		cand("dislikes:pizza", "pizza"), // contradiction
		cand("likes:tea", "tea"),        // insert
		cand("likes:tea", "Tea"),        // duplicate
		{Key: "feeling", Value: "meh", Confidence: 0.2, Category: "feeling"}, // low confidence
	}
	first := extract.Plan(s.rows, cands, "s-9", mergePolicy, mergeNow)
	kinds := map[extract.OpAction]int{}
	for _, op := range first {
		kinds[op.Action]++
	}
	if kinds[extract.OpBump] != 1 || kinds[extract.OpSupersede] != 2 || kinds[extract.OpInsert] != 1 || kinds[extract.OpSkip] != 2 {
		t.Fatalf("first run %+v", views(first))
	}
	s.apply(t, "s-9", first)
	after := s.active()

	for run := range 2 {
		again := extract.Plan(s.rows, cands, "s-9", mergePolicy, mergeNow)
		for _, op := range again {
			if op.Action != extract.OpSkip {
				t.Errorf("re-run %d plans %s %s (%s)", run, op.Action, op.Memory.Key, op.Reason)
			}
		}
		s.apply(t, "s-9", again)
		if got := s.active(); !reflect.DeepEqual(got, after) {
			t.Errorf("re-run %d changed memories: %v, want %v", run, got, after)
		}
	}
	if want := (map[string]string{"name": "John", "favorite_color": "blue", "dislikes:pizza": "pizza", "likes:tea": "Tea"}); !reflect.DeepEqual(after, want) {
		t.Errorf("memories %v, want %v", after, want)
	}
}

// TestPlanStaleRerun: session A said blue, then session B said red. A re-run
// of A must not bring blue back, but a new session saying blue again must.
func TestPlanStaleRerun(t *testing.T) {
	t.Parallel()
	s := &memStore{}
	s.apply(t, "A", extract.Plan(s.rows, []extract.Memory{cand("favorite_color", "blue")}, "A", mergePolicy, mergeNow))
	s.apply(t, "B", extract.Plan(s.rows, []extract.Memory{cand("favorite_color", "red")}, "B", mergePolicy, mergeNow))

	rerun := extract.Plan(s.rows, []extract.Memory{cand("favorite_color", "blue")}, "A", mergePolicy, mergeNow)
	if v := views(rerun); len(v) != 1 || v[0].Kind != extract.OpSkip || v[0].Reason != "already_applied" {
		t.Errorf("re-run of A: %+v, want one skip already_applied", v)
	}
	fresh := extract.Plan(s.rows, []extract.Memory{cand("favorite_color", "blue")}, "C", mergePolicy, mergeNow)
	if v := views(fresh); len(v) != 1 || v[0].Kind != extract.OpSupersede {
		t.Errorf("session C saying blue again: %+v, want a supersede", v)
	}
}

// TestPlanRerunWithoutSession: with no session ID, the source message stands
// in for it.
func TestPlanRerunWithoutSession(t *testing.T) {
	t.Parallel()
	s := &memStore{}
	c := cand("likes:tea", "tea")
	s.apply(t, "", extract.Plan(s.rows, []extract.Memory{c}, "", mergePolicy, mergeNow))
	if v := views(extract.Plan(s.rows, []extract.Memory{c}, "", mergePolicy, mergeNow)); len(v) != 1 || v[0].Reason != "already_applied" {
		t.Errorf("re-run: %+v", v)
	}
	other := c
	other.SourceMessageID = "m2"
	if v := views(extract.Plan(s.rows, []extract.Memory{other}, "", mergePolicy, mergeNow)); len(v) != 1 || v[0].Kind != extract.OpBump {
		t.Errorf("the same fact from another message: %+v, want a bump", v)
	}
}

// FuzzPlan feeds the merge policy what an LLM might answer: whatever the
// keys and values, every candidate gets exactly one op, nothing malformed or
// sensitive is written, and a re-run of the same session writes nothing.
func FuzzPlan(f *testing.F) {
	f.Add("likes:pizza", "pizza", "dislikes:pizza", "Pizza!", 0.7)
	f.Add("favorite_color", "blue", "favorite_color", "green", 0.9)
	f.Add("event:went-to-the-dentist", "went", "name", "4111 1111 1111 1111", 0.85)
	f.Add("Likes:Ice Cream", "ice cream", "likes:ice_cream", "the ice cream", 1.0)
	f.Fuzz(func(t *testing.T, key1, value1, key2, value2 string, conf float64) {
		s := &memStore{rows: []extract.Stored{stored("1", "likes:pizza", "pizza"), stored("2", "favorite_color", "red")}}
		cands := []extract.Memory{
			{Key: key1, Value: value1, Category: categoryFor(key1), Importance: 70, Confidence: conf, SourceMessageID: "m1"},
			{Key: key2, Value: value2, Category: "whatever", Importance: 500, Confidence: extract.ConfidenceLLM, SourceMessageID: "m2"},
		}
		ops := extract.Plan(s.rows, cands, "s-1", mergePolicy, mergeNow)
		if len(ops) != len(cands) {
			t.Fatalf("%d ops for %d candidates: %+v", len(ops), len(cands), views(ops))
		}
		for _, op := range ops {
			if op.Action == extract.OpSkip {
				continue
			}
			m := op.Memory
			if !extract.ValidKey(m.Key) || !keyShape.MatchString(m.Key) {
				t.Errorf("%s writes key %q", op.Action, m.Key)
			}
			if _, bad := extract.Sensitive(m.Value); bad || m.Value == "" || len([]rune(m.Value)) > extract.MaxValueRunes {
				t.Errorf("%s writes value %q", op.Action, m.Value)
			}
			if m.Importance < 0 || m.Importance > 100 || m.Confidence < mergePolicy.MinConfidence || m.Confidence > 1 {
				t.Errorf("%s writes importance %d, confidence %v", op.Action, m.Importance, m.Confidence)
			}
		}
		if again := extract.Plan(s.rows, cands, "s-1", mergePolicy, mergeNow); !reflect.DeepEqual(again, ops) {
			t.Errorf("not deterministic")
		}
		s.apply(t, "s-1", ops)
		for _, op := range extract.Plan(s.rows, cands, "s-1", mergePolicy, mergeNow) {
			if op.Action != extract.OpSkip {
				t.Errorf("re-run plans %s %q (%s)", op.Action, op.Memory.Key, op.Reason)
			}
		}
	})
}

// TestKeysToReadHoldEverySubjectKey: an extraction reads the stored keys
// that share a subject with its candidates' keys as Plan cleans them, and
// none other; a key sharing no subject reads itself alone.
func TestKeysToReadHoldEverySubjectKey(t *testing.T) {
	stored := []string{"likes:tea", "dislikes:tea", "likes:coffee", "name", "city", "dislikes:jazz", "pref:tea", "pref:jazz"}
	cases := []struct {
		cands []extract.Memory
		want  []string
	}{
		{[]extract.Memory{{Key: "likes:tea"}}, []string{"dislikes:tea", "likes:tea", "pref:tea"}},
		{[]extract.Memory{{Key: "  dislikes:tea "}, {Key: "name"}}, []string{"dislikes:tea", "likes:tea", "name", "pref:tea"}},
		{[]extract.Memory{{Key: "pref:jazz"}}, []string{"dislikes:jazz", "likes:jazz", "pref:jazz"}},
		{[]extract.Memory{{Key: "city"}, {Key: "city"}}, []string{"city"}},
		{nil, nil},
	}
	for _, c := range cases {
		got := extract.KeysToRead(c.cands)
		if !slices.Equal(got, c.want) {
			t.Errorf("KeysToRead(%+v) = %q; want %q", c.cands, got, c.want)
		}
		for _, k := range stored {
			shares := slices.ContainsFunc(c.cands, func(m extract.Memory) bool { return extract.Subject(k) == extract.Subject(cleaned(m.Key)) })
			if shares != slices.Contains(got, k) {
				t.Errorf("candidates %+v: stored key %q shares a subject with one: %v; read: %v", c.cands, k, shares, !shares)
			}
		}
	}
}

// cleaned is a candidate's key as Plan cleans it.
func cleaned(key string) string {
	key = strings.TrimSpace(key)
	if k, ok := extract.CanonicalKey(key); ok {
		return k
	}
	return key
}
