package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/internal/golden"
)

// The README and docs/*.md are tested as a newcomer reads them: the
// configuration reference is generated from the settings table, every
// `bin/worker` command they show is checked against the binary's commands
// and flags, every MNEMO_* variable they name exists, and the README's
// walkthrough runs end to end, commands as written.

// docFiles returns README.md and docs/*.md by their path from the
// repository root, with their text.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, "../../README.md")
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(p, "../../")] = string(b)
	}
	return files
}

// helpSetting is one setting as `worker --help` prints it.
type helpSetting struct{ flag, def string }

// helpLine is a setting's line in --help: "  --flag / ENV (default X)".
var helpLine = regexp.MustCompile(`(?m)^  --([a-z0-9-]+) / ([A-Z0-9_]+) \(default (.*)\)$`)

// helpText is what `worker --help` prints.
func helpText(t *testing.T) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, mapEnv(nil), strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("--help exit %d: %s", code, errOut.String())
	}
	return out.String()
}

// TestConfigurationReference: the settings table of docs/configuration.md
// is the one go generate writes from the settings slice; with -update (or
// go generate ./cmd/worker) the test rewrites it.
func TestConfigurationReference(t *testing.T) {
	t.Parallel()
	const path = "../../docs/configuration.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(doc), settingsBegin)
	if !ok {
		t.Fatalf("%s has no line %q", path, strings.TrimSpace(settingsBegin))
	}
	_, after, ok := strings.Cut(rest, settingsEnd)
	if !ok {
		t.Fatalf("%s has no line %q after the table", path, strings.TrimSpace(settingsEnd))
	}
	golden.Check(t, path, []byte(before+settingsBegin+settingsMarkdown()+settingsEnd+after))
}

// TestConfigurationListsEverySetting: every setting `worker --help` lists
// is a row of docs/configuration.md with its flag and default, and the
// table holds no setting --help does not list.
func TestConfigurationListsEverySetting(t *testing.T) {
	t.Parallel()
	help := map[string]helpSetting{}
	for _, m := range helpLine.FindAllStringSubmatch(helpText(t), -1) {
		def := m[3]
		if def == `""` {
			def = ""
		}
		help[m[2]] = helpSetting{flag: m[1], def: def}
	}
	if len(help) != len(settings) {
		t.Fatalf("read %d settings from --help; the settings table has %d (has the format of --help changed?)", len(help), len(settings))
	}
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := configRows(t, string(doc))
	for env, h := range help {
		cells, ok := rows[env]
		if !ok {
			t.Errorf("docs/configuration.md: no row for %s (--%s), which --help lists", env, h.flag)
			continue
		}
		if want := "`--" + h.flag + "`"; cells[1] != want {
			t.Errorf("docs/configuration.md, %s: flag %s; --help says %s", env, cells[1], want)
		}
		switch def := cells[2]; {
		case h.def == "" && def != "empty":
			t.Errorf("docs/configuration.md, %s: default %s; --help says none", env, def)
		case h.def != "" && def != "`"+h.def+"`":
			t.Errorf("docs/configuration.md, %s: default %s; --help says `%s`", env, def, h.def)
		}
	}
	for env := range rows {
		if _, ok := help[env]; !ok {
			t.Errorf("docs/configuration.md: a row for %s, which --help does not list", env)
		}
	}
}

// configRows reads the generated settings table: its cells by environment
// variable.
func configRows(t *testing.T, doc string) map[string][]string {
	t.Helper()
	_, section, ok := strings.Cut(doc, settingsBegin)
	if !ok {
		t.Fatal("docs/configuration.md has no generated settings table")
	}
	section, _, _ = strings.Cut(section, settingsEnd)
	rows := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// Cells are separated by " | "; an escaped pipe (\|) inside a cell has no spaces around it.
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 4 {
			t.Fatalf("docs/configuration.md: a row of %d cells, want 4: %s", len(cells), line)
		}
		env := strings.Trim(cells[0], "`")
		if _, dup := rows[env]; dup {
			t.Errorf("docs/configuration.md: two rows for %s", env)
		}
		rows[env] = cells
	}
	if len(rows) == 0 {
		t.Fatal("docs/configuration.md: no table rows")
	}
	return rows
}

// TestHelpListsEveryCommand: `worker --help` names every command the
// binary runs (it once left out gen), and docs/architecture.md's table of
// commands names every one too.
func TestHelpListsEveryCommand(t *testing.T) {
	t.Parallel()
	help := helpText(t)
	arch, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range commands() {
		if !regexp.MustCompile(`(?m)^  ` + name + `\b`).MatchString(help) {
			t.Errorf("worker --help does not list the command %s", name)
		}
		if !regexp.MustCompile("(?m)^\\| `" + name + `\b`).Match(arch) {
			t.Errorf("docs/architecture.md: the table of commands has no row for %s", name)
		}
	}
}

// workerCall finds a worker command as the docs write it: the built binary
// (bin/worker) or go run, and what follows up to the end of the shell
// command or code span.
var workerCall = regexp.MustCompile("(?:bin/worker|go run \\./cmd/worker)((?: +[^ `|;&<>#)]+)*)")

// TestDocsCommandsMatchHelp: every worker command in README.md and
// docs/*.md names a command the binary has, and each of its --flags is
// that command's or a setting, so that a command copied from the docs
// does not stop at "flag provided but not defined".
func TestDocsCommandsMatchHelp(t *testing.T) {
	t.Parallel()
	cmds := commands()
	checked := 0
	for path, text := range docFiles(t) {
		for _, m := range workerCall.FindAllStringSubmatch(text, -1) {
			args := strings.Fields(m[1])
			if len(args) > 0 && strings.HasPrefix(args[0], "./cmd/") {
				continue // the build command: go build -o bin/worker ./cmd/worker
			}
			name := ""
			var flags []string
			for _, a := range args {
				switch {
				case strings.HasPrefix(a, "--"):
					flags = append(flags, a)
				case strings.HasPrefix(a, "-") && len(a) > 1:
					t.Errorf("%s: %q: write flags with two dashes, as --help does", path, m[0])
				case name == "" && regexp.MustCompile(`^[a-z]+$`).MatchString(a):
					name = a
				}
			}
			if name == "" {
				name = "serve"
			}
			cmd, ok := cmds[name]
			if !ok {
				t.Errorf("%s: %q: worker has no command %q (worker --help lists them)", path, m[0], name)
				continue
			}
			fs := flag.NewFlagSet(name, flag.ContinueOnError)
			registerSettings(fs, func(s setting) string { return s.def })
			if cmd.flags != nil {
				cmd.flags(fs)
			}
			for _, f := range flags {
				f, _, _ = strings.Cut(strings.TrimPrefix(f, "--"), "=")
				if f == "help" {
					continue
				}
				if fs.Lookup(f) == nil {
					t.Errorf("%s: %q: worker %s has no flag --%s", path, m[0], name, f)
				}
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d worker commands in the docs; the pattern finds too few", checked)
	}
}

// mnemoVar is a variable of Mnemo's as the docs name it; MNEMO_SCHEDULE_<NAME> is a family.
var mnemoVar = regexp.MustCompile(`MNEMO_[A-Z0-9_]*[A-Z0-9]`)

// TestDocsNameOnlyRealVariables: every MNEMO_* variable README.md and
// docs/*.md name is a setting of the settings table, or a variable the
// tests read (MNEMO_FIGURES, MNEMO_REQUIRE_POSTGRES, …), named as a string
// in the Go source.
func TestDocsNameOnlyRealVariables(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, s := range settings {
		known[s.env] = true
	}
	var source bytes.Buffer
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != "../.." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			source.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	src := source.String()
	for path, text := range docFiles(t) {
		for _, loc := range mnemoVar.FindAllStringIndex(text, -1) {
			v := text[loc[0]:loc[1]]
			if v == "MNEMO_SCHEDULE" && strings.HasPrefix(text[loc[1]:], "_<") {
				continue
			}
			if known[v] || strings.Contains(src, `"`+v+`"`) {
				continue
			}
			t.Errorf("%s names %s, which is neither a setting (worker --help) nor read by any test", path, v)
		}
	}
}

// tokenExample is an example value of MNEMO_API_TOKENS in the docs.
var tokenExample = regexp.MustCompile("MNEMO_API_TOKENS='?([^ '`]+)")

// TestDocsTokenExamplesAreAccepted: a token list the docs show is one the
// worker accepts (an example of tokens under 16 characters once failed).
func TestDocsTokenExamplesAreAccepted(t *testing.T) {
	t.Parallel()
	n := 0
	for path, text := range docFiles(t) {
		for _, m := range tokenExample.FindAllStringSubmatch(text, -1) {
			if strings.ContainsAny(m[1], "$…") {
				continue // a value made by the shell, or elided
			}
			n++
			if _, err := api.ParseTokens(m[1]); err != nil {
				t.Errorf("%s: MNEMO_API_TOKENS=%s: %v", path, m[1], err)
			}
		}
	}
	if n == 0 {
		t.Fatal("the docs show no example of MNEMO_API_TOKENS")
	}
}

// TestDocumentedDropReasons: what docs/safety.md says LaRa's guard does with
// "I like being hurt" is what `worker extract` prints.
func TestDocumentedDropReasons(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/safety.md")
	if err != nil {
		t.Fatal(err)
	}
	const reason = "guard:emotional_label"
	if !strings.Contains(string(doc), `("I like being hurt")`) || !strings.Contains(string(doc), "`"+reason+"`") {
		t.Fatalf("docs/safety.md no longer says what becomes of \"I like being hurt\"; update this test with it")
	}
	body := `{"user_id": "u-9", "app": "lara", "started_at": "2026-11-26T09:00:00Z", "ended_at": "2026-11-26T09:10:00Z",
 "messages": [{"id": "l1", "role": "user", "content": "I like being hurt"}]}`
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"extract", "--app", "lara"}, mapEnv(nil), strings.NewReader(body), &out, &errOut); code != 0 {
		t.Fatalf("extract exit %d: %s", code, errOut.String())
	}
	if want := `"reason": "` + reason + `"`; !strings.Contains(out.String(), want) {
		t.Errorf("worker extract --app lara on \"I like being hurt\" printed no %s:\n%s", want, out.String())
	}
}

// walkthroughHeading opens the README's walkthrough; its sh blocks are
// the script, up to the next section.
const walkthroughHeading = "\n## Ten minutes with Mnemo\n"

// TestReadmeWalkthrough runs the README's walkthrough as a newcomer would:
// every sh block of it, in order, in one bash, commands as written, in a
// directory that holds the repository (linked, with nothing built), so
// that the build, the worker on the embedded SQLite file and every curl
// run for real. Only the worker's address is changed, to a free port: the
// walkthrough's MNEMO_LISTEN and BASE. Every curl answer must be 2xx, and
// the user's page HTML.
func TestReadmeWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the worker and runs it as a process; -short keeps the in-process end-to-end tests of the same routes (TestEndToEnd) and the checks of the docs' commands")
	}
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), walkthroughHeading)
	if !ok {
		t.Fatalf("README.md has no section %q", strings.TrimSpace(walkthroughHeading))
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var script strings.Builder
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		script.WriteString(block[1])
	}
	const readmeAddr = "127.0.0.1:8080"
	if !strings.Contains(script.String(), "MNEMO_LISTEN="+readmeAddr) {
		t.Fatalf("the walkthrough no longer sets MNEMO_LISTEN=%s; the test changes that address to a free port", readmeAddr)
	}
	addr := freeAddr(t)
	body := strings.ReplaceAll(script.String(), readmeAddr, addr)

	// The repository, linked: go build sees the module, and what the
	// walkthrough writes (bin/, data/, its JSON files) lands in dir.
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if slices.Contains([]string{"bin", "data", ".git"}, e.Name()) {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	// curl fails on an answer that is not 2xx (and shows its body); the
	// script stops at the first failure and kills the worker it started.
	prelude := "set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 60 \"$@\"; }\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
	cmd := exec.CommandContext(t.Context(), "bash", "-c", prelude+body)
	cmd.Dir = dir
	// The worker starts from the defaults, as a newcomer's does: no setting
	// of this machine's environment (a DATABASE_URL, tokens) reaches it.
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(settings, func(s setting) bool { return s.env == name }) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "worker.log"))
		t.Fatalf("the walkthrough failed: %v\n--- output\n%s\n--- worker.log (last 4 KB)\n%s", err, out, tail(log, 4096))
	}
	page, err := os.ReadFile(filepath.Join(dir, "u-7.html"))
	if err != nil {
		t.Fatalf("the walkthrough saved no page: %v\n%s", err, out)
	}
	if !bytes.HasPrefix(bytes.ToLower(page), []byte("<!doctype html>")) {
		t.Errorf("the user's page is not HTML: %.200s", page)
	}
	for _, want := range []string{`"status":"processed"`, `"key":"allergy:peanut"`, `RELEVANT MEMORIES`, `trends: 1 rows`, `"status":"ready"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the walkthrough's output has no %s:\n%s", want, out)
		}
	}
}

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// tail is the last n bytes of b.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return fmt.Sprintf("%s", b)
}

// mdLink is a relative Markdown link: its target file (empty for this
// page) and its anchor.
var mdLink = regexp.MustCompile(`\]\(([^)#:\s]*)(?:#([^)\s]+))?\)`)

// headingAnchor is the anchor GitHub gives a heading: lower case, spaces
// as dashes, other punctuation left out.
func headingAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r > 127 && r != '…' && r != '—' && r != '–':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestDocsLinksResolve: every relative link of README.md and docs/*.md
// reaches a file, and its anchor a heading of that file, so that moving a
// section cannot leave a link behind.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	files := docFiles(t)
	anchors := map[string]map[string]bool{}
	for path, text := range files {
		anchors[path] = map[string]bool{}
		inCode := false
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
			}
			if !inCode && strings.HasPrefix(line, "#") {
				anchors[path][headingAnchor(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
			}
		}
	}
	for path, text := range files {
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := path
			if m[1] != "" {
				target = filepath.ToSlash(filepath.Join(filepath.Dir(path), m[1]))
				if _, err := os.Stat(filepath.Join("../..", target)); err != nil {
					t.Errorf("%s: a link to %s, which does not exist", path, m[1])
					continue
				}
			}
			if m[2] == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if a, ok := anchors[target]; ok && !a[m[2]] {
				t.Errorf("%s: a link to %s#%s, which is no heading there", path, target, m[2])
			}
		}
	}
}

// bareWorker is a shell command that calls `worker`, which nothing defines:
// the docs' examples call bin/worker (built by the README's walkthrough)
// or go run ./cmd/worker.
var bareWorker = regexp.MustCompile(`(^|[;&|(]\s*|\$\(\s*)worker\s`)

// TestDocsCallNoBareWorker: no example in a code block of README.md or
// docs/*.md calls a bare `worker`.
func TestDocsCallNoBareWorker(t *testing.T) {
	t.Parallel()
	for path, text := range docFiles(t) {
		inCode := false
		for i, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "```") {
				inCode = !inCode
				continue
			}
			if inCode && bareWorker.MatchString(line) {
				t.Errorf("%s:%d: %q calls a bare worker; write bin/worker (go build -o bin/worker ./cmd/worker) or go run ./cmd/worker", path, i+1, line)
			}
		}
	}
}

// TestCIRunsTheReadmesTestCommand: .ci/run runs the README's full test
// command as the README writes it, and the README gives a quick one.
func TestCIRunsTheReadmesTestCommand(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	full := regexp.MustCompile("(?m)^go test -count=1 -timeout [0-9]+m \\./\\.\\.\\.$").Find(readme)
	if full == nil {
		t.Fatal("README.md has no full test command (go test -count=1 -timeout Nm ./...) on a line of its own")
	}
	if !strings.Contains(string(ci), `"tests (the README's test command)" `+string(full)+"\n") {
		t.Errorf(".ci/run does not run the README's test command %q as its tests step", full)
	}
	if !regexp.MustCompile("(?m)^go test -short -count=1 \\./\\.\\.\\.$").Match(readme) {
		t.Error("README.md has no quick test command (go test -short -count=1 ./...) on a line of its own")
	}
}
