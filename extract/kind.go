package extract

import (
	"maps"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/prompts"
)

// Kind is the behaviour of one app kind: its deterministic extractor, its
// context pack, how a valid LLM answer is completed with what only its rules
// decide, and the traits the jobs and the API ask about. The generic engine
// (the LLM path, the merge policy, tokens, the sensitive filter) knows no
// kind; each kind lives in its own files (mona: rules.go and mona_pack.go;
// eldertree.go and eldertree_pack.go; clara.go; lara.go and lara_pack.go;
// coach.go and coach_pack.go), and kinds lists them. An app names its kind
// in policy.json ("rules"), or is the kind of its own name.
type Kind interface {
	// Name is the kind's name, as policy.json's "rules" says it.
	Name() string
	// Rules is the deterministic extractor: it fills res, whose maps and
	// slices are not nil, from s under p.
	Rules(res *Result, p prompts.Policy, s Session, now time.Time)
	// DefaultBudget is the context pack's budget when neither the request
	// nor the policy sets one; 0 for a kind whose pack is always empty.
	DefaultBudget() int
	// pack plans the context pack; nil for a kind whose pack is always
	// empty (Clara: cross-session data never enters its context).
	pack(in PackInput) *packPlan
	// CompleteLLM completes a schema-valid LLM result with what only the
	// rules decide (rules is the rules' result for the same session).
	CompleteLLM(llm, rules Result) Result
	// FoldsRecords reports whether the kind's records are a fold over the
	// user's sessions in order, to be folded again when an older session
	// arrives late (LaRa's streaks and counts).
	FoldsRecords() bool
	// DerivesProfile reports whether the kind's profile is derived from all
	// of the user's session summaries rather than stated in one session
	// (coach's goals and recurring themes).
	DerivesProfile() bool
	// Batches names the scheduled batches that read the kind's sessions
	// (weekly-analytics for Elder Tree, trends for Clara).
	Batches() []string
	// CrossSession reports whether what other sessions left may enter the
	// kind's context pack at all (never for Clara).
	CrossSession() bool
	// SpecialDefault is what becomes of special categories of personal data
	// for an app of the kind whose policy does not say (SpecialPolicy): kept
	// by the kinds whose purpose the data is, dropped by the others.
	SpecialDefault() string
	// CaregiverOnly reports whether a user's pages under /views/ are for
	// the app's caregiver token alone, not the operator's or the chat
	// service's (Clara: a person with dementia's emotions are health data,
	// and neither is part of the care relationship).
	CaregiverOnly() bool
	// DecaysRecords reports whether the kind's records are decayed by the
	// emotional, preference and mastery decay batches (LaRa's).
	DecaysRecords() bool
}

// kinds is the registry: adding a kind adds its files and one line here.
var kinds = []Kind{Mona, ElderTree, Clara, Lara, Coach}

// KindOf is the kind named name (case and spaces aside); an unknown name is
// mona's, the general companion.
func KindOf(name string) Kind {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, k := range kinds {
		if k.Name() == name {
			return k
		}
	}
	return Mona
}

// KindOfApp is the kind of app's rule set (prompts.App.RuleSet); a nil app
// is Mona's.
func KindOfApp(app *prompts.App) Kind {
	if app == nil {
		return Mona
	}
	return KindOf(app.RuleSet())
}

// KindNames lists the kinds an app may name, in registry order.
func KindNames() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.Name()
	}
	return out
}

// baseKind is what most kinds share: an LLM answer's summary fields win
// over the rules' and the records are always the rules'; no fold, no
// derived profile, no batch.
type baseKind struct{}

func (baseKind) CompleteLLM(llm, rules Result) Result {
	summary := maps.Clone(rules.SessionSummary)
	if summary == nil {
		summary = map[string]any{}
	}
	maps.Copy(summary, llm.SessionSummary)
	llm.SessionSummary = summary
	llm.Records = rules.Records // the LLM never decides what a record holds
	return llm
}
func (baseKind) FoldsRecords() bool   { return false }
func (baseKind) DerivesProfile() bool { return false }
func (baseKind) Batches() []string    { return nil }
func (baseKind) CrossSession() bool   { return true }
func (baseKind) CaregiverOnly() bool  { return false }
func (baseKind) DecaysRecords() bool  { return false }
func (baseKind) SpecialDefault() string {
	return prompts.SpecialDrop
}
