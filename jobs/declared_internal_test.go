package jobs

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/schedule"
)

// TestRunDeclaredRunsEachKindOverItsApps: a batch declared by several
// kinds runs once per kind that has configured apps, over those apps
// only, and adds up their rows; an engine batch runs once over every app.
func TestRunDeclaredRunsEachKindOverItsApps(t *testing.T) {
	app := func(name, rules string) *prompts.App {
		a := &prompts.App{Name: name}
		a.Policy.Rules = rules
		return a
	}
	d := &Deps{Apps: map[string]*prompts.App{"c2": app("c2", "clara"), "c1": app("c1", "clara"), "e1": app("e1", "eldertree")}}
	var ran []string
	run := func(who string) func(context.Context, batch.Env, schedule.Period, time.Time) (int64, error) {
		return func(_ context.Context, env batch.Env, _ schedule.Period, _ time.Time) (int64, error) {
			ran = append(ran, who+":"+strings.Join(env.Apps, ","))
			return int64(len(env.Apps)), nil
		}
	}
	decl := batch.Declaration{Batch: batch.Batch{Name: "shared"},
		Kinds: []batch.KindRun{{Kind: "clara", Run: run("clara")}, {Kind: "coach", Run: run("coach")}, {Kind: "eldertree", Run: run("eldertree")}}}
	rows, err := d.runDeclared(context.Background(), decl, schedule.Period{}, time.Now(), nil, nil)
	if err != nil || rows != 3 || strings.Join(ran, " ") != "clara:c1,c2 eldertree:e1" {
		t.Fatalf("rows %d, %v, ran %v; want clara over c1,c2 and eldertree over e1, coach (no app) not run", rows, err, ran)
	}
	ran = nil
	engine := batch.Declaration{Batch: batch.Batch{Name: "engine", Run: run("engine")}}
	if rows, err := d.runDeclared(context.Background(), engine, schedule.Period{}, time.Now(), nil, nil); err != nil || rows != 3 || strings.Join(ran, " ") != "engine:c1,c2,e1" {
		t.Fatalf("rows %d, %v, ran %v; want the engine batch once over every app", rows, err, ran)
	}
}
