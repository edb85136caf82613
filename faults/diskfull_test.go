package faults

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/figures"
)

// smallDisk mounts a tmpfs of size bytes for the test, or skips the test
// where mounting is not allowed (not root, a container without the right).
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a small disk of the test's own is a tmpfs mount, which needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file until the disk has no space left.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
}

// bigSession is a session of n messages of about size bytes each, of text
// that does not repeat.
func bigSession(now time.Time, user string, n, size int) map[string]any {
	r := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	words := []string{"garden", "letter", "sister", "morning", "river", "bread", "music", "window", "train", "story", "coffee", "winter"}
	msgs := make([]map[string]any, n)
	for i := range msgs {
		var b strings.Builder
		for b.Len() < size {
			b.WriteString(words[r.IntN(len(words))])
			fmt.Fprintf(&b, "%d ", r.IntN(1000))
		}
		msgs[i] = map[string]any{"id": fmt.Sprintf("m%d", i+1), "role": []string{"user", "assistant"}[i%2], "content": b.String(),
			"at": now.Add(time.Duration(i) * time.Second).Format(time.RFC3339)}
	}
	return map[string]any{"user_id": user, "app": "mona", "started_at": now.Format(time.RFC3339),
		"ended_at": now.Add(time.Duration(n+1) * time.Second).Format(time.RFC3339), "messages": msgs}
}

// TestDiskFull: the disk under a SQLite database fills up while the worker
// runs. A handoff that needs more space is refused with 503 (the session is
// not kept, so it must not be accepted) and leaves nothing behind; once space
// is freed the same worker takes the session sent again and processes it.
func TestDiskFull(t *testing.T) {
	skipShort(t, "api TestUnwritableDatabaseAnswers503 (503 read_only, then accepted once writable)")
	t.Parallel()
	disk := smallDisk(t, 32<<20)
	db := filepath.Join(disk, "mnemo.db")
	env := []string{"DATABASE_URL=sqlite://" + db, "MNEMO_API_TOKENS=service:" + token,
		"MNEMO_ENCRYPTION_KEY=f:disk full fault passphrase", "OPENAI_BASE_URL=", "MNEMO_LLM_MODEL=",
		"MNEMO_LOG_FORMAT=json", "MNEMO_LOG_LEVEL=info", "MNEMO_POLL_INTERVAL=50ms", "MNEMO_SHUTDOWN_GRACE=1s",
		"MNEMO_MAX_BODY_BYTES=16777216"}
	w := startWorker(t, env)
	now := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	if code, _, err := call("POST", w.addr, "/v1/sessions/disk-1/close", handoffBody(now)); err != nil || code != 202 {
		t.Fatalf("first handoff: %d %v", code, err)
	}
	waitProcessed(t, w.addr, "disk-1")

	// The disk fills up. A 9 MB session cannot fit in what the database's
	// write-ahead log already holds: it must grow, and cannot.
	filler := filepath.Join(disk, "filler")
	fill(t, filler)
	big := bigSession(now, "u-big", 300, 30<<10)
	refused, codes := 0, map[string]int{}
	for range 3 {
		code, ans, err := call("POST", w.addr, "/v1/sessions/disk-2/close", big)
		c, msg := errorCode(ans)
		if err != nil || code != 503 || c == "" || msg == "" {
			t.Fatalf("handoff on a full disk: %d %v %v; want 503 with the JSON error", code, ans, err)
		}
		refused++
		codes[c]++
	}
	if code, _, err := call("GET", w.addr, "/v1/sessions/disk-2", nil); err != nil || code != 404 {
		t.Fatalf("a refused handoff left session disk-2: %d %v", code, err)
	}
	if code, _, err := call("GET", w.addr, "/healthz", nil); err != nil || code != 200 {
		t.Fatalf("/healthz on a full disk: %d %v", code, err)
	}

	// Space again: the same process takes the session and processes it.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	if code, ans, err := call("POST", w.addr, "/v1/sessions/disk-2/close", big); err != nil || code != 202 {
		t.Fatalf("handoff after space was freed: %d %v %v; want 202", code, ans, err)
	}
	waitProcessed(t, w.addr, "disk-2")
	if w.cmd.ProcessState != nil {
		t.Fatal("the worker exited")
	}
	figures.Report(t, "disk full (SQLite on a 32 MB tmpfs): %d handoffs of a 9 MB session refused 503 %v, nothing kept; space freed, the same process accepted and processed it in %s",
		refused, codes, time.Since(freed).Round(100*time.Millisecond))
}
