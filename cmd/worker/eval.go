package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// evalFlags are the flags of `worker eval`.
type evalFlags struct {
	llm     string
	sets    string
	corpora string
	chats   int
	sample  string
	json    bool
}

func registerEvalFlags(fs *flag.FlagSet) {
	f := &evalFlags{}
	fs.StringVar(&f.llm, "llm", "auto", "auto uses the configured LLM (MNEMO_LLM_MODEL, OPENAI_BASE_URL …); off scores the rules")
	fs.StringVar(&f.sets, "sets", "", "comma-separated sets to run (default: all shipped: "+strings.Join(knownEvalSets(), ", ")+")")
	fs.StringVar(&f.corpora, "corpora", "", "directory of the shared corpora (memorybank/, synthetic-persona-chat/); sets that need a missing corpus are skipped")
	fs.IntVar(&f.chats, "persona-chats", 0, "score only the first N persona-chat conversations (0: all 1,000; each is two extractions)")
	fs.StringVar(&f.sample, "sample", "", "write a seeded sample of 200 persona-chat memories (JSON) to FILE, to hand-check precision")
	fs.BoolVar(&f.json, "json", false, "print JSON")
	cmdFlags.Store(fs, f)
}

// personaSet names the Synthetic-Persona-Chat set.
const personaSet = "persona-chat"

// knownEvalSets are the sets --sets may name: the shipped memory sets, the
// persona chats and the risk sets.
func knownEvalSets() []string {
	return append(append(eval.ShippedSets(), personaSet), eval.RiskSets...)
}

// evalRisk is the risk set's JSON: the headline figures and the rows by
// family, expected class and app (not the items, which the table's detail
// flag of the eval package lists).
type evalRisk struct {
	Set               string         `json:"set"`
	Source            string         `json:"source"`
	Recall            float64        `json:"recall"`
	FalseAlarmsMedium float64        `json:"false_alarms_medium_or_high"`
	FalseAlarmsHigh   float64        `json:"false_alarms_high"`
	HighPrecision     float64        `json:"high_precision"`
	Families          []eval.RiskRow `json:"families"`
	Classes           []eval.RiskRow `json:"classes"`
	Apps              []eval.RiskRow `json:"apps"`
	// Sources are the figures of each source alone (the rules, the
	// trained layer) and of the screen that combines them with the
	// configured extractor (docs/safety.md, "Sources and the policy").
	Sources []eval.SourceScore `json:"sources"`
	Spend   eval.Spend         `json:"spend"`
}

// scoreRiskSet screens a shipped risk set (name, one of eval.RiskSets;
// docs/safety.md) with the configured extractor. With the rules it scores
// the rules' screen; with a model, each item is one model call whose own
// risk judgement is combined with the rules' as the extraction job combines
// them (extract.CombineRisks: the model can raise a finding, and lower one
// only with a frame code). Sessions where the model failed fell back to the
// rules and are counted in the spend. The held-out set is reported as "risk
// (held out)".
func scoreRiskSet(ctx context.Context, apps map[string]*prompts.App, name, source string, opts eval.Options) (string, evalRisk, error) {
	raw, _ := eval.ShippedFile(name)
	set, err := eval.ParseRisk(name, raw)
	if err != nil {
		return "", evalRisk{}, err
	}
	outs, spend, err := eval.RunRiskWith(ctx, apps, set, opts)
	if err != nil {
		return "", evalRisk{}, err
	}
	sc := eval.MeasureRisk(eval.RiskTitle(name), outs)
	var b strings.Builder
	eval.WriteRiskTable(&b, sc)
	sources := eval.SourceScores(set, eval.SourceCombined+" ("+source+")", outs, spend.Elapsed())
	b.WriteString("each source alone, and the screen that combines them:\n")
	if name == eval.RiskSetName {
		b.WriteString("(the trained layer learns from this set: its figures here are not evidence; the held-out sets are)\n")
	}
	eval.WriteSources(&b, sources)
	writeSpend(&b, spend)
	t := sc.Total
	return b.String(), evalRisk{Set: sc.Set, Source: source, Recall: t.Recall(),
		FalseAlarmsMedium: t.FalseAlarms(extract.SeverityMedium), FalseAlarmsHigh: t.FalseAlarms(extract.SeverityHigh),
		HighPrecision: sc.HighPrecision(), Families: sc.Families, Classes: sc.Classes, Apps: sc.Apps, Sources: sources, Spend: spend}, nil
}

// evalExtractor names who answered.
type evalExtractor struct {
	Source       string `json:"source"` // rules or llm
	Model        string `json:"model,omitempty"`
	RulesVersion string `json:"rules_version"`
}

// evalRow is one category's figures of a memory set.
type evalRow struct {
	Category  string   `json:"category"`
	Gold      int      `json:"gold"`
	Recalled  int      `json:"recalled"`
	Recall    *float64 `json:"recall"` // null when nothing was expected
	Stored    int      `json:"stored"`
	Correct   int      `json:"correct"`
	Precision *float64 `json:"precision"` // null when nothing was stored
	Forbidden int      `json:"forbidden"`
}

// evalSet is one memory set's figures.
type evalSet struct {
	Name       string     `json:"name"`
	App        string     `json:"app"`
	Turns      int        `json:"turns"`
	Candidates int        `json:"candidates"`
	Precision  float64    `json:"precision"`
	Recall     float64    `json:"recall"`
	Forbidden  int        `json:"forbidden"`
	Categories []evalRow  `json:"categories"`
	Total      evalRow    `json:"total"`
	Spend      eval.Spend `json:"spend"`
}

// evalPersona is the persona-chat set's figures.
type evalPersona struct {
	eval.PersonaScore
	Recall       float64 `json:"recall"`
	MatchedShare float64 `json:"persona_matched"`
	WrongShare   float64 `json:"wrong_speaker_share"`
}

// evalSkip is a set that was not run, and why.
type evalSkip struct {
	Set    string `json:"set"`
	Reason string `json:"reason"`
}

// evalOutput is what `worker eval --json` prints.
type evalOutput struct {
	Extractor evalExtractor `json:"extractor"`
	Sets      []evalSet     `json:"sets"`
	Persona   *evalPersona  `json:"persona_chat,omitempty"`
	Risk      *evalRisk     `json:"risk,omitempty"`
	// RiskHoldout is the held-out risk set's figures (eval.RiskHoldoutSetName).
	RiskHoldout *evalRisk `json:"risk_holdout,omitempty"`
	// RiskHoldout31 is the held-out risk set of issue 31
	// (eval.RiskHoldout31SetName), written apart from the rules and the
	// trained layer.
	RiskHoldout31 *evalRisk `json:"risk_holdout31,omitempty"`
	// RiskHoldoutW4 is the held-out set of new wording
	// (eval.RiskHoldoutW4SetName).
	RiskHoldoutW4 *evalRisk  `json:"risk_holdout_w4,omitempty"`
	Skipped       []evalSkip `json:"skipped"`
	Spend         eval.Spend `json:"spend"` // every set's together
}

// evalCmd runs the shipped evaluation sets through the configured extractor
// and prints precision, recall and forbidden per set and category, and what
// the run cost: how an operator qualifies a model before switching to it.
func evalCmd(ctx context.Context, e *env) error {
	f := flagsOf[evalFlags](e.flags)
	if f.llm != "auto" && f.llm != "off" {
		return usageError{fmt.Errorf("--llm must be auto or off, not %q", f.llm)}
	}
	if f.chats < 0 {
		return usageError{fmt.Errorf("--persona-chats must be 0 or more, not %d", f.chats)}
	}
	known := knownEvalSets()
	want := known
	if f.sets != "" {
		want = nil
		for s := range strings.SplitSeq(f.sets, ",") {
			s = strings.TrimSpace(s)
			if !slices.Contains(known, s) {
				return usageError{fmt.Errorf("--sets: unknown set %q (known: %s)", s, strings.Join(known, ", "))}
			}
			want = append(want, s)
		}
	}
	apps, err := prompts.Load(e.cfg.AppsDir)
	if err != nil {
		return usageError{fmt.Errorf("MNEMO_APPS_DIR: %w", err)}
	}
	out := evalOutput{Extractor: evalExtractor{Source: extract.SourceRules, RulesVersion: extract.RulesVersion}, Sets: []evalSet{}, Skipped: []evalSkip{}}
	opts := eval.Options{}
	if f.llm == "auto" && e.cfg.LLMModel != "" {
		llm, err := newLLM(e.cfg, e.log)
		if err != nil {
			return usageError{err}
		}
		out.Extractor.Source, out.Extractor.Model = extract.SourceLLM, llm.Model()
		opts = eval.Options{Extract: llmExtractor(llm), Price: llm.Cost}
	}
	var text strings.Builder
	fmt.Fprintf(&text, "extractor: %s", out.Extractor.Source)
	if out.Extractor.Model != "" {
		fmt.Fprintf(&text, " (model %s)", out.Extractor.Model)
	}
	fmt.Fprintf(&text, ", rules %s\n", out.Extractor.RulesVersion)
	skip := func(set, reason string) {
		out.Skipped = append(out.Skipped, evalSkip{set, reason})
		fmt.Fprintf(&text, "\n%s: skipped: %s\n", set, reason)
	}
	corpus := func(rel string) (string, bool) {
		if f.corpora == "" {
			return "", false
		}
		_, err := os.Stat(filepath.Join(f.corpora, filepath.FromSlash(rel)))
		return f.corpora, err == nil
	}
	for _, name := range want {
		switch name {
		case personaSet:
			dir, ok := corpus(eval.PersonaCorpus)
			if !ok {
				skip(name, "the corpus "+eval.PersonaCorpus+" is not under --corpora")
				continue
			}
			chats, err := eval.LoadPersonaChats(filepath.Join(dir, filepath.FromSlash(eval.PersonaCorpus)))
			if err != nil {
				return err
			}
			if f.chats > 0 && f.chats < len(chats) {
				chats = chats[:f.chats]
			}
			app, err := evalApp(apps, prompts.DefaultRuleSet()) // the general companion's preset
			if err != nil {
				return err
			}
			sc, err := eval.RunPersona(ctx, app, chats, opts)
			if err != nil {
				return err
			}
			if f.sample != "" {
				if err := writeSample(f.sample, sc); err != nil {
					return err
				}
			}
			out.Persona = &evalPersona{PersonaScore: sc, Recall: sc.Recall(), MatchedShare: sc.MatchedShare(), WrongShare: sc.WrongShare()}
			out.Spend.Add(sc.Spend)
			text.WriteString("\n")
			eval.WritePersonaTable(&text, sc)
			writeSpend(&text, sc.Spend)
		case eval.RiskSetName, eval.RiskHoldoutSetName, eval.RiskHoldout31SetName, eval.RiskHoldoutW4SetName:
			if _, ok := eval.ShippedFile(name); !ok {
				skip(name, "this binary has no such risk set")
				continue
			}
			table, report, err := scoreRiskSet(ctx, apps, name, out.Extractor.Source, opts)
			if err != nil {
				return err
			}
			out.Spend.Add(report.Spend)
			switch name {
			case eval.RiskHoldoutSetName:
				out.RiskHoldout = &report
			case eval.RiskHoldout31SetName:
				out.RiskHoldout31 = &report
			case eval.RiskHoldoutW4SetName:
				out.RiskHoldoutW4 = &report
			default:
				out.Risk = &report
			}
			text.WriteString("\n" + table)
		default:
			set, err := eval.LoadShipped(name)
			if err != nil {
				return err
			}
			if set.Corpus != "" {
				dir, ok := corpus(set.Corpus)
				if !ok {
					skip(name, "the corpus "+set.Corpus+" is not under --corpora")
					continue
				}
				if err := set.Resolve(dir); err != nil {
					return err
				}
			}
			app, err := evalApp(apps, set.App)
			if err != nil {
				return err
			}
			o, err := eval.RunWith(ctx, app, set, opts)
			if err != nil {
				return err
			}
			sc := o.Measure()
			out.Sets = append(out.Sets, setOutput(sc, o.Spend))
			out.Spend.Add(o.Spend)
			text.WriteString("\n")
			eval.WriteTable(&text, sc)
			writeSpend(&text, o.Spend)
		}
	}
	if f.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	text.WriteString("\nall sets: ")
	writeSpend(&text, out.Spend)
	_, err = io.WriteString(e.stdout, text.String())
	return err
}

func evalApp(apps map[string]*prompts.App, name string) (*prompts.App, error) {
	app := apps[name]
	if app == nil {
		return nil, usageError{fmt.Errorf("the set needs app %q, which MNEMO_APPS_DIR does not define", name)}
	}
	return app, nil
}

// llmExtractor answers as the extraction job does: the rules, then the
// model's answer completed by them; the rules stand in when the model fails
// (a fallback, counted in the spend).
func llmExtractor(llm *llmextract.Extractor) eval.Extractor {
	return func(ctx context.Context, app *prompts.App, s extract.Session, now time.Time) (extract.Result, error) {
		res, err := llm.Run(ctx, app, s, extract.Rules(app, s, now))
		switch {
		case err == nil:
			return res, nil
		case ctx.Err() != nil:
			return res, ctx.Err()
		case errors.Is(err, context.Canceled):
			return res, err
		}
		return res, nil // the rules' result, as a fallback
	}
}

func setOutput(sc eval.Score, spend eval.Spend) evalSet {
	row := func(r eval.Row) evalRow {
		o := evalRow{Category: r.Category, Gold: r.Gold, Recalled: r.Recalled, Stored: r.Stored, Correct: r.Correct, Forbidden: r.Forbidden}
		if r.Gold > 0 {
			v := r.Recall()
			o.Recall = &v
		}
		if r.Stored > 0 {
			v := r.Precision()
			o.Precision = &v
		}
		return o
	}
	s := evalSet{Name: sc.Set, App: sc.App, Turns: sc.Turns, Candidates: sc.Candidates,
		Precision: sc.Total.Precision(), Recall: sc.Total.Recall(), Forbidden: sc.Total.Forbidden,
		Categories: []evalRow{}, Total: row(sc.Total), Spend: spend}
	for _, r := range sc.Rows {
		s.Categories = append(s.Categories, row(r))
	}
	return s
}

func writeSpend(w io.Writer, s eval.Spend) {
	fmt.Fprintf(w, "spend: %d sessions (%d by the model, %d fell back to the rules), %d calls, %d input and %d output tokens, $%.4f; latency per session mean %.1f ms, p95 %.1f ms, max %.1f ms\n",
		s.Sessions, s.LLM, s.Fallbacks, s.Calls, s.InputTokens, s.OutputTokens, s.CostUSD, s.MeanMS, s.P95MS, s.MaxMS)
}

func writeSample(path string, sc eval.PersonaScore) error {
	file, err := os.Create(path)
	if err != nil {
		return usageError{fmt.Errorf("--sample: %w", err)}
	}
	if err := sc.WriteSample(file, eval.PersonaSampleSize); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}
