package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// kinds exercises what the handoff bodies do not hold: numbers, pointers,
// maps, interfaces, arrays and custom unmarshalers (checked by the scanner,
// decoded by encoding/json).
type kinds struct {
	B    bool               `json:"b"`
	I    int                `json:"i"`
	U    uint8              `json:"u"`
	F    float64            `json:"f"`
	P    *string            `json:"p"`
	PT   *time.Time         `json:"pt"`
	Ints []int              `json:"ints"`
	Arr  [2]int             `json:"arr"`
	M    map[string]any     `json:"m"`
	A    any                `json:"a"`
	R    json.RawMessage    `json:"r"`
	Rs   []json.RawMessage  `json:"rs"`
	Sub  *kinds             `json:"sub"`
	Subs []kinds            `json:"subs"`
	Dur  time.Duration      `json:"dur"`
	Ch   chan int           `json:"-"`
	C    complex64          `json:"c"`
	Raw  map[string]float64 `json:"raw"`
	T    time.Time          `json:"t"`
	S    string             `json:"s,omitempty"`
}

// plain is decoded by the scanner: booleans, strings, timestamps, slices,
// nested structs and raw values.
type plain struct {
	B     bool              `json:"b"`
	S     string            `json:"s"`
	T     time.Time         `json:"t"`
	R     json.RawMessage   `json:"r"`
	Rs    []json.RawMessage `json:"rs"`
	Bs    []bool            `json:"bs"`
	Subs  []plain           `json:"subs"`
	Inner struct {
		X string `json:"x"`
	} `json:"inner"`
	NoTag  string
	hidden string
}

// same fails t unless the scanner answers body as the token walk did, and
// decodes it as encoding/json does.
func same(t *testing.T, body []byte) {
	t.Helper()
	for _, typ := range []reflect.Type{reflect.TypeFor[Request](), reflect.TypeFor[MessagesRequest](),
		reflect.TypeFor[map[string]any](), reflect.TypeFor[kinds](), reflect.TypeFor[plain]()} {
		want, got := tokenCheckJSON(body, typ), CheckJSON(body, typ)
		if !sameError(want, got) {
			t.Fatalf("%q as %v: the scanner says %v; the token walk said %v", clip(body), typ, got, want)
		}
	}
	sameDecode[Request](t, body)
	sameDecode[MessagesRequest](t, body)
	sameDecode[plain](t, body)
	sameDecode[kinds](t, body)
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var va, vb *ValidationError
	return errors.As(a, &va) && errors.As(b, &vb) && *va == *vb
}

// sameDecode compares decodeStrict with what it replaced: the token walk,
// then encoding/json.
func sameDecode[T any](t *testing.T, body []byte) {
	t.Helper()
	var want T
	wantErr := tokenCheckJSON(body, reflect.TypeFor[T]())
	if wantErr == nil {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&want); err != nil {
			wantErr = jsonProblem(err)
		}
	}
	got, err := decodeStrict[T](body)
	if !sameError(err, wantErr) {
		t.Fatalf("%q as %T: decodeStrict says %v; before %v", clip(body), got, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q as %T: decodeStrict gives\n%#v\nencoding/json\n%#v", clip(body), got, got, want)
	}
}

func clip(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

// seeds are bodies of every kind: the fuzz corpora, the benchmark's body
// and ones for the corners of the grammar and of the checks.
func seeds(t testing.TB) [][]byte {
	out := [][]byte{}
	for _, dir := range []string{"testdata/fuzz/*/*", "../api/testdata/fuzz/*/*"} {
		files, err := filepath.Glob(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(b), "\n")[1:] {
				lit, ok := strings.CutPrefix(line, "[]byte(")
				if !ok {
					continue
				}
				s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				out = append(out, []byte(s))
			}
		}
	}
	mona, err := os.ReadFile("testdata/mona-5k.json")
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, mona)
	deep := func(n int, open, close string) string {
		return `{"events":[{"data":{"x":` + strings.Repeat(open, n) + "1" + strings.Repeat(close, n) + `}}]}`
	}
	many := func(n int, dup string) string {
		var b strings.Builder
		b.WriteString(`{"m":{`)
		for i := range n {
			b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i) + ",")
		}
		return b.String() + `"` + dup + `":0}}`
	}
	for _, s := range []string{
		``, ` `, `{`, `}`, `[`, `]`, `:`, `,`, `{}`, ` {} `, `{} {}`, `{}x`, `{}]`, `[]`, `"x"`, `1`, `-`, `tru`, `nul`, `x`, "\ufeff{}",
		`{"user_id":"u-1","app":"mona","messages":[]}`, `{"user_id":"u-1" "app":"mona"}`, `{"user_id" "u"}`, `{"user_id"::"u"}`,
		`{"user_id":"u",}`, `{,"user_id":"u"}`, `{"user_id":"u"]`, `{"messages":[1,]}`, `{"messages":[,1]}`, `{"messages":[1 2]}`,
		`{"messages":[}`, `{"messages":[{]}`, `{"messages":[{"id":"a"}}`, `{"messages":[{"id":"a"}]`, `{"messages":[{"id":"a"}],}`,
		`{"messages":[null,{"id":"m1","role":"user","content":"a\nb\"c\\d\/e\u00e9\ud83d\ude00\ud800\udc00x\ud800y\udc00\ud800\u0041"}]}`,
		`{"messages":[{"at":"2026-11-20T09:00:00\u005a"}]}`, `{"messages":[{"at":"2026-11-20T09:00:00Zx"}]}`, `{"started_at":null}`,
		`{"started_at":"2026-11-20T09:00:00+01:00"}`, `{"started_at":"2026-11-20T09:00:00.123456789-07:30"}`, `{"started_at":"2026-11-20t09:00:00z"}`,
		`{"events":[{"data":null},{"data":{}},{"data":[]},{"data":"x"},{"data":1},{"data":true},{"data": { "a" : [ 1 , 2 ] } }]}`,
		`{"events":[{"data":{"a":1,"\u0061":2}}]}`, `{"events":[{"data":{"a\u0000":1}}]}`, `{"events":[{"data":{"a":"\u0000"}}]}`,
		`{"events":[{"data":{"n":[1e15,-1e15,1e16,1000000000000000,999999999999999,-999999999999999,1000000000000001,0.1e16,1e-400,-0,0.0,1E+2,1e400]}}]}`,
		`{"events":[{"data":{"n":01}}]}`, `{"events":[{"data":{"n":1.}}]}`, `{"events":[{"data":{"n":1.e1}}]}`, `{"events":[{"data":{"n":-x}}]}`,
		`{"events":[{"data":{"n":1e}}]}`, `{"events":[{"data":{"n":1e+}}]}`, `{"events":[{"data":{"n":.5}}]}`, `{"events":[{"data":{"n":+1}}]}`,
		`{"events":[{"data":{"n":truex}}]}`, `{"events":[{"data":{"n":"\x"}}]}`, `{"events":[{"data":{"n":"\u12"}}]}`, `{"events":[{"data":{"n":"` + "\x01" + `"}}]}`,
		`{"User_Id":"x"}`, `{"USER_ID":"x"}`, `{"user_id":"a","user_id":"b"}`, `{"user\u005fid":"a","user_id":"b"}`, `{"unknown":1}`,
		`{"user_id":1}`, `{"user_id":true}`, `{"user_id":{}}`, `{"user_id":[]}`, `{"user_id":null}`, `{"messages":{}}`, `{"messages":"x"}`,
		`{"b":true,"i":1.5,"u":300,"f":1e15,"p":"x","pt":"2026-11-20T09:00:00Z","ints":[1,2],"arr":[1,2,3],"m":{"a":[{}]},"a":[1,"x",null],"r":{"x":1},"rs":[1,null,"x"],"sub":{"sub":{"i":-1}},"subs":[{"b":false}],"dur":5,"c":1,"raw":{"a":1},"t":"2026-11-20T09:00:00Z","s":"x"}`,
		`{"b":"true"}`, `{"i":"1"}`, `{"c":{}}`, `{"Ch":1}`, `{"sub":{"B":true}}`,
		`{"b":false,"s":"x\ty","t":"2026-11-20T09:00:00Z","r":[1, 2],"rs":[null, {"a" :1}, "x", 2, [ ] ],"bs":[true,false,null],"subs":[{"s":"a","subs":[]},null],"inner":{"x":"y"},"NoTag":"n","hidden":"h"}`,
		`{"subs":[{"subs":[{"subs":[{"t":"2026-11-20T09:00:00\u005a"}]}]}], "s": 1}`,
		deep(31, "[", "]"), deep(32, "[", "]"), deep(40, `{"a":`, "}"), deep(30, `{"a":`, "}"), deep(29, `{"a":`, "}"),
		many(10, "k3"), many(40, "k3"), many(40, "k39"), many(40, `k\u00339`), many(40, "new"), many(16, "k0"), many(17, "k16"),
		`{"` + strings.Repeat("long-name", 10) + `":1}`, `{"héllo wörld":1}`, `{"` + strings.Repeat("é", 40) + `":1}`, `{"a-b":1,"_x":1,"x:y@z":1,"1a":1}`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// TestScannerAnswersAsTheTokenWalk: on the seeds and a fixed sample of
// their truncations and mutations, the scanner gives the token walk's
// answer (errors, paths and offsets alike) and decodes as encoding/json.
func TestScannerAnswersAsTheTokenWalk(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 14))
	const alphabet = "{}[]:,\" \t\n\\/-+.0123456789eEtrufalsn\x00\x01\x7fé"
	// The quick suite (-short) takes a fifth of the mutations and every
	// 85th truncation of a long seed: the same kinds of body, fewer of each.
	mutations, every := 200, 17
	if testing.Short() {
		mutations, every = 40, 85
	}
	n := 0
	for _, seed := range seeds(t) {
		same(t, seed)
		n++
		for cut := range len(seed) {
			if len(seed) < 400 || cut%every == 0 {
				same(t, seed[:cut])
				n++
			}
		}
		for range mutations {
			b := bytes.Clone(seed)
			for range 1 + rng.IntN(3) {
				c := alphabet[rng.IntN(len(alphabet))]
				switch i := rng.IntN(len(b) + 1); {
				case len(b) == 0 || rng.IntN(3) == 0:
					b = append(b[:i:i], append([]byte{c}, b[i:]...)...)
				case i == len(b):
					b = b[:i-1]
				case rng.IntN(2) == 0:
					b[i] = c
				default:
					b = append(b[:i:i], b[i+1:]...)
				}
			}
			same(t, b)
			n++
		}
	}
	t.Logf("%d bodies", n)
}

// TestScannerSyntaxIsEncodingJSONs: the scanner takes exactly the texts
// json.Valid takes (as free-form objects): it passes none that json.Valid
// refuses, and calls none that json.Valid takes a syntax error.
func TestScannerSyntaxIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 4))
	const alphabet = "{}[]:,\"  \\-.0123456789eEtrufalsnu\x00\x1f"
	check := func(b []byte) {
		err := CheckJSON(b, reflect.TypeFor[map[string]any]())
		var ve *ValidationError
		syntax := errors.As(err, &ve) && ve.Field == "body" &&
			(strings.HasPrefix(ve.Reason, "is not valid JSON") || ve.Reason == "is empty or truncated" || ve.Reason == "holds more than one JSON value")
		valid := json.Valid(b)
		switch {
		case err == nil && !valid:
			t.Fatalf("%q: the scanner passes what json.Valid refuses", b)
		case syntax && valid:
			t.Fatalf("%q: the scanner says %v; json.Valid takes it", b, err)
		}
	}
	for _, seed := range seeds(t) {
		check(seed)
	}
	for range 100000 {
		b := make([]byte, 1+rng.IntN(24))
		b[0] = '{'
		for i := 1; i < len(b); i++ {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(b)
	}
}

// FuzzScanner: on any input, the scanner answers as the token walk and
// decodes as encoding/json.
func FuzzScanner(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		same(t, body)
	})
}

// TestByteLoopsMatchTheirPatterns: ValidID, validKind and plainName take
// the strings the regular expressions they replaced took.
func TestByteLoopsMatchTheirPatterns(t *testing.T) {
	t.Parallel()
	id := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@-]*$`)
	kind := regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	name := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_:@-]{0,63}$`)
	rng := rand.New(rand.NewPCG(2, 7))
	const alphabet = "aZz09._:@-_ /\x00é\n"
	for range 200000 {
		b := make([]byte, rng.IntN(3)*rng.IntN(70))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		if got, want := ValidID(s), len(s) <= MaxIDLength && id.MatchString(s); got != want {
			t.Fatalf("ValidID(%q) = %v; the pattern says %v", s, got, want)
		}
		if got, want := validEventType(s), kind.MatchString(s); got != want {
			t.Fatalf("validKind(%q) = %v; the pattern says %v", s, got, want)
		}
		if got, want := plainName(s), name.MatchString(s); got != want {
			t.Fatalf("plainName(%q) = %v; the pattern says %v", s, got, want)
		}
	}
}
