package api

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/mnemo-ai/mnemo/internal/apperr"
)

// DefaultBodyWait is how long a request waits for room among the body bytes
// in flight before it is answered 503 busy.
const DefaultBodyWait = 2 * time.Second

// bodyBudget bounds the request body bytes the server holds at once: a
// request with a body reserves its announced length (the body limit when it
// announces none, or more than that) before its body is read, and gives it
// back when its answer is written. Decoding, validating and storing a body
// take a few times its size, so this bounds the memory concurrent large
// handoffs take, rather than the number of requests.
type bodyBudget struct {
	sem     *semaphore.Weighted
	maxBody int64
	wait    time.Duration
	log     *slog.Logger
}

func newBodyBudget(inFlight, maxBody int64, wait time.Duration, log *slog.Logger) *bodyBudget {
	if inFlight <= 0 || maxBody <= 0 {
		return nil
	}
	if wait <= 0 {
		wait = DefaultBodyWait
	}
	return &bodyBudget{sem: semaphore.NewWeighted(inFlight), maxBody: min(maxBody, inFlight), wait: wait, log: log}
}

// admit reserves r's body bytes, waiting up to the budget's wait under the
// request's context; false means the request was answered 503 busy with
// Retry-After. release gives the bytes back.
func (b *bodyBudget) admit(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	if r.ContentLength == 0 || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
		return func() {}, true
	}
	n := b.maxBody
	if r.ContentLength > 0 && r.ContentLength < n {
		n = r.ContentLength
	}
	ctx, cancel := context.WithTimeout(r.Context(), b.wait)
	defer cancel()
	if err := b.sem.Acquire(ctx, n); err != nil {
		w.Header().Set("Retry-After", "1")
		b.log.WarnContext(r.Context(), "request refused: too many body bytes in flight", slog.String("path", r.URL.Path), slog.Int64("bytes", n))
		writeError(w, apperr.Errorf(apperr.EBusy, "the server holds as many request bodies as it may; send the request again after Retry-After"))
		return nil, false
	}
	return func() { b.sem.Release(n) }, true
}

// wrap admits h's requests' bodies first.
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
		h.ServeHTTP(w, r)
	})
}
