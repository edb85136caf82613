package api

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"

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

// checkFields refuses a patch that names a field app does not declare,
// when app declares its profile fields and no others (its schema's
// profile_updates with additionalProperties false): a null for such a field
// removes nothing, yet each was kept as a statement of its own, so 200
// PATCHes of 256 made-up names grew the profile's statements to 10 MB.
func checkFields(patch map[string]any, app *prompts.App) *apperr.Error {
	fields, closed := profileFields(app)
	if !closed {
		return nil
	}
	names := make([]string, 0, len(patch))
	for k := range patch {
		if !fields[k] {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	known := make([]string, 0, len(fields))
	for k := range fields {
		known = append(known, k)
	}
	sort.Strings(known)
	return apperr.Errorf(apperr.EInvalid, "%s: is not one of %s's profile fields (%s)", fieldName(names[0]), app.Name, strings.Join(known, ", "))
}

// declared caches profileFields by app.
var declared sync.Map // *prompts.App → declaredFields

type declaredFields struct {
	names  map[string]bool
	closed bool
}

// profileFields is the profile fields app declares (its schema's
// profile_updates properties; nil when it declares none), and whether
// they are the only ones it takes (additionalProperties false).
func profileFields(app *prompts.App) (map[string]bool, bool) {
	if app == nil {
		return nil, false
	}
	if d, ok := declared.Load(app); ok {
		return d.(declaredFields).names, d.(declaredFields).closed
	}
	var sch struct {
		Properties struct {
			Profile *struct {
				Properties           map[string]json.RawMessage `json:"properties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			} `json:"profile_updates"`
		} `json:"properties"`
	}
	var d declaredFields
	if json.Unmarshal(app.Schema, &sch) == nil && sch.Properties.Profile != nil {
		d.names = map[string]bool{}
		for k := range sch.Properties.Profile.Properties {
			d.names[k] = true
		}
		d.closed = sch.Properties.Profile.AdditionalProperties != nil && !*sch.Properties.Profile.AdditionalProperties
	}
	declared.Store(app, d)
	return d.names, d.closed
}

// dropNoOpRemovals takes out of patch, for an app that declares no
// profile fields (whose sessions never state one), every null for a field
// the profile neither holds nor has a statement of: it removes nothing, and
// its marker would guard against no session. stated is the profile's
// statements (store.Profile.Stated). patch is not modified.
func dropNoOpRemovals(patch, doc map[string]any, stated json.RawMessage, app *prompts.App) map[string]any {
	if fields, _ := profileFields(app); fields != nil {
		return patch
	}
	var said map[string]json.RawMessage
	_ = json.Unmarshal(stated, &said) // none: nothing was stated
	out := make(map[string]any, len(patch))
	for k, v := range patch {
		if _, has := doc[k]; v == nil && !has && said[k] == nil {
			continue
		}
		out[k] = v
	}
	return out
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
