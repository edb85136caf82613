package apperr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/apperr"
)

// TestCodeAndMessageSurviveWrapping: a refusal wrapped on its way up keeps
// its code and message; any other error is internal and tells nothing.
func TestCodeAndMessageSurviveWrapping(t *testing.T) {
	refused := fmt.Errorf("in tx: %w", apperr.Errorf(apperr.ETooLarge, "the profile would be %d bytes", 70))
	if got := apperr.CodeOf(refused); got != apperr.ETooLarge {
		t.Errorf("CodeOf = %q, want too_large", got)
	}
	if got := apperr.MessageOf(refused); got != "the profile would be 70 bytes" {
		t.Errorf("MessageOf = %q", got)
	}
	secret := errors.New("dial tcp 10.0.0.7:5432: connection refused")
	if apperr.CodeOf(secret) != apperr.EInternal || apperr.MessageOf(secret) != "internal error" {
		t.Errorf("a plain error answers %q %q, want internal", apperr.CodeOf(secret), apperr.MessageOf(secret))
	}
	if apperr.CodeOf(nil) != "" || apperr.MessageOf(nil) != "" {
		t.Error("nil has a code or message")
	}
}
