package aggregate

// Names of the scheduled batches that run the aggregations (README.md,
// "Scheduled batches"), declared once, here, beside their computations: a
// kind lists those that read its sessions (extract.Kind.Batches) and the
// jobs package runs them.
const (
	BatchWeeklyAnalytics = "weekly-analytics"
	BatchTrends          = "trends"
	BatchInsights        = "insights"
)
