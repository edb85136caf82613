// Command worker runs Mnemo: the HTTP API through which chat services hand
// sessions over, the River worker that turns them into memory, and the
// operator's commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/mattn/go-isatty"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// env is what a command runs with: its configuration, its arguments and its streams.
type env struct {
	cfg    Config
	args   []string
	flags  *flag.FlagSet
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
	// ready, when set, receives the HTTP address once serve listens (tests use it).
	ready func(addr string)
}

// command is one CLI command.
type command struct {
	summary string
	// flags registers the command's own flags.
	flags func(fs *flag.FlagSet)
	run   func(ctx context.Context, e *env) error
}

func commands() map[string]command {
	return map[string]command{
		"serve":       {summary: "run the HTTP API and the job worker", run: serve},
		"migrate":     {summary: "migrate up | down N | status", run: migrate},
		"batch":       {summary: "batch list | batch run NAME [--period P] [--now RFC3339]", flags: registerBatchFlags, run: batchCmd},
		"resummarize": {summary: "summarise an app's stored transcripts again under its current prompt version", flags: registerResummarizeFlags, run: resummarize},
		"keys":        {summary: "keys rewrap: seal stored transcripts again under the newest key", run: keysCmd},
		"demo":        {summary: "hand sample sessions of every preset to an embedded worker and print what was remembered", flags: registerDemoFlags, run: demo},
		"extract":     {summary: "run extraction offline on a session-close body and print the result", flags: registerExtractFlags, run: extractCmd},
		"eval":        {summary: "score the shipped evaluation sets against the configured extractor (rules or LLM)", flags: registerEvalFlags, run: evalCmd},
		"jobs":        {summary: "jobs list [--state S] [--kind K] [--queue Q] [--limit N] [--json] | jobs retry ID… | jobs retry --state discarded [--kind K] [--since DUR] | jobs cancel ID…", flags: registerJobsFlags, run: jobsCmd},
		"gen":         {summary: "gen --app A --users N --sessions M --memories K: fill the database with synthetic users of an app (benchmarks)", flags: registerGenFlags, run: genCmd},
		"queues":      {summary: "queues list [--json] | queues pause NAME | queues resume NAME", flags: registerQueuesFlags, run: queuesCmd},
	}
}

// cmdFlags maps a command's flag set to its options (commands run in
// parallel in tests, hence the sync.Map).
var cmdFlags sync.Map

// flagsOf returns the options a command registered on fs.
func flagsOf[T any](fs *flag.FlagSet) *T {
	v, _ := cmdFlags.Load(fs)
	return v.(*T)
}

// exitUsage is returned for bad configuration or arguments.
const exitUsage = 2

// usageError marks an error caused by the command line or configuration.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// run is the whole program; tests call it with their own arguments,
// environment and streams.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(ctx, args, getenv, stdin, stdout, stderr, nil)
}

func runWith(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer, ready func(string)) int {
	global := flag.NewFlagSet("worker", flag.ContinueOnError)
	global.SetOutput(stderr)
	get := registerSettings(global, envDefault(getenv))
	global.Usage = func() { usage(stdout, global) }
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	rest := global.Args()
	name := "serve"
	if len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	if name == "help" {
		usage(stdout, global)
		return 0
	}
	cmd, ok := commands()[name]
	if !ok {
		fmt.Fprintf(stderr, "worker: unknown command %q (run worker --help)\n", name)
		return exitUsage
	}
	// The command's flag set knows every setting too, so that flags may come
	// before or after the command name.
	fs := flag.NewFlagSet("worker "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	get = registerSettings(fs, func(s setting) string { return get(s.flag) })
	if cmd.flags != nil {
		cmd.flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(stdout, "worker %s: %s\n\n", name, cmd.summary)
		fs.VisitAll(func(f *flag.Flag) {
			for _, s := range settings {
				if s.flag == f.Name {
					return
				}
			}
			fmt.Fprintf(stdout, "  --%s\t%s\n", f.Name, f.Usage)
		})
		fmt.Fprintln(stdout, "\nEvery setting of `worker --help` is accepted too.")
	}
	positional, err := parseInterspersed(fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	cfg, err := buildConfig(get)
	if err != nil {
		fmt.Fprintf(stderr, "worker: configuration: %v\n", err)
		return exitUsage
	}
	e := &env{cfg: cfg, args: positional, flags: fs, stdin: stdin, stdout: stdout, stderr: stderr,
		log: newLogger(cfg, stderr), ready: ready}
	if err := cmd.run(ctx, e); err != nil {
		fmt.Fprintf(stderr, "worker %s: %v\n", name, err)
		var ue usageError
		if errors.As(err, &ue) {
			return exitUsage
		}
		return 1
	}
	return 0
}

// parseInterspersed parses flags placed before, between or after a
// command's positional arguments (`batch run NAME --now T`).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// newLogger builds the structured logger: JSON unless stderr is a terminal.
func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(strings.ToUpper(cfg.LogLevel)))
	opts := &slog.HandlerOptions{Level: level}
	format := cfg.LogFormat
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
