// Package decay holds the pure side of Mnemo's decay batches: the weekly
// normalisation of emotional counts, the removal of unused preferences and
// the slow decay of mastery (docs/presets.md: decay). A kind whose records
// decay wires these functions as its Rules and declares them as batches
// (batch.Decays); the batches run them.
//
// Every function takes the records it judges and the time to
// judge them at, and returns a verdict or a new record. Nothing here reads a
// clock, the environment or a database; the batch package streams the rows,
// calls these functions and writes what they return.
//
// # Records
//
// The functions read and write the records exactly as the kind's rules
// build them (the learning kind's, in kinds/). A record they
// change keeps its user_id and last_session_id, gets updated_at and
// decayed_at set to now in RFC 3339, and gains only the numeric fields
// documented on Emotional and Mastery, so that it still passes
// the kind's write guard's shape and label checks and the rules can fold the
// next session into it. They never write a string other than a timestamp.
//
// Every function is idempotent at a given now, and Mastery depends only on
// how long a concept has gone unpractised, not on how often the batch ran.
// Data they cannot read (an unparsable date, a level out of range) is left
// as it is: decay never removes or lowers on bad data.
package decay
