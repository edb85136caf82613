package lara

import (
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
)

// LaRa's record vocabulary: the record types, the bounds and the mood states.
// The record types, mood states and bounds that package decay reads are
// defined there once; the kind names them here.

// Record types of the lara preset, one per table of its long-term memory
// (docs/presets.md, LaRa: records), plus the user's current reinforcement
// style.
const (
	// LaraLearning is a concept's learning progress, keyed by the concept.
	LaraLearning = decay.RecordLearning
	// LaraEmotional holds the user's mood counts under the key LaraCounts.
	LaraEmotional = decay.RecordEmotional
	// LaraPreference is a like or dislike, keyed likes:<item>,
	// dislikes:<item> or favorite_<thing>.
	LaraPreference = decay.RecordPreference
	// LaraReinforcement is one reinforcement style's metrics, keyed by the style.
	LaraReinforcement = "reinforcement"
	// LaraReinforcementState is the style in use, under the key LaraCurrent.
	LaraReinforcementState = "reinforcement_state"

	LaraCounts  = decay.CountsKey
	LaraCurrent = "current"
)

// The thresholds of the lara rules. They are constants, not policy: LaRa's
// design fixes them (docs/presets.md, LaRa), and an operator who loosens them
// loosens a child's safety.
const (
	// LaraMaxMastery is the highest mastery level; the lowest is 0.
	LaraMaxMastery = decay.MaxMastery
	// LaraMasteryStreak is how many successes in a row, each at the concept's
	// current difficulty or harder, raise mastery by one level and
	// difficulty by one step.
	LaraMasteryStreak = 3
	// LaraFailureStreak is how many failures in a row lower difficulty by one
	// step, never below 1.
	LaraFailureStreak = 2
	// LaraMaxDifficulty bounds difficulty; attempts outside [1, LaraMaxDifficulty]
	// are clamped into it.
	LaraMaxDifficulty = 100
	// LaraCooldown is how long after a learning record was last written its
	// mastery level (and difficulty, upwards) may not change again.
	LaraCooldown = 10 * time.Minute
	// LaraWindow is the span of the emotional 30-day averages.
	LaraWindow = decay.MoodWindow
	// LaraMaxRecent bounds the per-session history kept for the averages.
	LaraMaxRecent = 100
	// LaraMaxPreferences is how many preference records a user keeps at most.
	LaraMaxPreferences = 20
	// LaraSwitchMinEvents is how many events another reinforcement style
	// needs before the user is switched to it.
	LaraSwitchMinEvents = 5
	// LaraSwitchPoints is the design's "15 % improvement" (docs/presets.md,
	// LaRa: reinforcement switching), read as percentage points: another
	// style's success rate must be at least the current style's plus 0.15 (0.65
	// against 0.50), not 15 % more of it (0.575). Absolute points are the
	// stricter reading at the rates that matter, and the design asks adaptation
	// to stay conservative.
	LaraSwitchPoints = 15
)

// Mood states (prompts/lara/events.schema.json). anxious and frustrated are
// the distress states.
const (
	MoodFrustrated = decay.MoodFrustrated
	MoodRecovered  = decay.MoodRecovered
	MoodStable     = decay.MoodStable
	MoodAnxious    = decay.MoodAnxious
)

// ScoredRecords hands the evaluation (eval.RecordScorer) the facts LaRa's
// records keep about the child: each preference (likes:…, dislikes:…) with
// its value and each learning record as mastery:<concept>. The emotional
// and reinforcement counts are no fact about the child.
func (kindLara) ScoredRecords(records []extract.Record, add func(key string, value any)) {
	for _, r := range records {
		switch r.Type {
		case LaraPreference:
			d, _ := extract.DecodeRecord[Preference](r)
			add(r.Key, d.Value)
		case LaraLearning:
			add("mastery:"+r.Key, strings.ReplaceAll(r.Key, "_", " "))
		}
	}
}
