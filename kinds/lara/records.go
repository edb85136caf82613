package lara

import (
	"encoding/json"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
)

// The records a LaRa user holds, as typed values (docs/presets.md, LaRa:
// records). Their JSON tags are the stored field names: the rules build
// these values and store them with extract.NewRecord or
// extract.EncodeData, and read stored records back with
// extract.DecodeRecord, which keeps any field a type does not know. An
// instant is the RFC 3339 text the rules write (decay.Instant reads it).

// Stamp is what every LaRa record carries: whose it is, and when and from
// which session it was last written (LaraGuard's cross-user, timestamp and
// duplicate guards read it).
type Stamp struct {
	UserID        string `json:"user_id"`
	UpdatedAt     string `json:"updated_at"`
	LastSessionID string `json:"last_session_id"`
}

// Learning is a concept's learning progress (LaraLearning, keyed by the
// concept). The Mastery* fields and DecayedAt are written by the mastery
// decay only (decay.DecayMastery); the rules drop them when the concept is
// practised.
type Learning struct {
	Stamp
	MasteryLevel       int    `json:"mastery_level"`
	TotalAttempts      int    `json:"total_attempts"`
	SuccessfulAttempts int    `json:"successful_attempts"`
	SuccessStreak      int    `json:"success_streak"`
	FailureStreak      int    `json:"failure_streak"`
	Difficulty         int    `json:"difficulty"`
	LastPracticed      string `json:"last_practiced"`

	MasteryBase    *int     `json:"mastery_base,omitempty"`
	MasteryBaseAt  string   `json:"mastery_base_at,omitempty"`
	MasteryDecayed *float64 `json:"mastery_decayed,omitempty"`
	DecayedAt      string   `json:"decayed_at,omitempty"`
}

// Emotional is the one record of the child's emotional counts
// (LaraEmotional, keyed LaraCounts): counts of moments, never a label. The
// *Decayed fields and DecayedAt are written by the weekly normalisation only
// (decay.Emotional).
type Emotional struct {
	Stamp
	FrustrationCount  int                `json:"frustration_count"`
	RecoveryCount     int                `json:"recovery_count"`
	StableCount       int                `json:"stable_count"`
	AnxiousCount      int                `json:"anxious_count"`
	Sessions          int                `json:"sessions"`
	Last30DayAverage  *float64           `json:"last_30_day_average"`
	Last30DayAverages map[string]float64 `json:"last_30_day_averages"` // by mood state
	Last30DaySessions int                `json:"last_30_day_sessions"`
	Recent            []MoodSession      `json:"recent"`

	FrustrationDecayed *float64 `json:"frustration_decayed,omitempty"`
	RecoveryDecayed    *float64 `json:"recovery_decayed,omitempty"`
	StableDecayed      *float64 `json:"stable_decayed,omitempty"`
	AnxiousDecayed     *float64 `json:"anxious_decayed,omitempty"`
	DecayedAt          string   `json:"decayed_at,omitempty"`
}

// MoodSession is one session of Emotional's recent history: its moments
// of each mood (MoodFrustrated, …). A MoodSession read from a stored record
// is written back exactly as it was stored (an entry the rules could not
// read included); the rules build a new one to change it.
type MoodSession struct {
	SessionID  string `json:"session_id"`
	At         string `json:"at"`
	Frustrated int    `json:"frustrated"`
	Recovered  int    `json:"recovered"`
	Stable     int    `json:"stable"`
	Anxious    int    `json:"anxious"`

	stored json.RawMessage // as read, written back as it is
}

type plainMoodSession MoodSession

// UnmarshalJSON reads an entry as far as it fits (an entry that is no
// object reads as one without a date) and keeps it as stored.
func (m *MoodSession) UnmarshalJSON(b []byte) error {
	// Read as far as it fits: bad data in one entry is that entry's, not
	// the record's.
	*m = MoodSession(extract.DecodeJSON[plainMoodSession](b))
	m.stored = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes an entry read from a record as it was stored.
func (m MoodSession) MarshalJSON() ([]byte, error) {
	if m.stored != nil {
		return m.stored, nil
	}
	return json.Marshal(plainMoodSession(m))
}

// counts are m's moments by mood, none negative.
func (m MoodSession) counts() decay.Moods[int] {
	return decay.Moods[int]{Frustrated: max(m.Frustrated, 0), Recovered: max(m.Recovered, 0), Stable: max(m.Stable, 0), Anxious: max(m.Anxious, 0)}
}

// Preference is a like, dislike or favourite (LaraPreference, keyed
// "likes:…", "dislikes:…" or "favorite_…"). LastSeen is nil when the
// record has none (then FirstSeen is its last use).
type Preference struct {
	Stamp
	Value     string  `json:"value"`
	Polarity  string  `json:"polarity"`
	FirstSeen string  `json:"first_seen"`
	LastSeen  *string `json:"last_seen"`
}

// Removal is the data of a record the rules delete: why (contradicted,
// evicted).
type Removal struct {
	Stamp
	Reason string `json:"reason"`
}

// Reinforcement is how an encouragement style fared (LaraReinforcement,
// keyed by the style).
type Reinforcement struct {
	Stamp
	Events      int     `json:"events"`
	Successes   int     `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
}

// ReinforcementState is the encouragement style in use
// (LaraReinforcementState, keyed LaraCurrent), and the last switch: ""
// while the first style seen stands.
type ReinforcementState struct {
	Stamp
	Style           string `json:"style"`
	PreviousStyle   string `json:"previous_style"`
	SwitchedAt      string `json:"switched_at"`
	SwitchSessionID string `json:"switch_session_id"`
}
