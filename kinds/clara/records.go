package clara

// The records a Clara session leaves, as typed values (docs/presets.md,
// Clara): analytics only, counts and short labels, never what the user
// said. Their JSON tags are the stored field names; the rules store them
// with extract.NewRecord and the page reads them with extract.DecodeJSON.

// Repetition is a session's repeated questions (ClaraRepetition, keyed by
// the session): how many questions of each type, the most times one
// question came back, and whether that reaches ClaraChronicRepetition.
type Repetition struct {
	QuestionTypes            map[string]int `json:"question_types"`
	MaxRepeatCount           int            `json:"max_repeat_count"`
	ChronicRepetitionPattern bool           `json:"chronic_repetition_pattern"`
	Questions                int            `json:"questions"`
}

// NarrativeUsage is a session's stories (ClaraNarrativeUsage, keyed by the
// session): each use, and the uses per category.
type NarrativeUsage struct {
	Uses       []NarrativeUse `json:"uses"`
	ByCategory map[string]int `json:"by_category"`
}

// NarrativeUse is one story told: which, how, of what category, when and
// the user's emotion when it began (a label, or "").
type NarrativeUse struct {
	NarrativeID    string `json:"narrative_id"`
	Mode           string `json:"mode"`
	Category       string `json:"category"`
	At             string `json:"at"`
	EmotionAtUsage string `json:"emotion_at_usage"`
}
