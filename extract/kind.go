package extract

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-ai/mnemo/prompts"
)

// Kind is the behaviour of one app kind: its deterministic extractor, its
// context pack, how a valid LLM answer is completed with what only its rules
// decide, and the traits the jobs and the API ask about. The generic engine
// (the LLM path, the merge policy, tokens, the sensitive filter) knows no
// kind; each kind lives in its own files and registers itself (Register). An app names its kind
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
	// Pack plans the context pack (NewPackPlan); nil for a kind whose pack is always
	// empty (Clara: cross-session data never enters its context).
	Pack(in PackInput) *PackPlan
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

// The registry of app kinds. The rule: a kind registers itself, from its
// own init function, with Register (or RegisterDefault for the one kind an
// app that names no kind it knows runs), as database/sql drivers do; the
// engine never lists the kinds, it asks the registry (KindOf, KindNames)
// and then the kind. The names are also the rule sets an app may name in
// policy.json (prompts.RuleSets), which the registry fills.
var registry struct {
	mu    sync.RWMutex
	kinds map[string]Kind
	def   Kind
}

// Register makes k a kind an app may name, under k.Name(). It panics when
// the name is empty or already registered.
func Register(k Kind) { register(k, false) }

// RegisterDefault registers k (Register) as the default kind: the one an
// app runs when the kind it names is not registered. It panics on a second
// default.
func RegisterDefault(k Kind) { register(k, true) }

func register(k Kind, def bool) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	name := k.Name()
	if _, dup := registry.kinds[name]; dup || name == "" || name != strings.ToLower(strings.TrimSpace(name)) {
		panic(fmt.Sprintf("extract: Register of kind %q twice, or not a lower-case name", name))
	}
	if def && registry.def != nil {
		panic(fmt.Sprintf("extract: RegisterDefault of %q after %q", name, registry.def.Name()))
	}
	prompts.RegisterRuleSet(name, def)
	if registry.kinds == nil {
		registry.kinds = map[string]Kind{}
	}
	registry.kinds[name] = k
	if def {
		registry.def = k
	}
}

// KindOf is the kind named name (case and spaces aside); an unknown name is
// the default kind's (RegisterDefault), the general companion.
func KindOf(name string) Kind {
	name = strings.ToLower(strings.TrimSpace(name))
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	if k, ok := registry.kinds[name]; ok {
		return k
	}
	return registry.def
}

// KindOfApp is the kind of app's rule set (prompts.App.RuleSet); a nil app
// is the default kind's.
func KindOfApp(app *prompts.App) Kind {
	if app == nil {
		return KindOf("")
	}
	return KindOf(app.RuleSet())
}

// KindNames lists the registered kinds' names, sorted.
func KindNames() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	return slices.Sorted(maps.Keys(registry.kinds))
}

// BaseKind is what most kinds share, for a kind to embed: an LLM answer's
// summary fields win over the rules' and the records are always the rules';
// an empty context pack; no fold, no derived profile, no batch.
type BaseKind struct{}

func (BaseKind) CompleteLLM(llm, rules Result) Result {
	summary := maps.Clone(rules.SessionSummary)
	if summary == nil {
		summary = map[string]any{}
	}
	maps.Copy(summary, llm.SessionSummary)
	llm.SessionSummary = summary
	llm.Records = rules.Records // the LLM never decides what a record holds
	return llm
}
func (BaseKind) Pack(PackInput) *PackPlan { return nil }
func (BaseKind) FoldsRecords() bool       { return false }
func (BaseKind) DerivesProfile() bool     { return false }
func (BaseKind) Batches() []string        { return nil }
func (BaseKind) CrossSession() bool       { return true }
func (BaseKind) CaregiverOnly() bool      { return false }
func (BaseKind) DecaysRecords() bool      { return false }
func (BaseKind) SpecialDefault() string {
	return prompts.SpecialDrop
}
