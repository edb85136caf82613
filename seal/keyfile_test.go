package seal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateKeyFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "keys")
	path := filepath.Join(dir, "mnemo.key")

	spec, created, err := LoadOrCreateKeyFile(path)
	if err != nil || !created {
		t.Fatalf("first LoadOrCreateKeyFile: created %v, err %v", created, err)
	}
	ring := mustParse(t, spec)
	if ring.PrimaryID() != "k1" || len(ring.keys) != 1 {
		t.Fatalf("generated key file holds keys %v, want one raw key k1", ring)
	}
	if _, ok := decodeRawKey(strings.TrimPrefix(spec, "k1:")); !ok {
		t.Fatal("generated key is not base64 of 32 bytes")
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]fs.FileMode{path: 0o600, dir: 0o700} {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := info.Mode().Perm(); got != want {
				t.Errorf("%s has mode %v, want %v", p, got, want)
			}
		}
	}

	again, created, err := LoadOrCreateKeyFile(path)
	if err != nil || created || again != spec {
		t.Fatalf("second LoadOrCreateKeyFile: created %v, err %v, same key %v", created, err, again == spec)
	}
	chunks := mustSeal(t, ring, "s1", []byte("survives a restart"), 0)
	if _, err := mustParse(t, again).Open("s1", chunks); err != nil {
		t.Fatalf("key read back does not open what the created key sealed: %v", err)
	}

	if _, err := GenerateKeyFile(path); !errors.Is(err, fs.ErrExist) {
		t.Errorf("GenerateKeyFile over an existing file: got %v, want fs.ErrExist", err)
	}
	if b, err := os.ReadFile(path); err != nil || strings.TrimSpace(string(b)) != spec {
		t.Errorf("GenerateKeyFile changed the existing key file (read error %v)", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("key directory holds %d entries, want only the key file", len(entries))
	}
}

func TestLoadOrCreateKeyFileKeepsOperatorKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemo.key")
	rotated := "k1:" + keyA + ",k2:" + keyB
	if err := os.WriteFile(path, []byte(rotated+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec, created, err := LoadOrCreateKeyFile(path)
	if err != nil || created || spec != rotated {
		t.Fatalf("got spec of %d bytes, created %v, err %v; want the file's keys", len(spec), created, err)
	}
}

func TestLoadOrCreateKeyFileEmptyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemo.key")
	if err := os.WriteFile(path, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateKeyFile(path); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty key file: got %v, want an error saying it is empty", err)
	}
}

func TestLoadOrCreateKeyFileConcurrentStart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mnemo.key")
	const workers = 8
	specs := make([]string, workers)
	created := make([]bool, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Go(func() {
			specs[i], created[i], errs[i] = LoadOrCreateKeyFile(path)
		})
	}
	wg.Wait()
	creators := 0
	for i := range workers {
		if errs[i] != nil {
			t.Fatalf("worker %d: %v", i, errs[i])
		}
		if specs[i] != specs[0] {
			t.Errorf("worker %d got a different key than worker 0", i)
		}
		if created[i] {
			creators++
		}
	}
	if creators != 1 {
		t.Errorf("%d workers report creating the key file, want 1", creators)
	}
}

func TestGenerateKeyFileKeysDiffer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first, err := GenerateKeyFile(filepath.Join(dir, "a.key"))
	if err != nil {
		t.Fatal(err)
	}
	second, err := GenerateKeyFile(filepath.Join(dir, "b.key"))
	if err != nil {
		t.Fatal(err)
	}
	if first == second {
		t.Error("two generated key files hold the same key")
	}
}
