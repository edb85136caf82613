package api

import (
	"bytes"
	_ "embed"
	"net/http"
)

// openAPIDoc is the OpenAPI 3.1 document of the HTTP API, api/openapi.json.
// Package api/apispec checks the tests' requests and answers against it.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPI returns the OpenAPI 3.1 document of the HTTP API (api/openapi.json).
func OpenAPI() []byte { return bytes.Clone(openAPIDoc) }

// serveOpenAPI answers GET /openapi.json, without a token: the document
// holds no secret.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(openAPIDoc)
}
