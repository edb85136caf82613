package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/mattn/go-isatty"

	"github.com/mnemo-ai/mnemo/jobs"
)

type resummarizeFlags struct{ app, version string }

func registerResummarizeFlags(fs *flag.FlagSet) {
	f := &resummarizeFlags{}
	fs.StringVar(&f.app, "app", "", "the app whose stored transcripts to summarise again (required)")
	fs.StringVar(&f.version, "prompt-version", "", "the prompt version to summarise under; must be the app's current one (required)")
	cmdFlags.Store(fs, f)
}

// resummarize enqueues one job per stored transcript of an app, unique per
// session and prompt version, with progress on a terminal.
func resummarize(ctx context.Context, e *env) error {
	f := flagsOf[resummarizeFlags](e.flags)
	if f.app == "" || f.version == "" {
		return usageError{errors.New("--app and --prompt-version are required")}
	}
	sys, err := build(ctx, e.cfg, e.log, false)
	if err != nil {
		return err
	}
	defer sys.store.Close()
	app := sys.deps.Apps[f.app]
	if app == nil {
		return usageError{fmt.Errorf("unknown app %q", f.app)}
	}
	if app.PromptVersion != f.version {
		return usageError{fmt.Errorf("app %s is at prompt version %s, not %s", f.app, app.PromptVersion, f.version)}
	}
	tty := false
	if out, ok := e.stdout.(*os.File); ok {
		tty = isatty.IsTerminal(out.Fd())
	}
	after, queued, dup := "", 0, 0
	for {
		ids, err := sys.store.SessionsWithTranscripts(ctx, f.app, after, 500)
		if err != nil {
			return err
		}
		for _, id := range ids {
			ins, err := sys.queue.Insert(ctx, jobs.ResummarizeArgs{SessionID: id, PromptVersion: f.version}, nil)
			if err != nil {
				return err
			}
			if ins.Duplicate {
				dup++
			} else {
				queued++
			}
			after = id
			if tty {
				fmt.Fprintf(e.stdout, "\rresummarize %s: %d enqueued, %d already queued", f.app, queued, dup)
			}
		}
		if len(ids) < 500 {
			break
		}
	}
	if tty {
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintf(e.stdout, "resummarize %s@%s: %d jobs enqueued, %d were already queued\n", f.app, f.version, queued, dup)
	return nil
}

// keysCmd runs `keys rewrap`: every stored transcript not under the newest
// key is sealed again under it.
func keysCmd(ctx context.Context, e *env) error {
	if len(e.args) != 1 || e.args[0] != "rewrap" {
		return usageError{errors.New("want: keys rewrap")}
	}
	sys, err := build(ctx, e.cfg, e.log, false)
	if err != nil {
		return err
	}
	defer sys.store.Close()
	n, err := jobs.Rewrap(ctx, sys.deps)
	fmt.Fprintf(e.stdout, "rewrapped %d transcripts under key %s\n", n, sys.deps.Keys.PrimaryID())
	return err
}
