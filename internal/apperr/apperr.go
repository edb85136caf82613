// Package apperr holds Mnemo's typed errors: an error that carries a Code
// and a message meant for the caller. Code that refuses a request returns
// Errorf(code, …); the HTTP layer maps each code onto a status in one place
// (api.ErrorStatusCode). Any other error is internal: its text is for the
// log, never for the caller.
package apperr

import (
	"errors"
	"fmt"
)

// Code names what went wrong, as the API's error body spells it.
type Code string

// The codes a caller can be told.
const (
	EBadRequest       Code = "bad_request"            // the request cannot be read as sent
	EInvalid          Code = "invalid"                // a field breaks a rule
	EUnauthorized     Code = "unauthorized"           // no token, or not a valid one
	EForbidden        Code = "forbidden"              // the token may not do this
	ECrossSite        Code = "cross_site"             // a browser sent it from another site
	ENotFound         Code = "not_found"              // no such thing, or not the caller's to know of
	EMethodNotAllowed Code = "method_not_allowed"     // the route takes other methods
	EConflict         Code = "conflict"               // conflicts with the stored state
	EMoved            Code = "moved"                  // the route is gone; the message says where to go
	ETooLarge         Code = "too_large"              // a body or profile over its limit
	EUnsupportedMedia Code = "unsupported_media_type" // the body is not JSON
	EMisdirected      Code = "misdirected_request"    // a Host this server does not serve
	EInternal         Code = "internal"               // a failure the caller cannot act on
	EExportFailed     Code = "export_failed"          // an export could not be built
	EUnavailable      Code = "unavailable"            // the database is unreachable or too slow
	EReadOnly         Code = "read_only"              // the database accepts no writes
	ENotReady         Code = "not_ready"              // the server cannot serve yet
	EBusy             Code = "busy"                   // too much in flight; try again
	ETooSlow          Code = "too_slow"               // the body arrived slower than the minimum rate
)

// Error is an error the caller may be told: a Code and a message.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// Errorf returns an *Error of code with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of the first *Error in err's chain, "" for nil
// and EInternal for any other error.
func CodeOf(err error) Code {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	}
	return EInternal
}

// MessageOf returns the message of the first *Error in err's chain, "" for
// nil and "internal error" for any other error.
func MessageOf(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	}
	return "internal error"
}
