package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/store"
)

// exportSchema compiles the published archive schema.
func exportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "export.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("export.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("export.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rawGet returns a route's status and body.
func (c client) rawGet(path string) (int, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+serviceToken)
	resp, err := specClient(c.t).Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestUserDataControls goes through what an end user asks of the chat
// service: edit the profile, forget one memory and a category, turn memory
// off, export everything, and be erased — on both databases, with another
// user's data never reachable through the first user's routes.
func TestUserDataControls(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			secret := "ultraviolet-pangolin-harmonica"
			closeMona := func(user, id string, min int, lines ...string) {
				var msgs []map[string]any
				for i, l := range lines {
					msgs = append(msgs, map[string]any{"id": fmt.Sprintf("m%d", i), "role": "user", "content": l, "at": at(min + i)})
				}
				c.closeAndWait(id, map[string]any{"user_id": user, "app": "mona", "started_at": at(min), "ended_at": at(min + 10), "messages": msgs})
			}
			closeMona("ada", "a-1", 0, "My name is Ada. My favorite food is pho.", "I'm feeling calm. I like "+secret+".")
			closeMona("bob", "b-1", 0, "My name is Bob.")

			// Profile: a JSON merge patch recorded as the user's edit.
			code, p := c.do("PATCH", "/v1/users/ada/profile", map[string]any{"pronouns": "she/her", "prefs": map[string]any{"tone": "warm", "emoji": true}})
			if code != 200 || p["version"] != float64(1) {
				t.Fatalf("patch = %d %v", code, p)
			}
			code, p = c.do("PATCH", "/v1/users/ada/profile", map[string]any{"prefs": map[string]any{"emoji": nil}})
			doc, _ := p["profile"].(map[string]any)
			if code != 200 || p["version"] != float64(2) || fmt.Sprint(doc["prefs"]) != "map[tone:warm]" || doc["pronouns"] != "she/her" {
				t.Fatalf("second patch = %d %v", code, p)
			}

			// Forget one memory, then a category; another user's memory stays out of reach.
			mems := memoriesByKey(t, c, "ada")
			bobs := memoriesByKey(t, c, "bob")
			if code, _ := c.do("DELETE", "/v1/users/ada/memories/"+bobs["name"]["id"].(string), nil); code != 404 {
				t.Fatalf("forgetting bob's memory through ada's route = %d; want 404", code)
			}
			if code, _ := c.do("DELETE", "/v1/users/ada/memories/"+mems["favorite_food"]["id"].(string), nil); code != 204 {
				t.Fatalf("forget one = %d", code)
			}
			if code, res := c.do("DELETE", "/v1/users/ada/memories?category=feeling", nil); code != 200 || res["forgotten"] != float64(1) {
				t.Fatalf("forget feelings = %d %v", code, res)
			}
			mems = memoriesByKey(t, c, "ada")
			if _, ok := mems["favorite_food"]; ok || mems["feeling"] != nil || mems["name"]["value"] != "Ada" {
				t.Fatalf("memories after forgetting = %v", mems)
			}
			if memoriesByKey(t, c, "bob")["name"]["value"] != "Bob" {
				t.Fatal("bob's memory was touched")
			}

			// Memory off: a new session is processed but nothing of it kept.
			if code, _ := c.do("PUT", "/v1/users/ada/settings", map[string]any{"memory_enabled": false}); code != 200 {
				t.Fatalf("settings = %d", code)
			}
			closeMona("ada", "a-2", 30, "My favorite color is teal.")
			if _, ok := memoriesByKey(t, c, "ada")["favorite_color"]; ok {
				t.Fatal("a memory was stored while memory was off")
			}
			c.do("PUT", "/v1/users/ada/settings", map[string]any{"memory_enabled": true})

			// Export: 202 while running, then the whole archive.
			code, ex := c.do("POST", "/v1/users/ada/export", nil)
			id, _ := ex["export_id"].(string)
			if code != 202 || id == "" {
				t.Fatalf("export = %d %v", code, ex)
			}
			var archive []byte
			deadline := testwait.GiveUpAt(t)
			for {
				code, body := c.rawGet("/v1/users/ada/exports/" + id)
				if code == 200 {
					archive = body
					break
				}
				if code != 202 || testwait.Past(deadline) {
					t.Fatalf("export status %d: %s", code, body)
				}
				<-time.After(25 * time.Millisecond)
			}
			if !bytes.Contains(archive, []byte(secret)) || !bytes.Contains(archive, []byte(`"memory_audit"`)) || bytes.Contains(archive, []byte("Bob")) {
				t.Fatal("the archive lacks the decrypted transcript or the audit log, or holds another user's data")
			}

			// Erase.
			code, er := c.do("DELETE", "/v1/users/ada", nil)
			if code != 202 || er["erasure_id"] == nil {
				t.Fatalf("erase = %d %v", code, er)
			}
			deadline = testwait.GiveUpAt(t)
			for {
				code, _ := c.do("GET", "/v1/users/ada/memories", nil)
				if code == 404 || c.gone("ada") {
					break
				}
				if testwait.Past(deadline) {
					t.Fatal("the user was not erased")
				}
				<-time.After(25 * time.Millisecond)
			}
			// The user's rows go before the erase job ends (its own record,
			// River's jobs, the WAL): wait for the job.
			if js, _ := er["jobs"].([]any); len(js) == 1 {
				if id, ok := js[0].(map[string]any)["id"].(float64); ok {
					waitJobs(t, url, "completed", int64(id))
				}
			}
			for _, hit := range scanDatabase(t, url, "ada", secret) {
				t.Errorf("after erase: %s", hit)
			}
			if memoriesByKey(t, c, "bob")["name"]["value"] != "Bob" {
				t.Fatal("erasing ada touched bob")
			}
			// The export taken before the erase still validates against the published schema.
			var v any
			if err := json.Unmarshal(archive, &v); err != nil {
				t.Fatal(err)
			}
			if err := exportSchema(t).Validate(v); err != nil {
				t.Fatalf("the archive does not validate against docs/export.schema.json: %v", err)
			}
		})
	}
}

// gone reports whether the user has no profile, memories or sessions left.
func (c client) gone(user string) bool {
	code, _ := c.do("GET", "/v1/users/"+user+"/profile", nil)
	return code == 404
}

// scanDatabase lists every place in the database where needle or plaintext
// appears: every row of every table, and for SQLite the raw files.
func scanDatabase(t *testing.T, url string, needles ...string) []string {
	t.Helper()
	var hits []string
	if path, ok := strings.CutPrefix(url, "sqlite://"); ok {
		for _, f := range []string{path, path + "-wal"} {
			b, _ := os.ReadFile(f)
			for _, n := range needles[1:] {
				if bytes.Contains(b, []byte(n)) {
					hits = append(hits, fmt.Sprintf("%s holds %q", filepath.Base(f), n))
				}
			}
		}
		return append(hits, scanSQLiteTables(t, url, needles...)...)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var tables []string
	rows, err := conn.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	for _, tbl := range tables {
		r, err := conn.Query(ctx, fmt.Sprintf("SELECT t::text FROM %q t", tbl))
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var row string
			_ = r.Scan(&row)
			for _, n := range needles {
				if containsWord(row, n) {
					hits = append(hits, fmt.Sprintf("table %s holds %q", tbl, n))
				}
			}
		}
		r.Close()
	}
	return hits
}

// containsWord finds needle as a whole id, not inside another word.
func containsWord(s, needle string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], needle)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || !isIDChar(s[j-1])
		after := j+len(needle) == len(s) || !isIDChar(s[j+len(needle)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isIDChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// scanSQLiteTables reads every row of every table of a SQLite database.
func scanSQLiteTables(t *testing.T, url string, needles ...string) []string {
	t.Helper()
	db := openTestStore(t, url).(*store.SQLite).DB()
	ctx := context.Background()
	var tables []string
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		_ = rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	var hits []string
	for _, tbl := range tables {
		r, err := db.QueryContext(ctx, fmt.Sprintf("SELECT * FROM %q", tbl))
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := r.Columns()
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var row strings.Builder
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					row.Write(b)
				} else {
					fmt.Fprint(&row, v)
				}
				row.WriteByte(' ')
			}
			for _, n := range needles {
				if containsWord(row.String(), n) {
					hits = append(hits, fmt.Sprintf("table %s holds %q", tbl, n))
				}
			}
		}
		r.Close()
	}
	return hits
}
