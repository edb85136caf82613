package decay_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/golden"
	"github.com/mnemo-ai/mnemo/kinds/lara"
)

// TestGolden runs the three LaRa decays over one user's records, as the
// batches would at now, and compares what they write with
// testdata/lara.golden.json: the file shows reviewers the exact shape of a
// decayed record.
func TestGolden(t *testing.T) {
	t.Parallel()
	records := []extract.Record{
		learning(5, 30*day),
		func() extract.Record { r := learning(5, 250*day); r.Key = "letters"; return r }(),
		func() extract.Record { r := learning(2, 3*365*day); r.Key = "shapes"; return r }(),
		emotional(entry("s-38", 29*day, 2, 1, 0, 1), entry("s-39", 12*day, 1, 1, 2, 0), entry("s-40", 2*day, 0, 1, 3, 0), entry("s-33", 45*day, 4, 0, 0, 2)),
		preference("likes:dinosaurs", ts(now.Add(-400*day)), ts(now.Add(-20*day))),
		preference("dislikes:loud_noises", ts(now.Add(-400*day)), ts(now.Add(-181*day))),
		preference("favorite_color", "last spring", "last spring"),
	}
	type result struct {
		Kind    string         `json:"kind"`
		Key     string         `json:"key"`
		Changed bool           `json:"changed,omitempty"`
		Remove  bool           `json:"remove,omitempty"`
		Data    map[string]any `json:"data,omitempty"`
	}
	var got []result
	p := decay.DefaultPolicy()
	for _, r := range records {
		res := result{Kind: r.Type, Key: r.Key}
		switch r.Type {
		case lara.LaraLearning:
			out, changed := masteryDecay(r, now, p)
			res.Changed = changed
			if changed {
				res.Data = out.Data
			}
		case lara.LaraEmotional:
			out, changed := emotionalDecay(r, now, p)
			res.Changed = changed
			if changed {
				res.Data = out.Data
			}
		case lara.LaraPreference:
			res.Remove = preferenceRemoved(r, now, p)
		}
		got = append(got, res)
	}
	b, err := json.MarshalIndent(map[string]any{"now": now.Format(time.RFC3339), "policy": "DefaultPolicy", "records": got}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	golden.Check(t, filepath.Join("testdata", "lara.golden.json"), b)
}
