package batch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/schedule"
)

// declaring is a kind that declares the batches it holds.
type declaring struct {
	extract.BaseKind
	name    string
	batches []Batch
}

func (k declaring) Name() string                                                    { return k.name }
func (k declaring) Batches() []Batch                                                { return k.batches }
func (declaring) Rules(*extract.Result, prompts.Policy, extract.Session, time.Time) {}

// own is a batch of a kind's own, whose Run reports who ran it.
func own(name, spec string, ran *[]string, who string) Batch {
	return Batch{Name: name, Spec: spec, Run: func(context.Context, Env, schedule.Period, time.Time) (int64, error) {
		*ran = append(*ran, who)
		return 1, nil
	}}
}

func TestCollectMergesByNameInAStableOrder(t *testing.T) {
	var ran []string
	a := declaring{name: "a", batches: []Batch{own("zeta", "0 1 * * *; latest", &ran, "a"), Trends()}}
	b := declaring{name: "b", batches: []Batch{own("alpha", "0 2 * * *; latest", &ran, "b"), Insights(), Trends(), WeeklyAnalytics()}}
	plain := declaring{name: "c"} // declares none
	r, err := collect([]extract.Kind{a, b, plain}, []Batch{own("engine-2", "5 * * * *; latest", &ran, "engine"), own("engine-1", "6 * * * *; latest", &ran, "engine")})
	if err != nil {
		t.Fatal(err)
	}
	want := "weekly-analytics trends insights alpha zeta engine-2 engine-1"
	if got := strings.Join(r.Names(), " "); got != want {
		t.Fatalf("names %q; want %q (ready-made, the kinds' own by name, the engine's as given)", got, want)
	}
	trends, ok := r.Get(aggregate.BatchTrends)
	if !ok || len(trends.Kinds) != 2 || trends.Kinds[0].Kind != "a" || trends.Kinds[1].Kind != "b" || trends.Engine() {
		t.Fatalf("trends declared by %+v; want one batch for kinds a and b", trends.Kinds)
	}
	if e, _ := r.Get("engine-1"); !e.Engine() {
		t.Fatal("engine-1 is not the engine's")
	}
	if got := r.FedBy(aggregate.BatchInsights); len(got) != 1 || got[0] != aggregate.BatchWeeklyAnalytics {
		t.Fatalf("insights fed by %v; want weekly analytics", got)
	}
	if !Declares(b, aggregate.BatchInsights) || Declares(a, aggregate.BatchInsights) || Declares(plain, "zeta") {
		t.Fatal("Declares does not follow the kinds' declarations")
	}
	if _, ok := r.Get("nothing"); ok {
		t.Fatal("an undeclared batch was found")
	}
}

func TestCollectRefusesWhatDoesNotAgree(t *testing.T) {
	var ran []string
	latest := Trends()
	latest.LatestOnly = false
	for _, c := range []struct {
		name   string
		kinds  []extract.Kind
		engine []Batch
		want   string
	}{
		{"two schedules", []extract.Kind{declaring{name: "a", batches: []Batch{own("x", "0 1 * * *; latest", &ran, "a")}},
			declaring{name: "b", batches: []Batch{own("x", "0 2 * * *; latest", &ran, "b")}}}, nil,
			`batch x: kinds a and b declare different schedules ("0 1 * * *; latest", "0 2 * * *; latest")`},
		{"latest only", []extract.Kind{declaring{name: "a", batches: []Batch{Trends()}}, declaring{name: "b", batches: []Batch{latest}}}, nil,
			"batch trends: kinds a and b disagree on LatestOnly"},
		{"feeds nothing declared", []extract.Kind{declaring{name: "a", batches: []Batch{WeeklyAnalytics()}}}, nil,
			`batch weekly-analytics feeds "insights", which no kind or the engine declares`},
		{"engine and kind", []extract.Kind{declaring{name: "a", batches: []Batch{own("x", "0 1 * * *; latest", &ran, "a")}}},
			[]Batch{own("x", "0 1 * * *; latest", &ran, "engine")}, "batch x: declared by the engine and by kind a"},
		{"no run", []extract.Kind{declaring{name: "a", batches: []Batch{{Name: "x", Spec: "0 1 * * *; latest"}}}}, nil,
			"kind a: batch x: nothing to run (Run)"},
		{"no spec", nil, []Batch{{Name: "x", Run: own("x", "", &ran, "").Run}}, "engine: batch x: no default schedule (Spec)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := collect(c.kinds, c.engine)
			if err == nil || err.Error() != c.want {
				t.Fatalf("err %v; want %q", err, c.want)
			}
		})
	}
	if len(ran) != 0 {
		t.Fatalf("collecting ran %v", ran)
	}
}

func TestDecaysAreOneBatchPerName(t *testing.T) {
	rule := func(name, record string) decay.Rule {
		return decay.Rule{Batch: name, Record: record, Apply: func(r extract.Record, _ time.Time, _ decay.Policy) (extract.Record, bool, bool) {
			return r, false, false
		}}
	}
	got := Decays([]decay.Rule{rule(decay.BatchMastery, "m"), rule(decay.BatchEmotional, "e1"), rule(decay.BatchMastery, "m2"), rule("custom-decay", "c")})
	var names, specs []string
	for _, b := range got {
		names, specs = append(names, b.Name), append(specs, b.Spec)
		if b.Run == nil || b.ReadsSessions() || b.LatestOnly || len(b.Feeds) != 0 {
			t.Fatalf("%s: %+v; want a run over records only", b.Name, b)
		}
	}
	if strings.Join(names, ",") != "mastery-decay,emotional-decay,custom-decay" ||
		strings.Join(specs, ",") != "30 4 * * *; latest,0 4 * * 1; latest,45 4 * * *; latest" {
		t.Fatalf("batches %v with specs %v", names, specs)
	}
	for _, b := range append(got, WeeklyAnalytics(), Trends(), Insights()) {
		if _, err := schedule.ParseLine(b.Name, b.Spec); err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
	}
}
