package api_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestBodyShareIsPerToken (issue 34 §4): one tenant announcing large bodies
// and sending them slowly held the whole body budget, and every other
// app's handoff was answered 503 busy. Each token now holds at most its
// share: the tenant's third and fourth bodies are refused 503 busy naming
// the share, while another token's handoff beside them is accepted.
func TestBodyShareIsPerToken(t *testing.T) {
	t.Parallel()
	b := storetest.Backends(t)[0]
	srv, _, _ := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
		cfg.Tokens = append(cfg.Tokens, api.Token{Scope: api.ScopeService, Value: monaToken, App: "mona"})
		cfg.MaxBodyBytes, cfg.BodyBytesInFlight, cfg.BodyBytesPerToken, cfg.BodyWait = 64<<10, 256<<10, 128<<10, 20*time.Millisecond
	})
	send := func(path, bearer string, n int, r io.Reader) *http.Request {
		req := httptest.NewRequest("POST", path, r)
		req.ContentLength = int64(n)
		req.Header.Set("Authorization", "Bearer "+bearer)
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	// The tenant's four bodies of 64 KiB each send a few bytes and stall.
	type slow struct {
		pw   *io.PipeWriter
		done chan *httptest.ResponseRecorder
	}
	var held []slow
	var refused []*httptest.ResponseRecorder
	for i := range 4 {
		pr, pw := io.Pipe()
		first := &firstRead{Reader: pr, read: make(chan struct{})}
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, send(fmt.Sprintf("/v1/sessions/s-slow-%d/close", i), monaToken, 64<<10, first))
			done <- rec
		}()
		go func() { _, _ = io.WriteString(pw, "{") }()
		select {
		case <-first.read: // admitted: its body is being read
			held = append(held, slow{pw, done})
		case rec := <-done:
			refused = append(refused, rec)
		}
	}
	t.Cleanup(func() {
		for _, s := range held {
			s.pw.CloseWithError(io.ErrUnexpectedEOF)
			<-s.done
		}
	})
	if len(held) != 2 || len(refused) != 2 {
		t.Errorf("the tenant's 4 stalled bodies of 64 KiB: %d admitted, %d refused; want 2 and 2 (a share of 128 KiB)", len(held), len(refused))
	}
	for _, rec := range refused {
		if rec.Code != 503 || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), "MNEMO_MAX_BODY_BYTES_PER_TOKEN") {
			t.Errorf("a body beyond the token's share = %d %s; want 503 busy naming the share", rec.Code, rec.Body)
		}
	}

	// Another token's handoff goes through beside them.
	other := padded("o", 60<<10)
	rec := httptest.NewRecorder()
	served(t, srv, rec, send("/v1/sessions/s-other/close", token, len(other), strings.NewReader(other)))
	if rec.Code != 202 {
		t.Fatalf("another token's handoff beside the stalled tenant = %d %s; want 202", rec.Code, rec.Body)
	}
}

// TestSlowBodyIsCutOff (issue 34 §4): a body announced large and sent a
// byte at a time held its reservation until the server's read timeout, and
// could renew it forever. A body that falls behind the minimum rate (here
// 1 KiB/s after 100 ms, by small settings rather than a wait) is now cut
// off with 408 too_slow, and its bytes are given back: the next body, which
// needs the whole budget, is accepted. A body sent in explicit steps at a
// steady pace is not cut off. Over a real connection, on both databases.
func TestSlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, _, _ := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
				// The budget holds one body: the slow one's bytes must come back.
				cfg.MaxBodyBytes, cfg.BodyBytesInFlight, cfg.BodyWait = 64<<10, 64<<10, 20*time.Millisecond
				cfg.MinBodyBytesPerSecond, cfg.BodyRateGrace = 1024, 100*time.Millisecond
			})
			ts := httptest.NewServer(srv)
			t.Cleanup(ts.Close)
			addr := ts.Listener.Addr().String()
			giveUp := testwait.GiveUpAt(t)

			// post sends the head of a handoff announcing n body bytes, then
			// each step of body; the answer is read once the steps are sent.
			post := func(id string, n int, steps ...string) (*http.Response, string) {
				t.Helper()
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = conn.Close() })
				if _, err := fmt.Fprintf(conn, "POST /v1/sessions/%s/close HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
					id, addr, token, n); err != nil {
					t.Fatal(err)
				}
				for _, s := range steps {
					if _, err := io.WriteString(conn, s); err != nil {
						t.Fatal(err)
					}
				}
				if !giveUp.IsZero() {
					_ = conn.SetReadDeadline(giveUp)
				}
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatalf("no answer to %s: %v", id, err)
				}
				defer resp.Body.Close()
				got, _ := io.ReadAll(resp.Body)
				return resp, string(got)
			}

			whole := padded("slow", 60<<10)
			// Ten bytes of 60 KiB, then nothing: cut off once 100 ms and
			// ten bytes' worth of 1 KiB/s have passed.
			resp, got := post("s-slow", len(whole), whole[:10])
			if resp.StatusCode != 408 || !strings.Contains(got, `"code":"too_slow"`) || !strings.Contains(got, "MNEMO_MIN_BODY_BYTES_PER_SECOND") {
				t.Fatalf("a stalled body = %d %s; want 408 too_slow naming the setting", resp.StatusCode, got)
			}
			// Its reservation is back: a body that needs the whole budget fits.
			steady := padded("steady", 60<<10)
			resp, got = post("s-steady", len(steady), steady[:20<<10], steady[20<<10:40<<10], steady[40<<10:])
			if resp.StatusCode != 202 {
				t.Fatalf("a body sent in three steps after the slow one = %d %s; want 202", resp.StatusCode, got)
			}
			// The stalled session was not stored; the steady one was.
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, authorized(httptest.NewRequestWithContext(context.Background(), "GET", "/v1/sessions/s-slow", nil)))
			if rec.Code != 404 {
				t.Fatalf("GET the cut-off session = %d; want 404", rec.Code)
			}
		})
	}
}

func authorized(req *http.Request) *http.Request {
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}
