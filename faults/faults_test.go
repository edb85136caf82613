// Package faults holds Mnemo's fault-injection suite: real worker processes
// against the local Postgres and a fake LLM, killed with SIGKILL while they
// work, checked for sessions lost or done twice.
package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

var workerBin string

// TestMain builds the worker binary once for the suite.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// Every test here starts worker processes, and skips under -short
		// (quick): no binary to build.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "mnemo-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Readable by all: a test may run the worker as an unprivileged user, for
	// file permissions to bind it as they would a real deployment's.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workerBin = filepath.Join(dir, "worker")
	build := exec.Command("go", "build", "-o", workerBin, "../cmd/worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build worker:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const token = "service-token-faults-0001"

// skipShort skips a test of real worker processes in the quick suite
// (-short), naming the in-process test of the same behaviour that still
// runs there (docs/reliability.md's table lists both).
func skipShort(t *testing.T, faster string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts worker processes; " + faster + " checks the same in process")
	}
}

// worker is a worker process listening on addr, its log kept for failures.
type worker struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	// lines is the log's tail (at most keepLines).
	lines []string
	// eof is closed once the log ends, i.e. the process closed stderr.
	eof chan struct{}
}

const keepLines = 2000

func (w *worker) log() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

// workerCmd is the worker binary with args, run in dir; as the unprivileged
// user nobody when asked and the tests run as root, whom file permissions do
// not bind.
func workerCmd(dir string, env []string, unprivileged bool, args ...string) *exec.Cmd {
	cmd := exec.Command(workerBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if unprivileged && os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	return cmd
}

// startWorker starts a worker in a directory of its own.
func startWorker(t *testing.T, env []string) *worker {
	t.Helper()
	return launch(t, workerCmd(t.TempDir(), env, false, "--listen", "127.0.0.1:0"))
}

// launch starts cmd (a worker with --listen 127.0.0.1:0) and waits until it
// listens, or fails the test with its log if it exits first.
func launch(t *testing.T, cmd *exec.Cmd) *worker {
	t.Helper()
	w := &worker{cmd: cmd, eof: make(chan struct{})}
	stderr, err := w.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			_ = w.cmd.Process.Kill()
			_ = w.cmd.Wait()
		}
	})
	listening := make(chan string, 1)
	go func() {
		defer close(w.eof)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			w.mu.Lock()
			if len(w.lines) == 2*keepLines {
				w.lines = append(w.lines[:0], w.lines[keepLines:]...)
			}
			w.lines = append(w.lines, sc.Text())
			w.mu.Unlock()
			if _, rest, ok := strings.Cut(sc.Text(), `"listen":"`); ok {
				addr, _, _ := strings.Cut(rest, `"`)
				select {
				case listening <- addr:
				default:
				}
			}
		}
	}()
	select {
	case w.addr = <-listening:
	case <-w.eof:
		_ = w.cmd.Wait()
		t.Fatalf("worker exited before listening: %s\n%s", w.cmd.ProcessState, strings.Join(w.log(), "\n"))
	case <-testwait.Deadline(t):
		t.Fatalf("worker never listened:\n%s", strings.Join(w.log(), "\n"))
	}
	return w
}

func (w *worker) kill() {
	_ = w.cmd.Process.Signal(syscall.SIGKILL)
	_ = w.cmd.Wait()
}

// stop sends SIGTERM and fails the test unless the worker exits 0.
func (w *worker) stop(t *testing.T) {
	t.Helper()
	_ = w.cmd.Process.Signal(syscall.SIGTERM)
	err := w.cmd.Wait()
	<-w.eof
	if err != nil {
		t.Fatalf("worker after SIGTERM: %v\n%s", err, strings.Join(w.log(), "\n"))
	}
}

// client is the chat service's HTTP client: a worker that stops answering
// fails the request instead of hanging the test.
var client = &http.Client{Timeout: 15 * time.Second}

// call sends a request with the service token and decodes a JSON answer.
func call(method, addr, path string, body any) (int, map[string]any, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, "http://"+addr+path, r)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, out, nil
}

// post hands a body over and returns the status.
func post(addr, path string, body any) (int, error) {
	code, _, err := call("POST", addr, path, body)
	return code, err
}

// errorCode is the code and message of an {"error": {"code", "message"}} answer.
func errorCode(body map[string]any) (code, message string) {
	e, _ := body["error"].(map[string]any)
	code, _ = e["code"].(string)
	message, _ = e["message"].(string)
	return code, message
}

// pollUntil polls cond until it holds, failing the test after within.
func pollUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, func() (bool, string) { return cond(), "not yet" })
}

// waitProcessed polls the API until the session is processed.
func waitProcessed(t *testing.T, addr, id string) {
	t.Helper()
	pollUntil(t, "session "+id+" processed", func() bool {
		code, body, err := call("GET", addr, "/v1/sessions/"+id, nil)
		return err == nil && code == 200 && body["status"] == "processed"
	})
}

// schemaURL is TEST_DATABASE_URL with a fresh schema of the test's own on
// the search path.
func schemaURL(t *testing.T) string {
	t.Helper()
	return withSchema(os.Getenv("TEST_DATABASE_URL"), storetest.PostgresSchema(t))
}

// withSchema puts schema on url's search path.
func withSchema(url, schema string) string {
	if strings.Contains(url, "?") {
		return url + "&search_path=" + schema
	}
	return url + "?search_path=" + schema
}

// TestSIGKILLDuringProcessing hands 500 sessions to a worker and kills it
// with SIGKILL at random moments while it processes them, restarting it each
// time. At the end every session has exactly one summary and one final
// extraction run, no memory is duplicated, and no job is left running.
func TestSIGKILLDuringProcessing(t *testing.T) {
	skipShort(t, "jobs TestExtractionRerunIsIdempotent (a rescued job run again)")
	t.Parallel()
	dbURL := schemaURL(t)
	llm := llmtest.NewServer(t, llmtest.Latency(30*time.Millisecond))
	llm.SetDefault(func(llmtest.Request) llmtest.Reply {
		return llmtest.Valid(`{"memories":[{"key":"name","value":"Peggy","category":"fact","importance":90,"confidence":0.9,"source_message_id":"m1"}],
			"session_summary":{"summary":"Introductions.","topics":[]}}`)
	})
	env := []string{"DATABASE_URL=" + dbURL, "MNEMO_API_TOKENS=service:" + token, "MNEMO_ENCRYPTION_KEY=f:fault injection passphrase",
		"OPENAI_BASE_URL=" + llm.URL(), "OPENAI_API_KEY=sk-faults", "MNEMO_LLM_MODEL=gpt-4o-mini", "MNEMO_LOG_FORMAT=json",
		"MNEMO_LOG_LEVEL=info", "MNEMO_JOB_TIMEOUT=5s", "MNEMO_RESCUE_AFTER=6s", "MNEMO_POLL_INTERVAL=50ms",
		"MNEMO_CONCURRENCY=default=2,extract=16,batch=1", "MNEMO_SHUTDOWN_GRACE=1s"}
	w := startWorker(t, env)

	const sessions = 500
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	var handed, refused int
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	var addrMu sync.RWMutex
	addr := w.addr
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body := map[string]any{"user_id": fmt.Sprintf("u-%d", i%50), "app": "mona", "started_at": now.Format(time.RFC3339),
					"ended_at": now.Add(10 * time.Minute).Format(time.RFC3339),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My name is Peggy.", "at": now.Add(time.Minute).Format(time.RFC3339)}}}
				// A handoff that meets a dead worker is sent again, as a chat
				// service retries: the same body is idempotent. It retries
				// with a growing pause until the test binary's deadline is
				// near, not a clock of its own: a restarted worker on a busy
				// machine may take seconds to listen again, and that is no
				// lost session.
				giveUp := testwait.GiveUpAt(t)
				pause := 50 * time.Millisecond
				for !testwait.Past(giveUp) {
					addrMu.RLock()
					a := addr
					addrMu.RUnlock()
					code, err := post(a, fmt.Sprintf("/v1/sessions/f-%d/close", i), body)
					if err == nil && code == 202 {
						mu.Lock()
						handed++
						mu.Unlock()
						break
					}
					if err == nil && code != 503 {
						mu.Lock()
						refused++
						mu.Unlock()
						break
					}
					<-time.After(pause)
					pause = min(2*pause, time.Second)
				}
			}
		}()
	}
	r := rand.New(rand.NewPCG(3, 5))
	kills := 0
	go func() {
		for i := 0; i < sessions; i++ {
			next <- i
		}
		close(next)
	}()
	// Kill and restart the worker three times while it works.
	for kills < 3 {
		<-time.After(time.Duration(300+r.IntN(900)) * time.Millisecond)
		w.kill()
		kills++
		w = startWorker(t, env)
		addrMu.Lock()
		addr = w.addr
		addrMu.Unlock()
	}
	wg.Wait()
	if refused > 0 || handed != sessions {
		t.Fatalf("handed over %d of %d sessions, %d refused", handed, sessions, refused)
	}

	// Wait for the drain: every session processed (River's rescuer runs
	// every 30 s and takes back jobs a killed worker left running).
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := testwait.GiveUpAt(t)
	for {
		var processed int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM mnemo_sessions WHERE status = 'processed'").Scan(&processed); err != nil {
			t.Fatal(err)
		}
		if processed == sessions {
			break
		}
		if testwait.Past(deadline) {
			t.Fatalf("only %d of %d sessions processed after the drain (gave up near the test binary's -timeout)", processed, sessions)
		}
		<-time.After(500 * time.Millisecond)
	}
	// Jobs a killed worker left running are rescued (River checks every 30 s)
	// and, run again, find their session processed and complete.
	rescueDeadline := testwait.GiveUpAt(t)
	for {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state = 'running'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if testwait.Past(rescueDeadline) {
			t.Fatalf("%d jobs still running two minutes after the drain", n)
		}
		<-time.After(time.Second)
	}
	var processed, summaries, finals, dupMemories, running int
	checks := []struct {
		q   string
		dst *int
	}{
		{"SELECT count(*) FROM mnemo_sessions WHERE status = 'processed'", &processed},
		{"SELECT count(*) FROM mnemo_session_summaries", &summaries},
		{"SELECT count(*) FROM mnemo_extraction_runs WHERE final", &finals},
		{"SELECT count(*) FROM (SELECT user_id, key FROM mnemo_memories WHERE status = 'active' GROUP BY user_id, key HAVING count(*) > 1) d", &dupMemories},
		{"SELECT count(*) FROM river_job WHERE state = 'running'", &running},
	}
	for _, c := range checks {
		if err := conn.QueryRow(ctx, c.q).Scan(c.dst); err != nil {
			t.Fatal(err)
		}
	}
	// Done twice: a second final run or summary (which the unique indexes
	// forbid) or a memory stored twice.
	duplicated := max(0, finals-processed) + max(0, summaries-processed) + dupMemories
	figures.Report(t, "SIGKILL: %d sessions handed over, %d processed, %d lost, %d duplicated (%d summaries, %d final runs, %d duplicated memories), %d jobs running, %d kills survived, %d LLM calls",
		handed, processed, handed-processed, duplicated, summaries, finals, dupMemories, running, kills, llm.Calls())
	if summaries != sessions || finals != sessions || dupMemories != 0 || running != 0 {
		t.Fatalf("after %d kills: %d summaries, %d final runs, %d duplicated memories, %d jobs running; want %d, %d, 0, 0",
			kills, summaries, finals, dupMemories, running, sessions, sessions)
	}
}

// TestLoadWithoutLoss hands over sessions as fast as 16 clients can, then
// lets the worker drain: every session handed over is processed, once.
// The test command hands over 2 000 (MNEMO_LOAD_SESSIONS sets another
// count); .ci/run's load step hands over 20 000.
func TestLoadWithoutLoss(t *testing.T) {
	skipShort(t, "cmd/worker's end-to-end tests (each handoff processed once)")
	t.Parallel()
	dbURL := schemaURL(t)
	w := startWorker(t, []string{"DATABASE_URL=" + dbURL, "MNEMO_API_TOKENS=service:" + token, "MNEMO_ENCRYPTION_KEY=f:load test passphrase here",
		"MNEMO_LOG_FORMAT=json", "MNEMO_LOG_LEVEL=info", "MNEMO_POLL_INTERVAL=100ms", "MNEMO_CONCURRENCY=default=2,extract=32,batch=1",
		"OPENAI_BASE_URL=", "MNEMO_LLM_MODEL="})
	sessions := 2000
	if v := os.Getenv("MNEMO_LOAD_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("MNEMO_LOAD_SESSIONS: %q is not a positive count", v)
		}
		sessions = n
	}
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted, failed := 0, 0
	start := time.Now()
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body := map[string]any{"user_id": fmt.Sprintf("u-%d", i%2000), "app": "mona", "started_at": now.Format(time.RFC3339),
					"ended_at": now.Add(10 * time.Minute).Format(time.RFC3339),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": fmt.Sprintf("My favorite number is %d.", i%97), "at": now.Add(time.Minute).Format(time.RFC3339)}}}
				code, err := post(w.addr, fmt.Sprintf("/v1/sessions/l-%d/close", i), body)
				mu.Lock()
				if err == nil && code == 202 {
					accepted++
				} else {
					failed++
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < sessions; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	handoff := time.Since(start)
	if failed != 0 {
		t.Fatalf("%d of %d handoffs failed", failed, sessions)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	deadline := testwait.GiveUpAt(t)
	var processed, finals int
	for {
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM mnemo_sessions WHERE status = 'processed'").Scan(&processed); err != nil {
			t.Fatal(err)
		}
		if processed == sessions || testwait.Past(deadline) {
			break
		}
		<-time.After(time.Second)
	}
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM mnemo_extraction_runs WHERE final").Scan(&finals); err != nil {
		t.Fatal(err)
	}
	figures.Report(t, "load: %d handoffs in %s (%.0f/s), %d accepted, %d processed after %s, %d lost, %d final runs",
		sessions, handoff.Round(time.Millisecond), float64(sessions)/handoff.Seconds(), accepted, processed, time.Since(start).Round(time.Second), accepted-processed, finals)
	if accepted != sessions || processed != sessions || finals != sessions {
		t.Fatalf("in %d, accepted %d, processed %d, final runs %d: counts in must equal counts out", sessions, accepted, processed, finals)
	}
}
