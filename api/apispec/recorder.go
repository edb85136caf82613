package apispec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// Recorder checks exchanges against a Spec, reports each failure through
// the testing.TB of the test that made the exchange (or keeps it, when
// there is none, for Failures), and counts the operations and statuses it
// checked.
type Recorder struct {
	spec *Spec

	mu       sync.Mutex
	statuses map[string]map[int]int // operation key → status → exchanges
	unrouted int
	subtree  int
	failures []string
}

// NewRecorder records exchanges checked against spec.
func NewRecorder(spec *Spec) *Recorder {
	return &Recorder{spec: spec, statuses: map[string]map[int]int{}}
}

// MustRecorder is a Recorder of the document embedded in package api; it
// panics when the document does not load.
func MustRecorder() *Recorder {
	s, err := Load()
	if err != nil {
		panic(err)
	}
	return NewRecorder(s)
}

// Spec is the recorder's document.
func (r *Recorder) Spec() *Spec { return r.spec }

// Record checks x and counts it; a failure goes to tb (nil: kept for
// Failures).
func (r *Recorder) Record(tb testing.TB, x *Exchange) {
	res, err := r.spec.Check(x)
	r.mu.Lock()
	switch res.Outcome {
	case Checked:
		m := r.statuses[res.Op.Key()]
		if m == nil {
			m = map[int]int{}
			r.statuses[res.Op.Key()] = m
		}
		m[x.Status]++
	case Unrouted:
		r.unrouted++
	case Subtree:
		r.subtree++
	}
	r.mu.Unlock()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("openapi: %s %s → %d: %v\n  request body: %s\n  answer body: %s",
		x.Method, x.URL.RequestURI(), x.Status, err, clip(x.RequestBody), clip(x.ResponseBody))
	if tb != nil {
		tb.Helper()
		tb.Error(msg)
		return
	}
	r.mu.Lock()
	r.failures = append(r.failures, msg)
	r.mu.Unlock()
}

func clip(b []byte) string {
	const n = 400
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + fmt.Sprintf("… (%d bytes)", len(b))
}

// Used reports whether any exchange was recorded.
func (r *Recorder) Used() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.statuses) > 0 || r.unrouted > 0 || r.subtree > 0
}

// Failures are the failures of exchanges recorded without a testing.TB.
func (r *Recorder) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.failures)
}

// Exercised maps each operation checked at least once to the statuses it
// was answered with, ascending.
func (r *Recorder) Exercised() map[string][]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]int{}
	for k, m := range r.statuses {
		for s := range m {
			out[k] = append(out[k], s)
		}
		slices.Sort(out[k])
	}
	return out
}

// Unexercised lists the documented operations no exchange was checked
// against, by key.
func (r *Recorder) Unexercised() []string {
	seen := r.Exercised()
	var out []string
	for _, o := range r.spec.ops {
		if _, ok := seen[o.Key()]; !ok {
			out = append(out, o.Key())
		}
	}
	return out
}

// Report describes what was checked: per documented operation the statuses
// seen (none when it was not exercised), then the unrouted and subtree
// exchanges.
func (r *Recorder) Report() string {
	seen := r.Exercised()
	var sb strings.Builder
	for _, o := range r.spec.ops {
		fmt.Fprintf(&sb, "%-52s %v\n", o.Key(), seen[o.Key()])
	}
	r.mu.Lock()
	fmt.Fprintf(&sb, "unrouted exchanges: %d; under a subtree (River UI): %d\n", r.unrouted, r.subtree)
	r.mu.Unlock()
	return sb.String()
}

// WriteReport writes the statuses seen per operation as JSON to path, when
// path is not empty (for comparing suites).
func (r *Recorder) WriteReport(path string) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(r.Exercised(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Transport wraps next (nil: http.DefaultTransport) so that every exchange
// through it is checked and recorded, failures reported to tb.
func (r *Recorder) Transport(tb testing.TB, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{r: r, tb: tb, next: next}
}

// Client is an http.Client whose transport checks every exchange.
func (r *Recorder) Client(tb testing.TB) *http.Client {
	return &http.Client{Transport: r.Transport(tb, nil)}
}

type transport struct {
	r    *Recorder
	tb   testing.TB
	next http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.r.spec.InSubtree(req.URL.Path) {
		t.r.mu.Lock()
		t.r.subtree++
		t.r.mu.Unlock()
		return t.next.RoundTrip(req)
	}
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if err != nil {
		return resp, nil // the reader of the body sees the error's effect: a short body
	}
	t.r.Record(t.tb, &Exchange{Method: req.Method, URL: req.URL, RequestHeader: req.Header, RequestBody: reqBody,
		Status: resp.StatusCode, ResponseHeader: resp.Header, ResponseBody: respBody})
	return resp, nil
}

// Serve serves req with h in-process, writing to w, and checks and records
// the exchange (tb nil: failures kept for Failures).
func (r *Recorder) Serve(tb testing.TB, h http.Handler, w http.ResponseWriter, req *http.Request) {
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err == nil {
			reqBody = b
		}
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	cw := &captureWriter{ResponseWriter: w}
	h.ServeHTTP(cw, req)
	if r.spec.InSubtree(req.URL.Path) {
		r.mu.Lock()
		r.subtree++
		r.mu.Unlock()
		return
	}
	if tb != nil {
		tb.Helper()
	}
	r.Record(tb, &Exchange{Method: req.Method, URL: req.URL, RequestHeader: req.Header, RequestBody: reqBody,
		Status: cw.code(), ResponseHeader: w.Header(), ResponseBody: cw.body.Bytes()})
}

// captureWriter keeps the status and body a handler writes.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

func (c *captureWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *captureWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

func (c *captureWriter) code() int {
	if c.status == 0 {
		return http.StatusOK
	}
	return c.status
}
