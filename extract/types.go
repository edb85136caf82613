// Package extract turns a finished chat session into structured memory: the
// deterministic rules extractor, what a chat model is asked and what its
// schema-valid answers become (the client that asks is package llm, joined to
// this one by extract/llmextract), the merge policy every write passes, and
// token budgeting. It knows no SQL, HTTP, environment or wall clock: time is
// passed in.
package extract

import (
	"encoding/json"
	"time"
)

// Sources of an extraction result.
const (
	SourceLLM      = "llm"      // the LLM answered with schema-valid JSON
	SourceRules    = "rules"    // the deterministic extractor, by configuration or preset policy
	SourceFallback = "fallback" // the LLM path failed for good; the rules result stands in
)

// Memory categories (docs/presets.md: memories).
const (
	CategoryFact       = "fact"
	CategoryPreference = "preference"
	CategoryEvent      = "event"
	CategoryFeeling    = "feeling"
	CategoryOther      = "other"
)

// Message is one turn of a transcript.
type Message struct {
	ID      string    `json:"id"`
	Role    string    `json:"role"` // user, assistant or system
	Content string    `json:"content"`
	At      time.Time `json:"at"`
}

// Event is a structured event sent by the chat service beside the transcript
// (emotion, question, narrative, escalation, attempt, mood, reinforcement, urge, …).
type Event struct {
	Type      string          `json:"kind"`
	At        time.Time       `json:"at"`
	MessageID string          `json:"message_id,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
}

// Session is everything extraction needs to know about one finished session.
type Session struct {
	ID          string    `json:"session_id"`
	UserID      string    `json:"user_id"`
	App         string    `json:"app"`
	StartedAt   time.Time `json:"started_at"`
	EndedAt     time.Time `json:"ended_at"`
	Timezone    string    `json:"timezone,omitempty"`
	DisplayName string    `json:"display_name,omitempty"`
	Messages    []Message `json:"messages"`
	Events      []Event   `json:"events,omitempty"`
	// History is what the store knew about the user before this session, for
	// presets whose state accumulates (learning records, a derived profile).
	History History `json:"-"`
	// Said replaces the transcript when a processed session whose transcript
	// is gone is folded again: what the rules mined from it then (its
	// preferences, from its summary). Nil otherwise.
	Said []Memory `json:"-"`

	// unscreened and withheld are set by Rules on the session the kind's
	// rules read (withhold): the messages as handed over, and the ids of
	// those whose text was withheld.
	unscreened []Message
	withheld   map[string]bool
}

// History is a user's state before a session.
type History struct {
	// Records are the user's current records of this app, by kind and key.
	Records []Record
	// Summaries are the user's earlier session summaries, newest first.
	Summaries []PastSummary
	// Profile is the current profile document (nil when none).
	Profile map[string]any
}

// PastSummary is an earlier session's summary.
type PastSummary struct {
	SessionID string
	At        time.Time
	Data      map[string]any
}

// Record is a structured, per-user fact a preset derives besides memories:
// a per-session repetition record, a concept's learning progress, emotional
// counts, a preference, reinforcement metrics. A record is identified by its
// kind and key within one user and app; writing it replaces the earlier
// version. Records never carry transcript text.
type Record struct {
	Type string         `json:"kind"`
	Key  string         `json:"key"`
	Data map[string]any `json:"data"`
	// Delete removes the record instead of writing it (a preference unused
	// for too long, say).
	Delete bool `json:"delete,omitempty"`
}

// Memory is a candidate memory produced by an extractor, before the merge policy.
type Memory struct {
	Key             string     `json:"key"`
	Value           string     `json:"value"`
	Category        string     `json:"category"`
	Importance      int        `json:"importance"` // 0–100
	Confidence      float64    `json:"confidence"` // 0–1
	SourceMessageID string     `json:"source_message_id,omitempty"`
	ExpiresAt       *time.Time `json:"expires_at"`
	// StatedAt is when the user said it: the source message's time. It is
	// the order of truth: an older statement never replaces a newer one.
	// Zero means the session's time (the extraction job fills it in).
	StatedAt time.Time `json:"stated_at,omitzero"`
	// EventDate is the civil date (YYYY-MM-DD, in the session's zone) an
	// event memory is about, resolved from the words said ("next Friday");
	// Wording keeps those words. Both are empty for other memories.
	EventDate string `json:"event_date,omitempty"`
	Wording   string `json:"wording,omitempty"`
	// Change, when set, says the candidate changes a memory the user
	// already has instead of stating a new one: it ends it ("Marcus and I
	// broke up") or moves its date ("the wedding got moved to January
	// 9th"). Plan resolves it against the stored memories (ResolveChange);
	// one that names no stored memory is skipped (no_target).
	Change *Change `json:"change,omitempty"`
}

// Dropped records a message whose content was deliberately not stored, and why.
// It never carries the dropped text.
type Dropped struct {
	MessageID string `json:"message_id"`
	Reason    string `json:"reason"`
}

// Risk is a distress or crisis statement in a session (see RiskOf): what
// kind, how severe, in which message and whose. It never carries the text.
type Risk struct {
	Class     string `json:"class"`    // suicidal, self_harm, abuse, hopelessness, distress
	Severity  string `json:"severity"` // high, medium, low
	MessageID string `json:"message_id"`
	Actor     string `json:"actor"` // user, or other when the user reports someone else's words
	// Source is who found it: RiskSourceRules, RiskSourceTrained or
	// RiskSourceModel (docs/safety.md, "Sources and the policy").
	Source string `json:"source,omitempty"`
}

// The sources of a risk finding.
const (
	RiskSourceRules   = "rules"   // the hand-written phrasings and frames (RiskInApp)
	RiskSourceTrained = "trained" // the trained linear layer (extract/riskml)
	RiskSourceModel   = "model"   // the LLM's own judgement, or a moderation endpoint
)

// Usage is what one LLM extraction cost.
type Usage struct {
	Model        string `json:"model,omitempty"`
	InputTokens  int    `json:"input_tokens"`
	OutputTokens int    `json:"output_tokens"`
	Calls        int    `json:"calls"`
}

// Result is the output of one extraction, as printed by `worker extract` and
// stored by the extraction job.
type Result struct {
	App            string         `json:"app"`
	Source         string         `json:"source"`
	PromptVersion  string         `json:"prompt_version"`
	Memories       []Memory       `json:"memories"`
	ProfileUpdates map[string]any `json:"profile_updates"`
	SessionSummary map[string]any `json:"session_summary"`
	Dropped        []Dropped      `json:"dropped"`
	Records        []Record       `json:"records,omitempty"`
	// Risks are the distress and crisis statements Screen found in the
	// user's messages: never their text, only class, severity and message.
	Risks []Risk `json:"risks,omitempty"`
	// RiskLowered records each rules finding the model lowered with a frame
	// code (CombineRisks): message, from, to and frame, never the text.
	RiskLowered []Lowering `json:"risk_lowered,omitempty"`
	// RiskGrey lists the user messages without a finding that are worth a
	// model's second look (Screen: the trained layer's grey zone, and its
	// findings that gave way to a frame or lacked an anchor).
	RiskGrey []string `json:"-"`
	// ModelRisks is the model's own risk judgement from its answer, which
	// Screen combines with the rules' findings; nil on the rules path.
	ModelRisks []ModelRisk `json:"-"`
	// Cut is how many memories of the LLM's answer were left out beyond
	// LLMConfig.MaxMemories.
	Cut   int             `json:"cut,omitempty"`
	Usage Usage           `json:"usage"`
	Raw   json.RawMessage `json:"-"` // the validated LLM answer, when Source is llm
}
