package handoff

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxNumber bounds every number of a body: beyond it (or beyond float64,
// such as 1e400) a number is refused at the door, before it can reach a
// batch that sums it.
const MaxNumber = 1e15

// MaxDepth bounds the nesting of free-form JSON (event data, a profile
// patch) inside a body.
const MaxDepth = 32

var (
	timeType            = reflect.TypeFor[time.Time]()
	rawType             = reflect.TypeFor[json.RawMessage]()
	contentType         = reflect.TypeFor[chatContent]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// CheckJSON scans body byte by byte against the shape of t (a struct type)
// before anything is decoded: it refuses names a struct does not have in
// exactly that case, a name given twice in any object, strings holding a NUL
// character, numbers that are not finite or beyond MaxNumber, values of the
// wrong JSON type and timestamps that are not RFC 3339, each error naming the
// JSON path (messages[3].at, events[0].data.intensity). Free-form values
// (json.RawMessage, any) get the same checks of names, strings and numbers.
// An error about the body as a whole has Field "body".
//
// Its answers are those of the token-by-token walk (encoding/json's
// Decoder.Token) it replaced, error for error, offsets of syntax errors
// included (strict_diff_test.go compares them).
func CheckJSON(body []byte, t reflect.Type) error {
	return scanBody(body, shapeOf(t), reflect.Value{})
}

// decodeStrict reads one JSON object of type T, checked as CheckJSON checks
// it, with errors that never echo the body. A type the scanner can fill (the
// handoff bodies: structs of strings, booleans, timestamps, slices and
// json.RawMessage) is decoded in the same pass, as encoding/json would
// decode it; any other is decoded by encoding/json after the check.
func decodeStrict[T any](body []byte) (T, error) {
	var req T
	sh := shapeOf(reflect.TypeFor[T]())
	if sh.decodable {
		if err := scanBody(body, sh, reflect.ValueOf(&req).Elem()); err != nil {
			var zero T
			return zero, err
		}
		return req, nil
	}
	if err := scanBody(body, sh, reflect.Value{}); err != nil {
		return req, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, jsonProblem(err)
	}
	return req, nil
}

// shapeKind is what a Go type expects of a JSON value, as CheckJSON sees it.
type shapeKind uint8

const (
	shapeFree   shapeKind = iota // any JSON value: json.RawMessage, interfaces, maps
	shapeTime                    // an RFC 3339 string
	shapeStruct                  // an object with the struct's names
	shapeSlice                   // an array (slices and arrays)
	shapeString
	shapeBool
	shapeNumber
	shapeOther   // nothing decodes into it
	shapeContent // a turn's content: a string, null, or an array (chatContent)
)

// shape is a Go type compiled for the scanner once, instead of reflecting
// on it per request.
type shape struct {
	kind  shapeKind
	raw   bool   // json.RawMessage
	whole bool   // shapeNumber: an integer type
	elem  *shape // shapeSlice
	// shapeStruct: the fields by JSON name (exact case), and the names in
	// order, for the hint of a name given in another case.
	fields map[string]*field
	names  []string
	// decodable: the scanner fills a value of this type as encoding/json
	// would (no pointers, maps, interfaces, numbers or custom unmarshalers).
	decodable bool
}

type field struct {
	index int // in the struct
	bit   int // in the scanner's record of names seen
	shape *shape
}

var (
	shapes  sync.Map // reflect.Type → *shape
	shapeMu sync.Mutex
	free    = &shape{kind: shapeFree}
)

// shapeOf compiles t (nil: free-form), once per type.
func shapeOf(t reflect.Type) *shape {
	if t == nil {
		return free
	}
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	shapeMu.Lock()
	defer shapeMu.Unlock()
	building := map[reflect.Type]*shape{}
	s := buildShape(t, building)
	// A type is decodable when it and every type it holds are: settle
	// recursive types by removing the flag until nothing changes.
	for changed := true; changed; {
		changed = false
		for _, b := range building {
			if b.decodable && !b.childrenDecodable() {
				b.decodable, changed = false, true
			}
		}
	}
	for t, b := range building {
		shapes.Store(t, b)
	}
	return s
}

func (s *shape) childrenDecodable() bool {
	switch s.kind {
	case shapeSlice:
		return s.elem.decodable
	case shapeStruct:
		for _, f := range s.fields {
			if !f.shape.decodable {
				return false
			}
		}
	}
	return true
}

// buildShape mirrors what the token walk did with a type: pointers are
// followed; json.RawMessage, interfaces and maps are free-form; time.Time is
// a timestamp; a struct's names are the exported fields' json tags (or
// names), "-" skipped.
func buildShape(t reflect.Type, building map[reflect.Type]*shape) *shape {
	if s, ok := shapes.Load(t); ok {
		return s.(*shape)
	}
	if s, ok := building[t]; ok {
		return s
	}
	s := &shape{}
	building[t] = s
	et := t
	for et.Kind() == reflect.Pointer {
		et = et.Elem()
	}
	// encoding/json calls a type's own unmarshaler; the scanner fills only
	// the two it knows.
	custom := reflect.PointerTo(et).Implements(unmarshalerType) || reflect.PointerTo(et).Implements(textUnmarshalerType)
	plain := et == t && !custom
	switch k := et.Kind(); {
	case et == contentType:
		s.kind, s.decodable = shapeContent, et == t
	case et == rawType:
		s.kind, s.raw, s.decodable = shapeFree, true, et == t
	case k == reflect.Interface || k == reflect.Map:
		s.kind = shapeFree
	case et == timeType:
		s.kind, s.decodable = shapeTime, et == t
	case k == reflect.Struct:
		s.kind, s.decodable = shapeStruct, plain
		s.fields = map[string]*field{}
		for i := 0; i < et.NumField(); i++ {
			f := et.Field(i)
			if !f.IsExported() {
				if f.Anonymous {
					s.decodable = false // encoding/json reads an embedded struct's fields
				}
				continue
			}
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" {
				if opts != "" {
					s.decodable = false // encoding/json names this field "-"
				}
				continue
			}
			if f.Anonymous || !plainTag(name) || strings.Contains(","+opts+",", ",string,") {
				s.decodable = false
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := s.fields[name]; dup {
				s.decodable = false // encoding/json drops both
			}
			s.fields[name] = &field{index: i, bit: len(s.names), shape: buildShape(f.Type, building)}
			s.names = append(s.names, name)
		}
		slices.Sort(s.names)
	case k == reflect.Slice || k == reflect.Array:
		s.kind, s.decodable = shapeSlice, plain && k == reflect.Slice
		s.elem = buildShape(et.Elem(), building)
	case k == reflect.String:
		s.kind, s.decodable = shapeString, plain
	case k == reflect.Bool:
		s.kind, s.decodable = shapeBool, plain
	case k >= reflect.Int && k <= reflect.Float64:
		s.kind, s.whole = shapeNumber, k < reflect.Float32
	default:
		s.kind = shapeOther
	}
	return s
}

// plainTag reports whether a json tag's name is one encoding/json takes as
// it is (letters, digits, underscores).
func plainTag(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// scanner reads a body in one pass. Its syntax errors carry the offsets
// encoding/json's Decoder.Token reported: the position of a misplaced
// delimiter, but for an error inside a string, number or literal the count
// of the bytes of the strings, numbers and literals read so far.
type scanner struct {
	b       []byte
	i       int
	scanned int   // bytes of the strings, numbers and literals read so far
	path    []seg // where the scanner is, for errors
	names   [][]byte
	buf     []byte
	// decodeErr is what encoding/json would have refused while decoding a
	// body the check passed (a timestamp written with escapes): it is the
	// answer only when the check finds nothing.
	decodeErr error
}

// seg is a step of the path: an object's name (a string token) or an
// array's index.
type seg struct {
	key   bool
	tok   token
	index int
}

// token is a value's start: a delimiter ({ or [) or a whole string,
// number or literal.
type token struct {
	c          byte // '{', '[', '"', '0' (a number), 't', 'f', 'n'
	start, end int  // its bytes (a string's with its quotes)
	esc        bool // a string with a backslash
	nul        bool // a string with \u0000
}

var scanners = sync.Pool{New: func() any { return new(scanner) }}

func scanBody(body []byte, sh *shape, dst reflect.Value) error {
	if !utf8.Valid(body) {
		return invalid("body", "is not valid UTF-8")
	}
	s := scanners.Get().(*scanner)
	defer func() {
		clear(s.names[:cap(s.names)])
		*s = scanner{path: s.path[:0], names: s.names[:0], buf: s.buf[:0]}
		if cap(s.buf) > 64<<10 {
			s.buf = nil
		}
		scanners.Put(s)
	}()
	s.b = body
	tok, err := s.next()
	if err != nil {
		return err
	}
	if tok.c != '{' {
		return invalid("body", "must be a JSON object")
	}
	if err := s.value(tok, sh, 0, dst); err != nil {
		return err
	}
	if _, ok := s.skipSpace(); ok {
		return invalid("body", "holds more than one JSON value")
	}
	return s.decodeErr
}

// skipSpace moves past JSON white space and returns the next byte, false
// at the end.
func (s *scanner) skipSpace() (byte, bool) {
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c, true
		}
	}
	return 0, false
}

// misplaced is a byte where the grammar wants another (offset: its position).
func (s *scanner) misplaced() error {
	return invalid("body", "is not valid JSON (offset %d)", s.i)
}

// bad is an error at b[i] inside the string, number or literal that starts
// at start.
func (s *scanner) bad(start, i int) error {
	return invalid("body", "is not valid JSON (offset %d)", s.scanned+i-start+1)
}

func truncated() error { return invalid("body", "is empty or truncated") }

// next reads the token of the value that follows.
func (s *scanner) next() (token, error) {
	c, ok := s.skipSpace()
	if !ok {
		return token{}, truncated()
	}
	switch c {
	case '{', '[':
		s.i++
		return token{c: c, start: s.i - 1}, nil
	case '}', ']', ':', ',':
		return token{}, s.misplaced()
	}
	return s.scalar()
}

// stringByte marks the bytes a string holds as they are.
var stringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// scalar reads the string, number or literal at s.i.
func (s *scanner) scalar() (token, error) {
	b, start := s.b, s.i
	i := start
	tok := token{c: b[i], start: start}
	switch c := b[i]; {
	case c == '"':
		i++
	str:
		for {
			for i < len(b) && stringByte[b[i]] {
				i++
			}
			if i >= len(b) {
				return tok, truncated()
			}
			switch b[i] {
			case '"':
				i++
				break str
			case '\\':
				tok.esc = true
				i++
				if i >= len(b) {
					return tok, truncated()
				}
				switch b[i] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i++
				case 'u':
					i++
					zero := true
					for range 4 {
						if i >= len(b) {
							return tok, truncated()
						}
						if !isHex(b[i]) {
							return tok, s.bad(start, i)
						}
						zero = zero && b[i] == '0'
						i++
					}
					tok.nul = tok.nul || zero
				default:
					return tok, s.bad(start, i)
				}
			default: // a control character
				return tok, s.bad(start, i)
			}
		}
	case c == '-' || isDigit(c):
		tok.c = '0'
		if c == '-' {
			if i++; i >= len(b) {
				return tok, truncated()
			}
			if !isDigit(b[i]) {
				return tok, s.bad(start, i)
			}
		}
		if b[i] == '0' {
			i++
		} else {
			for i < len(b) && isDigit(b[i]) {
				i++
			}
		}
		if i < len(b) && b[i] == '.' {
			if i++; i >= len(b) {
				return tok, truncated()
			}
			if !isDigit(b[i]) {
				return tok, s.bad(start, i)
			}
			for i < len(b) && isDigit(b[i]) {
				i++
			}
		}
		if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
			if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
				i++
			}
			if i >= len(b) {
				return tok, truncated()
			}
			if !isDigit(b[i]) {
				return tok, s.bad(start, i)
			}
			for i < len(b) && isDigit(b[i]) {
				i++
			}
		}
	case c == 't' || c == 'f' || c == 'n':
		lit := "null"
		if c == 't' {
			lit = "true"
		} else if c == 'f' {
			lit = "false"
		}
		for k := 1; k < len(lit); k++ {
			if i+k >= len(b) {
				return tok, truncated()
			}
			if b[i+k] != lit[k] {
				return tok, s.bad(start, i+k)
			}
		}
		i += len(lit)
	default:
		return tok, s.bad(start, i)
	}
	tok.end = i
	s.scanned += i - start
	s.i = i
	return tok, nil
}

// value checks the value that starts with tok against sh and, when dst is
// valid, stores it there as encoding/json would.
func (s *scanner) value(tok token, sh *shape, depth int, dst reflect.Value) error {
	if depth > MaxDepth {
		return invalid(s.pathString(), "is nested more than %d deep", MaxDepth)
	}
	if tok.c == 'n' {
		// null: as if absent; Validate checks what is required. encoding/json
		// gives a json.RawMessage the four bytes; a turn's content records
		// it (a turn may not have null content).
		if dst.IsValid() && sh.raw {
			dst.SetBytes([]byte("null"))
		}
		if dst.IsValid() && sh.kind == shapeContent {
			dst.Addr().Interface().(*chatContent).Null = true
		}
		return nil
	}
	switch sh.kind {
	case shapeContent:
		return s.content(tok, depth, dst)
	case shapeFree:
		if err := s.free(tok, depth); err != nil {
			return err
		}
		if dst.IsValid() {
			end := tok.end
			if tok.c == '{' || tok.c == '[' {
				end = s.i
			}
			dst.SetBytes(append([]byte(nil), s.b[tok.start:end]...))
		}
		return nil
	case shapeTime:
		if tok.c != '"' {
			return invalid(s.pathString(), "must be an RFC 3339 timestamp such as 2026-11-20T09:00:00Z")
		}
		return s.timestamp(tok, dst)
	case shapeStruct:
		if tok.c != '{' {
			return invalid(s.pathString(), "must be a JSON object")
		}
		return s.object(sh, depth, dst)
	case shapeSlice:
		if tok.c != '[' {
			return invalid(s.pathString(), "must be a JSON array")
		}
		return s.array(sh.elem, depth, dst)
	case shapeString:
		if tok.c != '"' {
			return invalid(s.pathString(), "must be a string")
		}
		if tok.nul {
			return invalid(s.pathString(), "contains a NUL character")
		}
		if dst.IsValid() {
			dst.SetString(s.str(tok))
		}
		return nil
	case shapeBool:
		if tok.c != 't' && tok.c != 'f' {
			return invalid(s.pathString(), "must be true or false")
		}
		if dst.IsValid() {
			dst.SetBool(tok.c == 't')
		}
		return nil
	case shapeNumber:
		if tok.c != '0' {
			return invalid(s.pathString(), "must be a number")
		}
		f, err := s.number(tok)
		if err != nil {
			return err
		}
		if sh.whole && f != math.Trunc(f) {
			return invalid(s.pathString(), "must be a whole number")
		}
		return nil
	}
	return invalid(s.pathString(), "cannot be decoded")
}

// content reads a turn's content: a string, or an array (of text parts,
// which contentText checks) kept as written.
func (s *scanner) content(tok token, depth int, dst reflect.Value) error {
	switch tok.c {
	case '"':
		if tok.nul {
			return invalid(s.pathString(), "contains a NUL character")
		}
		if dst.IsValid() {
			dst.Addr().Interface().(*chatContent).Text = s.str(tok)
		}
		return nil
	case '[':
		start := tok.start
		if err := s.free(tok, depth); err != nil {
			return err
		}
		if dst.IsValid() {
			dst.Addr().Interface().(*chatContent).Parts = append(json.RawMessage(nil), s.b[start:s.i]...)
		}
		return nil
	}
	return invalid(s.pathString(), `must be a string or an array of text parts such as [{"type":"text","text":"Hello"}]`)
}

// timestamp checks an RFC 3339 string and stores it as encoding/json would:
// time.Time's UnmarshalJSON of the string as written.
func (s *scanner) timestamp(tok token, dst reflect.Value) error {
	raw := s.b[tok.start:tok.end]
	var tm time.Time
	if !tok.esc {
		// Without escapes the string is what UnmarshalJSON reads.
		p := &tm
		if dst.IsValid() {
			p = dst.Addr().Interface().(*time.Time)
		}
		if p.UnmarshalJSON(raw) != nil {
			return invalid(s.pathString(), "must be an RFC 3339 timestamp such as 2026-11-20T09:00:00Z")
		}
		return nil
	}
	if tm.UnmarshalJSON([]byte(strconv.Quote(s.str(tok)))) != nil {
		return invalid(s.pathString(), "must be an RFC 3339 timestamp such as 2026-11-20T09:00:00Z")
	}
	if dst.IsValid() {
		// UnmarshalJSON does not unescape (go.dev/issue/47353).
		if err := dst.Addr().Interface().(*time.Time).UnmarshalJSON(raw); err != nil && s.decodeErr == nil {
			s.decodeErr = jsonProblem(err)
		}
	}
	return nil
}

// free checks a free-form value: names unique and without NUL, strings
// without NUL, numbers finite and within MaxNumber.
func (s *scanner) free(tok token, depth int) error {
	if depth > MaxDepth {
		return invalid(s.pathString(), "is nested more than %d deep", MaxDepth)
	}
	switch tok.c {
	case '"':
		if tok.nul {
			return invalid(s.pathString(), "contains a NUL character")
		}
	case '0':
		_, err := s.number(tok)
		return err
	case '{':
		return s.object(free, depth, reflect.Value{})
	case '[':
		return s.array(free, depth, reflect.Value{})
	}
	return nil // true, false, null
}

// object reads the members of an object whose { was read: of struct sh, or
// free-form.
func (s *scanner) object(sh *shape, depth int, dst reflect.Value) error {
	var (
		seen    uint64          // struct: the fields given, by bit
		seenBig map[int]bool    // struct: beyond 64 fields
		big     map[string]bool // free-form: the names of a large object
		base    = len(s.names)  // free-form: the names of a small one
	)
	c, ok := s.skipSpace()
	if !ok {
		return truncated()
	}
	if c == '}' {
		s.i++
		return nil
	}
	for {
		if c != '"' {
			return s.misplaced()
		}
		key, err := s.scalar()
		if err != nil {
			return err
		}
		s.path = append(s.path, seg{key: true, tok: key})
		if key.nul {
			return invalid(s.pathString(), "is a field name containing a NUL character")
		}
		var f *field
		if sh.kind == shapeStruct {
			if key.esc {
				f = sh.fields[s.str(key)]
			} else {
				f = sh.fields[string(s.b[key.start+1:key.end-1])]
			}
			given := false
			if f != nil && f.bit < 64 {
				given, seen = seen&(1<<f.bit) != 0, seen|1<<f.bit
			} else if f != nil {
				if seenBig == nil {
					seenBig = map[int]bool{}
				}
				given, seenBig[f.bit] = seenBig[f.bit], true
			}
			if given {
				return invalid(s.pathString(), "is given more than once")
			}
			if f == nil {
				name := s.str(key)
				reason := "is not a known field"
				for _, known := range sh.names {
					if strings.EqualFold(known, name) {
						reason += fmt.Sprintf(" (names are case-sensitive: %s)", known)
					}
				}
				return invalid(s.pathString(), "%s", reason)
			}
		} else {
			name := s.b[key.start+1 : key.end-1]
			if key.esc {
				name = appendUnquoted(nil, name)
			}
			given := false
			if big != nil {
				given, big[string(name)] = big[string(name)], true
			} else {
				for _, n := range s.names[base:] {
					if bytes.Equal(n, name) {
						given = true
						break
					}
				}
				s.names = append(s.names, name)
				if len(s.names)-base > 16 {
					big = make(map[string]bool, 32)
					for _, n := range s.names[base:] {
						big[string(n)] = true
					}
					s.names = s.names[:base]
				}
			}
			if given {
				return invalid(s.pathString(), "is given more than once")
			}
		}
		if c, ok = s.skipSpace(); !ok {
			return truncated()
		}
		if c != ':' {
			return s.misplaced()
		}
		s.i++
		tok, err := s.next()
		if err != nil {
			return err
		}
		if f != nil {
			var fv reflect.Value
			if dst.IsValid() {
				fv = dst.Field(f.index)
			}
			err = s.value(tok, f.shape, depth+1, fv)
		} else {
			err = s.free(tok, depth+1)
		}
		if err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		if c, ok = s.skipSpace(); !ok {
			return truncated()
		}
		switch c {
		case '}':
			s.i++
			s.names = s.names[:base]
			return nil
		case ',':
			s.i++
			if c, ok = s.skipSpace(); !ok {
				return truncated()
			}
		default:
			return s.misplaced()
		}
	}
}

// array reads the elements of an array whose [ was read, each of shape
// elem, into the slice dst when it is valid.
func (s *scanner) array(elem *shape, depth int, dst reflect.Value) error {
	c, ok := s.skipSpace()
	if !ok {
		return truncated()
	}
	n := 0
	if c != ']' {
		s.path = append(s.path, seg{})
		for {
			tok, err := s.next()
			if err != nil {
				return err
			}
			s.path[len(s.path)-1].index = n
			var ev reflect.Value
			if dst.IsValid() {
				if n == dst.Cap() {
					dst.Grow(1)
				}
				dst.SetLen(n + 1)
				ev = dst.Index(n)
			}
			if elem == free {
				err = s.free(tok, depth+1)
			} else {
				err = s.value(tok, elem, depth+1, ev)
			}
			if err != nil {
				return err
			}
			n++
			if c, ok = s.skipSpace(); !ok {
				return truncated()
			}
			if c == ']' {
				break
			}
			if c != ',' {
				return s.misplaced()
			}
			s.i++
		}
		s.path = s.path[:len(s.path)-1]
	}
	s.i++
	if dst.IsValid() && n == 0 {
		dst.Set(reflect.MakeSlice(dst.Type(), 0, 0)) // [] is an empty slice, not nil
	}
	return nil
}

// number checks a number token: finite and within MaxNumber.
func (s *scanner) number(tok token) (float64, error) {
	raw := s.b[tok.start:tok.end]
	// An integer of at most 15 digits is exact and within MaxNumber.
	digits := raw
	if raw[0] == '-' {
		digits = raw[1:]
	}
	if len(digits) <= 15 {
		f := 0.0
		for _, c := range digits {
			if !isDigit(c) {
				f = -1
				break
			}
			f = f*10 + float64(c-'0')
		}
		if f >= 0 {
			if raw[0] == '-' {
				f = -f
			}
			return f, nil
		}
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > MaxNumber || exponentBeyond(raw) {
		return 0, invalid(s.pathString(), "is out of range (numbers are at most %.0e in magnitude)", MaxNumber)
	}
	return f, nil
}

// MaxExponent bounds the exponent a number may be written with: no float64
// needs more, and an exact decimal with a larger one (0e-99999999999999999999)
// cannot be read by the event schemas' validator, which panicked on it.
const MaxExponent = 400

// exponentBeyond reports whether a number is written with an exponent
// beyond ±MaxExponent.
func exponentBeyond(raw []byte) bool {
	i := bytes.IndexAny(raw, "eE")
	if i < 0 {
		return false
	}
	exp := bytes.TrimLeft(bytes.TrimLeft(raw[i+1:], "+-"), "0")
	if len(exp) > 3 {
		return true
	}
	n, _ := strconv.Atoi(string(exp))
	return n > MaxExponent
}

// str is a string token's value, unescaped as encoding/json does.
func (s *scanner) str(tok token) string {
	inner := s.b[tok.start+1 : tok.end-1]
	if !tok.esc {
		return string(inner)
	}
	s.buf = appendUnquoted(s.buf[:0], inner)
	return string(s.buf)
}

// pathString names where the scanner is, as the token walk did.
func (s *scanner) pathString() string {
	path := ""
	for _, g := range s.path {
		if g.key {
			path = join(path, s.str(g.tok))
		} else {
			path += "[" + strconv.Itoa(g.index) + "]"
		}
	}
	return path
}

// appendUnquoted appends the value of a string's bytes between its quotes,
// which the scanner has checked, as encoding/json unquotes it: an escaped
// surrogate that is not half of a pair is U+FFFD.
func appendUnquoted(dst, s []byte) []byte {
	for i := 0; i < len(s); {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			return append(dst, s[i:]...)
		}
		dst = append(dst, s[i:i+j]...)
		i += j + 1
		switch c := s[i]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(s[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				if i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
					if d := utf16.DecodeRune(r, hex4(s[i+3:])); d != utf8.RuneError {
						dst = utf8.AppendRune(dst, d)
						i += 7
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default: // " \ /
			dst = append(dst, c)
		}
		i++
	}
	return dst
}

// hex4 reads four hex digits the scanner has checked.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// plainName reports whether a member name is written as it is in a path:
// [A-Za-z_][A-Za-z0-9_:@-]{0,63}.
func plainName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' ||
			i > 0 && ('0' <= c && c <= '9' || c == ':' || c == '@' || c == '-') {
			continue
		}
		return false
	}
	return true
}

// join names the member name of the object at path, quoting a name that is
// not plain and clipping a long one.
func join(path, name string) string {
	if !plainName(name) {
		if len(name) > 32 {
			cut := 32
			for cut > 0 && !utf8.RuneStart(name[cut]) {
				cut--
			}
			name = name[:cut] + "…"
		}
		return path + "[" + strconv.Quote(name) + "]"
	}
	if path == "" {
		return name
	}
	return path + "." + name
}
