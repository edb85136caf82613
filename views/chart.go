package views

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The charts are drawn here, in Go, as SVG shapes with their coordinates
// worked out; one template (chart.tmpl) writes them out through
// html/template, which escapes every label. A chart is a figure with a
// title, axis labels with units, its data points as elements carrying
// data-point, data-series, data-x and data-y (what the browser tests count),
// and the same numbers as a table for screen readers. A chart without data
// is an empty state instead: a sentence saying what will appear and when.

// Chart types.
const (
	ChartLine     = "line"
	ChartBar      = "bar"
	ChartTimeline = "timeline"
)

// Geometry of every chart, in SVG user units; the SVG scales to its box.
// The width is a phone's: a chart fits a 390 px screen at about nine
// tenths of its size (12-unit ticks read at 11 px) and a desktop column at
// about one and a fifth (views.css bounds it), so it never scrolls
// sideways and no label leaves the drawing. Every label's room is worked
// out from its estimated width (textWidth): ticks are thinned, markers'
// labels stagger, the value axis's name stands above the plot.
const (
	chartW      = 400.0
	chartH      = 250.0
	marginTop   = 30.0
	marginRight = 12.0
	marginBot   = 44.0
	// minLeft is the least room left of a plot for its value ticks.
	minLeft = 24.0
	// hbarRow is the height of one category of a horizontal bar chart.
	hbarRow = 26.0
	// maxHbarLabel is the most room for category labels left of
	// horizontal bars and timeline rows (a share of chartW).
	maxHbarLabel = chartW * 0.42
	// maxLabelRunes bounds a label drawn in the chart; the table and the
	// point's title keep it whole.
	maxLabelRunes = 24
)

// Font sizes of the chart's text classes in user units (views.css), for
// the room their labels take.
const (
	tickSize   = 12.0
	axisSize   = 13.0
	markerSize = 11.0
	// labelGap is the least space between two labels on one line.
	labelGap = 6.0
	// tickDrop is how far below the x axis its tick labels' baseline
	// lies: clear of the lowest value tick's label beside the axis.
	tickDrop = 20.0
	// markerRow is the distance between two rows of marker labels.
	markerRow = 13.0
)

// Chart is one SVG chart, ready for the template.
type Chart struct {
	ID     string
	Type   string
	Title  string
	Desc   string
	XLabel string
	YLabel string
	W, H   float64
	// Empty, when set, says why there is no chart and what will appear
	// when: the template shows it instead of the SVG.
	Empty  string
	Grid   []Line
	Axes   []Line
	Marks  []Line
	Texts  []Text
	Paths  []Path
	Points []Point
	Legend []LegendItem
	Table  Table
}

// Line is a straight line: grid, axis or marker.
type Line struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

// Text is a label drawn in the chart.
type Text struct {
	X, Y   float64
	Anchor string // start, middle, end
	Class  string
	Text   string
	// Rotate turns the text -90° about its anchor (a y-axis label).
	Rotate bool
}

// Path is a series' line.
type Path struct {
	D     string
	Class string
}

// Point is one data point: a circle (line charts) or a rectangle (bars, spans).
type Point struct {
	Rect       bool
	X, Y, W, H float64
	Class      string
	Series     string
	XValue     string
	YValue     string
	Title      string
}

// LegendItem names a series and its colour class.
type LegendItem struct {
	Class string
	Name  string
}

// Table is a chart's data for screen readers (and for anyone who prefers numbers).
type Table struct {
	Head []string
	Rows [][]string
}

// Points counts the chart's data points.
func (c *Chart) NumPoints() int { return len(c.Points) }

// seriesClass is the colour class of the i-th series.
func seriesClass(i int) string { return "s" + strconv.Itoa(i%6) }

// XY is one point of a line series. Gap breaks the line before it.
type XY struct {
	X, Y float64
	// XText names X in the table and the point's title (a date in the
	// user's zone, say); empty uses XFormat.
	XText string
	// Note is shown beside the value (an emotion's label, say).
	Note string
	Gap  bool
}

// Series is one line of a line chart.
type Series struct {
	Name   string
	Points []XY
	// NoLine draws the points only.
	NoLine bool
}

// Tick is one labelled position on an axis.
type Tick struct {
	V     float64
	Label string
}

// Marker is a labelled line across the plot: a vertical one at X (an
// event), or a horizontal one at Y (a baseline) when Horizontal.
type Marker struct {
	V          float64
	Label      string
	Horizontal bool
	Class      string
}

// LineSpec describes a line chart.
type LineSpec struct {
	ID, Title, Desc string
	// XLabel and YLabel name the axes with their units ("Distress (0–1)").
	XLabel, YLabel string
	Series         []Series
	// XTicks label the x axis; nil numbers it.
	XTicks []Tick
	// XMin and XMax fix the x domain when XMax > XMin.
	XMin, XMax float64
	// YMin and YMax fix the y domain when YMax > YMin.
	YMin, YMax float64
	// XFormat and YFormat print values (default: up to two decimals).
	XFormat, YFormat func(float64) string
	Markers          []Marker
	// Height is the chart's height (default chartH).
	Height float64
	// Empty is the empty state's sentence.
	Empty string
}

// LineChart draws a line chart; without points it is the empty state.
func LineChart(s LineSpec) *Chart {
	c := &Chart{ID: s.ID, Type: ChartLine, Title: s.Title, Desc: s.Desc, XLabel: s.XLabel, YLabel: s.YLabel, W: chartW, H: chartH}
	if s.Height > 0 {
		c.H = s.Height
	}
	xf, yf := orFormat(s.XFormat), orFormat(s.YFormat)
	n, whole := 0, true
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, sr := range s.Series {
		for _, p := range sr.Points {
			if !finite(p.X) || !finite(p.Y) {
				continue
			}
			n++
			whole = whole && p.Y == math.Trunc(p.Y)
			xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	if n == 0 {
		c.Empty = s.Empty
		return c
	}
	if s.XMax > s.XMin {
		xmin, xmax = s.XMin, s.XMax
	}
	for _, m := range s.Markers {
		if m.Horizontal && finite(m.V) {
			ymin, ymax = math.Min(ymin, m.V), math.Max(ymax, m.V)
		}
	}
	var yticks []float64
	if s.YMax > s.YMin {
		ymin, ymax = s.YMin, s.YMax
		for _, v := range niceTicks(ymin, ymax, 5, false) {
			if v >= ymin-1e-9 && v <= ymax+1e-9 {
				yticks = append(yticks, v)
			}
		}
	} else {
		ymin = math.Min(ymin, 0)
		yticks = niceTicks(ymin, ymax, 5, whole && s.YFormat == nil)
		ymin, ymax = yticks[0], yticks[len(yticks)-1]
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	ylabels := make([]string, len(yticks))
	for i, t := range yticks {
		ylabels[i] = yf(t)
	}
	px0, px1, py0, py1 := leftRoom(ylabels), chartW-marginRight, c.H-marginBot, marginTop
	sx := func(v float64) float64 { return px0 + (v-xmin)/(xmax-xmin)*(px1-px0) }
	sy := func(v float64) float64 { return py0 - (v-ymin)/(ymax-ymin)*(py0-py1) }

	for i, t := range yticks {
		y := sy(t)
		c.Grid = append(c.Grid, Line{px0, y, px1, y, "grid"})
		c.Texts = append(c.Texts, Text{X: px0 - 6, Y: y + 4, Anchor: "end", Class: "tick", Text: ylabels[i]})
	}
	xticks := s.XTicks
	if xticks == nil {
		for _, v := range niceTicks(xmin, xmax, 6, false) {
			if v >= xmin && v <= xmax {
				xticks = append(xticks, Tick{v, xf(v)})
			}
		}
	}
	var inside []Tick
	for _, t := range xticks {
		if t.V >= xmin && t.V <= xmax {
			inside = append(inside, t)
		}
	}
	for _, t := range c.tickRow(inside, sx, px1-px0, py0+tickDrop) {
		c.Axes = append(c.Axes, Line{t.V, py0, t.V, py0 + 5, "axis"})
	}
	c.axes(px0, px1, py0, py1)

	var labels markerRows
	for _, m := range s.Markers {
		if !finite(m.V) {
			continue
		}
		class := cmp.Or(m.Class, "marker")
		label := short(markerText(m.Label))
		if m.Horizontal {
			y := sy(m.V)
			c.Marks = append(c.Marks, Line{px0, y, px1, y, class})
			c.Texts = append(c.Texts, Text{X: px1 - 4, Y: y - 4, Anchor: "end", Class: "marker-label", Text: label})
			continue
		}
		if m.V < xmin || m.V > xmax {
			continue
		}
		x := sx(m.V)
		c.Marks = append(c.Marks, Line{x, py0, x, py1, class})
		c.Texts = append(c.Texts, labels.place(x, px0, px1, py1, label))
	}

	multi := len(s.Series) > 1
	if multi {
		c.Table.Head = []string{"Series"}
	}
	c.Table.Head = append(c.Table.Head, s.XLabel, s.YLabel)
	notes := false
	for _, sr := range s.Series {
		for _, p := range sr.Points {
			notes = notes || p.Note != ""
		}
	}
	if notes {
		c.Table.Head = append(c.Table.Head, "Note")
	}
	for i, sr := range s.Series {
		class := seriesClass(i)
		if multi {
			c.Legend = append(c.Legend, LegendItem{class, sr.Name})
		}
		var d strings.Builder
		pen := false
		for _, p := range sr.Points {
			if !finite(p.X) || !finite(p.Y) {
				pen = false
				continue
			}
			if p.Gap {
				pen = false
			}
			x, y := sx(p.X), sy(math.Min(math.Max(p.Y, ymin), ymax))
			if pen {
				fmt.Fprintf(&d, " L%.1f %.1f", x, y)
			} else {
				fmt.Fprintf(&d, " M%.1f %.1f", x, y)
				pen = true
			}
			xt := cmp.Or(p.XText, xf(p.X))
			title := xt + ": " + yf(p.Y)
			if p.Note != "" {
				title += " (" + p.Note + ")"
			}
			if sr.Name != "" {
				title = sr.Name + ", " + title
			}
			c.Points = append(c.Points, Point{X: x, Y: y, W: 4, Class: class, Series: sr.Name, XValue: xt, YValue: yf(p.Y), Title: title})
			var row []string
			if multi {
				row = append(row, sr.Name)
			}
			row = append(row, xt, yf(p.Y))
			if notes {
				row = append(row, p.Note)
			}
			c.Table.Rows = append(c.Table.Rows, row)
		}
		if !sr.NoLine && d.Len() > 0 {
			c.Paths = append(c.Paths, Path{strings.TrimSpace(d.String()), class})
		}
	}
	return c
}

// BarSeries is one series of a bar chart: a value per category (NaN: none).
type BarSeries struct {
	Name   string
	Values []float64
}

// BarSpec describes a bar chart.
type BarSpec struct {
	ID, Title, Desc string
	// CategoryLabel and ValueLabel name the axes with their units.
	CategoryLabel, ValueLabel string
	Categories                []string
	Series                    []BarSeries
	// Horizontal draws one row per category, labels on the left: for
	// named categories (triggers, strategies). Vertical bars suit
	// time buckets.
	Horizontal bool
	// VMax fixes the top of the value axis when set (1 for a rate).
	VMax float64
	// Format prints a value (default: up to two decimals).
	Format func(float64) string
	// LabelEvery labels every n-th category of a vertical chart (default:
	// enough to keep about twelve labels).
	LabelEvery int
	Empty      string
}

// BarChart draws a bar chart; without a value it is the empty state.
func BarChart(s BarSpec) *Chart {
	c := &Chart{ID: s.ID, Type: ChartBar, Title: s.Title, Desc: s.Desc, W: chartW, H: chartH}
	f := orFormat(s.Format)
	vmin, vmax, n, whole := 0.0, 0.0, 0, s.Format == nil
	for _, sr := range s.Series {
		for _, v := range sr.Values {
			if finite(v) {
				n++
				whole = whole && v == math.Trunc(v)
				vmin, vmax = math.Min(vmin, v), math.Max(vmax, v)
			}
		}
	}
	if n == 0 || len(s.Categories) == 0 {
		c.Empty = s.Empty
		return c
	}
	if s.VMax > 0 {
		vmax = math.Max(vmax, s.VMax)
	}
	ticks := niceTicks(vmin, vmax, 5, whole)
	vmin, vmax = ticks[0], ticks[len(ticks)-1]
	nc, ns := len(s.Categories), len(s.Series)

	tlabels := make([]string, len(ticks))
	for i, t := range ticks {
		tlabels[i] = f(t)
	}
	var px0, px1, py0, py1 float64
	if s.Horizontal {
		c.XLabel, c.YLabel = s.ValueLabel, s.CategoryLabel
		c.H = marginTop + float64(nc)*hbarRow + marginBot
		// Room on the right for the values written after the bars (one
		// series) and for the last tick's half.
		right := textWidth(tlabels[len(tlabels)-1], tickSize) / 2
		if ns == 1 {
			for _, v := range s.Series[0].Values {
				if finite(v) {
					right = math.Max(right, textWidth(f(v), tickSize)+4)
				}
			}
		}
		px0, px1, py0, py1 = rowLabelRoom(s.Categories), chartW-marginRight-right, c.H-marginBot, marginTop
	} else {
		c.XLabel, c.YLabel = s.CategoryLabel, s.ValueLabel
		px0, px1, py0, py1 = leftRoom(tlabels), chartW-marginRight, chartH-marginBot, marginTop
	}
	// sv maps a value onto the value axis.
	sv := func(v float64) float64 {
		if s.Horizontal {
			return px0 + (v-vmin)/(vmax-vmin)*(px1-px0)
		}
		return py0 - (v-vmin)/(vmax-vmin)*(py0-py1)
	}
	var vticks []Tick
	for i, t := range ticks {
		p := sv(t)
		if s.Horizontal {
			c.Grid = append(c.Grid, Line{p, py0, p, py1, "grid"})
			vticks = append(vticks, Tick{t, tlabels[i]})
		} else {
			c.Grid = append(c.Grid, Line{px0, p, px1, p, "grid"})
			c.Texts = append(c.Texts, Text{X: px0 - 6, Y: p + 4, Anchor: "end", Class: "tick", Text: tlabels[i]})
		}
	}
	if s.Horizontal {
		c.tickRow(vticks, sv, px1-px0, py0+tickDrop)
	}
	if s.Horizontal {
		c.axesSideways(px0, px1, py0, py1)
	} else {
		c.axes(px0, px1, py0, py1)
	}
	zero := sv(0)
	if vmin < 0 {
		if s.Horizontal {
			c.Axes = append(c.Axes, Line{zero, py0, zero, py1, "axis"})
		} else {
			c.Axes = append(c.Axes, Line{px0, zero, px1, zero, "axis"})
		}
	}

	every := max(1, s.LabelEvery)
	length := py0 - py1 // the category axis's length
	if !s.Horizontal {
		length = px1 - px0
	}
	band := length / float64(nc)
	inner := band * 0.8 / float64(ns)
	if !s.Horizontal {
		// The categories' labels: every n-th when asked, then as many as
		// fit (tickRow).
		var cats []Tick
		for ci, cat := range s.Categories {
			if ci%every == 0 {
				cats = append(cats, Tick{px0 + band*float64(ci) + band/2, cat})
			}
		}
		c.tickRow(cats, func(x float64) float64 { return x }, px1-px0, py0+tickDrop)
	}
	c.Table.Head = []string{s.CategoryLabel}
	for i, sr := range s.Series {
		c.Table.Head = append(c.Table.Head, cmp.Or(sr.Name, s.ValueLabel))
		if ns > 1 {
			c.Legend = append(c.Legend, LegendItem{seriesClass(i), sr.Name})
		}
	}
	for ci, cat := range s.Categories {
		start := band * float64(ci)
		row := []string{cat}
		if s.Horizontal {
			y := py1 + start + band/2
			c.Texts = append(c.Texts, Text{X: px0 - 6, Y: y + 4, Anchor: "end", Class: "tick", Text: fitLabel(cat, px0-8)})
		}
		for si, sr := range s.Series {
			v := math.NaN()
			if ci < len(sr.Values) {
				v = sr.Values[ci]
			}
			if !finite(v) {
				row = append(row, "–")
				continue
			}
			row = append(row, f(v))
			off := start + band*0.1 + inner*float64(si)
			p := Point{Rect: true, Class: seriesClass(si), Series: sr.Name, XValue: cat, YValue: f(v),
				Title: strings.TrimPrefix(sr.Name+", ", ", ") + cat + ": " + f(v)}
			lo, hi := math.Min(zero, sv(v)), math.Max(zero, sv(v))
			if s.Horizontal {
				p.X, p.Y, p.W, p.H = lo, py1+off, math.Max(hi-lo, 1), inner
				if ns == 1 {
					c.Texts = append(c.Texts, Text{X: hi + 4, Y: p.Y + inner/2 + 4, Anchor: "start", Class: "value", Text: f(v)})
				}
			} else {
				p.X, p.Y, p.W, p.H = px0+off, lo, inner, math.Max(hi-lo, 1)
			}
			c.Points = append(c.Points, p)
		}
		c.Table.Rows = append(c.Table.Rows, row)
	}
	return c
}

// Span is one interval of a timeline row; an open span (To zero) runs to
// the end of the chart.
type Span struct {
	From, To time.Time
	Label    string
	// Class styles the span (current, past, expired).
	Class string
}

// TimelineRow is one labelled row of spans.
type TimelineRow struct {
	Label string
	Spans []Span
}

// TimelineSpec describes a timeline: rows of spans on a time axis.
type TimelineSpec struct {
	ID, Title, Desc  string
	XLabel, RowLabel string
	Rows             []TimelineRow
	From, To         time.Time
	Loc              *time.Location
	// Now draws a marker at the current time when within the axis.
	Now   time.Time
	Empty string
}

// TimelineChart draws a timeline; without a span it is the empty state.
func TimelineChart(s TimelineSpec) *Chart {
	c := &Chart{ID: s.ID, Type: ChartTimeline, Title: s.Title, Desc: s.Desc, XLabel: s.XLabel, YLabel: s.RowLabel, W: chartW}
	loc := cmp.Or(s.Loc, time.UTC)
	n := 0
	for _, r := range s.Rows {
		n += len(r.Spans)
	}
	if n == 0 || !s.To.After(s.From) {
		c.Empty = s.Empty
		return c
	}
	c.H = marginTop + float64(len(s.Rows))*hbarRow + marginBot
	names := make([]string, len(s.Rows))
	for i, r := range s.Rows {
		names[i] = r.Label
	}
	px0, px1, py0, py1 := rowLabelRoom(names), chartW-marginRight, c.H-marginBot, marginTop
	t0, t1 := float64(s.From.Unix()), float64(s.To.Unix())
	sx := func(t time.Time) float64 {
		v := math.Min(math.Max(float64(t.Unix()), t0), t1)
		return px0 + (v-t0)/(t1-t0)*(px1-px0)
	}
	tx := func(v float64) float64 { return px0 + (v-t0)/(t1-t0)*(px1-px0) }
	for _, t := range c.tickRow(TimeTicks(s.From, s.To, loc), tx, px1-px0, py0+tickDrop) {
		c.Grid = append(c.Grid, Line{t.V, py0, t.V, py1, "grid"})
	}
	c.axesSideways(px0, px1, py0, py1)
	if !s.Now.IsZero() && s.Now.After(s.From) && s.Now.Before(s.To) {
		x := sx(s.Now)
		c.Marks = append(c.Marks, Line{x, py0, x, py1, "marker"})
		var labels markerRows
		c.Texts = append(c.Texts, labels.place(x, px0, px1, py1, "now"))
	}
	c.Table.Head = []string{s.RowLabel, "Value", "From", "Until"}
	for ri, r := range s.Rows {
		y := py1 + float64(ri)*hbarRow
		c.Texts = append(c.Texts, Text{X: px0 - 6, Y: y + hbarRow/2 + 4, Anchor: "end", Class: "tick", Text: fitLabel(r.Label, px0-8)})
		for _, sp := range r.Spans {
			end, until := s.To, "open"
			if !sp.To.IsZero() {
				end, until = sp.To, sp.To.In(loc).Format(dateTimeLayout)
			}
			x0, x1 := sx(sp.From), sx(end)
			from := sp.From.In(loc).Format(dateTimeLayout)
			c.Points = append(c.Points, Point{Rect: true, X: x0, Y: y + 4, W: math.Max(x1-x0, 2), H: hbarRow - 8,
				Class: cmp.Or(sp.Class, "s0"), Series: r.Label, XValue: from, YValue: sp.Label,
				Title: r.Label + ": " + sp.Label + ", " + from + " – " + until})
			c.Table.Rows = append(c.Table.Rows, []string{r.Label, sp.Label, from, until})
		}
	}
	return c
}

// axes draws the two axis lines of the plot area and their names: the
// x axis's under its ticks, the y axis's above the plot from the chart's
// left edge (read without turning the head, and never longer than the
// plot is tall).
func (c *Chart) axes(px0, px1, py0, py1 float64) {
	c.Axes = append(c.Axes, Line{px0, py0, px1, py0, "axis"}, Line{px0, py0, px0, py1, "axis"})
	c.Texts = append(c.Texts, c.xName(px0, px1),
		Text{X: 2, Y: py1 - 14, Anchor: "start", Class: "axis-label", Text: fitText(c.YLabel, chartW-4, axisSize)})
}

// axesSideways draws the axes of a chart whose categories are rows with
// their labels on the left: the category axis's name stands above them.
func (c *Chart) axesSideways(px0, px1, py0, py1 float64) {
	c.Axes = append(c.Axes, Line{px0, py0, px1, py0, "axis"}, Line{px0, py0, px0, py1, "axis"})
	c.Texts = append(c.Texts, c.xName(px0, px1),
		Text{X: 2, Y: py1 - 10, Anchor: "start", Class: "axis-label", Text: fitText(c.YLabel, chartW-4, axisSize)})
}

// xName is the x axis's name under the ticks: centred on the plot, moved
// in so that it stays inside the chart.
func (c *Chart) xName(px0, px1 float64) Text {
	name := fitText(c.XLabel, chartW-4, axisSize)
	half := textWidth(name, axisSize) / 2
	x := math.Min(math.Max((px0+px1)/2, half+2), chartW-2-half)
	return Text{X: x, Y: c.H - 8, Anchor: "middle", Class: "axis-label", Text: name}
}

// tickRow writes tick labels under a horizontal axis at y: at most as many
// as fit the axis's length as wide as the widest, evenly thinned; one that
// would pass the chart's edge is moved in, and one that would still touch
// the label after it is dropped (the latest is kept first). It returns the kept ticks, V mapped by
// at (the tick's place, not its label's).
func (c *Chart) tickRow(ticks []Tick, at func(float64) float64, length, y float64) []Tick {
	widest := 0.0
	for _, t := range ticks {
		widest = math.Max(widest, textWidth(short(t.Label), tickSize))
	}
	n := max(1, int(length/(widest+labelGap))+1)
	var kept []Tick
	left := math.Inf(1)
	thinned := thin(ticks, n)
	for i := len(thinned) - 1; i >= 0; i-- { // from the latest
		x, label := at(thinned[i].V), short(thinned[i].Label)
		w := textWidth(label, tickSize)
		lx := math.Min(math.Max(x, w/2+1), chartW-1-w/2)
		if lx+w/2 > left-labelGap {
			continue
		}
		kept = append(kept, Tick{x, label})
		c.Texts = append(c.Texts, Text{X: lx, Y: y, Anchor: "middle", Class: "tick", Text: label})
		left = lx - w/2
	}
	return kept
}

// markerRows places the labels of vertical markers along the plot's top:
// right of the line, or left of it where the plot ends, in the first row
// (markerRow apart) where it touches no label placed before.
type markerRows [][][2]float64

func (r *markerRows) place(x, px0, px1, top float64, label string) Text {
	w := textWidth(label, markerSize)
	t := Text{X: x + 3, Anchor: "start", Class: "marker-label", Text: label}
	lo, hi := x+3, x+3+w
	if hi > px1 && x-3-w >= px0 {
		t.X, t.Anchor, lo, hi = x-3, "end", x-3-w, x-3
	}
	row := 0
	for ; row < len(*r); row++ {
		free := true
		for _, s := range (*r)[row] {
			if lo < s[1]+4 && hi > s[0]-4 {
				free = false
				break
			}
		}
		if free {
			break
		}
	}
	if row == len(*r) {
		*r = append(*r, nil)
	}
	(*r)[row] = append((*r)[row], [2]float64{lo, hi})
	t.Y = top + 10 + float64(row)*markerRow
	return t
}

// markerText is a marker's label as a reader says it: "calming_story" is
// "calming story".
func markerText(s string) string { return strings.ReplaceAll(s, "_", " ") }

// textWidth estimates how wide s is drawn at size: the widest common
// sans-serif faces (DejaVu Sans) average under 0.62 of the size a
// character.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * size * 0.62
}

// fitText cuts s (with an ellipsis) to what room holds at size.
func fitText(s string, room, size float64) string {
	n := int(room / (size * 0.62))
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}

// fitLabel is a row label cut to maxLabelRunes and to room.
func fitLabel(s string, room float64) string { return fitText(short(s), room, tickSize) }

// leftRoom is the room left of a plot for its value ticks' labels.
func leftRoom(labels []string) float64 {
	w := 0.0
	for _, l := range labels {
		w = math.Max(w, textWidth(l, tickSize))
	}
	return math.Max(minLeft, w+10)
}

// rowLabelRoom is the room left of horizontal bars or timeline rows for
// their labels, as wide as the widest (cut to maxLabelRunes) needs, at
// most maxHbarLabel.
func rowLabelRoom(labels []string) float64 {
	w := 0.0
	for _, l := range labels {
		w = math.Max(w, textWidth(short(l), tickSize))
	}
	return math.Min(maxHbarLabel, math.Max(minLeft, w+10))
}

// dateTimeLayout prints an instant in the reader's zone.
const dateTimeLayout = "Mon 2 Jan 2006 15:04"

// TimeTicks labels a time axis from..to in loc: hours for a day or two,
// days for up to a fortnight, Mondays beyond.
func TimeTicks(from, to time.Time, loc *time.Location) []Tick {
	from, to = from.In(loc), to.In(loc)
	span := to.Sub(from)
	var out []Tick
	add := func(t time.Time, layout string) {
		if !t.Before(from) && !t.After(to) {
			out = append(out, Tick{float64(t.Unix()), t.Format(layout)})
		}
	}
	switch {
	case span <= 2*24*time.Hour:
		step := 3
		if span <= 12*time.Hour {
			step = 1
		}
		t := time.Date(from.Year(), from.Month(), from.Day(), from.Hour(), 0, 0, 0, loc)
		for ; !t.After(to); t = t.Add(time.Hour) {
			if t.Hour()%step == 0 {
				layout := "15:04"
				if t.Hour() == 0 {
					layout = "Mon 2 Jan"
				}
				add(t, layout)
			}
		}
	case span <= 15*24*time.Hour:
		for t := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc); !t.After(to); t = t.AddDate(0, 0, 1) {
			add(t, "Mon 2 Jan")
		}
	default:
		t := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, loc)
		for t.Weekday() != time.Monday {
			t = t.AddDate(0, 0, 1)
		}
		for ; !t.After(to); t = t.AddDate(0, 0, 7) {
			add(t, "2 Jan")
		}
	}
	return out
}

// thin keeps at most n of ticks, evenly, counting from the last: the
// latest data's label stays.
func thin(ticks []Tick, n int) []Tick {
	if len(ticks) <= n {
		return ticks
	}
	step := (len(ticks) + n - 1) / n
	var out []Tick
	for i := (len(ticks) - 1) % step; i < len(ticks); i += step {
		out = append(out, ticks[i])
	}
	return out
}

// niceTicks returns round tick values covering [lo, hi], about n of them;
// whole keeps them whole numbers (counts).
func niceTicks(lo, hi float64, n int, whole bool) []float64 {
	if !finite(lo) || !finite(hi) {
		return []float64{0, 1}
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		if lo == 0 {
			hi = 1
		} else {
			lo, hi = lo-math.Abs(lo)/2, hi+math.Abs(hi)/2
		}
	}
	step := niceNum((hi-lo)/float64(max(n-1, 1)), true)
	if whole {
		step = math.Max(step, 1)
	}
	start := math.Floor(lo/step) * step
	end := math.Ceil(hi/step) * step
	var out []float64
	for v := start; v <= end+step/2; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// niceNum is the 1, 2 or 5 times a power of ten nearest x (Heckbert).
func niceNum(x float64, round bool) float64 {
	exp := math.Floor(math.Log10(x))
	f := x / math.Pow(10, exp)
	var nf float64
	switch {
	case round && f < 1.5, !round && f <= 1:
		nf = 1
	case round && f < 3, !round && f <= 2:
		nf = 2
	case round && f < 7, !round && f <= 5:
		nf = 5
	default:
		nf = 10
	}
	return nf * math.Pow(10, exp)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// orFormat is f, or num when f is nil.
func orFormat(f func(float64) string) func(float64) string {
	if f == nil {
		return num
	}
	return f
}

// num prints a number with up to two decimals.
func num(v float64) string {
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// short cuts a label drawn in a chart to maxLabelRunes.
func short(s string) string {
	r := []rune(s)
	if len(r) <= maxLabelRunes {
		return s
	}
	return string(r[:maxLabelRunes-1]) + "…"
}
