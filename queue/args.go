package queue

import (
	"time"

	"github.com/riverqueue/river"
)

// The arguments of the jobs enqueued outside package jobs (by the hand-off
// and the API). Each Kind is the River job kind stored with every job row:
// never rename one, or jobs already in a database are no longer worked.

// ExtractArgs is the extraction job of one session. It carries the session
// id and, for a session of a user with memory off, what the risk screen
// found when it was handed over (Risks): never transcript text or memory
// values. It is unique by the session id alone.
type ExtractArgs struct {
	SessionID string `json:"session_id" river:"unique"`
	// Risks are the risk screen's findings in a session handed over while
	// its user had memory off, whose transcript is never stored: screened
	// at the hand-off, they are what the extraction records of it
	// ("Memory off is not safety off", docs/safety.md).
	Risks []RiskFinding `json:"risks,omitempty"`
}

// RiskFinding is one finding of the risk screen: class, severity, whose,
// who found it, the message id and the message's time. Never its words.
type RiskFinding struct {
	Class     string    `json:"class"`
	Severity  string    `json:"severity"`
	MessageID string    `json:"message_id"`
	Actor     string    `json:"actor"`
	Source    string    `json:"source,omitempty"`
	At        time.Time `json:"at"`
}

// Kind is the River job kind.
func (ExtractArgs) Kind() string { return "extract" }

// InsertOpts puts extraction on the extract queue, unique per session.
func (ExtractArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueExtract, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// ExportArgs builds one export. It names the export only.
type ExportArgs struct {
	ExportID string `json:"export_id"`
}

// Kind is the River job kind.
func (ExportArgs) Kind() string { return "export" }

// InsertOpts makes an export unique.
func (ExportArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// EraseArgs carries out one erasure request. It names the request only: the
// user's id lives in the request row, which the erasure deletes, so the
// finished job keeps nothing that points at the user.
type EraseArgs struct {
	ErasureID string `json:"erasure_id"`
}

// Kind is the River job kind.
func (EraseArgs) Kind() string { return "erase" }

// InsertOpts makes an erasure unique.
func (EraseArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RollingSummaryArgs summarises the first Upto buffered turns of a session
// still in progress. It carries ids and counts only.
type RollingSummaryArgs struct {
	SessionID string `json:"session_id"`
	Upto      int    `json:"upto"`
}

// Kind is the River job kind.
func (RollingSummaryArgs) Kind() string { return "rolling_summary" }

// InsertOpts makes the job unique per session and count.
func (RollingSummaryArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
