package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestMain lets the test binary act as the worker binary itself, so tests can
// start real worker processes and signal them.
func TestMain(m *testing.M) {
	if os.Getenv("MNEMO_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	code := m.Run()
	if code == 0 {
		code = checkSpecCoverage()
	}
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// started is a worker running in this process.
type started struct {
	addr   string
	cancel context.CancelFunc
	done   chan int
	stderr *syncBuffer
}

// startWorker runs `worker serve` in-process on a free port and waits until it listens.
func startWorker(t *testing.T, env map[string]string, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &started{cancel: cancel, done: make(chan int, 1), stderr: &syncBuffer{}}
	ready := make(chan string, 1)
	full := append([]string{"--listen", "127.0.0.1:0", "--log-format", "json"}, args...)
	go func() {
		s.done <- runWith(ctx, full, mapEnv(env), strings.NewReader(""), io.Discard, s.stderr, func(a string) { ready <- a })
	}()
	select {
	case s.addr = <-ready:
	case code := <-s.done:
		t.Fatalf("worker exited with %d before listening:\n%s", code, s.stderr.String())
	case <-testwait.Deadline(t):
		t.Fatalf("worker did not listen:\n%s", s.stderr.String())
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-testwait.Deadline(t):
			t.Error("worker did not stop")
		}
	})
	return s
}

// stop cancels the worker's context (as SIGTERM does) and returns its exit code.
func (s *started) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		s.done <- code
		return code
	case <-testwait.Deadline(t):
		t.Fatal("worker did not stop after its shutdown signal")
	}
	return -1
}

// databases returns the DATABASE_URL of a fresh database per backend.
func databases(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"sqlite": "sqlite://" + filepath.Join(t.TempDir(), "mnemo.db")}
	for _, b := range storetest.Backends(t) {
		if b.Name == "postgres" {
			out["postgres"] = withSearchPath(os.Getenv("TEST_DATABASE_URL"), storetest.PostgresSchema(t))
		}
	}
	return out
}

func withSearchPath(url, schema string) string {
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	return url + sep + "search_path=" + schema
}

func TestServeIsReadyAndStopsCleanly(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "test-passphrase-" + name}
			if name == "sqlite" {
				env["DATABASE_URL"] = "sqlite://" + filepath.Join(dir, "mnemo.db")
			}
			w := startWorker(t, env)
			for _, path := range []string{"/healthz", "/readyz"} {
				resp, err := http.Get("http://" + w.addr + path)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s = %d; want 200", path, resp.StatusCode)
				}
			}
			if code := w.stop(t); code != 0 {
				t.Fatalf("exit code %d after shutdown signal; want 0\n%s", code, w.stderr.String())
			}
			if !strings.Contains(w.stderr.String(), `"msg":"stopped"`) {
				t.Fatalf("no clean stop in the log:\n%s", w.stderr.String())
			}
		})
	}
}

// process is a worker running as a real child process (the test binary
// re-executed as main).
type process struct {
	cmd  *exec.Cmd
	addr string
	log  *syncBuffer
}

// startProcess runs the worker in dir with env added to this process's
// environment and waits until it listens.
func startProcess(t *testing.T, dir string, env ...string) *process {
	t.Helper()
	p := &process{log: &syncBuffer{}}
	p.cmd = exec.Command(os.Args[0], "--listen", "127.0.0.1:0")
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "MNEMO_TEST_RUN_MAIN=1", "MNEMO_LOG_FORMAT=json")
	p.cmd.Env = append(p.cmd.Env, env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	// Read the log until the worker says where it listens.
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		fmt.Fprintln(p.log, lines.Text())
		if _, rest, ok := strings.Cut(lines.Text(), `"listen":"`); ok {
			p.addr, _, _ = strings.Cut(rest, `"`)
			break
		}
	}
	if p.addr == "" {
		t.Fatalf("worker never listened:\n%s", p.log.String())
	}
	go func() { _, _ = io.Copy(p.log, stderr) }()
	return p
}

// TestSIGTERMExitsZero runs the worker as a real process with no
// configuration but a working directory, as `go run ./cmd/worker` does on a
// fresh clone, and stops it with SIGTERM.
func TestSIGTERMExitsZero(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startProcess(t, dir, "DATABASE_URL=", "MNEMO_ENCRYPTION_KEY=")
	resp, err := http.Get("http://" + p.addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz = %d", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "mnemo.db")); err != nil {
		t.Fatalf("embedded database not at ./data/mnemo.db: %v", err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v; want exit 0\n%s", err, p.log.String())
	}
}

func TestBadConfigurationExitsWithOneClearLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		env     map[string]string
		args    []string
		setting string
	}{
		{"unparseable database url", map[string]string{"DATABASE_URL": "postgres//nohost"}, nil, "DATABASE_URL"},
		{"unknown scheme", map[string]string{"DATABASE_URL": "mysql://db/x"}, nil, "DATABASE_URL"},
		{"bad listen", nil, []string{"--listen", "not-an-address"}, "MNEMO_LISTEN"},
		{"bad port", map[string]string{"MNEMO_LISTEN": "127.0.0.1:99999"}, nil, "MNEMO_LISTEN"},
		{"public listen without tokens", map[string]string{"MNEMO_LISTEN": "0.0.0.0:8080"}, nil, "MNEMO_LISTEN"},
		{"negative concurrency", map[string]string{"MNEMO_CONCURRENCY": "extract=-3"}, nil, "MNEMO_CONCURRENCY"},
		{"malformed tokens", map[string]string{"MNEMO_API_TOKENS": "root:abcdefghijklmnopq"}, nil, "MNEMO_API_TOKENS"},
		{"caregiver of an app that is not Clara", map[string]string{"MNEMO_API_TOKENS": "caregiver@mona:abcdefghijklmnopq"}, nil, "MNEMO_API_TOKENS"},
		{"bad duration", map[string]string{"MNEMO_JOB_TIMEOUT": "soon"}, nil, "MNEMO_JOB_TIMEOUT"},
		{"profile fields not a number", map[string]string{"MNEMO_PROFILE_MAX_FIELDS": "many"}, nil, "MNEMO_PROFILE_MAX_FIELDS"},
		{"profile depth zero", map[string]string{"MNEMO_PROFILE_MAX_DEPTH": "0"}, nil, "MNEMO_PROFILE_MAX_DEPTH"},
		{"profile value over the profile", map[string]string{"MNEMO_PROFILE_MAX_VALUE_BYTES": "8192", "MNEMO_PROFILE_MAX_BYTES": "4096"}, nil, "MNEMO_PROFILE_MAX_VALUE_BYTES"},
		{"profile bytes flag too small", nil, []string{"--profile-max-bytes", "10"}, "MNEMO_PROFILE_MAX_BYTES"},
		{"rescue before timeout", map[string]string{"MNEMO_JOB_TIMEOUT": "10m", "MNEMO_RESCUE_AFTER": "5m"}, nil, "MNEMO_RESCUE_AFTER"},
		{"retry backoff not a duration", map[string]string{"MNEMO_RETRY_BACKOFF": "soon"}, nil, "MNEMO_RETRY_BACKOFF"},
		{"retry backoff too short", map[string]string{"MNEMO_RETRY_BACKOFF": "1ms"}, nil, "MNEMO_RETRY_BACKOFF"},
		{"temperature out of range", map[string]string{"MNEMO_LLM_TEMPERATURE": "2.5"}, nil, "MNEMO_LLM_TEMPERATURE"},
		{"temperature not a number", map[string]string{"MNEMO_LLM_TEMPERATURE": "NaN"}, nil, "MNEMO_LLM_TEMPERATURE"},
		{"bad llm url", map[string]string{"OPENAI_BASE_URL": "ftp://x"}, nil, "OPENAI_BASE_URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			code := run(context.Background(), append(c.args, "serve"), mapEnv(c.env), strings.NewReader(""), io.Discard, &stderr)
			if code != exitUsage {
				t.Fatalf("exit %d; want %d\n%s", code, exitUsage, stderr.String())
			}
			out := strings.TrimSpace(stderr.String())
			if strings.Count(out, "\n") != 0 || !strings.Contains(out, c.setting) {
				t.Fatalf("stderr %q: want one line naming %s", out, c.setting)
			}
		})
	}
	// A token never appears in an error.
	var stderr bytes.Buffer
	run(context.Background(), nil, mapEnv(map[string]string{"MNEMO_API_TOKENS": "admin:short-secret"}), strings.NewReader(""), io.Discard, &stderr)
	if strings.Contains(stderr.String(), "short-secret") {
		t.Fatalf("error message leaks the token: %s", stderr.String())
	}
}

func TestHelpListsEverySetting(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, mapEnv(nil), strings.NewReader(""), &out, io.Discard); code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for _, s := range settings {
		if !strings.Contains(out.String(), s.env) || !strings.Contains(out.String(), "--"+s.flag) {
			t.Errorf("--help does not list %s / --%s", s.env, s.flag)
		}
	}
}

func TestMigrateStatusDownUp(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := mapEnv(map[string]string{"DATABASE_URL": url})
			sh := func(args ...string) string {
				t.Helper()
				var out, errOut bytes.Buffer
				if code := run(context.Background(), args, env, strings.NewReader(""), &out, &errOut); code != 0 {
					t.Fatalf("worker %v: exit %d\n%s", args, code, errOut.String())
				}
				return out.String()
			}
			sh("migrate", "up")
			st := sh("migrate", "status")
			if pending(st) != 0 || !strings.Contains(st, "0001     core") || !strings.Contains(st, "river") {
				t.Fatalf("status after up:\n%s", st)
			}
			down := sh("migrate", "down", "1")
			if !strings.Contains(down, "rolled back mnemo") {
				t.Fatalf("down 1 said:\n%s", down)
			}
			if st := sh("migrate", "status"); pending(st) != 1 {
				t.Fatalf("status after down 1 should show one pending migration:\n%s", st)
			}
			sh("migrate", "up")
			if st := sh("migrate", "status"); pending(st) != 0 {
				t.Fatalf("status after up again:\n%s", st)
			}
			var errOut bytes.Buffer
			if code := run(context.Background(), []string{"migrate", "down", "zero"}, env, strings.NewReader(""), io.Discard, &errOut); code != exitUsage {
				t.Fatalf("migrate down zero: exit %d; want %d", code, exitUsage)
			}
		})
	}
}

// pending counts the migrations `migrate status` lists as pending.
func pending(status string) int {
	n := 0
	for _, line := range strings.Split(status, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[len(f)-1] == "pending" {
			n++
		}
	}
	return n
}
