package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/store"
)

// TestExportsAndErasureLeaveNoCopies (issue 13, items 1 and 3) over HTTP on
// both databases: an export is bound to its user; forgetting every category
// deletes the old export (404); memory off deletes exports and keeps no
// coach transcript; the retention batch deletes exports past the export TTL
// (time driven by --now); an erase leaves no River job whose args, log
// lines or errors name the user's sessions.
func TestExportsAndErasureLeaveNoCopies(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			st := openTestStore(t, url)
			ctx := context.Background()
			secret := "tangerine-zeppelin-quartet"
			closeMona := func(user, id string, min int, lines ...string) {
				var msgs []map[string]any
				for i, l := range lines {
					msgs = append(msgs, map[string]any{"id": fmt.Sprintf("m%d", i), "role": "user", "content": l, "at": at(min + i)})
				}
				c.closeAndWait(id, map[string]any{"user_id": user, "app": "mona", "started_at": at(min), "ended_at": at(min + 10), "messages": msgs})
			}
			export := func(user string) (string, []byte) {
				t.Helper()
				code, ex := c.do("POST", "/v1/users/"+user+"/export", nil)
				id, _ := ex["export_id"].(string)
				if code != 202 || id == "" || ex["url"] != "/v1/users/"+user+"/exports/"+id {
					t.Fatalf("export = %d %v", code, ex)
				}
				deadline := testwait.GiveUpAt(t)
				for {
					code, h, body := c.rawGetHeader("/v1/users/" + user + "/exports/" + id)
					if code == 200 {
						// The archive is the user's data: a browser must not
						// sniff it into a page, nor any cache keep it.
						if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "no-store" {
							t.Fatalf("the archive is served with X-Content-Type-Options %q, Cache-Control %q; want nosniff, no-store",
								h.Get("X-Content-Type-Options"), h.Get("Cache-Control"))
						}
						return id, body
					}
					if code != 202 || testwait.Past(deadline) {
						t.Fatalf("export status %d: %s", code, body)
					}
					<-time.After(25 * time.Millisecond)
				}
			}
			closeMona("cleo", "cleo-s1", 0, "My name is Cleo. I like "+secret+".", "I'm feeling calm.")
			closeMona("dan", "dan-s1", 0, "My name is Dan.")

			// Bound to the user: another user's path does not reach it, the
			// old unbound path points to the new one.
			id, archive := export("cleo")
			if !bytes.Contains(archive, []byte(secret)) {
				t.Fatal("the archive lacks the user's memory")
			}
			if code, _ := c.rawGet("/v1/users/dan/exports/" + id); code != 404 {
				t.Fatalf("cleo's export through dan's path = %d; want 404", code)
			}
			if code, body := c.rawGet("/v1/exports/" + id); code != 410 || !strings.Contains(string(body), "/v1/users/{user_id}/exports/{export_id}") {
				t.Fatalf("old export path = %d %s; want 410 naming the new path", code, body)
			}

			// Forget every category: nothing is left, and the old export is gone.
			for _, cat := range []string{"fact", "preference", "event", "feeling", "other"} {
				if code, _ := c.do("DELETE", "/v1/users/cleo/memories?category="+cat, nil); code != 200 {
					t.Fatalf("forget %s = %d", cat, code)
				}
			}
			if code, body := c.rawGet("/v1/users/cleo/memories?status=all"); code != 200 || !bytes.Contains(body, []byte(`"memories":[]`)) {
				t.Fatalf("memories after forgetting all = %d %s", code, body)
			}
			if code, body := c.rawGet("/v1/users/cleo/exports/" + id); code != 404 || bytes.Contains(body, []byte(secret)) {
				t.Fatalf("the export after forgetting everything = %d %s; want 404", code, body)
			}
			if _, err := st.GetExport(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the forgotten export's row: %v", err)
			}

			// Memory off deletes exports, and a coach session keeps no transcript.
			closeMona("cleo", "cleo-s2", 20, "I like "+secret+" again.")
			id, _ = export("cleo")
			if code, _ := c.do("PUT", "/v1/users/cleo/settings", map[string]any{"memory_enabled": false}); code != 200 {
				t.Fatalf("settings = %d", code)
			}
			if code, _ := c.rawGet("/v1/users/cleo/exports/" + id); code != 404 {
				t.Fatalf("an export after memory off = %d; want 404", code)
			}
			coach := func(id string, min int) map[string]any {
				return c.closeAndWait(id, map[string]any{"user_id": "gus", "app": "coach", "started_at": at(min), "ended_at": at(min + 30),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "I keep putting off the " + secret + " project.", "at": at(min + 1)}}})
			}
			if s := coach("gus-s1", 0); s["transcript_retained"] != true {
				t.Fatalf("coach keeps its transcript with memory on: %v", s["transcript_retained"])
			}
			if code, _ := c.do("PUT", "/v1/users/gus/settings", map[string]any{"memory_enabled": false}); code != 200 {
				t.Fatal("settings")
			}
			if s := coach("gus-s2", 40); s["transcript_retained"] != false {
				t.Fatalf("coach session with memory off: transcript_retained = %v; want false", s["transcript_retained"])
			}
			if chunks, err := st.ListChunks(ctx, "gus-s2"); err != nil || len(chunks) != 0 {
				t.Fatalf("a coach transcript was kept with memory off: %d chunks, %v", len(chunks), err)
			}

			// Expiry: the retention batch, acting later with --now, deletes an
			// export past the TTL (48h here) and keeps a younger one.
			c.do("PUT", "/v1/users/cleo/settings", map[string]any{"memory_enabled": true})
			id, _ = export("cleo")
			env := mapEnv(map[string]string{"DATABASE_URL": url, "MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the e2e tests", "MNEMO_EXPORT_TTL": "48h"})
			retention := func(now time.Time) {
				t.Helper()
				var out, errOut bytes.Buffer
				if code := run(ctx, []string{"batch", "run", "retention", "--now", now.Format(time.RFC3339)}, env, strings.NewReader(""), &out, &errOut); code != 0 {
					t.Fatalf("batch run retention: exit %d: %s", code, errOut.String())
				}
			}
			retention(time.Now().Add(24 * time.Hour))
			if code, _ := c.rawGet("/v1/users/cleo/exports/" + id); code != 200 {
				t.Fatalf("an export a day old = %d; want 200", code)
			}
			retention(time.Now().Add(49 * time.Hour))
			if code, _ := c.rawGet("/v1/users/cleo/exports/" + id); code != 404 {
				t.Fatalf("an export past the TTL = %d; want 404", code)
			}
			if _, err := st.GetExport(ctx, id); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("the expired export's row: %v", err)
			}

			// Erase: no River job keeps the user's session or export ids.
			id, _ = export("cleo")
			names := []string{"cleo-s1", "cleo-s2", id}
			if n := jobsNaming(t, st, names...); n == 0 {
				t.Fatal("no River job names cleo's sessions before the erase: the check below proves nothing")
			}
			if code, _ := c.do("DELETE", "/v1/users/cleo", nil); code != 202 {
				t.Fatalf("erase = %d", code)
			}
			deadline := testwait.GiveUpAt(t)
			for jobsNaming(t, st, names...) > 0 || !c.gone("cleo") {
				if testwait.Past(deadline) {
					t.Fatalf("after erase, %d River jobs still name cleo's sessions or export", jobsNaming(t, st, names...))
				}
				<-time.After(25 * time.Millisecond)
			}
			if n := jobsNaming(t, st, "dan-s1"); n == 0 {
				t.Fatal("erasing cleo deleted dan's jobs")
			}
		})
	}
}

// jobsNaming counts River's jobs whose args, metadata (log lines) or errors
// hold one of ids.
func jobsNaming(t *testing.T, st store.Store, ids ...string) int {
	t.Helper()
	ctx := context.Background()
	total := 0
	for _, id := range ids {
		var n int
		var err error
		switch db := st.Raw().(type) {
		case *pgxpool.Pool:
			err = db.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE strpos(args::text || metadata::text || coalesce(errors::text, ''), $1) > 0`, id).Scan(&n)
		case *sql.DB:
			err = db.QueryRowContext(ctx, `SELECT count(*) FROM river_job WHERE instr(json(args) || json(metadata) || coalesce(json(errors), ''), ?1) > 0`, id).Scan(&n)
		default:
			t.Fatalf("unknown store %T", st.Raw())
		}
		if err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

// FuzzParseExportTTL: the export TTL setting is a duration from a minute to
// 30 days or an error naming the value; it never panics.
func FuzzParseExportTTL(f *testing.F) {
	for _, s := range []string{"168h", "1m", "720h", "721h", "59s", "", "-1h", "1e9h", "7d", "9223372036854775807ns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseExportTTL(s)
		if err != nil {
			if d != 0 || !strings.Contains(err.Error(), "from 1m to 720h") {
				t.Fatalf("parseExportTTL(%q) = %v, %v", s, d, err)
			}
			return
		}
		if d < time.Minute || d > 720*time.Hour {
			t.Fatalf("parseExportTTL(%q) = %v: out of bounds", s, d)
		}
	})
}

func TestExportTTLSetting(t *testing.T) {
	for s, ok := range map[string]bool{"168h": true, "1m": true, "720h": true, "30s": false, "721h": false, "week": false} {
		if _, err := parseExportTTL(s); (err == nil) != ok {
			t.Errorf("parseExportTTL(%q) error %v; want ok=%v", s, err, ok)
		}
	}
	def := ""
	for _, st := range settings {
		if st.flag == "export-ttl" && st.env == "MNEMO_EXPORT_TTL" {
			def = st.def
		}
	}
	if d, err := parseExportTTL(def); err != nil || d != 7*24*time.Hour {
		t.Fatalf("export-ttl default %q = %v, %v; want 7 days", def, d, err)
	}
}

// rawGetHeader is rawGet with the answer's headers.
func (c client) rawGetHeader(path string) (int, http.Header, []byte) {
	c.t.Helper()
	req, _ := http.NewRequest("GET", c.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+serviceToken)
	resp, err := specClient(c.t).Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}
