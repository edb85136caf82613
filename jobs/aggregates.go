package jobs

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/schedule"
)

func runWeeklyAnalytics(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	return 0, nil
}
func runTrends(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	return 0, nil
}
func runInsights(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	return 0, nil
}
