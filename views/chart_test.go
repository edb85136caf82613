package views

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// renderChart writes c through the chart template, as a page does.
func renderChart(t *testing.T, c *Chart) string {
	t.Helper()
	tmpl := template.Must(template.New("x").Funcs(funcs).ParseFS(templateFS, "templates/chart.tmpl"))
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "chart", c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var dataPointRE = regexp.MustCompile(`<(circle|rect) data-point`)

func TestLineChartPlotsEveryPointInsideThePlot(t *testing.T) {
	t.Parallel()
	c := LineChart(LineSpec{ID: "l", Title: "Distress", XLabel: "Minutes", YLabel: "Distress (0–1)", YMin: 0, YMax: 1,
		Series: []Series{{Name: "a", Points: []XY{{X: 0, Y: 0.7, Note: "anxious"}, {X: 5, Y: 0.3}, {X: 10, Y: 1.4}, {X: math.NaN(), Y: 1}}},
			{Name: "b", Points: []XY{{X: 3, Y: 0}}}}})
	if c.Empty != "" || len(c.Points) != 4 {
		t.Fatalf("points %d (empty %q); want 4: a NaN x is no point", len(c.Points), c.Empty)
	}
	px0 := c.Axes[len(c.Axes)-1].X1 // the y axis, drawn last
	for _, p := range c.Points {
		if p.X < px0 || p.X > chartW-marginRight || p.Y < marginTop || p.Y > chartH-marginBot {
			t.Errorf("point %+v outside the plot area", p)
		}
	}
	// y grows downwards: 0.7 is above 0.3, a value over the fixed top is drawn at the top.
	if !(c.Points[0].Y < c.Points[1].Y) || c.Points[2].Y != marginTop {
		t.Errorf("y scale: %v %v %v", c.Points[0].Y, c.Points[1].Y, c.Points[2].Y)
	}
	if len(c.Paths) != 2 || !strings.HasPrefix(c.Paths[0].D, "M") || strings.Count(c.Paths[0].D, "L") != 2 {
		t.Errorf("paths %+v; want one line per series, a's through its three points", c.Paths)
	}
	if len(c.Table.Rows) != 4 || c.Table.Head[0] != "Series" || c.Table.Rows[0][3] != "anxious" {
		t.Errorf("table %+v; want a row per point with the series and the note", c.Table)
	}
	if len(c.Legend) != 2 || len(LineChart(LineSpec{Series: []Series{{Name: "one", Points: []XY{{X: 1, Y: 1}}}}}).Legend) != 0 {
		t.Errorf("legend %+v; want both series, and none for one series", c.Legend)
	}
	out := renderChart(t, c)
	if n := len(dataPointRE.FindAllString(out, -1)); n != 4 {
		t.Errorf("rendered %d data points; want 4", n)
	}
	for _, want := range []string{`data-points="4"`, `role="img"`, `aria-labelledby="l-t l-d"`, "<caption>Distress: the chart's data</caption>",
		">Minutes</text>", ">Distress (0–1)</text>", `data-series="a"`} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered chart lacks %q:\n%s", want, out)
		}
	}
}

func TestGapBreaksTheLine(t *testing.T) {
	t.Parallel()
	c := LineChart(LineSpec{ID: "g", Series: []Series{{Points: []XY{{X: 0, Y: 1}, {X: 1, Y: 2}, {X: 2, Y: 3, Gap: true}, {X: 3, Y: 4}}}}})
	if d := c.Paths[0].D; strings.Count(d, "M") != 2 || strings.Count(d, "L") != 2 {
		t.Fatalf("path %q; want two pieces of two points", d)
	}
}

func TestEmptyChartSaysWhatWillAppear(t *testing.T) {
	t.Parallel()
	for _, c := range []*Chart{
		LineChart(LineSpec{ID: "e1", Title: "T", Empty: "Trends appear after the trends batch.", Series: []Series{{Points: []XY{{X: math.Inf(1), Y: 1}}}}}),
		BarChart(BarSpec{ID: "e2", Title: "T", Empty: "Trends appear after the trends batch.", Categories: []string{"a"}, Series: []BarSeries{{Values: []float64{math.NaN()}}}}),
		TimelineChart(TimelineSpec{ID: "e3", Title: "T", Empty: "Trends appear after the trends batch.", From: time.Unix(0, 0), To: time.Unix(3600, 0)}),
	} {
		out := renderChart(t, c)
		if !strings.Contains(out, `<p class="empty" data-empty="`+c.ID+`">Trends appear after the trends batch.</p>`) || strings.Contains(out, "<svg") {
			t.Errorf("%s: empty chart rendered as\n%s", c.ID, out)
		}
	}
}

func TestBarChartHandlesNegativesAndMissingValues(t *testing.T) {
	t.Parallel()
	c := BarChart(BarSpec{ID: "b", Title: "Change", Horizontal: true, CategoryLabel: "Story", ValueLabel: "Change",
		Categories: []string{"calming_story", "grounding", "music"}, Series: []BarSeries{{Values: []float64{-0.25, 0.1, math.NaN()}}}, Format: signed})
	if len(c.Points) != 2 {
		t.Fatalf("%d bars; want 2 (a missing value draws none)", len(c.Points))
	}
	neg, pos := c.Points[0], c.Points[1]
	// The negative bar ends where the positive one starts: at zero.
	if math.Abs(neg.X+neg.W-pos.X) > 0.01 || neg.W <= 0 || pos.W <= 0 {
		t.Fatalf("bars %+v %+v do not meet at zero", neg, pos)
	}
	if c.Table.Rows[2][1] != "–" || c.Table.Rows[0][1] != "-0.25" || c.Table.Rows[1][1] != "+0.1" {
		t.Fatalf("table %+v", c.Table.Rows)
	}
	if c.Points[0].YValue != "-0.25" || c.Points[0].XValue != "calming_story" {
		t.Fatalf("data attributes %+v", c.Points[0])
	}
}

func TestLabelsAreEscaped(t *testing.T) {
	t.Parallel()
	evil := `<script>alert(1)</script>"`
	c := BarChart(BarSpec{ID: "x", Title: evil, Desc: evil, CategoryLabel: evil, ValueLabel: evil, Categories: []string{evil},
		Series: []BarSeries{{Name: evil, Values: []float64{1}}}})
	out := renderChart(t, c)
	if strings.Contains(out, "<script>") || strings.Contains(out, `"alert`) {
		t.Fatalf("a label reached the page unescaped:\n%s", out)
	}
	if !strings.Contains(out, "&lt;script&gt;") {
		t.Fatalf("the label is not shown escaped:\n%s", out)
	}
}

func TestTimelineSpansAndOpenEnds(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 10)
	c := TimelineChart(TimelineSpec{ID: "t", Title: "Memories", RowLabel: "Key", From: from, To: to, Loc: time.UTC, Now: from.AddDate(0, 0, 5),
		Rows: []TimelineRow{{Label: "favorite_food", Spans: []Span{{From: from.AddDate(0, 0, 1), To: from.AddDate(0, 0, 3), Label: "ramen"},
			{From: from.AddDate(0, 0, 3), Label: "sushi"}}}}})
	if len(c.Points) != 2 || len(c.Marks) != 1 {
		t.Fatalf("points %d marks %d; want 2 spans and the now marker", len(c.Points), len(c.Marks))
	}
	a, b := c.Points[0], c.Points[1]
	if math.Abs(a.X+a.W-b.X) > 0.01 {
		t.Errorf("ramen ends at %v, sushi starts at %v", a.X+a.W, b.X)
	}
	if math.Abs(b.X+b.W-(chartW-marginRight)) > 0.01 {
		t.Errorf("the open span ends at %v; want the chart's end", b.X+b.W)
	}
	if c.Table.Rows[1][3] != "open" {
		t.Errorf("table %+v", c.Table.Rows)
	}
}

func TestTimeTicksInTheReadersZone(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	from := time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC) // 22:00 on the 1st in New York
	ticks := TimeTicks(from, from.AddDate(0, 0, 3), ny)
	if len(ticks) == 0 || ticks[0].Label != "Mon 2 Nov" {
		t.Fatalf("ticks %+v; want local midnights, the first Mon 2 Nov", ticks)
	}
	if at := time.Unix(int64(ticks[0].V), 0).In(ny); at.Hour() != 0 {
		t.Fatalf("first tick at %v; want local midnight", at)
	}
	weeks := TimeTicks(from, from.AddDate(0, 0, 30), ny)
	for _, tk := range weeks {
		if time.Unix(int64(tk.V), 0).In(ny).Weekday() != time.Monday {
			t.Fatalf("weekly tick %+v is not a Monday", tk)
		}
	}
}

func TestCountsGetWholeTicks(t *testing.T) {
	t.Parallel()
	c := BarChart(BarSpec{ID: "w", Categories: []string{"a", "b"}, Series: []BarSeries{{Values: []float64{1, 0}}}})
	for _, tx := range c.Texts {
		if tx.Class == "tick" && strings.Contains(tx.Text, ".") {
			t.Fatalf("a count axis has the tick %q", tx.Text)
		}
	}
	l := LineChart(LineSpec{ID: "f", YMin: 0, YMax: 12, Series: []Series{{Points: []XY{{X: 0, Y: 3}, {X: 1, Y: 4}}}}})
	for _, g := range l.Grid {
		if g.Y1 < marginTop-0.01 {
			t.Fatalf("a grid line at y=%v lies above a fixed domain's top", g.Y1)
		}
	}
}

func TestNiceTicksCoverTheRange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lo, hi float64 }{{0, 1}, {0, 7.3}, {-0.25, 0.1}, {3, 3}, {0, 0}, {0, 1234}} {
		ticks := niceTicks(c.lo, c.hi, 5, false)
		if len(ticks) < 2 || ticks[0] > c.lo || ticks[len(ticks)-1] < c.hi || len(ticks) > 12 {
			t.Errorf("niceTicks(%v, %v) = %v", c.lo, c.hi, ticks)
		}
	}
}

// TestMarkerLabelsStagger: markers close together (an escalation and a
// story a minute apart) put their labels on rows of their own; a label
// that would pass the plot's end stands left of its line; "_" reads as a
// space.
func TestMarkerLabelsStagger(t *testing.T) {
	t.Parallel()
	c := LineChart(LineSpec{ID: "m", Series: []Series{{Points: []XY{{X: 0, Y: 0.5}, {X: 20, Y: 0.2}}}},
		Markers: []Marker{{V: 2, Label: "escalation"}, {V: 3, Label: "calming_story"}, {V: 19.5, Label: "grounding"}}})
	var labels []Text
	for _, tx := range c.Texts {
		if tx.Class == "marker-label" {
			labels = append(labels, tx)
		}
	}
	if len(labels) != 3 || labels[1].Text != "calming story" {
		t.Fatalf("marker labels %+v; want three, the second \"calming story\"", labels)
	}
	if labels[0].Y == labels[1].Y {
		t.Errorf("escalation and calming story share the row y=%v", labels[0].Y)
	}
	if last := labels[2]; last.Anchor != "end" || last.X+0.01 > chartW-marginRight {
		t.Errorf("the label at the plot's end %+v; want it left of its line", last)
	}
}

// TestTicksFitTheirAxis: wide tick labels are thinned so that none
// touches its neighbour or leaves the chart.
func TestTicksFitTheirAxis(t *testing.T) {
	t.Parallel()
	var ticks []Tick
	var pts []XY
	for i := 0; i < 12; i++ {
		ticks = append(ticks, Tick{V: float64(i), Label: fmt.Sprintf("w/e Tue %d Nov", 10+i)})
		pts = append(pts, XY{X: float64(i), Y: float64(i)})
	}
	c := LineChart(LineSpec{ID: "t", XTicks: ticks, Series: []Series{{Points: pts}}})
	var row []Text
	for _, tx := range c.Texts {
		if tx.Class == "tick" && tx.Anchor == "middle" {
			row = append(row, tx)
		}
	}
	slices.SortFunc(row, func(a, b Text) int { return cmp.Compare(a.X, b.X) })
	right := math.Inf(-1)
	for _, tx := range row {
		w := textWidth(tx.Text, tickSize)
		if tx.X-w/2 < 0 || tx.X+w/2 > chartW || tx.X-w/2 < right {
			t.Errorf("tick %q at %v (width %v) leaves the chart or touches the one before (ending %v)", tx.Text, tx.X, w, right)
		}
		right = tx.X + w/2
	}
	if len(row) < 2 || row[len(row)-1].Text != "w/e Tue 21 Nov" {
		t.Errorf("x ticks %+v; want at least two, the latest week's last", row)
	}
}
