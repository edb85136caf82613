package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/prompts"
)

// runEval runs `worker eval --json` with args and env and decodes its output.
func runEval(t *testing.T, env map[string]string, args ...string) evalOutput {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"eval", "--json"}, args...), mapEnv(env), strings.NewReader(""), &out, &errOut)
	if code != 0 {
		t.Fatalf("worker eval %v: exit %d\n%s", args, code, errOut.String())
	}
	var got evalOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("worker eval printed no JSON: %v\n%s", err, out.String())
	}
	return got
}

// adversarialRules is the adversarial set scored by the eval package itself.
func adversarialRules(t *testing.T) eval.Score {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	set, err := eval.LoadShipped("adversarial")
	if err != nil {
		t.Fatal(err)
	}
	return eval.Run(apps["mona"], set).Measure()
}

// TestEvalRules: with --llm=off, worker eval prints the figures the
// evaluation package computes for the rules, per set and category, and says
// which sets it skipped for want of a corpus.
func TestEvalRules(t *testing.T) {
	want := adversarialRules(t)
	got := runEval(t, map[string]string{}, "--llm=off", "--sets", "adversarial,persona-chat")
	if got.Extractor.Source != "rules" || got.Extractor.Model != "" {
		t.Errorf("extractor = %+v; want the rules", got.Extractor)
	}
	if len(got.Sets) != 1 || got.Sets[0].Name != "adversarial" {
		t.Fatalf("sets = %+v; want adversarial", got.Sets)
	}
	s := got.Sets[0]
	if s.Precision != want.Total.Precision() || s.Recall != want.Total.Recall() || s.Forbidden != want.Total.Forbidden ||
		s.Total.Stored != want.Total.Stored || len(s.Categories) != len(want.Rows) {
		t.Errorf("adversarial = %+v; the eval package says %+v", s, want.Total)
	}
	if s.Spend.Sessions != len(mustShipped(t, "adversarial").Sessions) || s.Spend.LLM != 0 || s.Spend.InputTokens != 0 || s.Spend.CostUSD != 0 {
		t.Errorf("spend = %+v; want every session by the rules, nothing spent", s.Spend)
	}
	if len(got.Skipped) != 1 || got.Skipped[0].Set != "persona-chat" || !strings.Contains(got.Skipped[0].Reason, "--corpora") {
		t.Errorf("skipped = %+v; want persona-chat, for want of --corpora", got.Skipped)
	}

	// The table says the same.
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"eval", "--llm=off", "--sets", "adversarial"}, mapEnv(nil), strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, w := range []string{"extractor: rules", "adversarial (app mona)", "precision", "forbidden", "spend: 20 sessions"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the table lacks %q:\n%s", w, out.String())
		}
	}
}

func mustShipped(t *testing.T, name string) *eval.Set {
	t.Helper()
	s, err := eval.LoadShipped(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestEvalBadFlags: an unknown set or extractor is a usage error that names
// what is known.
func TestEvalBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--sets", "nope"}, {"--llm", "maybe"}, {"--persona-chats", "-1"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"eval"}, args...), mapEnv(nil), strings.NewReader(""), &out, &errOut); code != exitUsage {
			t.Errorf("worker eval %v: exit %d, want %d (%s)", args, code, exitUsage, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	run(context.Background(), []string{"eval", "--sets", "nope"}, mapEnv(nil), strings.NewReader(""), &out, &errOut)
	if !strings.Contains(errOut.String(), "adversarial") {
		t.Errorf("the error names no known set: %s", errOut.String())
	}
}

// TestEvalLLM qualifies a scripted model: one that answers every session
// with a memory nothing asked for scores precision 0 and costs its tokens at
// the configured price; one whose requests all fail falls back to the rules
// in every session, with the rules' figures.
func TestEvalLLM(t *testing.T) {
	rules := adversarialRules(t)
	sessions := len(mustShipped(t, "adversarial").Sessions)
	env := func(llm *llmtest.Server) map[string]string {
		return map[string]string{"OPENAI_BASE_URL": llm.URL(), "OPENAI_API_KEY": "sk-test", "MNEMO_LLM_MODEL": "gpt-4o-mini",
			"MNEMO_LLM_PRICES": "gpt-4o-mini=1/2"}
	}

	t.Run("wrong answers", func(t *testing.T) {
		llm := llmtest.NewServer(t)
		llm.SetDefault(func(llmtest.Request) llmtest.Reply {
			return llmtest.WithUsage(1000, 50, llmtest.Valid(`{"memories":[{"key":"likes:zebra_crossings","value":"zebra crossings","category":"preference","importance":80,"confidence":0.9,"source_message_id":"q0"}],
				"session_summary":{"summary":"Small talk.","topics":[]}}`))
		})
		got := runEval(t, env(llm), "--sets", "adversarial")
		if got.Extractor.Source != "llm" || got.Extractor.Model != "gpt-4o-mini" {
			t.Errorf("extractor = %+v; want the model", got.Extractor)
		}
		s := got.Sets[0]
		// The safety screen drops the memory where the first turn is
		// distress or special; the others are stored, all wrong.
		if s.Total.Stored == 0 || s.Total.Stored > sessions || s.Precision != 0 || s.Recall != 0 {
			t.Errorf("stored %d, precision %v, recall %v; want up to one wrong memory a session (%d), precision and recall 0", s.Total.Stored, s.Precision, s.Recall, sessions)
		}
		sp := s.Spend
		calls := len(llm.Requests())
		if sp.LLM != sessions || sp.Fallbacks != 0 || sp.Calls != calls || sp.InputTokens != 1000*calls || sp.OutputTokens != 50*calls {
			t.Errorf("spend = %+v; want %d sessions by the model, %d calls of 1000+50 tokens", sp, sessions, calls)
		}
		if want := float64(calls) * (1000*1 + 50*2) / 1e6; math.Abs(sp.CostUSD-want) > 1e-9 || math.Abs(got.Spend.CostUSD-want) > 1e-9 {
			t.Errorf("cost = %v (all sets %v); want %v", sp.CostUSD, got.Spend.CostUSD, want)
		}
	})

	t.Run("refused", func(t *testing.T) {
		llm := llmtest.NewServer(t)
		llm.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Status(400, "") })
		s := runEval(t, env(llm), "--sets", "adversarial").Sets[0]
		if s.Spend.Fallbacks != sessions || s.Spend.LLM != 0 {
			t.Errorf("spend = %+v; want every session fallen back to the rules", s.Spend)
		}
		if s.Precision != rules.Total.Precision() || s.Recall != rules.Total.Recall() || s.Total.Stored != rules.Total.Stored {
			t.Errorf("figures %+v; the rules give %+v", s.Total, rules.Total)
		}
	})

	t.Run("off", func(t *testing.T) {
		llm := llmtest.NewServer(t) // no script: a request would fail the test
		s := runEval(t, env(llm), "--sets", "adversarial", "--llm=off").Sets[0]
		if s.Spend.LLM != 0 || len(llm.Requests()) != 0 {
			t.Errorf("--llm=off called the model: %+v", s.Spend)
		}
	})
}

// TestEvalPersonaChat: with the corpus, worker eval scores the first N
// persona-chat conversations and writes the hand-checking sample.
func TestEvalPersonaChat(t *testing.T) {
	dir := os.Getenv("MNEMO_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpora")
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(eval.PersonaCorpus))); err != nil {
		if os.Getenv("MNEMO_REQUIRE_CORPORA") == "1" {
			t.Fatalf("MNEMO_REQUIRE_CORPORA=1 but the persona-chat corpus is not in %s: %v", dir, err)
		}
		t.Skipf("the persona-chat corpus is not in %s (set MNEMO_CORPORA): %v", dir, err)
	}
	sample := filepath.Join(t.TempDir(), "sample.json")
	got := runEval(t, nil, "--llm=off", "--sets", "persona-chat", "--corpora", dir, "--persona-chats", "50", "--sample", sample)
	p := got.Persona
	if p == nil || p.Chats != 50 || p.Sessions != 100 || p.Lines == 0 || p.Recall != p.PersonaScore.Recall() {
		t.Fatalf("persona_chat = %+v; want 50 chats scored", p)
	}
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var mems []eval.PersonaMemory
	if err := json.Unmarshal(raw, &mems); err != nil {
		t.Fatal(err)
	}
	if len(mems) != min(eval.PersonaSampleSize, p.Total.Stored) {
		t.Errorf("the sample holds %d memories of %d stored", len(mems), p.Total.Stored)
	}
}

// TestEvalRiskSet: `worker eval --sets risk` scores the shipped risk set
// with the rules and reports what the eval package measures of it; the
// held-out sets (--sets risk.holdout, risk.holdout31, risk.holdout-w4) are
// reported apart, under risk_holdout, risk_holdout31 and risk_holdout_w4, each with the figures of every
// source alone and combined.
func TestEvalRiskSet(t *testing.T) {
	apps, err := prompts.Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range eval.RiskSets {
		t.Run(name, func(t *testing.T) {
			raw, ok := eval.ShippedFile(name)
			if !ok {
				t.Fatalf("the binary has no risk set %s", name)
			}
			set, err := eval.ParseRisk(name, raw)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := eval.RunRisk(apps, set)
			if err != nil {
				t.Fatal(err)
			}
			want := eval.MeasureRisk(eval.RiskTitle(name), outs)
			got := runEval(t, map[string]string{}, "--llm=off", "--sets", name)
			reports := map[string]*evalRisk{eval.RiskSetName: got.Risk, eval.RiskHoldoutSetName: got.RiskHoldout,
				eval.RiskHoldout31SetName: got.RiskHoldout31, eval.RiskHoldoutW4SetName: got.RiskHoldoutW4}
			report := reports[name]
			for n, r := range reports {
				if (r != nil) != (n == name) {
					t.Fatalf("reports %+v; want only the report of %s; skipped = %+v", reports, name, got.Skipped)
				}
			}
			if len(report.Sources) != 4 || report.Sources[0].Source != eval.SourceRules || report.Sources[1].Source != eval.SourceTrained ||
				report.Sources[2].Source != eval.SourceTrainedBare {
				t.Errorf("%s sources = %+v; want the rules, the trained layer, its bare model and the screen that combines them", name, report.Sources)
			}
			if c := report.Sources[3]; c.Recall != want.Total.Recall() {
				t.Errorf("combined recall %v, the report's %v", c.Recall, want.Total.Recall())
			}
			if report.Set != eval.RiskTitle(name) || report.Recall != want.Total.Recall() || report.HighPrecision != want.HighPrecision() ||
				report.FalseAlarmsHigh != want.Total.FalseAlarms(extract.SeverityHigh) || len(report.Families) != len(want.Families) {
				t.Errorf("%s = %+v; the eval package says recall %v, high precision %v", name, report, want.Total.Recall(), want.HighPrecision())
			}
		})
	}

	// Both sets, one table each, the held-out one under its own title.
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"eval", "--llm=off", "--sets", "risk,risk.holdout"}, mapEnv(nil), strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "\nrisk: ") || !strings.Contains(out.String(), "\nrisk (held out): ") {
		t.Errorf("the table does not report both risk sets apart:\n%s", out.String())
	}
}

// TestEvalAppSets: worker eval runs each app's hand-written set through
// that app's preset, with the figures the eval package computes for it.
func TestEvalAppSets(t *testing.T) {
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	got := runEval(t, map[string]string{}, "--llm=off", "--sets", "eldertree,coach,clara,lara")
	if len(got.Sets) != 4 {
		t.Fatalf("sets = %+v; want the four app sets", got.Sets)
	}
	for _, s := range got.Sets {
		set := mustShipped(t, s.Name)
		want := eval.Run(apps[set.App], set).Measure()
		if s.App != s.Name || s.Turns < 100 || s.Recall != want.Total.Recall() || s.Precision != want.Total.Precision() ||
			s.Total.Stored != want.Total.Stored || s.Forbidden != want.Total.Forbidden {
			t.Errorf("%s = %+v; want app %s and the eval package's %+v", s.Name, s, s.Name, want.Total)
		}
	}
}

// TestEvalRiskLLM: with a model configured, worker eval scores the risk set
// as the extraction job screens it, the model's own judgement combined with
// the rules'. A scripted model answers Mona's items (the other apps' calls
// are refused and fall back to the rules, and are counted so): a model that
// finds risk everywhere catches every Mona positive; one that lowers every
// message with a frame code clears every rules finding on Mona; one that
// says "none" without a frame lowers nothing.
func TestEvalRiskLLM(t *testing.T) {
	apps, err := prompts.Load("")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := eval.ShippedFile(eval.RiskSetName)
	set, err := eval.ParseRisk(eval.RiskSetName, raw)
	if err != nil {
		t.Fatal(err)
	}
	rulesOuts, err := eval.RunRisk(apps, set)
	if err != nil {
		t.Fatal(err)
	}
	rules := eval.MeasureRisk(eval.RiskTitle(eval.RiskSetName), rulesOuts)
	llmItems, monaItems := 0, 0
	for _, it := range set.Items {
		if apps[it.App].Policy.LLM {
			llmItems++
		}
		if it.App == "mona" {
			monaItems++
		}
	}
	row := func(rows []eval.RiskRow, name string) eval.RiskRow {
		for _, r := range rows {
			if r.Name == name {
				return r
			}
		}
		t.Fatalf("no row %q in %+v", name, rows)
		return eval.RiskRow{}
	}
	// every message of an item, q0 to q3: ids that are not in the session
	// are ignored by the combination.
	entries := func(class, severity, reason string) string {
		var es []string
		for i := range 4 {
			es = append(es, fmt.Sprintf(`{"message_id":"q%d","class":%q,"severity":%q,"actor":"user","reason":%q}`, i, class, severity, reason))
		}
		return "[" + strings.Join(es, ",") + "]"
	}
	score := func(t *testing.T, risks string) *evalRisk {
		t.Helper()
		llm := llmtest.NewServer(t)
		llm.SetDefault(func(r llmtest.Request) llmtest.Reply {
			if r.ResponseFormat == nil || r.ResponseFormat.JSONSchema == nil || r.ResponseFormat.JSONSchema.Name != "mona" {
				return llmtest.Status(400, "")
			}
			return llmtest.WithUsage(200, 40, llmtest.Valid(`{"memories":[],"session_summary":{"summary":"Talk.","topics":[]},"risks":`+risks+`}`))
		})
		got := runEval(t, map[string]string{"OPENAI_BASE_URL": llm.URL(), "OPENAI_API_KEY": "sk-test", "MNEMO_LLM_MODEL": "gpt-4o-mini"},
			"--sets", eval.RiskSetName)
		r := got.Risk
		if r == nil || r.Source != "llm" {
			t.Fatalf("risk = %+v; want the model's figures", r)
		}
		if r.Spend.Sessions != len(set.Items) || r.Spend.LLM != monaItems || r.Spend.Fallbacks != llmItems-monaItems {
			t.Errorf("spend = %+v; want %d items, %d answered by the model, %d fallen back", r.Spend, len(set.Items), monaItems, llmItems-monaItems)
		}
		if r.Spend.InputTokens != 200*r.Spend.Calls || got.Spend.Sessions != r.Spend.Sessions {
			t.Errorf("spend = %+v (all sets %+v); want 200 input tokens a call, counted in the total", r.Spend, got.Spend)
		}
		for _, app := range []string{"clara", "coach", "eldertree", "lara"} {
			if g, w := row(r.Apps, app), row(rules.Apps, app); g.Caught != w.Caught || !maps.Equal(g.Alarms, w.Alarms) {
				t.Errorf("%s: %+v; the rules alone give %+v", app, g, w)
			}
		}
		return r
	}

	t.Run("raises", func(t *testing.T) {
		r := score(t, entries("suicidal", "high", "intent"))
		if m := row(r.Apps, "mona"); m.Caught != m.Positives || m.Positives == 0 {
			t.Errorf("mona: caught %d of %d; the model found risk in every message", m.Caught, m.Positives)
		}
		if r.Recall <= rules.Total.Recall() || r.FalseAlarmsHigh <= rules.Total.FalseAlarms(extract.SeverityHigh) {
			t.Errorf("recall %v, false alarms high %v; the rules give %v, %v: a model that raises everything must raise both",
				r.Recall, r.FalseAlarmsHigh, rules.Total.Recall(), rules.Total.FalseAlarms(extract.SeverityHigh))
		}
	})
	t.Run("lowers with a frame", func(t *testing.T) {
		// A frame lowers the medium and low findings; no model answer lowers
		// a high one (docs/safety.md, "Sources and the policy"): what is
		// left is the rules' high findings.
		r := score(t, entries("none", "low", extract.FrameFiction))
		m, w := row(r.Apps, "mona"), row(rules.Apps, "mona")
		for severity, n := range m.Alarms {
			if severity != extract.SeverityHigh && n != 0 {
				t.Errorf("mona: alarms %v; the model lowered every medium and low finding with a frame", m.Alarms)
			}
		}
		if m.Alarms[extract.SeverityHigh] != w.Alarms[extract.SeverityHigh] {
			t.Errorf("mona: high alarms %d; the rules give %d, and no model answer lowers a high finding", m.Alarms[extract.SeverityHigh], w.Alarms[extract.SeverityHigh])
		}
		if m.Caught == 0 || m.Caught >= w.Caught {
			t.Errorf("mona: caught %d; the rules catch %d: the high ones stay, the others are lowered", m.Caught, w.Caught)
		}
	})
	t.Run("cannot lower without a frame", func(t *testing.T) {
		r := score(t, entries("none", "low", "stated"))
		if g, w := row(r.Apps, "mona"), row(rules.Apps, "mona"); g.Caught != w.Caught || !maps.Equal(g.Alarms, w.Alarms) {
			t.Errorf("mona: %+v; the rules alone give %+v", g, w)
		}
	})
}
