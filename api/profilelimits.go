package api

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/mnemo-ai/mnemo/internal/apperr"
	"github.com/mnemo-ai/mnemo/prompts"
)

// ProfileLimits bound a user's profile, as a PATCH would leave it: a
// profile of 200 000 fields took a PATCH 37 s to write and answered 91 MB
// to every read. Zero takes the default.
type ProfileLimits struct {
	// MaxFields is how many top-level fields a profile may hold (and a
	// PATCH may name).
	MaxFields int
	// MaxDepth is how deep a field's value may nest (a scalar is 0).
	MaxDepth int
	// MaxValueBytes is how large one field's value may be, as JSON.
	MaxValueBytes int
	// MaxBytes is how large the whole profile may be, as JSON.
	MaxBytes int
}

// Defaults of ProfileLimits.
const (
	DefaultProfileMaxFields     = 256
	DefaultProfileMaxDepth      = 8
	DefaultProfileMaxValueBytes = 4 << 10
	DefaultProfileMaxBytes      = 64 << 10
)

func (l ProfileLimits) withDefaults() ProfileLimits {
	if l.MaxFields <= 0 {
		l.MaxFields = DefaultProfileMaxFields
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultProfileMaxDepth
	}
	if l.MaxValueBytes <= 0 {
		l.MaxValueBytes = DefaultProfileMaxValueBytes
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultProfileMaxBytes
	}
	return l
}

// A profile edit is refused before anything is written with an
// *apperr.Error: too_large for the whole profile's size, invalid for the
// rest, its message naming the limit and its setting.

// checkPatch refuses a patch that names more fields than a profile may
// hold, before the profile is read.
func (l ProfileLimits) checkPatch(patch map[string]any) *apperr.Error {
	l = l.withDefaults()
	if len(patch) > l.MaxFields {
		return apperr.Errorf(apperr.EInvalid, "the patch names %d fields; a profile holds at most %d (MNEMO_PROFILE_MAX_FIELDS)", len(patch), l.MaxFields)
	}
	return nil
}

// checkProfile refuses a merged profile that breaks a limit, or the profile
// fields app declares (prompts.App.ValidateProfile).
func (l ProfileLimits) checkProfile(doc map[string]any, app *prompts.App) *apperr.Error {
	l = l.withDefaults()
	if len(doc) > l.MaxFields {
		return apperr.Errorf(apperr.EInvalid, "the profile would hold %d fields; at most %d are allowed (MNEMO_PROFILE_MAX_FIELDS)", len(doc), l.MaxFields)
	}
	fields := make([]string, 0, len(doc))
	for k := range doc {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	total := 2
	for _, k := range fields {
		if d := valueDepth(doc[k]); d > l.MaxDepth {
			return apperr.Errorf(apperr.EInvalid, "%s: nested %d deep; a profile value nests at most %d deep (MNEMO_PROFILE_MAX_DEPTH)", fieldName(k), d, l.MaxDepth)
		}
		b, err := json.Marshal(doc[k])
		if err != nil {
			return apperr.Errorf(apperr.EInvalid, "%s: is not a JSON value", fieldName(k))
		}
		if len(b) > l.MaxValueBytes {
			return apperr.Errorf(apperr.EInvalid, "%s: its value is %d bytes; a profile value is at most %d bytes (MNEMO_PROFILE_MAX_VALUE_BYTES)", fieldName(k), len(b), l.MaxValueBytes)
		}
		name, _ := json.Marshal(k)
		total += len(name) + 1 + len(b) + 1
	}
	if total > l.MaxBytes {
		return apperr.Errorf(apperr.ETooLarge, "the profile would be %d bytes; a profile is at most %d bytes (MNEMO_PROFILE_MAX_BYTES)", total, l.MaxBytes)
	}
	if err := app.ValidateProfile(doc); err != nil {
		msg := err.Error()
		if ve, ok := err.(*prompts.ValidationError); ok {
			msg = "the profile does not match " + ve.App + "'s profile fields: " + ve.Detail()
		}
		return apperr.Errorf(apperr.EInvalid, "%s", msg)
	}
	return nil
}

// fieldName is a field as an error names it: itself, or quoted when it is
// not a plain name.
func fieldName(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return k
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// valueDepth is how deep v nests: 0 for a scalar, 1 for an object or array
// of scalars.
func valueDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, valueDepth(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, valueDepth(e))
		}
		return d + 1
	}
	return 0
}
