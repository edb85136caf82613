package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mnemo-ai/mnemo/handoff"
)

// routeMiss rewrites the mux's own answers to a request no route serves —
// 404, or 405 with the Allow header when the path exists for other
// methods — into the one JSON error shape. The mux's text body is dropped;
// the Allow header it set is kept.
type routeMiss struct {
	http.ResponseWriter
	method  string
	written bool
}

func (m *routeMiss) WriteHeader(code int) {
	if m.written {
		return
	}
	m.written = true
	if code == http.StatusMethodNotAllowed {
		msg := fmt.Sprintf("this route does not take %s", m.method)
		if allow := m.Header().Get("Allow"); allow != "" {
			msg += "; it takes " + allow
		}
		WriteError(m.ResponseWriter, code, "method_not_allowed", msg)
		return
	}
	WriteError(m.ResponseWriter, http.StatusNotFound, "not_found", "no such route")
}

func (m *routeMiss) Write(b []byte) (int, error) {
	if !m.written {
		m.WriteHeader(http.StatusOK)
	}
	return len(b), nil
}

// writeBodyError answers a body the strict decoders refused: 400 when the
// body as a whole is not one JSON object, 422 naming the field otherwise
// (an unknown or repeated name, a NUL character, a number out of range, a
// value of the wrong type).
func writeBodyError(w http.ResponseWriter, err error) {
	var ve *handoff.ValidationError
	switch {
	case !errors.As(err, &ve):
		WriteError(w, http.StatusBadRequest, "bad_request", "the body could not be read")
	case ve.Field == "body":
		WriteError(w, http.StatusBadRequest, "bad_request", ve.Error())
	default:
		WriteError(w, http.StatusUnprocessableEntity, "invalid", ve.Error())
	}
}
