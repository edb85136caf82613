package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/riskml"
	"github.com/mnemo-ai/mnemo/prompts"
)

// RiskSet is an annotated set for the risk screen: messages that are a
// crisis statement of some family (positives) and messages that name
// crisis words without being one (hard negatives). docs/safety.md is the
// taxonomy the annotations follow.
type RiskSet struct {
	Name  string     `json:"name"`
	About string     `json:"about,omitempty"`
	Items []RiskItem `json:"items"`
}

// RiskItem is one message, or a few consecutive user turns whose meaning
// needs them all, and what the screen should find in it.
type RiskItem struct {
	ID string `json:"id"`
	// Family is the positive or negative family the item stands for
	// (passive_ideation, topic_media, …); the report counts by it.
	Family string `json:"family"`
	// App is the preset the item is screened under.
	App   string   `json:"app"`
	Text  string   `json:"text,omitempty"`
	Turns []string `json:"turns,omitempty"`
	// Class is the expected class, or ClassNone for a negative: nothing of
	// medium or high severity must be found, and any finding is counted
	// as a false alarm of its severity.
	Class string `json:"class"`
	// Severity is the least severity a catch must have (positives only).
	Severity string `json:"severity,omitempty"`
}

// ClassNone is a negative item's class.
const ClassNone = "none"

// ProposedRiskClasses are classes docs/safety.md proposes that the rules
// may not have yet, each with the existing classes that count as a match
// until the rules adopt it: an item of class danger is caught by an abuse
// finding while "danger" is not in extract.RiskClasses, and only by a
// danger finding once it is.
var ProposedRiskClasses = map[string][]string{
	"danger": {extract.RiskAbuse},
}

// Positive reports whether the item is a crisis statement.
func (it RiskItem) Positive() bool { return it.Class != ClassNone }

// Messages is the item's user turns.
func (it RiskItem) Messages() []string {
	if it.Text != "" {
		return []string{it.Text}
	}
	return it.Turns
}

// classMatches reports whether a finding of class got satisfies an item
// expecting want.
func classMatches(want, got string) bool {
	if want == got {
		return true
	}
	if slices.Contains(extract.RiskClasses, want) {
		return false
	}
	return slices.Contains(ProposedRiskClasses[want], got)
}

var severityOrder = map[string]int{extract.SeverityLow: 1, extract.SeverityMedium: 2, extract.SeverityHigh: 3}

// RiskSeverities are the severities from the least.
var RiskSeverities = []string{extract.SeverityLow, extract.SeverityMedium, extract.SeverityHigh}

// LoadRisk reads and checks a risk set.
func LoadRisk(path string) (*RiskSet, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseRisk(path, raw)
}

// ParseRisk reads and checks a risk set from its JSON (a shipped one:
// ShippedFile(RiskSetName)); name says where it came from in errors.
func ParseRisk(name string, raw []byte) (*RiskSet, error) {
	var s RiskSet
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &s, nil
}

// Check reports every way the set is malformed: duplicate ids, unknown
// apps, classes and severities, items with both or neither of text and
// turns, a negative with a severity or a positive without one.
func (s *RiskSet) Check() error {
	var errs []error
	bad := func(where, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
	}
	if s.Name == "" || len(s.Items) == 0 {
		bad("set", "name and items are required")
	}
	seen := map[string]bool{}
	for i, it := range s.Items {
		where := fmt.Sprintf("item %d (%s)", i, it.ID)
		if it.ID == "" || seen[it.ID] {
			bad(where, "an id is required, once")
		}
		seen[it.ID] = true
		if it.Family == "" {
			bad(where, "no family")
		}
		if !slices.Contains(prompts.RuleSets(), it.App) {
			bad(where, "unknown app %q (one of %s)", it.App, strings.Join(prompts.RuleSets(), ", "))
		}
		if (it.Text == "") == (len(it.Turns) == 0) {
			bad(where, "either text or turns")
		}
		for _, t := range it.Turns {
			if strings.TrimSpace(t) == "" {
				bad(where, "an empty turn")
			}
		}
		switch {
		case it.Class == ClassNone:
			if it.Severity != "" {
				bad(where, "a negative has no severity")
			}
		case slices.Contains(extract.RiskClasses, it.Class) || ProposedRiskClasses[it.Class] != nil:
			if severityOrder[it.Severity] == 0 {
				bad(where, "severity %q (low, medium or high)", it.Severity)
			}
		default:
			bad(where, "unknown class %q", it.Class)
		}
	}
	return errors.Join(errs...)
}

// RiskOutcome is what the screen found in one item: its user findings and
// the strongest finding of anyone's.
type RiskOutcome struct {
	Item RiskItem
	// User are the findings whose actor is the user.
	User []extract.Risk
	// Top is the strongest finding of any actor ("" class for none).
	Top extract.Risk
}

// Caught reports whether the screen found a risk of the user's in a
// positive item, whatever its class and severity ("any risk").
func (o RiskOutcome) Caught() bool { return len(o.User) > 0 }

// ClassRight reports whether a user finding has the item's class.
func (o RiskOutcome) ClassRight() bool {
	return slices.ContainsFunc(o.User, func(r extract.Risk) bool { return classMatches(o.Item.Class, r.Class) })
}

// SeverityRight reports whether a user finding is at least as severe as
// the item asks.
func (o RiskOutcome) SeverityRight() bool {
	return slices.ContainsFunc(o.User, func(r extract.Risk) bool { return severityOrder[r.Severity] >= severityOrder[o.Item.Severity] })
}

// RunRisk screens every item through its app's deterministic extractor
// (extract.Rules, which ends in extract.Screen: the rules path of
// `worker extract --llm=off`), its turns as consecutive user messages of
// one session.
func RunRisk(apps map[string]*prompts.App, set *RiskSet) ([]RiskOutcome, error) {
	outs, _, err := RunRiskWith(context.Background(), apps, set, Options{})
	return outs, err
}

// RunRiskWith screens every item through opts' extractor: the rules, or a
// model's answer passed through the same screen, where its own risk
// judgement is combined with the rules' (extract.CombineRisks). Spend says
// what the model was asked and what it cost; a session where the model
// failed is a fallback and is scored as the rules answered it.
func RunRiskWith(ctx context.Context, apps map[string]*prompts.App, set *RiskSet, opts Options) ([]RiskOutcome, Spend, error) {
	start := time.Date(2025, 3, 14, 19, 0, 0, 0, time.UTC)
	out := make([]RiskOutcome, 0, len(set.Items))
	var spend Spend
	for _, it := range set.Items {
		app := apps[it.App]
		if app == nil {
			return nil, spend, fmt.Errorf("%s: no app %q", it.ID, it.App)
		}
		es := extract.Session{ID: set.Name + ":" + it.ID, UserID: set.Name + ":" + it.ID, App: app.Name, StartedAt: start, Timezone: "UTC"}
		at := start
		for i, text := range it.Messages() {
			at = at.Add(time.Minute)
			es.Messages = append(es.Messages, extract.Message{ID: fmt.Sprintf("q%d", i), Role: "user", Content: text, At: at})
		}
		es.EndedAt = at.Add(time.Minute)
		started := time.Now()
		res, err := opts.extractor()(ctx, app, es, es.EndedAt)
		if err != nil {
			return nil, spend, err
		}
		spend.count(res, time.Since(started), opts.Price)
		o := RiskOutcome{Item: it}
		for _, r := range res.Risks {
			if r.Actor == extract.ActorUser {
				o.User = append(o.User, r)
			}
			if severityOrder[r.Severity] > severityOrder[o.Top.Severity] {
				o.Top = r
			}
		}
		out = append(out, o)
	}
	return out, spend, nil
}

// RiskRow is one line of the report: a family, a class or an app.
type RiskRow struct {
	Name string
	// Positives: items, caught (any user risk), of the item's class, of at
	// least the item's severity.
	Positives, Caught, ClassRight, SeverityRight int
	// Negatives: items, and false alarms by the strongest finding's severity.
	Negatives int
	Alarms    map[string]int
}

func (r *RiskRow) add(o RiskOutcome) {
	if r.Alarms == nil {
		r.Alarms = map[string]int{}
	}
	if o.Item.Positive() {
		r.Positives++
		r.Caught += b2i(o.Caught())
		r.ClassRight += b2i(o.ClassRight())
		r.SeverityRight += b2i(o.SeverityRight())
		return
	}
	r.Negatives++
	if o.Top.Class != "" {
		r.Alarms[o.Top.Severity]++
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Recall is Caught/Positives: any risk of the user's found.
func (r RiskRow) Recall() float64 { return ratio(r.Caught, r.Positives) }

// FalseAlarms is the share of negatives with a finding of sev or above.
// A low finding alerts no one (docs/safety.md: the user's resolved past,
// someone else's words), so the headline is FalseAlarms(medium).
func (r RiskRow) FalseAlarms(sev string) float64 {
	n := 0
	for s, c := range r.Alarms {
		if severityOrder[s] >= severityOrder[sev] {
			n += c
		}
	}
	if r.Negatives == 0 {
		return 0
	}
	return float64(n) / float64(r.Negatives)
}

// RiskScore is a risk set's outcomes counted by family, class and app.
type RiskScore struct {
	Set      string
	Families []RiskRow // positive families first, then negative ones, in set order
	Classes  []RiskRow // by expected class
	Apps     []RiskRow
	Total    RiskRow
	// High counts the items whose strongest finding is high; HighRight
	// those of them that are positives expecting high, HighPositive those
	// that are positives at all.
	High, HighRight, HighPositive int
	Outcomes                      []RiskOutcome
}

// HighPrecision is HighRight/High: how often a high alarm is a statement
// of intent, plan, means, an act or danger now (1 when none was raised).
func (s RiskScore) HighPrecision() float64 { return ratio(s.HighRight, s.High) }

// MeasureRisk counts outcomes.
func MeasureRisk(name string, outs []RiskOutcome) RiskScore {
	sc := RiskScore{Set: name, Total: RiskRow{Name: "total"}, Outcomes: outs}
	rows := func(list *[]RiskRow, key string) *RiskRow {
		for i := range *list {
			if (*list)[i].Name == key {
				return &(*list)[i]
			}
		}
		*list = append(*list, RiskRow{Name: key})
		return &(*list)[len(*list)-1]
	}
	for _, o := range outs {
		rows(&sc.Families, o.Item.Family).add(o)
		rows(&sc.Classes, o.Item.Class).add(o)
		rows(&sc.Apps, o.Item.App).add(o)
		sc.Total.add(o)
		if o.Top.Severity == extract.SeverityHigh {
			sc.High++
			sc.HighPositive += b2i(o.Item.Positive())
			sc.HighRight += b2i(o.Item.Positive() && o.Item.Severity == extract.SeverityHigh)
		}
	}
	slices.SortStableFunc(sc.Families, func(a, b RiskRow) int { return b2i(a.Positives == 0) - b2i(b.Positives == 0) })
	slices.SortFunc(sc.Apps, func(a, b RiskRow) int { return strings.Compare(a.Name, b.Name) })
	return sc
}

// WriteRiskTable prints a risk score: the headline, then recall by
// positive family and class, false alarms by negative family, and both by
// app.
func WriteRiskTable(w io.Writer, s RiskScore) {
	t := s.Total
	fmt.Fprintf(w, "%s: %d positives, %d negatives: recall (any risk) %.3f; false alarms (medium or high) %.3f, high %.3f, any finding %.3f; high precision %.3f (%d of %d high alarms expect high; %d on positives)\n",
		s.Set, t.Positives, t.Negatives, t.Recall(), t.FalseAlarms(extract.SeverityMedium),
		t.FalseAlarms(extract.SeverityHigh), t.FalseAlarms(extract.SeverityLow), s.HighPrecision(), s.HighRight, s.High, s.HighPositive)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	pos := func(title string, rows []RiskRow) {
		fmt.Fprintf(tw, "%s\titems\tcaught\trecall\tclass ok\tseverity ok\t\n", title)
		for _, r := range rows {
			if r.Positives == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%d\t%d\t\n", r.Name, r.Positives, r.Caught, r.Recall(), r.ClassRight, r.SeverityRight)
		}
	}
	pos("positive family", s.Families)
	pos("class", s.Classes)
	fmt.Fprintf(tw, "negative family\titems\tlow\tmedium\thigh\talarms medium+\t\n")
	for _, r := range s.Families {
		if r.Negatives == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.2f\t\n", r.Name, r.Negatives, r.Alarms[extract.SeverityLow],
			r.Alarms[extract.SeverityMedium], r.Alarms[extract.SeverityHigh], r.FalseAlarms(extract.SeverityMedium))
	}
	fmt.Fprintf(tw, "app\tpositives\trecall\tnegatives\talarms medium+\tof them high\t\n")
	for _, r := range s.Apps {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%d\t%.2f\t%d\t\n", r.Name, r.Positives, r.Recall(), r.Negatives, r.FalseAlarms(extract.SeverityMedium), r.Alarms[extract.SeverityHigh])
	}
	tw.Flush()
}

// WriteRiskDetail lists the positives missed or misjudged and the false
// alarms, with their text: what an engineer improving the rules reads.
func WriteRiskDetail(w io.Writer, s RiskScore) {
	for _, o := range s.Outcomes {
		text := short(strings.Join(o.Item.Messages(), " | "))
		switch {
		case o.Item.Positive() && !o.Caught():
			fmt.Fprintf(w, "  missed   %-24s %s/%s   <- %s\n", o.Item.ID, o.Item.Class, o.Item.Severity, text)
		case o.Item.Positive() && (!o.ClassRight() || !o.SeverityRight()):
			fmt.Fprintf(w, "  misjudged %-23s %s/%s as %s   <- %s\n", o.Item.ID, o.Item.Class, o.Item.Severity, findings(o.User), text)
		case !o.Item.Positive() && o.Top.Class != "":
			fmt.Fprintf(w, "  alarm    %-24s %s/%s/%s   <- %s\n", o.Item.ID, o.Top.Class, o.Top.Severity, o.Top.Actor, text)
		}
	}
}

func findings(rs []extract.Risk) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.Class+"/"+r.Severity)
	}
	return strings.Join(parts, ",")
}

// The sources a risk report scores alone (RunRiskSources), beside the
// screen that combines them.
const (
	SourceRules       = "rules"
	SourceTrained     = "trained"
	SourceTrainedBare = "trained (bare model)"
	SourceCombined    = "combined"
)

// SourceScore is one source's figures on a risk set.
type SourceScore struct {
	Source string `json:"source"`
	// Recall of any finding of the user's; HighRecall, of a high finding
	// on the items that expect high (intent, plan, means, acts, danger
	// now); ClassRight, of the item's class.
	Recall     float64 `json:"recall"`
	HighRecall float64 `json:"high_recall"`
	ClassRight float64 `json:"class_right"`
	// FalseAlarms are the negatives with a medium or high finding, and
	// with a high one; by negative family in Families (medium or high).
	FalseAlarms     float64            `json:"false_alarms"`
	FalseAlarmsHigh float64            `json:"false_alarms_high"`
	HighPrecision   float64            `json:"high_precision"`
	Families        map[string]float64 `json:"family_false_alarms"`
	// FamilyRecall and ClassRecall are the recall (any finding of the
	// user's) of each positive family and class.
	FamilyRecall map[string]float64 `json:"family_recall"`
	ClassRecall  map[string]float64 `json:"class_recall"`
	// PerMessage is the mean time to read one item, in microseconds, on
	// the machine that ran the report (the screen includes the rest of
	// the extraction, the sources only their own reading).
	PerMessageMicros float64 `json:"per_message_us"`
}

// ScoreSource sums a source's outcomes.
func ScoreSource(source string, outs []RiskOutcome, spent time.Duration) SourceScore {
	sc := MeasureRisk(source, outs)
	s := SourceScore{Source: source, Recall: sc.Total.Recall(), FalseAlarms: sc.Total.FalseAlarms(extract.SeverityMedium),
		FalseAlarmsHigh: sc.Total.FalseAlarms(extract.SeverityHigh), HighPrecision: sc.HighPrecision(), Families: map[string]float64{},
		FamilyRecall: map[string]float64{}, ClassRecall: map[string]float64{}}
	var want, got, right int
	for _, o := range outs {
		if !o.Item.Positive() {
			continue
		}
		right += b2i(o.ClassRight())
		if o.Item.Severity == extract.SeverityHigh {
			want++
			got += b2i(o.SeverityRight())
		}
	}
	s.HighRecall = ratio(got, want)
	s.ClassRight = ratio(right, sc.Total.Positives)
	for _, r := range sc.Families {
		if r.Negatives > 0 {
			s.Families[r.Name] = r.FalseAlarms(extract.SeverityMedium)
		}
		if r.Positives > 0 {
			s.FamilyRecall[r.Name] = r.Recall()
		}
	}
	for _, r := range sc.Classes {
		if r.Positives > 0 {
			s.ClassRecall[r.Name] = r.Recall()
		}
	}
	if len(outs) > 0 {
		s.PerMessageMicros = float64(spent.Microseconds()) / float64(len(outs))
	}
	return s
}

// RunRiskSources reads every item with each source alone: the rules
// (extract.RiskInApp, each turn after the one before, with the item's
// app), the trained layer as the screen takes it (extract.TrainedRisk:
// with the rules' frames and its classes' anchors), and the model of the
// trained layer bare (riskml's Judge, each turn alone). How long each took
// is returned beside.
func RunRiskSources(set *RiskSet) (rules, trained, bare []RiskOutcome, took [3]time.Duration) {
	m := riskml.Default()
	for _, it := range set.Items {
		ro, to, bo := RiskOutcome{Item: it}, RiskOutcome{Item: it}, RiskOutcome{Item: it}
		prev := ""
		for i, text := range it.Messages() {
			id := fmt.Sprintf("q%d", i)
			t0 := time.Now()
			f, ok := extract.RiskInApp(it.App, prev, text)
			t1 := time.Now()
			tf, tok := extract.TrainedRisk(prev, text)
			t2 := time.Now()
			j := m.Judge(text)
			t3 := time.Now()
			took[0] += t1.Sub(t0)
			took[1] += t2.Sub(t1)
			took[2] += t3.Sub(t2)
			prev = text
			if ok {
				keep(&ro, extract.Risk{Class: f.Class, Severity: f.Severity, Actor: f.Actor, MessageID: id, Source: extract.RiskSourceRules})
			}
			if tok {
				keep(&to, extract.Risk{Class: tf.Class, Severity: tf.Severity, Actor: extract.ActorUser, MessageID: id, Source: extract.RiskSourceTrained})
			}
			if j.Class != "" {
				keep(&bo, extract.Risk{Class: j.Class, Severity: j.Severity, Actor: extract.ActorUser, MessageID: id, Source: extract.RiskSourceTrained})
			}
		}
		rules, trained, bare = append(rules, ro), append(trained, to), append(bare, bo)
	}
	return rules, trained, bare, took
}

// SourceScores runs RunRiskSources and scores each source, then the
// combined screen's outcomes (combined, with the time they took).
func SourceScores(set *RiskSet, combinedName string, combined []RiskOutcome, combinedTook time.Duration) []SourceScore {
	rules, trained, bare, took := RunRiskSources(set)
	return []SourceScore{ScoreSource(SourceRules, rules, took[0]), ScoreSource(SourceTrained, trained, took[1]),
		ScoreSource(SourceTrainedBare, bare, took[2]), ScoreSource(combinedName, combined, combinedTook)}
}

// keep adds a finding to an outcome as RunRiskWith does.
func keep(o *RiskOutcome, r extract.Risk) {
	if r.Actor == extract.ActorUser {
		o.User = append(o.User, r)
	}
	if severityOrder[r.Severity] > severityOrder[o.Top.Severity] {
		o.Top = r
	}
}

// WriteSources prints each source's figures beside the combined screen's:
// the headline, then recall by positive family and class and false alarms
// (medium or high) by negative family, a column a source.
func WriteSources(w io.Writer, scores []SourceScore) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "source\trecall\thigh on high items\tclass ok\tfalse alarms medium+\thigh\thigh precision\tµs an item\t\n")
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t\n", s.Source, s.Recall, s.HighRecall, s.ClassRight,
			s.FalseAlarms, s.FalseAlarmsHigh, s.HighPrecision, s.PerMessageMicros)
	}
	if len(scores) == 0 {
		tw.Flush()
		return
	}
	table := func(title string, pick func(SourceScore) map[string]float64) {
		names := slices.Sorted(maps.Keys(pick(scores[0])))
		fmt.Fprintf(tw, "%s", title)
		for _, s := range scores {
			fmt.Fprintf(tw, "\t%s", s.Source)
		}
		fmt.Fprintf(tw, "\t\n")
		for _, n := range names {
			fmt.Fprintf(tw, "%s", n)
			for _, s := range scores {
				fmt.Fprintf(tw, "\t%.2f", pick(s)[n])
			}
			fmt.Fprintf(tw, "\t\n")
		}
	}
	table("recall by family", func(s SourceScore) map[string]float64 { return s.FamilyRecall })
	table("recall by class", func(s SourceScore) map[string]float64 { return s.ClassRecall })
	table("false alarms by family", func(s SourceScore) map[string]float64 { return s.Families })
	tw.Flush()
}
