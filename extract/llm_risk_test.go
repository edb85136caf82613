package extract_test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/prompts"
)

const (
	// riskMissed is a preparation statement the rules do not read as risk.
	riskMissed = "I've been quietly giving my things away this week"
	// riskFound is a statement the rules find suicidal, high.
	riskFound = "i want to kill myself"
)

// riskSession has a message the rules miss (m1) and one they find high (m3).
func riskSession(t *testing.T) extract.Session {
	t.Helper()
	if f, ok := extract.RiskOf(riskMissed); ok {
		t.Fatalf("precondition: the rules find %+v in %q", f, riskMissed)
	}
	if f, _ := extract.RiskOf(riskFound); f.Severity != extract.SeverityHigh {
		t.Fatalf("precondition: the rules find %+v in %q, want high", f, riskFound)
	}
	return extract.Session{
		ID: "s-1", UserID: "u-1", App: "mona", StartedAt: llmStart, EndedAt: llmStart.Add(20 * time.Minute),
		Messages: []extract.Message{
			{ID: "m1", Role: "user", Content: riskMissed, At: llmStart.Add(5 * time.Second)},
			{ID: "m2", Role: "assistant", Content: "That sounds like a big change.", At: llmStart.Add(9 * time.Second)},
			{ID: "m3", Role: "user", Content: riskFound, At: llmStart.Add(30 * time.Second)},
			{ID: "m4", Role: "user", Content: "I love hiking with my dog", At: llmStart.Add(40 * time.Second)},
		},
	}
}

// riskAnswer is a valid mona answer with a memory from m1 and m4 and the
// given "risks" list.
func riskAnswer(risks string) string {
	return `{"memories":[
	  {"key":"plan:give_things_away","value":"giving things away","category":"event","importance":60,"confidence":0.8,"source_message_id":"m1","event_date":null,"wording":null},
	  {"key":"hobby:hiking","value":"hiking","category":"preference","importance":60,"confidence":0.9,"source_message_id":"m4","event_date":null,"wording":null}],
	 "session_summary":{"summary":"The user talked about hiking.","topics":["hiking"]},
	 "risks":` + risks + `}`
}

func hasRisk(rs []extract.Risk, id, class, severity string) bool {
	return slices.ContainsFunc(rs, func(r extract.Risk) bool {
		return r.MessageID == id && r.Class == class && r.Severity == severity
	})
}

func TestLLMRiskModelRaisesWhatRulesMissed(t *testing.T) {
	t.Parallel()
	b := setupLLM(t)
	b.server.Push(llmtest.Valid(riskAnswer(`[{"message_id":"m1","class":"suicidal","severity":"high","actor":"user","reason":"plan"}]`)))
	res, err := b.extract(t, "mona", riskSession(t))
	if err != nil {
		t.Fatal(err)
	}
	if !hasRisk(res.Risks, "m1", extract.RiskSuicidal, extract.SeverityHigh) {
		t.Errorf("risks %+v: the model's finding on m1 is missing", res.Risks)
	}
	if !hasRisk(res.Risks, "m3", extract.RiskSuicidal, extract.SeverityHigh) {
		t.Errorf("risks %+v: the rules' finding on m3 is missing", res.Risks)
	}
	// Safety before memory: nothing of m1 is stored once the model found risk there.
	for _, m := range res.Memories {
		if m.SourceMessageID == "m1" {
			t.Errorf("memory %q of m1 kept despite the model's finding", m.Key)
		}
	}
	if !slices.Contains(res.Dropped, extract.Dropped{MessageID: "m1", Reason: "risk:suicidal"}) {
		t.Errorf("dropped %+v: want m1 as risk:suicidal", res.Dropped)
	}
	if len(res.RiskLowered) != 0 {
		t.Errorf("lowered %+v, want none", res.RiskLowered)
	}
}

func TestLLMRiskModelLowersWithFrame(t *testing.T) {
	t.Parallel()
	b := setupLLM(t)
	b.server.Push(llmtest.Valid(riskAnswer(`[{"message_id":"m3","class":"none","severity":"low","actor":"user","reason":"fiction"}]`)))
	res, err := b.extract(t, "mona", riskSession(t))
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Risks, func(r extract.Risk) bool { return r.MessageID == "m3" }) {
		t.Errorf("risks %+v: m3 should be lowered to none", res.Risks)
	}
	want := []extract.Lowering{{MessageID: "m3", FromClass: extract.RiskSuicidal, FromSeverity: extract.SeverityHigh,
		ToClass: extract.RiskNone, Frame: extract.FrameFiction}}
	if !slices.Equal(res.RiskLowered, want) {
		t.Errorf("lowered %+v, want %+v", res.RiskLowered, want)
	}
}

func TestLLMRiskModelCannotLowerWithoutFrame(t *testing.T) {
	t.Parallel()
	for name, risks := range map[string]string{
		"none with a finding code":   `[{"message_id":"m3","class":"none","severity":"low","actor":"user","reason":"stated"}]`,
		"lower severity, no frame":   `[{"message_id":"m3","class":"distress","severity":"low","actor":"user","reason":"stated"}]`,
		"silent":                     `[]`,
		"frame on another message":   `[{"message_id":"m4","class":"none","severity":"low","actor":"user","reason":"fiction"}]`,
		"same severity with frame":   `[{"message_id":"m3","class":"distress","severity":"high","actor":"user","reason":"hyperbole"}]`,
		"frame with unknown message": `[{"message_id":"m9","class":"none","severity":"low","actor":"user","reason":"fiction"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupLLM(t)
			b.server.Push(llmtest.Valid(riskAnswer(risks)))
			res, err := b.extract(t, "mona", riskSession(t))
			if err != nil {
				t.Fatal(err)
			}
			if !hasRisk(res.Risks, "m3", extract.RiskSuicidal, extract.SeverityHigh) {
				t.Errorf("risks %+v: the rules' suicidal/high on m3 must stand", res.Risks)
			}
			if len(res.RiskLowered) != 0 {
				t.Errorf("lowered %+v, want none", res.RiskLowered)
			}
		})
	}
}

func TestLLMRiskSchemaChecksTheJudgement(t *testing.T) {
	t.Parallel()
	b := setupLLM(t)
	// An unknown class fails the schema: the model gets the repair round.
	b.server.Push(llmtest.Valid(riskAnswer(`[{"message_id":"m1","class":"murder","severity":"high","actor":"user","reason":"plan"}]`)),
		llmtest.Valid(riskAnswer(`[]`)))
	res, err := b.extract(t, "mona", riskSession(t))
	if err != nil {
		t.Fatal(err)
	}
	if b.server.Calls() != 2 {
		t.Errorf("calls = %d, want 2 (one repair round)", b.server.Calls())
	}
	if !hasRisk(res.Risks, "m3", extract.RiskSuicidal, extract.SeverityHigh) || len(res.Risks) != 1 {
		t.Errorf("risks %+v, want only the rules' m3", res.Risks)
	}
}

func TestCombineRisks(t *testing.T) {
	t.Parallel()
	s := extract.Session{Messages: []extract.Message{
		{ID: "u1", Role: "user"}, {ID: "a1", Role: "assistant"}, {ID: "u2", Role: "user"}, {ID: "u3", Role: "user"},
	}}
	rules := []extract.Risk{
		{MessageID: "u1", Class: extract.RiskHopelessness, Severity: extract.SeverityMedium, Actor: extract.ActorUser},
		{MessageID: "u2", Class: extract.RiskSuicidal, Severity: extract.SeverityHigh, Actor: extract.ActorUser},
	}
	model := []extract.ModelRisk{
		// Stronger than the rules on u1: the model's wins.
		{MessageID: "u1", Class: extract.RiskSuicidal, Severity: extract.SeverityHigh, Actor: extract.ActorUser, Reason: "intent"},
		// Lowered to medium with a frame: replaced and recorded.
		{MessageID: "u2", Class: extract.RiskSuicidal, Severity: extract.SeverityMedium, Actor: extract.ActorOther, Reason: extract.FrameOtherPerson},
		// Ignored: an assistant message, an unknown id, an unknown class, an unknown code.
		{MessageID: "a1", Class: extract.RiskDistress, Severity: extract.SeverityLow, Actor: extract.ActorUser, Reason: "stated"},
		{MessageID: "zz", Class: extract.RiskDistress, Severity: extract.SeverityLow, Actor: extract.ActorUser, Reason: "stated"},
		{MessageID: "u3", Class: "murder", Severity: extract.SeverityHigh, Actor: extract.ActorUser, Reason: "stated"},
		{MessageID: "u3", Class: extract.RiskDistress, Severity: extract.SeverityHigh, Actor: extract.ActorUser, Reason: "because"},
	}
	out, lowered, ignored := extract.CombineRisks(s, rules, model)
	wantOut := []extract.Risk{
		{MessageID: "u1", Class: extract.RiskSuicidal, Severity: extract.SeverityHigh, Actor: extract.ActorUser},
		{MessageID: "u2", Class: extract.RiskSuicidal, Severity: extract.SeverityMedium, Actor: extract.ActorOther},
	}
	if !slices.Equal(out, wantOut) {
		t.Errorf("out %+v, want %+v", out, wantOut)
	}
	wantLow := []extract.Lowering{{MessageID: "u2", FromClass: extract.RiskSuicidal, FromSeverity: extract.SeverityHigh,
		ToClass: extract.RiskSuicidal, ToSeverity: extract.SeverityMedium, Frame: extract.FrameOtherPerson}}
	if !slices.Equal(lowered, wantLow) {
		t.Errorf("lowered %+v, want %+v", lowered, wantLow)
	}
	wantIgn := []extract.Dropped{
		{MessageID: "a1", Reason: extract.DropModelRiskMessage},
		{MessageID: "", Reason: extract.DropModelRiskMessage},
		{MessageID: "u3", Reason: extract.DropModelRiskClass},
		{MessageID: "u3", Reason: extract.DropModelRiskCode},
	}
	if !slices.Equal(ignored, wantIgn) {
		t.Errorf("ignored %+v, want %+v", ignored, wantIgn)
	}
	// Without a model judgement the rules stand as they are.
	if out, lowered, _ := extract.CombineRisks(s, rules, nil); !slices.Equal(out, rules) || lowered != nil {
		t.Errorf("no model: out %+v lowered %+v", out, lowered)
	}
}

// Every app the LLM path serves asks for the judgement with the codes
// CombineRisks knows, and keeps it optional so that older answers stay valid.
func TestRiskSchemaMatchesCodes(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	wantClass := append(slices.Clone(extract.RiskClasses), extract.RiskNone)
	wantReason := append(slices.Clone(extract.RiskFindingCodes), extract.RiskFrames...)
	for name, app := range apps {
		if !app.Policy.LLM {
			continue
		}
		var doc struct {
			Required   []string `json:"required"`
			Properties struct {
				Risks struct {
					Items struct {
						Properties map[string]struct {
							Enum []string `json:"enum"`
						} `json:"properties"`
					} `json:"items"`
				} `json:"risks"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(app.Schema, &doc); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(doc.Required, "risks") {
			t.Errorf("%s: risks is required; older answers would fail", name)
		}
		p := doc.Properties.Risks.Items.Properties
		if got := p["class"].Enum; !sameSet(got, wantClass) {
			t.Errorf("%s: class enum %v, want %v", name, got, wantClass)
		}
		if got := p["reason"].Enum; !sameSet(got, wantReason) {
			t.Errorf("%s: reason enum %v, want %v", name, got, wantReason)
		}
		if got := p["severity"].Enum; !sameSet(got, []string{"low", "medium", "high"}) {
			t.Errorf("%s: severity enum %v", name, got)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}
