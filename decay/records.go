package decay

import "time"

// The record vocabulary of the decays: the record types they are for, the
// mood states of an emotional record and the bounds they keep. A kind whose
// records these functions decay names its records with these constants, so
// that each is defined once, here.
const (
	// RecordLearning is a concept's learning progress, keyed by the concept
	// (Mastery decays it).
	RecordLearning = "learning"
	// RecordEmotional holds the user's mood counts under the key CountsKey
	// (Emotional normalises it).
	RecordEmotional = "emotional"
	// RecordPreference is a like or dislike (Preference expires it).
	RecordPreference = "preference"
	// CountsKey is the key of the emotional record.
	CountsKey = "counts"

	// MaxMastery is the highest mastery level; the lowest is 0.
	MaxMastery = 5
	// MoodWindow is the span of the emotional 30-day averages.
	MoodWindow = 30 * 24 * time.Hour
)

// Mood states of an emotional record's counts. anxious and frustrated are the
// distress states.
const (
	MoodFrustrated = "frustrated"
	MoodRecovered  = "recovered"
	MoodStable     = "stable"
	MoodAnxious    = "anxious"
)
