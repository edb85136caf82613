package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/apperr"
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
		writeError(m.ResponseWriter, apperr.Errorf(apperr.EMethodNotAllowed, "%s", msg))
		return
	}
	writeError(m.ResponseWriter, apperr.Errorf(apperr.ENotFound, "no such route"))
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
		writeError(w, apperr.Errorf(apperr.EBadRequest, "the body could not be read"))
	case ve.Field == "body":
		writeError(w, apperr.Errorf(apperr.EBadRequest, "%s", ve.Error()))
	default:
		writeError(w, apperr.Errorf(apperr.EInvalid, "%s", ve.Error()))
	}
}

// ErrorStatusCode maps an error code onto the HTTP status it is answered
// with: the one place a code gets its status. An unknown code is 500.
func ErrorStatusCode(code apperr.Code) int {
	if status, ok := codeStatus[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}

var codeStatus = map[apperr.Code]int{
	apperr.EBadRequest:       http.StatusBadRequest,
	apperr.EInvalid:          http.StatusUnprocessableEntity,
	apperr.EUnauthorized:     http.StatusUnauthorized,
	apperr.EForbidden:        http.StatusForbidden,
	apperr.ECrossSite:        http.StatusForbidden,
	apperr.ENotFound:         http.StatusNotFound,
	apperr.EMethodNotAllowed: http.StatusMethodNotAllowed,
	apperr.EConflict:         http.StatusConflict,
	apperr.EMoved:            http.StatusGone,
	apperr.ETooLarge:         http.StatusRequestEntityTooLarge,
	apperr.ETooSlow:          http.StatusRequestTimeout,
	apperr.EUnsupportedMedia: http.StatusUnsupportedMediaType,
	apperr.EMisdirected:      http.StatusMisdirectedRequest,
	apperr.EInternal:         http.StatusInternalServerError,
	apperr.EExportFailed:     http.StatusInternalServerError,
	apperr.EUnavailable:      http.StatusServiceUnavailable,
	apperr.EReadOnly:         http.StatusServiceUnavailable,
	apperr.ENotReady:         http.StatusServiceUnavailable,
	apperr.EBusy:             http.StatusServiceUnavailable,
}

// writeError answers err in the one error shape with the status of its
// code. An error that is not an *apperr.Error answers as internal; use
// handlers.fail for errors that may need logging.
func writeError(w http.ResponseWriter, err error) {
	code := apperr.CodeOf(err)
	WriteError(w, ErrorStatusCode(code), string(code), apperr.MessageOf(err))
}
