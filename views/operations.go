package views

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// Windows of the operations page.
const (
	opsHours       = 48
	opsDays        = 30
	opsOutcomeDays = 14
)

// extraction sources, in the order charted.
var sources = []string{"llm", "rules", "fallback"}

type opsBody struct {
	Heading  string
	Links    []opsLink
	Sections []Section
}

type opsLink struct{ Href, Label string }

// operations is the operator's page: sessions per hour and day, risk
// findings by app, class and severity with the lowered ones to review,
// extraction outcomes and their trend, LLM tokens and spend against the
// monthly budget, queue depths and the oldest waiting job, and each batch's
// last and next run with missed and stale periods. Times are UTC.
func (h *Handler) operations(w http.ResponseWriter, r *http.Request) {
	vr, ok := h.adminReader(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	now := h.now()
	body := opsBody{Heading: "How the worker is doing. Times are UTC."}
	if p := h.cfg.UIPrefix; p != "" {
		body.Links = []opsLink{{p + "/jobs?state=available", "Waiting jobs in River UI"}, {p + "/jobs?state=running", "Running jobs"},
			{p + "/jobs?state=retryable", "Retrying jobs"}, {p + "/jobs?state=discarded", "Discarded jobs"}, {p + "/queues", "Queues"}}
	}
	sessions, err := h.opsSessions(ctx, vr, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	extraction, spend, err := h.opsExtraction(ctx, vr, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	risk, err := h.opsRisk(ctx, vr, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	alerts, err := h.opsFailedAlerts(ctx)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	queues, err := h.opsQueues(ctx, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	batches, err := h.opsBatches(ctx, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	body.Sections = []Section{sessions, risk, alerts, extraction, spend, queues, batches}
	h.render(w, r, http.StatusOK, "operations", page{Title: "Operations", Body: body})
}

// apps lists the configured apps.
func (h *Handler) apps() []string { return SortedKeys(h.cfg.Apps) }

func (h *Handler) opsSessions(ctx context.Context, vr store.ViewReader, now time.Time) (Section, error) {
	sec := Section{ID: "sessions", Title: "Sessions", Attr: "ops-sessions",
		Intro: "Sessions by the hour and day they ended, across every app."}
	hourEnd := now.Truncate(time.Hour).Add(time.Hour)
	hourStart := hourEnd.Add(-opsHours * time.Hour)
	hours, err := vr.ViewSessionCounts(ctx, h.apps(), hourStart, hourEnd, store.ViewHour)
	if err != nil {
		return sec, err
	}
	dayEnd := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	dayStart := dayEnd.AddDate(0, 0, -opsDays)
	days, err := vr.ViewSessionCounts(ctx, h.apps(), dayStart, dayEnd, store.ViewDay)
	if err != nil {
		return sec, err
	}
	perHour := map[time.Time]int64{}
	var total48 int64
	for _, c := range hours {
		perHour[c.Start] += c.Count
		total48 += c.Count
	}
	var hc []string
	var hv []float64
	for t := hourStart; t.Before(hourEnd); t = t.Add(time.Hour) {
		lbl := t.Format("15:04")
		if t.Hour() == 0 {
			lbl = t.Format("Mon 2 Jan")
		}
		hc, hv = append(hc, lbl), append(hv, float64(perHour[t]))
	}
	if total48 == 0 {
		hv = nil
	}
	perDay := map[time.Time]int64{}
	perAppDay := map[string]map[time.Time]int64{}
	var total30 int64
	for _, c := range days {
		perDay[c.Start] += c.Count
		if perAppDay[c.App] == nil {
			perAppDay[c.App] = map[time.Time]int64{}
		}
		perAppDay[c.App][c.Start] += c.Count
		total30 += c.Count
	}
	var dc []string
	var dv []float64
	for t := dayStart; t.Before(dayEnd); t = t.AddDate(0, 0, 1) {
		dc, dv = append(dc, t.Format("2 Jan")), append(dv, float64(perDay[t]))
	}
	if total30 == 0 {
		dv = nil
	}
	empty := "Sessions appear once a chat service hands one over (POST /v1/sessions/{id}/close)."
	sec.Facts = []Fact{{Label: "Last 48 hours", Value: strconv.FormatInt(total48, 10)}, {Label: "Last 30 days", Value: strconv.FormatInt(total30, 10)}}
	sec.Charts = []*Chart{
		BarChart(BarSpec{ID: "ops-sessions-hour", Title: "Sessions per hour, last 48 hours", Desc: fmt.Sprintf("%d sessions ended in the last 48 hours.", total48),
			CategoryLabel: "Hour (UTC)", ValueLabel: "Sessions", Categories: hc, Series: []BarSeries{{Values: hv}}, LabelEvery: 6, Empty: empty}),
		BarChart(BarSpec{ID: "ops-sessions-day", Title: "Sessions per day, last 30 days", Desc: fmt.Sprintf("%d sessions ended in the last 30 days.", total30),
			CategoryLabel: "Day (UTC)", ValueLabel: "Sessions", Categories: dc, Series: []BarSeries{{Values: dv}}, LabelEvery: 5, Empty: empty}),
	}
	t := VTable{Caption: "Sessions per app, last 7 days", Head: []string{"App"}, Empty: "No sessions in the last 7 days."}
	for d := dayEnd.AddDate(0, 0, -7); d.Before(dayEnd); d = d.AddDate(0, 0, 1) {
		t.Head = append(t.Head, d.Format("Mon 2 Jan"))
	}
	for _, app := range SortedKeys(perAppDay) {
		row := []string{app}
		sum := int64(0)
		for d := dayEnd.AddDate(0, 0, -7); d.Before(dayEnd); d = d.AddDate(0, 0, 1) {
			row = append(row, strconv.FormatInt(perAppDay[app][d], 10))
			sum += perAppDay[app][d]
		}
		if sum > 0 {
			t.Rows = append(t.Rows, row)
		}
	}
	sec.Tables = []VTable{t}
	return sec, nil
}

func (h *Handler) opsExtraction(ctx context.Context, vr store.ViewReader, now time.Time) (Section, Section, error) {
	ext := Section{ID: "extraction", Title: "Extraction outcomes", Attr: "ops-extraction",
		Intro: "Sessions extracted per day by where the result came from: the LLM, the deterministic rules (by design, or with the monthly budget spent), or the rules as a fallback after the LLM failed."}
	spend := Section{ID: "llm", Title: "LLM tokens and spend", Attr: "ops-llm"}
	dayEnd := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
	dayStart := dayEnd.AddDate(0, 0, -opsOutcomeDays)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	from := dayStart
	if month.Before(dayStart) {
		from = month
	}
	stats, err := vr.ViewExtractionStats(ctx, from, dayEnd)
	if err != nil {
		return ext, spend, err
	}
	// Final runs per day and source; other outcomes counted apart.
	final := map[string]map[time.Time]int64{}
	outcomes := map[string]int64{}
	var thisWeek, lastWeek, fbThis, fbLast int64
	weekAgo, twoWeeksAgo := dayEnd.AddDate(0, 0, -7), dayEnd.AddDate(0, 0, -14)
	var inTok, outTok int64
	var cost float64
	costPerDay := map[time.Time]float64{}
	for _, s := range stats {
		if !s.Day.Before(month) {
			inTok, outTok, cost = inTok+s.InputTokens, outTok+s.OutputTokens, cost+s.CostUSD
			costPerDay[s.Day] += s.CostUSD
		}
		if s.Day.Before(dayStart) {
			continue
		}
		outcomes[s.Source+" / "+s.Outcome+finalNote(s.Final)] += s.Runs
		if !s.Final {
			continue
		}
		if final[s.Source] == nil {
			final[s.Source] = map[time.Time]int64{}
		}
		final[s.Source][s.Day] += s.Runs
		switch {
		case !s.Day.Before(weekAgo):
			thisWeek += s.Runs
			if s.Source == "fallback" {
				fbThis += s.Runs
			}
		case !s.Day.Before(twoWeeksAgo):
			lastWeek += s.Runs
			if s.Source == "fallback" {
				fbLast += s.Runs
			}
		}
	}
	var series []Series
	seen := false
	for _, src := range sources {
		sr := Series{Name: src}
		for d := dayStart; d.Before(dayEnd); d = d.AddDate(0, 0, 1) {
			n := final[src][d]
			seen = seen || n > 0
			sr.Points = append(sr.Points, XY{X: float64(d.Unix()), Y: float64(n), XText: d.Format("Mon 2 Jan")})
		}
		series = append(series, sr)
	}
	if !seen {
		series = nil
	}
	ext.Facts = []Fact{{Label: "Last 7 days", Value: strconv.FormatInt(thisWeek, 10), Note: trend(thisWeek, lastWeek) + " on the 7 before"},
		{Label: "Fallbacks, last 7 days", Value: strconv.FormatInt(fbThis, 10), Note: fmt.Sprintf("%d the 7 before", fbLast)}}
	ext.Charts = []*Chart{LineChart(LineSpec{ID: "ops-extraction", Title: "Extractions per day by source, last 14 days",
		Desc:   fmt.Sprintf("%d extractions in the last 7 days, %d in the 7 before.", thisWeek, lastWeek),
		XLabel: "Day (UTC)", YLabel: "Sessions extracted", Series: series, XTicks: TimeTicks(dayStart, dayEnd.Add(-time.Hour), time.UTC),
		XMin: float64(dayStart.Unix()), XMax: float64(dayEnd.AddDate(0, 0, -1).Unix()),
		Empty: "Outcomes appear once a handed-over session has been extracted (a few seconds after the handoff)."})}
	ot := VTable{Caption: "Runs by source and outcome, last 14 days", Head: []string{"Source / outcome", "Runs"}, Empty: "No extraction runs in the last 14 days."}
	for _, k := range SortedKeys(outcomes) {
		ot.Rows = append(ot.Rows, []string{k, strconv.FormatInt(outcomes[k], 10)})
	}
	ext.Tables = []VTable{ot}

	budget := h.cfg.MonthlyBudgetUSD
	model := "none: the rules serve every app"
	if h.cfg.Model != "" {
		model = h.cfg.Model
	}
	spend.Intro = "Month to date (" + month.Format("January 2006") + ", UTC): tokens and the estimated spend, against the monthly budget above which extraction uses the rules."
	spend.Facts = []Fact{{Label: "Model", Value: model}, {Label: "Input tokens", Value: strconv.FormatInt(inTok, 10)},
		{Label: "Output tokens", Value: strconv.FormatInt(outTok, 10)}, {Label: "Spend", Value: usd(cost)}}
	if budget > 0 {
		share := cost / budget
		spend.Facts = append(spend.Facts, Fact{Label: "Budget", Value: usd(budget), Note: PctOf(share) + " used"})
		switch {
		case share >= 1:
			spend.Notice = "The monthly budget is spent: extraction uses the rules until the month ends."
		case share >= 0.8:
			spend.Notice = "Over 80 % of the monthly budget is spent."
		}
	} else {
		spend.Facts = append(spend.Facts, Fact{Label: "Budget", Value: "none", Note: "MNEMO_LLM_MONTHLY_BUDGET_USD"})
	}
	var cum []XY
	running := 0.0
	monthEnd := month.AddDate(0, 1, 0)
	for d := month; d.Before(dayEnd) && d.Before(monthEnd); d = d.AddDate(0, 0, 1) {
		running += costPerDay[d]
		cum = append(cum, XY{X: float64(d.Day()), Y: running, XText: d.Format("Mon 2 Jan")})
	}
	if cost == 0 {
		cum = nil
	}
	var marks []Marker
	if budget > 0 {
		marks = []Marker{{V: budget, Label: "budget " + usd(budget), Horizontal: true}, {V: budget * 0.8, Label: "80 %", Horizontal: true, Class: "marker baseline"}}
	}
	spend.Charts = []*Chart{LineChart(LineSpec{ID: "ops-spend", Title: "LLM spend this month, cumulative",
		Desc:   fmt.Sprintf("%s spent this month of a budget of %s.", usd(cost), usdOrNone(budget)),
		XLabel: "Day of " + month.Format("January") + " (UTC)", YLabel: "Spend (US$)", Series: []Series{{Name: "Spend", Points: cum}},
		XMin: 1, XMax: float64(monthEnd.AddDate(0, 0, -1).Day()), Markers: marks, YFormat: usd,
		Empty: "No LLM spend this month. Spend appears once an extraction calls the LLM (MNEMO_LLM_MODEL)."})}
	return ext, spend, nil
}

func finalNote(final bool) string {
	if final {
		return ""
	}
	return " (attempt, retried)"
}

// trend compares two counts: "+25 %", "−10 %", "same", "new".
func trend(now, before int64) string {
	switch {
	case before == 0 && now == 0:
		return "none"
	case before == 0:
		return "up from none"
	case now == before:
		return "same"
	}
	p := float64(now-before) / float64(before) * 100
	return fmt.Sprintf("%+.0f %%", p)
}

func usd(v float64) string { return "$" + strconv.FormatFloat(v, 'f', 2, 64) }

func usdOrNone(v float64) string {
	if v <= 0 {
		return "none"
	}
	return usd(v)
}

func (h *Handler) opsQueues(ctx context.Context, now time.Time) (Section, error) {
	sec := Section{ID: "queues", Title: "Queues", Attr: "ops-queues",
		Intro: "Jobs waiting and running per queue, across every worker on the database, and how long the oldest waiting job has waited."}
	q := h.cfg.Queue
	if q == nil {
		sec.Empty = "No queue is attached to this process."
		return sec, nil
	}
	depths, err := queue.QueueDepths(ctx, q)
	if err != nil {
		return sec, err
	}
	t := VTable{Caption: "Queues", Head: []string{"Queue", "Waiting", "Running", "Paused", "Oldest waiting job"}}
	var names []string
	var waiting, running []float64
	var oldestAge time.Duration
	for _, d := range depths {
		oldest := "–"
		row, err := oldestAvailable(ctx, q, d.Queue)
		if err != nil {
			return sec, err
		}
		if row != nil {
			age := now.Sub(row.ScheduledAt)
			oldestAge = max(oldestAge, age)
			oldest = Ago(max(age, 0)) + " (job " + strconv.FormatInt(row.ID, 10) + ", " + row.Kind + ")"
		}
		paused := "no"
		if d.Paused {
			paused = "yes"
		}
		t.Rows = append(t.Rows, []string{d.Queue, strconv.FormatInt(d.Available, 10), strconv.FormatInt(d.Running, 10), paused, oldest})
		if h.cfg.UIPrefix != "" {
			t.RowLinks = append(t.RowLinks, h.cfg.UIPrefix+"/queues/"+url.PathEscape(d.Queue))
		}
		names, waiting, running = append(names, d.Queue), append(waiting, float64(d.Available)), append(running, float64(d.Running))
	}
	sec.Facts = []Fact{{Label: "Oldest waiting job", Value: OrDash(agoOrEmpty(oldestAge))}}
	sec.Tables = []VTable{t}
	sec.Charts = []*Chart{BarChart(BarSpec{ID: "ops-queues", Title: "Jobs per queue", Horizontal: true,
		Desc: "Jobs waiting and running in each queue now.", CategoryLabel: "Queue", ValueLabel: "Jobs", Categories: names,
		Series: []BarSeries{{Name: "Waiting", Values: waiting}, {Name: "Running", Values: running}},
		Empty:  "No queue is known yet."})}
	return sec, nil
}

func agoOrEmpty(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return Ago(d)
}

// oldestAvailable is the queue's available job scheduled earliest, nil when none.
func oldestAvailable(ctx context.Context, q queue.Queue, name string) (*rivertype.JobRow, error) {
	p := river.NewJobListParams().Queues(name).States(rivertype.JobStateAvailable).
		OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc).First(1)
	var res *river.JobListResult
	var err error
	switch c := q.Client().(type) {
	case *river.Client[pgx.Tx]:
		res, err = c.JobList(ctx, p)
	case *river.Client[*sql.Tx]:
		res, err = c.JobList(ctx, p)
	default:
		return nil, fmt.Errorf("views: unsupported river client %T", c)
	}
	if err != nil {
		return nil, fmt.Errorf("oldest job of %s: %w", name, err)
	}
	if len(res.Jobs) == 0 {
		return nil, nil
	}
	return res.Jobs[0], nil
}

func (h *Handler) opsBatches(ctx context.Context, now time.Time) (Section, error) {
	sec := Section{ID: "batches", Title: "Scheduled batches", Attr: "ops-batches",
		Intro: "Each batch's last run, next run, periods due but not run (missed), and periods whose data changed after they ran (late data): re-run by the scheduler, or stale beyond the catch-up window until run by hand (worker batch run NAME --period P)."}
	if h.cfg.Schedules == nil {
		sec.Empty = "No batch schedules are configured in this process."
		return sec, nil
	}
	states, err := h.cfg.BatchStates(ctx, now)
	if err != nil {
		return sec, err
	}
	t := VTable{Caption: "Batches", Head: []string{"Batch", "Schedule", "Last run", "Outcome", "Finished", "Next run", "Missed", "Late data", "Users skipped"}}
	var notices []string
	missedTotal, staleTotal := 0, 0
	for _, s := range states {
		last, outcome, finished := "never", "–", "–"
		if s.Last != nil {
			last, outcome = s.Last.Period, s.Last.Outcome
			if s.Last.FinishedAt != nil {
				finished = s.Last.FinishedAt.UTC().Format(dateTimeLayout)
			}
		}
		missed := strconv.Itoa(len(s.Missed))
		if n := len(s.Missed); n > 0 {
			missed += " (" + s.Missed[0].Name
			if n > 1 {
				missed += " … " + s.Missed[n-1].Name
			}
			missed += ")"
			missedTotal += n
		}
		var late []string
		if n := len(s.Dirty); n > 0 {
			late = append(late, fmt.Sprintf("%d to re-run", n))
		}
		if n := len(s.Stale); n > 0 {
			staleTotal += n
			st := fmt.Sprintf("%d stale (%s", n, s.Stale[0].Period)
			if n > 1 {
				st += " … " + s.Stale[n-1].Period
			}
			late = append(late, st+")")
			notices = append(notices, s.Name)
		}
		skipped := "–"
		if s.Skipped.Skipped > 0 {
			skipped = strconv.FormatInt(s.Skipped.Skipped, 10)
		}
		next := "–"
		if !s.Next.IsZero() {
			next = s.Next.UTC().Format(dateTimeLayout)
		}
		t.Rows = append(t.Rows, []string{s.Name, s.Schedule.String(), last, outcome, finished, next, missed, OrDash(strings.Join(late, ", ")), skipped})
		if h.cfg.UIPrefix != "" {
			t.RowLinks = append(t.RowLinks, h.cfg.UIPrefix+"/queues/"+queue.QueueBatch)
		}
	}
	sec.Facts = []Fact{{Label: "Missed periods", Value: strconv.Itoa(missedTotal), Note: "due, not yet run"},
		{Label: "Stale periods", Value: strconv.Itoa(staleTotal), Note: "late data beyond the catch-up window"}}
	if len(notices) > 0 {
		slices.Sort(notices)
		sec.Notice = "Stale periods in " + strings.Join(notices, ", ") + ": run them by hand to take their late data in."
	}
	sec.Tables = []VTable{t}
	return sec, nil
}
