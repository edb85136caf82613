package faults

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
)

// pgServer is a PostgreSQL cluster of a test's own, which it may crash and
// start again: the shared server must never restart under the other tests.
type pgServer struct {
	bin, dir string
	port     int
	cred     *syscall.Credential // the postgres OS user, when the test runs as root
}

// postgresBin finds the directory of initdb and pg_ctl: pg_config's, or the
// newest under /usr/lib/postgresql.
func postgresBin() string {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir
		}
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[j]))))
		return vi < vj
	})
	if len(found) == 0 {
		return ""
	}
	return filepath.Dir(found[len(found)-1])
}

// skipOrFail skips the test, or fails it where a skipped Postgres suite is a
// failure (MNEMO_REQUIRE_POSTGRES=1, as CI sets it).
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("MNEMO_REQUIRE_POSTGRES") == "1" {
		t.Fatalf("MNEMO_REQUIRE_POSTGRES=1 but "+format, args...)
	}
	t.Skipf(format, args...)
}

// startPostgres initialises a cluster in a temporary directory, on a free
// port of 127.0.0.1 with its socket inside the directory, and starts it. As
// root it runs as the postgres OS user, since initdb refuses root.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	bin := postgresBin()
	if bin == "" {
		skipOrFail(t, "no PostgreSQL binaries (pg_config --bindir, /usr/lib/postgresql/*/bin)")
	}
	dir, err := os.MkdirTemp("", "mnemo-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgServer{bin: bin, dir: dir}
	t.Cleanup(func() {
		_, _ = p.ctl("stop", "-m", "immediate", "-w")
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			skipOrFail(t, "running as root without a postgres OS user for initdb: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, err := p.run("initdb", "-D", p.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	// Durability of what a commit acknowledged must survive the crash, so
	// synchronous_commit stays on; fsync off only trusts the OS cache, which
	// a killed server does not lose.
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nfsync = off\nfull_page_writes = off\nmax_connections = 40\n",
		p.port, dir)
	f, err := os.OpenFile(filepath.Join(p.data(), "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	p.start(t)
	return p
}

func (p *pgServer) data() string { return filepath.Join(p.dir, "data") }

func (p *pgServer) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

// run runs one of the PostgreSQL binaries as the cluster's owner.
func (p *pgServer) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(p.bin, name), args...)
	cmd.Dir = p.dir
	if p.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	}
	return cmd.CombinedOutput()
}

func (p *pgServer) ctl(args ...string) ([]byte, error) {
	return p.run("pg_ctl", append([]string{"-D", p.data()}, args...)...)
}

func (p *pgServer) start(t *testing.T) {
	t.Helper()
	if out, err := p.ctl("start", "-w", "-t", "60", "-l", filepath.Join(p.dir, "postgres.log")); err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, "postgres.log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// crash stops the server as a crash would: no checkpoint, every backend
// killed, crash recovery on the next start.
func (p *pgServer) crash(t *testing.T) {
	t.Helper()
	if out, err := p.ctl("stop", "-m", "immediate", "-w", "-t", "60"); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// closeAnswer is one handoff's answer: its status and, for an error, the
// error shape's code and message.
type closeAnswer struct {
	status        int
	code, message string
}

func closeSession(addr, id string, body any) (closeAnswer, error) {
	status, ans, err := call("POST", addr, "/v1/sessions/"+id+"/close", body)
	if err != nil {
		return closeAnswer{}, err
	}
	a := closeAnswer{status: status}
	if status >= 400 {
		a.code, a.message = errorCode(ans)
	}
	return a, nil
}

func statusOf(addr, path string) int {
	status, _, _ := call("GET", addr, path, nil)
	return status
}

// TestPostgresRestartMidProcessing hands 300 sessions to one worker and
// crashes its PostgreSQL twice (pg_ctl stop -m immediate, down 2.5 s) while
// the worker extracts and handoffs keep arriving. The same worker process,
// never restarted, answers handoffs 503 with the JSON error shape and /readyz
// 503 while the database is down, reconnects once it is back, and ends with
// every session handed over processed once: one summary and one final
// extraction run each, no duplicated memory, no job left running or
// discarded.
func TestPostgresRestartMidProcessing(t *testing.T) {
	skipShort(t, "api TestUnreachableDatabaseAnswers503 and store TestIsUnavailable")
	t.Parallel()
	pg := startPostgres(t)
	llm := llmtest.NewServer(t, llmtest.Latency(150*time.Millisecond))
	llm.SetDefault(func(llmtest.Request) llmtest.Reply {
		return llmtest.Valid(`{"memories":[{"key":"name","value":"Peggy","category":"fact","importance":90,"confidence":0.9,"source_message_id":"m1"}],
			"session_summary":{"summary":"Introductions.","topics":[]}}`)
	})
	w := startWorker(t, []string{"DATABASE_URL=" + pg.url(), "MNEMO_API_TOKENS=service:" + token, "MNEMO_ENCRYPTION_KEY=f:fault injection passphrase",
		"OPENAI_BASE_URL=" + llm.URL(), "OPENAI_API_KEY=sk-faults", "MNEMO_LLM_MODEL=gpt-4o-mini", "MNEMO_LOG_FORMAT=json",
		"MNEMO_LOG_LEVEL=info", "MNEMO_JOB_TIMEOUT=5s", "MNEMO_RESCUE_AFTER=6s", "MNEMO_POLL_INTERVAL=50ms",
		"MNEMO_CONCURRENCY=default=2,extract=8,batch=1", "MNEMO_SHUTDOWN_GRACE=1s"})
	pid := w.cmd.Process.Pid
	alive := func() bool {
		return w.cmd.ProcessState == nil && syscall.Kill(pid, 0) == nil && statusOf(w.addr, "/healthz") == http.StatusOK
	}

	const sessions, restarts, downFor = 300, 2, 2500 * time.Millisecond
	now := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	var (
		outage     atomic.Int32 // the outage under way (1-based), 0 while the database is up and ready
		mu         sync.Mutex
		accepted   = map[int]bool{}
		down503    = make([]int, restarts+1) // 503s per outage; [0] with the database up
		codes503   = map[string]int{}
		transport  int // requests the worker did not answer
		unexpected []string
		wg         sync.WaitGroup
		next       = make(chan int)
		giveUp     = testwait.GiveUpAt(t)
		stop       = make(chan struct{}) // closed when the test ends, early or not
	)
	t.Cleanup(func() { close(stop) })
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body := map[string]any{"user_id": fmt.Sprintf("u-%d", i%50), "app": "mona", "started_at": now.Format(time.RFC3339),
					"ended_at": now.Add(10 * time.Minute).Format(time.RFC3339),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My name is Peggy.", "at": now.Add(time.Minute).Format(time.RFC3339)}}}
				// A chat service sends a handoff again until it is accepted;
				// the same body is idempotent.
				for !testwait.Past(giveUp) {
					a, err := closeSession(w.addr, fmt.Sprintf("r-%d", i), body)
					mu.Lock()
					switch {
					case err != nil:
						transport++
					case a.status == http.StatusAccepted:
						accepted[i] = true
					case a.status != http.StatusServiceUnavailable:
						unexpected = append(unexpected, fmt.Sprintf("session r-%d: %d %s %q", i, a.status, a.code, a.message))
					case a.code == "" || a.message == "":
						unexpected = append(unexpected, fmt.Sprintf("session r-%d: 503 without the JSON error shape", i))
					default:
						down503[outage.Load()]++
						codes503[a.code]++
					}
					done := err == nil && a.status != http.StatusServiceUnavailable
					mu.Unlock()
					if done {
						break
					}
					select {
					case <-time.After(50 * time.Millisecond):
					case <-stop:
						return
					}
				}
			}
		}()
	}
	// Handoffs arrive over the whole run, through both outages.
	go func() {
		defer close(next)
		for i := 0; i < sessions; i++ {
			select {
			case next <- i:
			case <-stop:
				return
			}
			<-time.After(30 * time.Millisecond)
		}
	}()

	readyDown := 0
	for n := 1; n <= restarts; n++ {
		// Crash the database while extractions are under way.
		calls := llm.Calls()
		pollUntil(t, "extractions under way", func() bool { return llm.Calls() >= calls+30 })
		outage.Store(int32(n))
		pg.crash(t)
		downAt := time.Now()
		for time.Since(downAt) < downFor {
			if s := statusOf(w.addr, "/readyz"); s == http.StatusServiceUnavailable {
				readyDown++
			} else {
				t.Errorf("outage %d: readyz = %d with the database down; want 503", n, s)
			}
			<-time.After(200 * time.Millisecond)
		}
		if !alive() {
			t.Fatalf("outage %d: the worker died with its database", n)
		}
		pg.start(t)
		pollUntil(t, "readyz 200 after the restart", func() bool { return statusOf(w.addr, "/readyz") == http.StatusOK })
		outage.Store(0)
		t.Logf("outage %d: database down %s, worker ready again %s after the crash", n, downFor, time.Since(downAt).Round(time.Millisecond))
	}
	wg.Wait()
	mu.Lock()
	handed := len(accepted)
	mu.Unlock()
	if len(unexpected) > 0 {
		t.Errorf("%d handoffs answered other than 202 or 503 with the error shape, e.g. %s", len(unexpected), unexpected[0])
	}
	if handed != sessions {
		t.Fatalf("%d of %d sessions accepted before the deadline", handed, sessions)
	}

	// Drain: every session processed, every extraction job completed (a job
	// whose completion was lost with the database is rescued and, run again,
	// finds its session processed), no job running.
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.url())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func(q string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var processed, pending, running int
	pollUntil(t, "every session processed and no job left", func() bool {
		processed = count("SELECT count(*) FROM mnemo_sessions WHERE status = 'processed'")
		pending = count("SELECT count(*) FROM river_job WHERE kind = 'extract' AND state NOT IN ('completed', 'discarded', 'cancelled')")
		running = count("SELECT count(*) FROM river_job WHERE state = 'running'")
		return processed == sessions && pending == 0 && running == 0
	})
	var (
		summaries = count("SELECT count(*) FROM mnemo_session_summaries")
		finals    = count("SELECT count(*) FROM mnemo_extraction_runs WHERE final")
		dup       = count(`SELECT count(*) FROM (SELECT session_id FROM mnemo_session_summaries GROUP BY 1 HAVING count(*) > 1
			UNION SELECT session_id FROM mnemo_extraction_runs WHERE final GROUP BY 1 HAVING count(*) > 1) d`)
		lost = sessions - count(`SELECT count(*) FROM mnemo_sessions s WHERE status = 'processed'
			AND EXISTS (SELECT 1 FROM mnemo_session_summaries m WHERE m.session_id = s.id)`)
		dupMemories = count("SELECT count(*) FROM (SELECT user_id, key FROM mnemo_memories WHERE status = 'active' GROUP BY 1, 2 HAVING count(*) > 1) d")
		discarded   = count("SELECT count(*) FROM river_job WHERE state = 'discarded'")
		rerun       = count("SELECT count(*) FROM river_job WHERE kind = 'extract' AND attempt > 1")
	)
	if !alive() {
		t.Fatal("the worker is not alive after the drain")
	}
	figures.Report(t, "postgres restarts: %d sessions handed over, %d processed, %d lost, %d duplicated (%d summaries, %d final runs, %d duplicated memories), "+
		"%d jobs running, %d discarded, %d extraction jobs run again; %d restarts survived by one worker process; handoff 503s %v during the outages, %d with the database up (codes %v), %d unanswered; readyz 503 %d times while down",
		handed, sessions-lost, lost, dup, summaries, finals, dupMemories, running, discarded, rerun, restarts, down503[1:], down503[0], codes503, transport, readyDown)
	if summaries != sessions || finals != sessions || lost != 0 || dup != 0 || dupMemories != 0 || discarded != 0 {
		t.Fatalf("after %d restarts: %d summaries, %d final runs, %d lost, %d duplicated sessions, %d duplicated memories, %d discarded jobs; want %d, %d, 0, 0, 0, 0",
			restarts, summaries, finals, lost, dup, dupMemories, discarded, sessions, sessions)
	}
	if down503[1] == 0 {
		t.Fatal("no handoff was answered 503 while the database was down")
	}
}
