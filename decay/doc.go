// Package decay holds the pure side of Mnemo's decay batches: the weekly
// normalisation of emotional counts (Emotional), the removal of unused
// preferences (Preference) and the slow decay of mastery (DecayMastery)
// (docs/presets.md: decay), with their constants and Policy defined once,
// here. A kind whose records decay wires these functions into its Rules and
// declares them as batches (batch.Decays); the batches run them.
//
// Every function takes typed inputs (the moments of each recent session
// and when it was, a preference's last use, a mastery level with its last
// practice) and the time to judge them at, and returns a verdict or new
// values. Nothing here reads a record, a clock, the environment or a
// database: the kind decodes its records into these inputs and writes what
// the functions return back into them (the learning kind's, in kinds/), and
// the batch package streams the rows and writes the records.
//
// # Records
//
// A record a decay changes keeps everything else as stored (its user_id and
// last_session_id among them), gets updated_at and decayed_at set to now in
// RFC 3339 (Stamp), and gains only the numbers documented on Emotional and
// DecayMastery, so that it still passes the kind's write guard's shape and
// label checks and the rules can fold the next session into it. Decay never
// writes a string other than a timestamp.
//
// Every function is idempotent at a given now, and DecayMastery depends
// only on how long a concept has gone unpractised, not on how often the
// batch ran. Data the kind cannot read (an unparsable date, a level out of
// range) is left as it is: decay never removes or lowers on bad data.
package decay
