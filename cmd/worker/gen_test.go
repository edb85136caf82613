package main

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/store"
)

// runGen runs `worker gen` with args on url, with the key the e2e worker
// uses, and fails the test unless it succeeds.
func runGen(t *testing.T, url string, args ...string) string {
	t.Helper()
	env := map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the e2e tests", "MNEMO_LOG_LEVEL": "error"}
	var out, errOut syncBuffer
	if code := run(context.Background(), append([]string{"gen"}, args...), mapEnv(env), strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("worker gen %v = %d:\n%s", args, code, errOut.String())
	}
	return out.String()
}

// TestGenWritesWhatTheAPIReads fills each database with generated users
// of a preset that keeps memories and of one that seals its derived data,
// then reads them through a real worker's API: the memories listed are the
// generated ones, the context pack tells some of them and the latest
// summary's session, and an export holds every session with its summary
// opened.
func TestGenWritesWhatTheAPIReads(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runGen(t, url, "--app", "mona", "--users", "3", "--sessions", "40", "--memories", "25", "--span", "240h")
			runGen(t, url, "--app", "coach", "--users", "2", "--sessions", "12")
			st := openTestStore(t, url)
			ctx := context.Background()
			all, err := st.ListMemories(ctx, "gen-mona-1", store.MemoryFilter{All: true})
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			deprecated := 0
			for _, m := range all {
				keys[m.Key] = true
				if m.Status == store.MemoryDeprecated {
					deprecated++
				}
			}
			if len(keys) != 25 || deprecated == 0 {
				t.Fatalf("gen-mona-1 has %d memories of %d keys, %d superseded; want 25 keys and some superseded", len(all), len(keys), deprecated)
			}
			stmts, err := st.ListStatements(ctx, "gen-mona-1", nil)
			if err != nil {
				t.Fatal(err)
			}
			perKey := map[string]int{}
			for _, s := range stmts {
				perKey[s.Key]++
			}
			if slices.Max(slices.Collect(maps.Values(perKey))) != 40 {
				t.Fatalf("statements per key %v; want one key said in each of the 40 sessions", perKey)
			}

			c := startWithLLM(t, url, nil)
			listed := memoriesByKey(t, c, "gen-mona-1")
			if len(listed) == 0 {
				t.Fatal("the API lists no active memory of a generated user")
			}
			for k := range listed {
				if !keys[k] {
					t.Fatalf("the API lists memory %q, which gen did not write", k)
				}
			}
			code, pack := c.do("GET", "/v1/users/gen-mona-1/context", nil)
			text, _ := pack["text"].(string)
			told := 0
			for _, m := range listed {
				if strings.Contains(text, m["value"].(string)) {
					told++
				}
			}
			if code != 200 || told == 0 {
				t.Fatalf("context = %d, telling %d of %d active memories:\n%s", code, told, len(listed), text)
			}
			archive := c.exportOf("gen-coach-0")
			sessions, _ := archive["sessions"].([]any)
			if len(sessions) != 12 {
				t.Fatalf("the export of gen-coach-0 holds %d sessions; want 12", len(sessions))
			}
			for _, s := range sessions {
				if sum := s.(map[string]any)["summary"]; sum == nil || strings.Contains(textOf(t, sum), "sealed:v1:") {
					t.Fatalf("a sealed summary does not open in the export: %v", sum)
				}
			}
			if code, p := c.do("GET", "/v1/users/gen-coach-0/profile", nil); code != 200 || strings.Contains(textOf(t, p), "sealed:v1:") {
				t.Fatalf("profile = %d %v", code, p)
			}
		})
	}
}

// TestGenIsDeterministic: one seed, the same rows (sealed bytes aside);
// another seed, others.
func TestGenIsDeterministic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	read := func(file, seed string) []string {
		url := "sqlite://" + filepath.Join(dir, file)
		runGen(t, url, "--app", "mona", "--users", "2", "--sessions", "15", "--memories", "9", "--seed", seed, "--now", "2026-11-01T00:00:00Z")
		st := openTestStore(t, url)
		var out []string
		for _, u := range []string{"gen-mona-0", "gen-mona-1"} {
			ms, err := st.ListMemories(context.Background(), u, store.MemoryFilter{All: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				out = append(out, strings.Join([]string{m.ID, m.Key, m.Value, m.Status, m.SourceSessionID, m.StatedAt.String()}, "|"))
			}
		}
		if len(out) == 0 {
			t.Fatal("gen wrote no memories")
		}
		return out
	}
	a, b, c := read("a.db", "3"), read("b.db", "3"), read("c.db", "4")
	if !slices.Equal(a, b) {
		t.Fatalf("seed 3 twice gives different memories:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatal("seeds 3 and 4 give the same memories")
	}
}
