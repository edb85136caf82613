package store_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestConformance runs the one conformance suite on every backend available:
// SQLite always, Postgres when TEST_DATABASE_URL is set (mandatory in CI).
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			storetest.Exercise(t, b)
		})
	}
}
