package extract

import "time"

// LaRa's record vocabulary: the record kinds, the bounds and the reasons
// that the engine's decay batches (decay, jobs), the views and the demo
// still read by name. The rules that write them live in kinds/lara; the
// vocabulary moves there once the kind supplies its own decay.

// Record kinds of the lara preset, one per table of its long-term memory
// (docs/presets.md, LaRa: records), plus the user's current reinforcement
// style.
const (
	// LaraLearning is a concept's learning progress, keyed by the concept.
	LaraLearning = "learning"
	// LaraEmotional holds the user's mood counts under the key LaraCounts.
	LaraEmotional = "emotional"
	// LaraPreference is a like or dislike, keyed likes:<item>,
	// dislikes:<item> or favorite_<thing>.
	LaraPreference = "preference"
	// LaraReinforcement is one reinforcement style's metrics, keyed by the style.
	LaraReinforcement = "reinforcement"
	// LaraReinforcementState is the style in use, under the key LaraCurrent.
	LaraReinforcementState = "reinforcement_state"

	LaraCounts  = "counts"
	LaraCurrent = "current"
)

// The thresholds of the lara rules. They are constants, not policy: LaRa's
// design fixes them (docs/presets.md, LaRa), and an operator who loosens them
// loosens a child's safety.
const (
	// LaraMaxMastery is the highest mastery level; the lowest is 0.
	LaraMaxMastery = 5
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
	LaraWindow = 30 * 24 * time.Hour
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

// Reasons the lara rules and LaraGuard give in Dropped. Record-level reasons
// carry no message ID: a record is not a message, and its key may hold words
// the child said.
const (
	GuardConfidence = "guard:confidence"      // a mood or emotion event below min_confidence
	GuardCooldown   = "guard:cooldown"        // mastery or difficulty rose inside LaraCooldown
	GuardDuplicate  = "guard:duplicate"       // the session was applied already, or has no ID
	GuardTimestamp  = "guard:timestamp"       // updated_at or last_session_id is not this write's
	GuardCrossUser  = "guard:cross_user"      // a record of another user, or of no user
	GuardLabel      = "guard:emotional_label" // a label about the child, or an emotional state as a preference
	GuardInvalid    = "guard:invalid"         // a record out of bounds or of no known shape
	GuardCap        = "guard:preference_cap"  // more than LaraMaxPreferences preferences
	DropBadEvent    = "invalid_event"         // an attempt, mood or reinforcement event without its fields
)

// Mood states (prompts/lara/events.schema.json). anxious and frustrated are
// the distress states.
const (
	MoodFrustrated = "frustrated"
	MoodRecovered  = "recovered"
	MoodStable     = "stable"
	MoodAnxious    = "anxious"
)
