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
	// PackPolicy is how the kind's context pack is made: its default
	// budget and whether other sessions may enter it at all.
	PackPolicy() PackPolicy
	// Pack plans the context pack (NewPackPlan); nil for a kind whose pack is always
	// empty (a kind whose context no cross-session data may enter).
	Pack(in PackInput) *PackPlan
	// CompleteLLM completes a schema-valid LLM result with what only the
	// rules decide (rules is the rules' result for the same session).
	CompleteLLM(llm, rules Result) Result
	// Fold is how the kind's records are a fold over the user's sessions
	// in order, to be folded again when an older session arrives late
	// (streaks and counts); nil for a kind whose records are not a fold.
	Fold() *Fold
	// SpecialDefault is what becomes of special categories of personal data
	// for an app of the kind whose policy does not say (SpecialPolicy): kept
	// by the kinds whose purpose the data is, dropped by the others.
	SpecialDefault() string
	// View is how a user of the kind is shown under /views/ and who may
	// see what of it.
	View() View
	// Cues are the significant changes of a profile write worth raising
	// with the next session, by the kind's cue rules; none for a kind
	// without any. The result holds no transcript text.
	Cues(in CueInput) ([]Cue, error)
	// RiskExtras are the phrasings the risk lexicons read in a message of
	// an app of the kind only, beside the core lexicons (how its users say
	// what the core phrasings do not cover).
	RiskExtras() []RiskPhrasing
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
	if len(k.RiskExtras()) > 0 {
		riskTab.Store(nil) // read again with the new kind's extras
	}
	if def {
		registry.def = k
	}
}

// KindOf is the kind named name (case and spaces aside); an unknown name is
// the default kind's (RegisterDefault), the general companion; nil in a
// binary that registered no default (one that imports no kinds/all).
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
// an empty context pack; no fold, no batch. (A kind derives its profile
// only by implementing ProfileDeriver.)
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
func (BaseKind) Pack(PackInput) *PackPlan     { return nil }
func (BaseKind) PackPolicy() PackPolicy       { return PackPolicy{} }
func (BaseKind) Fold() *Fold                  { return nil }
func (BaseKind) View() View                   { return View{} }
func (BaseKind) RiskExtras() []RiskPhrasing   { return nil }
func (BaseKind) Cues(CueInput) ([]Cue, error) { return nil, nil }
func (BaseKind) SpecialDefault() string {
	return prompts.SpecialDrop
}

// ProfileDeriver is implemented by a kind whose profile is derived from
// all of the user's session summaries rather than stated in one session
// (goals and recurring themes). The engine asks DeriverOf; a kind without
// the method states its profile in each session.
type ProfileDeriver interface {
	// DeriveProfile completes res, a result made without the user's other
	// sessions, with the profile fields derived from all of them: fresh is
	// the rules' result on the same session with the history.
	DeriveProfile(res *Result, fresh Result)
}

// DeriverOf is k's ProfileDeriver, or nil for a kind (or a nil kind) whose
// profile is stated in each session.
func DeriverOf(k Kind) ProfileDeriver {
	d, _ := k.(ProfileDeriver)
	return d
}

// Fold is how a kind's records fold over the user's sessions (Kind.Fold).
type Fold struct {
	// Restated is the type of record a session states rather than adds to
	// (a preference): when the sessions are folded again, the earlier
	// sessions' records of this kind come from what their summaries said,
	// or stay as stored when a summary predates that.
	Restated string
}

// PackPolicy is how a kind's context pack is made (Kind.PackPolicy).
type PackPolicy struct {
	// Budget is the pack's budget in tokens when neither the request nor
	// the app's policy sets one; 0 for a kind whose pack is always empty.
	Budget int
	// Isolated: what other sessions left never enters the kind's LLM
	// context, whatever is passed in (a dementia companion's), and the
	// screen of a result leaves the profile alone (Screen).
	Isolated bool
}

// View is how a kind's user is shown under /views/ (Kind.View).
type View struct {
	// Heading is the heading of a user's page.
	Heading string
	// Page is the page the views package builds for a user of the kind:
	// one of the Page* layouts.
	Page string
	// CaregiverOnly: a user's pages are for the app's caregiver token
	// alone, not the operator's or the chat service's, and the caregiver's
	// notes in a summary (CaregiverNotes) are the caregiver's alone (a
	// person with dementia's emotions are health data, and neither is part
	// of the care relationship).
	CaregiverOnly bool
	// CaregiverNotes is the key of a summary's caregiver-only part; "" for
	// none.
	CaregiverNotes string
	// WithoutNotes is a copy of a stored summary without its caregiver-only
	// part, as any other reader gets it; nil for a kind without notes.
	WithoutNotes func(summary map[string]any) map[string]any
	// Notes reads the caregiver's notes of a stored summary, in the order
	// it holds them; nil for a kind without notes.
	Notes func(summary map[string]any) []CaregiverNote
}

// CaregiverNote is one note of a summary for the caregiver alone: what it
// is about, said to a person ("Fall"), and its day (YYYY-MM-DD).
type CaregiverNote struct {
	What string
	Date string
}

// The page layouts the views package builds (View.Page), by what they show.
const (
	PageMemories  = "memories"  // the memories and profile of a general companion
	PageRecovery  = "recovery"  // urges, outcomes, streaks and weekly insights
	PageLearning  = "learning"  // concepts, mastery, moods and preferences
	PageCoaching  = "coaching"  // goals, open threads and action steps
	PageCaregiver = "caregiver" // distress, concerns and trends, for a caregiver
)
