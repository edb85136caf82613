package extract

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/mnemo-ai/mnemo/internal/num"
)

// A kind keeps its records as typed Go values and converts them at the
// edge, where a Record carries its data as the JSON object it is stored as:
// DecodeRecord reads a record's data into the kind's type, EncodeData and
// NewRecord write a typed value back. The JSON tags of the type are the
// stored field names.

// AsStored is what a record's data held beside the typed value DecodeData
// read from it: the fields the type does not know, and the stored form of
// every field it does. EncodeData writes both back, so that decoding a
// record and encoding it again changes only what the caller changed. The
// zero AsStored is that of a new record.
type AsStored struct {
	data    map[string]any // as stored
	decoded map[string]any // the typed value read from data, as data again
}

// DecodeData reads data, a record's stored JSON object, into a T as far as
// it fits: a field whose stored value T cannot hold (text where T has a
// number, a fraction where it has an int) stays T's zero, and the other
// fields are read all the same, so that bad data in one field is read as
// missing, not as a broken record.
func DecodeData[T any](data map[string]any) (T, AsStored) {
	var v T
	b, err := json.Marshal(lenient(reflect.TypeFor[T](), data))
	if err != nil {
		// A value JSON cannot hold (a NaN in a map built in Go): read the
		// other fields.
		fit := make(map[string]any, len(data))
		for k, x := range data {
			if _, err := json.Marshal(x); err == nil {
				fit[k] = x
			}
		}
		b, _ = json.Marshal(lenient(reflect.TypeFor[T](), fit))
	}
	_ = json.Unmarshal(b, &v) // a field of the wrong type is skipped, the rest is read
	return v, AsStored{data: data, decoded: dataOf(v)}
}

// DecodeRecord is DecodeData of r's data.
func DecodeRecord[T any](r Record) (T, AsStored) { return DecodeData[T](r.Data) }

// EncodeData is v as a record's data, a new map. Every field st holds keeps
// its stored value unless the caller changed it since DecodeData: the fields
// T does not know, and those of T that v still holds as they were decoded
// (a count stored as 3.0 or as text stays as stored), and a field the
// stored data lacks stays out while v holds it as decoded (a null or zero
// of T's). A field v no longer has (an omitempty field set to zero) is
// dropped.
//
// v must encode as a JSON object; EncodeData panics when it does not (a NaN
// in a number field), a fault of the kind that built v.
func EncodeData[T any](v T, st AsStored) map[string]any {
	out := dataOf(v)
	if out == nil {
		panic(fmt.Sprintf("extract: EncodeData of a %T that is no JSON object", v))
	}
	for k, stored := range st.data {
		was, known := st.decoded[k]
		now, has := out[k]
		switch {
		case !known && !has: // a field T does not know, or one it leaves out as it was
			out[k] = stored
		case known && has && reflect.DeepEqual(was, now): // left as decoded
			out[k] = stored
		}
	}
	for k, was := range st.decoded {
		if _, stored := st.data[k]; stored {
			continue
		}
		if now, has := out[k]; has && reflect.DeepEqual(was, now) {
			delete(out, k) // not stored, and left as the zero it was decoded as
		}
	}
	return out
}

// NewRecord is a record of kind and key holding v.
func NewRecord[T any](kind, key string, v T) Record {
	return Record{Type: kind, Key: key, Data: EncodeData(v, AsStored{})}
}

// dataOf is v as a JSON object decoded into maps, nil when v is none.
func dataOf(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// DecodeJSON reads a record's data as the store keeps it (a JSON document)
// into a T, as far as it fits (DecodeData), for a reader that writes
// nothing back: a view.
func DecodeJSON[T any](raw []byte) T {
	var data any
	if json.Unmarshal(raw, &data) != nil {
		var v T
		return v
	}
	var v T
	b, _ := json.Marshal(lenient(reflect.TypeFor[T](), data))
	_ = json.Unmarshal(b, &v) // a field of the wrong type is skipped, the rest is read
	return v
}

// lenient is v, decoded JSON, with every numeric text (" 4 ") that stands
// where t has a number turned into that number, so that a number is read
// as the rules always read one (num.Float): written by Go, decoded from
// JSON or kept as text. v itself is not changed. A type that decodes
// itself (json.Unmarshaler) is left to do so.
func lenient(t reflect.Type, v any) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		return v
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if s, ok := v.(string); ok {
			if f, ok := num.Float(s); ok {
				return f
			}
		}
	case reflect.Slice, reflect.Array:
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, x := range list {
				out[i] = lenient(t.Elem(), x)
			}
			return out
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok && t.Key().Kind() == reflect.String {
			out := make(map[string]any, len(m))
			for k, x := range m {
				out[k] = lenient(t.Elem(), x)
			}
			return out
		}
	case reflect.Struct:
		if m, ok := v.(map[string]any); ok {
			out := maps.Clone(m)
			lenientFields(t, m, out)
			return out
		}
	}
	return v
}

// lenientFields applies lenient to the fields of struct type t found in m,
// into out, embedded structs' fields included.
func lenientFields(t reflect.Type, m, out map[string]any) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			lenientFields(f.Type, m, out)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if x, ok := m[name]; ok {
			out[name] = lenient(f.Type, x)
		}
	}
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()
