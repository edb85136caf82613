package extract_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// TestSummaryNamesOnlyWhatIsKept (issue 22, item 2): a statement the
// safety screen drops (special:health) is neither a topic of the session
// summary nor counted in it.
func TestSummaryNamesOnlyWhatIsKept(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	lines := []string{"My name is Snorkelwick and I live in Plonkton.", "I started taking sertraline a few weeks ago for my depression.",
		"I like bazzlefizz.", "I'm allergic to Grumbleberries."}
	var msgs []extract.Message
	for i, l := range lines {
		msgs = append(msgs, extract.Message{ID: string(rune('a' + i)), Role: "user", Content: l, At: at.Add(time.Duration(i) * time.Minute)})
	}
	app := &prompts.App{Name: "mona"}
	res := extract.Rules(app, extract.Session{ID: "s", UserID: "u", App: "mona", StartedAt: at, EndedAt: at.Add(time.Hour), Messages: msgs}, at)
	var keys []string
	for _, m := range res.Memories {
		keys = append(keys, m.Key)
	}
	slices.Sort(keys)
	topics, _ := res.SessionSummary["topics"].([]any)
	var got []string
	for _, x := range topics {
		got = append(got, x.(string))
	}
	b, _ := json.Marshal(res.SessionSummary)
	if len(keys) != 4 || !slices.Equal(got, keys) || res.SessionSummary["memories"] != 4 || strings.Contains(string(b), "sertraline") {
		t.Fatalf("summary %s for the memories kept %v; want their keys as topics and their count", b, keys)
	}
	if !slices.Contains(res.Dropped, extract.Dropped{MessageID: "b", Reason: "special:health"}) {
		t.Fatalf("dropped = %v; want b as special:health", res.Dropped)
	}
}

// TestUnmention: what names a memory goes, whatever shape holds it; what
// does not, stays.
func TestUnmention(t *testing.T) {
	doc := map[string]any{}
	_ = json.Unmarshal([]byte(`{
		"memories": 4, "message_count": 9,
		"topics": ["likes:bazzlefizz", "name", "lives_in", "hobby:sertraline_few_weeks_ago"],
		"summary": "Talked about snacks.\nThe user likes Bazzlefizz a lot.\nAnd the weather.",
		"facts": [{"key": "name", "value": "Snorkelwick"}, {"key": "lives_in", "value": "Plonkton"}],
		"note": "Snorkelwick said hello",
		"nested": {"a": ["x", "bazzlefizz"], "b": "nameless"}
	}`), &doc)
	changed := extract.Unmention(doc, extract.Names([]extract.Mention{{Key: "likes:bazzlefizz", Value: "bazzlefizz"},
		{Key: "name", Value: "Snorkelwick"}, {Key: "hobby:sertraline_few_weeks_ago"}}))
	b, _ := json.Marshal(doc)
	want := `{"facts":[{"key":"lives_in","value":"Plonkton"}],"memories":1,"message_count":9,"nested":{"a":["x"],"b":"nameless"},` +
		`"summary":"Talked about snacks.\nAnd the weather.","topics":["lives_in"]}`
	if !changed || string(b) != want {
		t.Fatalf("unmentioned =\n%s\nwant\n%s", b, want)
	}
	if extract.Unmention(doc, extract.Names([]extract.Mention{{Key: "likes:tea", Value: "tea"}})) {
		t.Fatal("a memory the summary does not name changed it")
	}
	// A word holding the value is not the value.
	if extract.Names([]extract.Mention{{Key: "likes:tea", Value: "tea"}})("a steady team") {
		t.Fatal("tea named in 'a steady team'")
	}
}
