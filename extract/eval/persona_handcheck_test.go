package eval_test

import (
	"encoding/json"
	"os"
	"testing"
)

// handCheck is testdata/persona.handcheck.json: a sample of persona-chat
// memories judged by hand (see README.md, "Persona chat: hand-checked
// precision").
type handCheck struct {
	About  string `json:"about"`
	Judged []struct {
		N       int    `json:"n"`
		Chat    int    `json:"chat"`
		Speaker int    `json:"speaker"`
		Turn    string `json:"turn"`
		Key     string `json:"key"`
		Value   string `json:"value"`
		Verdict string `json:"verdict"`
		Reason  string `json:"reason"`
	} `json:"judged"`
}

// TestPersonaHandCheck recounts the hand-checked sample: every memory has
// a verdict, every wrong one a reason, and precision (correct / judged) is
// at least the issue 23 target of 0.90.
func TestPersonaHandCheck(t *testing.T) {
	b, err := os.ReadFile("testdata/persona.handcheck.json")
	if err != nil {
		t.Fatal(err)
	}
	var hc handCheck
	if err := json.Unmarshal(b, &hc); err != nil {
		t.Fatal(err)
	}
	if len(hc.Judged) != 200 {
		t.Fatalf("%d judged memories, want the sample of 200", len(hc.Judged))
	}
	correct := 0
	for _, j := range hc.Judged {
		switch j.Verdict {
		case "correct":
			correct++
		case "wrong":
			if j.Reason == "" {
				t.Errorf("#%d %s = %q: wrong without a reason", j.N, j.Key, j.Value)
			}
		default:
			t.Errorf("#%d %s = %q: verdict %q, want correct or wrong", j.N, j.Key, j.Value, j.Verdict)
		}
		if j.Turn == "" || j.Key == "" || j.Value == "" {
			t.Errorf("#%d: turn, key and value are needed to judge", j.N)
		}
	}
	p := float64(correct) / float64(len(hc.Judged))
	t.Logf("hand-checked precision %.3f (%d of %d)", p, correct, len(hc.Judged))
	if p < 0.90 {
		t.Errorf("hand-checked precision %.3f, below 0.90", p)
	}
}
