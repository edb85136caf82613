package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/prompts"
)

// offlineExtract runs `worker extract --llm=off` on body and decodes what it
// printed.
func offlineExtract(t *testing.T, app, body string) map[string]any {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"extract", "--app", app, "--llm=off"}, mapEnv(map[string]string{}),
		strings.NewReader(body), &out, &errOut)
	if code != 0 {
		t.Fatalf("worker extract --app %s: exit %d\n%s", app, code, errOut.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("worker extract printed no JSON: %v\n%s", err, out.String())
	}
	return got
}

// TestOfflineExtractShowsEverything: offline extraction prints what the job
// would store, records and cues too, under the prompt version the API
// records for the app.
func TestOfflineExtractShowsEverything(t *testing.T) {
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	lara := offlineExtract(t, "lara", `{"user_id":"kid-1","started_at":"2026-11-20T15:00:00Z","ended_at":"2026-11-20T15:20:00Z",
	 "messages":[{"id":"m1","role":"user","content":"I like dinosaurs.","at":"2026-11-20T15:01:00Z"}],
	 "events":[{"kind":"attempt","at":"2026-11-20T15:02:00Z","data":{"concept":"fractions","difficulty":2,"success":true}}]}`)
	if lara["prompt_version"] != apps["lara"].PromptVersion {
		t.Errorf("prompt_version = %v; the API records %s", lara["prompt_version"], apps["lara"].PromptVersion)
	}
	kinds := map[string]bool{}
	for _, r := range lara["records"].([]any) {
		kinds[r.(map[string]any)["kind"].(string)+"/"+r.(map[string]any)["key"].(string)] = true
	}
	if !kinds["learning/fractions"] || !kinds["preference/likes:dinosaurs"] {
		t.Errorf("records = %v; want the learning progress and the preference LaRa would store", lara["records"])
	}

	elder := offlineExtract(t, "eldertree", `{"user_id":"u-1","started_at":"2026-11-20T15:00:00Z","ended_at":"2026-11-20T15:20:00Z",
	 "messages":[{"id":"m1","role":"user","content":"I had a rough weekend.","at":"2026-11-20T15:01:00Z"}],
	 "events":[{"kind":"urge","at":"2026-11-20T15:02:00Z","data":{"intensity":8,"trigger":"party","outcome":"relapsed"}}]}`)
	cues := elder["cues"].([]any)
	if len(cues) == 0 || cues[0].(map[string]any)["kind"] != "relapse" {
		t.Errorf("cues = %v; want the relapse cue the job would record", cues)
	}
	if _, ok := elder["dropped"].([]any); !ok {
		t.Errorf("dropped is missing: %v", elder)
	}

	mona := offlineExtract(t, "mona", `{"user_id":"u-2","started_at":"2026-11-20T15:00:00Z","ended_at":"2026-11-20T15:20:00Z",
	 "messages":[{"id":"m1","role":"user","content":"I hate my life.","at":"2026-11-20T15:01:00Z"},
	             {"id":"m2","role":"user","content":"My password is hunter2.","at":"2026-11-20T15:02:00Z"}]}`)
	if risks := mona["risks"].([]any); len(risks) == 0 || risks[0].(map[string]any)["message_id"] != "m1" {
		t.Errorf("risks = %v; want the distress statement of m1", mona["risks"])
	}
	reasons := map[string]string{}
	for _, d := range mona["dropped"].([]any) {
		reasons[d.(map[string]any)["message_id"].(string)] = d.(map[string]any)["reason"].(string)
	}
	if !strings.HasPrefix(reasons["m2"], "sensitive:") || len(mona["memories"].([]any)) != 0 {
		t.Errorf("dropped = %v, memories = %v; want m2 dropped as sensitive and nothing remembered", reasons, mona["memories"])
	}
	if out := fmt.Sprint(mona); strings.Contains(out, "hunter2") || strings.Contains(out, "hate my life") {
		t.Errorf("worker extract printed the dropped text: %s", out)
	}
}
