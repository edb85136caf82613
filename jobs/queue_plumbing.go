package jobs

import "github.com/mnemo-ai/mnemo/queue"

// The queue plumbing lives in package queue, so that api, views and handoff
// enqueue without importing the workers; these names keep the workers' code
// and the callers of jobs unchanged.
type (
	Queue              = queue.Queue
	Inserted           = queue.Inserted
	ListFilter         = queue.ListFilter
	Config             = queue.Config
	RiverMigration     = queue.RiverMigration
	QueueDepth         = queue.QueueDepth
	ExtractArgs        = queue.ExtractArgs
	ExportArgs         = queue.ExportArgs
	EraseArgs          = queue.EraseArgs
	RollingSummaryArgs = queue.RollingSummaryArgs
)

// Queue names.
const (
	QueueDefault = queue.QueueDefault
	QueueExtract = queue.QueueExtract
	QueueBatch   = queue.QueueBatch
)

var (
	// New builds the River client for the store's database.
	New = queue.New
	// MigrateRiver applies River's own migrations to the store's database.
	MigrateRiver = queue.MigrateRiver
	// RiverMigrationStatus lists River's migrations and which are applied.
	RiverMigrationStatus = queue.RiverMigrationStatus
	// QueueDepths counts the queues' available and running jobs.
	QueueDepths = queue.QueueDepths
)
