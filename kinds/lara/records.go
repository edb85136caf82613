package lara

import "encoding/json"

// The records a LaRa user holds, as typed values: what the page reads of
// them (docs/presets.md, LaRa). Numbers are float64 as JSON has them; an
// instant is the RFC 3339 text the fold writes, read with views.ParseTime.

// Learning is a concept's learning progress (LaraLearning, keyed
// by the concept).
type Learning struct {
	MasteryLevel       float64 `json:"mastery_level"`
	TotalAttempts      float64 `json:"total_attempts"`
	SuccessfulAttempts float64 `json:"successful_attempts"`
	SuccessStreak      float64 `json:"success_streak"`
	FailureStreak      float64 `json:"failure_streak"`
	Difficulty         float64 `json:"difficulty"`
	LastPracticed      string  `json:"last_practiced"`
}

// Emotional is the one record of the child's emotional counts
// (LaraEmotional): counts of moments, never a label.
type Emotional struct {
	FrustrationCount  float64       `json:"frustration_count"`
	RecoveryCount     float64       `json:"recovery_count"`
	StableCount       float64       `json:"stable_count"`
	AnxiousCount      float64       `json:"anxious_count"`
	Sessions          float64       `json:"sessions"`
	Last30DaySessions float64       `json:"last_30_day_sessions"`
	Last30DayAverage  *float64      `json:"last_30_day_average"`
	Recent            []MoodSession `json:"recent"`
}

// MoodSession is one session of Emotional's recent history: its moments
// of each mood (MoodFrustrated, …).
type MoodSession struct {
	SessionID  string  `json:"session_id"`
	At         string  `json:"at"`
	Frustrated float64 `json:"frustrated"`
	Recovered  float64 `json:"recovered"`
	Stable     float64 `json:"stable"`
	Anxious    float64 `json:"anxious"`
}

// Preference is a like, dislike or favourite (LaraPreference,
// keyed "likes:…", "dislikes:…" or "favorite_…").
type Preference struct {
	Value     string `json:"value"`
	FirstSeen string `json:"first_seen"`
	LastSeen  string `json:"last_seen"`
}

// Reinforcement is how an encouragement style fared
// (LaraReinforcement, keyed by the style).
type Reinforcement struct {
	SuccessRate float64 `json:"success_rate"`
}

// ReinforcementState is the encouragement style in use
// (LaraReinforcementState).
type ReinforcementState struct {
	Style string `json:"style"`
}

// decodeRecord reads a record's data into v as far as it fits: a field of
// another type than v's stays zero, as does everything of a document that
// is no JSON object.
func decodeRecord[T any](raw json.RawMessage) T {
	var v T
	_ = json.Unmarshal(raw, &v)
	return v
}
