package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/mnemo-ai/mnemo/internal/apperr"
)

// DefaultBodyWait is how long a request waits for room among the body bytes
// in flight before it is answered 503 busy.
const DefaultBodyWait = 2 * time.Second

// DefaultBodyRateGrace is how long a request body may take to start
// arriving before the minimum rate applies (Config.MinBodyBytesPerSecond).
const DefaultBodyRateGrace = 5 * time.Second

// bodyBudget bounds the request body bytes the server holds at once: a
// request with a body reserves its announced length (the body limit when it
// announces none, or more than that) before its body is read, and gives it
// back when its answer is written. Decoding, validating and storing a body
// take a few times its size, so this bounds the memory concurrent large
// handoffs take, rather than the number of requests.
//
// One token's requests hold at most perToken of those bytes, so that a
// tenant that announces large bodies and sends them slowly fills its own
// share and not the whole budget; and a body must keep arriving at minRate
// bytes a second (after grace), or it is cut off with 408, its bytes given
// back.
type bodyBudget struct {
	sem      *semaphore.Weighted // nil: no bound on the bytes in flight
	maxBody  int64
	perToken int64
	wait     time.Duration
	log      *slog.Logger

	minRate  int64 // bytes a second; 0: no minimum
	grace    time.Duration
	readTime time.Duration // the longest a body may take at any rate; 0: no bound

	mu     sync.Mutex
	shares map[string]*semaphore.Weighted // by tokenOf; one per configured token, and open mode's
}

func newBodyBudget(cfg Config, log *slog.Logger) *bodyBudget {
	inFlight, maxBody := cfg.BodyBytesInFlight, cfg.MaxBodyBytes
	if (inFlight <= 0 || maxBody <= 0) && cfg.MinBodyBytesPerSecond <= 0 {
		return nil
	}
	b := &bodyBudget{wait: orDefault(cfg.BodyWait, DefaultBodyWait), log: log, minRate: max(cfg.MinBodyBytesPerSecond, 0),
		grace: orDefault(cfg.BodyRateGrace, DefaultBodyRateGrace), readTime: max(cfg.BodyReadTimeout, 0), shares: map[string]*semaphore.Weighted{}}
	if inFlight > 0 && maxBody > 0 {
		b.sem, b.maxBody = semaphore.NewWeighted(inFlight), min(maxBody, inFlight)
		b.perToken = inFlight
		if cfg.BodyBytesPerToken > 0 {
			b.perToken = min(max(cfg.BodyBytesPerToken, b.maxBody), inFlight)
		}
	}
	return b
}

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// share is the semaphore of one token's share.
func (b *bodyBudget) share(token string) *semaphore.Weighted {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.shares[token]
	if s == nil {
		s = semaphore.NewWeighted(b.perToken)
		b.shares[token] = s
	}
	return s
}

// admit reserves r's body bytes, in its token's share and in the whole
// budget, waiting up to the budget's wait under the request's context;
// false means the request was answered 503 busy with Retry-After. release
// gives the bytes back.
func (b *bodyBudget) admit(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	if b.sem == nil || r.ContentLength == 0 || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		return func() {}, true
	}
	n := b.maxBody
	if r.ContentLength > 0 && r.ContentLength < n {
		n = r.ContentLength
	}
	ctx, cancel := context.WithTimeout(r.Context(), b.wait)
	defer cancel()
	share := b.share(tokenOf(r))
	busy := func(why, msg string) (func(), bool) {
		w.Header().Set("Retry-After", "1")
		b.log.WarnContext(r.Context(), why, slog.String("path", r.URL.Path), slog.Int64("bytes", n))
		writeError(w, apperr.Errorf(apperr.EBusy, "%s", msg))
		return nil, false
	}
	if err := share.Acquire(ctx, n); err != nil {
		return busy("request refused: the token's share of the body bytes in flight is full",
			fmt.Sprintf("this token's requests hold as many body bytes as one token may (%d, MNEMO_MAX_BODY_BYTES_PER_TOKEN); send the request again after Retry-After", b.perToken))
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		share.Release(n)
		return busy("request refused: too many body bytes in flight",
			"the server holds as many request bodies as it may; send the request again after Retry-After")
	}
	return func() { b.sem.Release(n); share.Release(n) }, true
}

// wrap admits h's requests' bodies first, and holds them to the minimum
// rate while h reads them.
func (b *bodyBudget) wrap(h http.Handler) http.Handler {
	if b == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := b.admit(w, r)
		if !ok {
			return
		}
		defer release()
		if b.minRate > 0 && r.Body != nil && r.Body != http.NoBody {
			rr := &rateReader{body: r.Body, rc: http.NewResponseController(w), start: time.Now(), minRate: b.minRate, grace: b.grace, readTime: b.readTime}
			r.Body = rr
		}
		h.ServeHTTP(w, r)
	})
}

// ErrSlowBody is a request body that arrived slower than the minimum rate.
var ErrSlowBody = errors.New("the request body arrived slower than the minimum rate")

// rateReader cuts a body off when it arrives slower than minRate bytes a
// second after grace: before each read it sets the connection's read
// deadline to the moment the bytes read so far stop being enough, so a
// client that sends a byte every few seconds is cut off at the first gap
// the rate does not cover, not after the server's read timeout. Where the
// connection takes no deadline (a test's recorder, HTTP/2 without one) it
// reads as the body does.
type rateReader struct {
	body     io.ReadCloser
	rc       *http.ResponseController
	start    time.Time
	minRate  int64
	grace    time.Duration
	readTime time.Duration
	n        int64
	deadline time.Time
	noDeadln bool
	slow     bool
	finished bool
}

func (r *rateReader) Read(p []byte) (int, error) {
	if r.slow {
		return 0, ErrSlowBody
	}
	if !r.noDeadln && !r.finished {
		d := r.start.Add(r.grace + time.Duration(float64(r.n)/float64(r.minRate)*float64(time.Second)))
		if r.readTime > 0 {
			d = minTime(d, r.start.Add(r.readTime))
		}
		if !d.Equal(r.deadline) {
			if err := r.rc.SetReadDeadline(d); err != nil {
				r.noDeadln = true
			} else {
				r.deadline = d
			}
		}
	}
	n, err := r.body.Read(p)
	r.n += int64(n)
	var ne net.Error
	switch {
	case err == io.EOF:
		r.done()
	case err != nil && !r.noDeadln && errors.As(err, &ne) && ne.Timeout():
		r.slow = true
		return n, fmt.Errorf("%w (%s bytes in %s)", ErrSlowBody, strconv.FormatInt(r.n, 10), time.Since(r.start).Round(time.Millisecond))
	}
	return n, err
}

func (r *rateReader) Close() error { return r.body.Close() }

// done lifts the rate's deadline once the body is read to its end: what
// the handler does next is not the client's to hurry, and a deadline passing
// under the server's wait for the next request would cancel the request's
// context. The server's own read timeout (readTime) is kept. A body the
// handler leaves unread keeps the rate's deadline, which bounds the
// server's read of its rest after the answer.
func (r *rateReader) done() {
	if r.finished || r.noDeadln || r.deadline.IsZero() {
		r.finished = true
		return
	}
	r.finished = true
	var d time.Time
	if r.readTime > 0 {
		d = r.start.Add(r.readTime)
	}
	_ = r.rc.SetReadDeadline(d)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// tokenOf names the token r was admitted with, for its share of the body
// budget: one name per configured token, and one for every request of open
// mode.
func tokenOf(r *http.Request) string {
	if i, ok := r.Context().Value(tokenKey{}).(int); ok {
		return "token:" + strconv.Itoa(i)
	}
	return "open"
}
