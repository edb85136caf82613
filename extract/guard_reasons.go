package extract

// Reasons a kind's rules and write guard give in Dropped. Record-level reasons
// carry no message ID: a record is not a message, and its key may hold words
// the child said.
const (
	GuardConfidence = "guard:confidence"      // a mood or emotion event below min_confidence
	GuardCooldown   = "guard:cooldown"        // mastery or difficulty rose inside the kind's cooldown
	GuardDuplicate  = "guard:duplicate"       // the session was applied already, or has no ID
	GuardTimestamp  = "guard:timestamp"       // updated_at or last_session_id is not this write's
	GuardCrossUser  = "guard:cross_user"      // a record of another user, or of no user
	GuardLabel      = "guard:emotional_label" // a label about the child, or an emotional state as a preference
	GuardInvalid    = "guard:invalid"         // a record out of bounds or of no known shape
	GuardCap        = "guard:preference_cap"  // more preferences than the kind keeps
	DropBadEvent    = "invalid_event"         // an attempt, mood or reinforcement event without its fields
)
