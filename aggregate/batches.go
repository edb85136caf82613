package aggregate

// Names of the scheduled batches that run the aggregations (docs/operations.md,
// "Scheduled batches"), declared once, here, beside their computations:
// package batch declares the batches under these names (batch.WeeklyAnalytics,
// batch.Trends, batch.Insights), a kind lists those it runs
// (batch.Declarer) and the jobs package schedules them.
const (
	BatchWeeklyAnalytics = "weekly-analytics"
	BatchTrends          = "trends"
	BatchInsights        = "insights"
)
