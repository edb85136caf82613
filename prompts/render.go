package prompts

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"text/template"
	"text/template/parse"
	"time"
)

// Templates are operator input: an app folder may hold any text. What a
// template may do is bounded three ways.
//
//   - Checked at load (checkTemplate): no {{define}}, {{template}} or
//     {{block}} (no recursion), no function but the allowlist below (no
//     call), and {{range}} only over a field of the data ({{range
//     .Messages}}, {{range $.Events}}), never over a number, a variable or
//     a function's result, nested at most maxRangeDepth deep. A loop thus
//     runs at most as often as the data has elements.
//   - The data holds no method a template could call: the system template
//     receives a systemView, the user template a userView, plain structs,
//     strings and maps.
//   - Rendering writes into a buffer that refuses to grow past a bound and
//     stops at a time limit (execute); at load, with sample data, and on
//     every render. A stopped rendering really stops: every {{range}} is
//     rewritten to check for the stop at each element (guardRanges), so
//     that a loop that writes nothing ends too.
//
// Session text reaches a template only escaped: every string of the session
// is a Text, its JSON encoding with <, > and & escaped, so that even
// {{.Content}} prints nothing that could close a delimiter.

// Text is one value of session data as JSON (a quoted string with <, > and &
// escaped as \u003c, \u003e and \u0026, a time as an RFC 3339 string, an
// object), or empty for an empty string, a zero time or no value. It is all a
// template sees of what was said in a session.
type Text string

// Limits of one rendering.
const (
	// maxSystemBytes bounds a rendered system prompt.
	maxSystemBytes = 256 << 10
	// userSlackBytes is what a user prompt may hold beyond userDataFactor
	// times the session data it renders.
	userSlackBytes = 256 << 10
	userDataFactor = 4
	// loadTimeLimit bounds a rendering at load; renderTimeLimit one of a
	// session.
	loadTimeLimit   = 2 * time.Second
	renderTimeLimit = 10 * time.Second
	// maxRangeDepth is how deep {{range}} may nest.
	maxRangeDepth = 2
)

// allowedFuncs are the functions a template may call: Mnemo's three and
// text/template's built-ins but call.
var allowedFuncs = map[string]bool{
	"transcript": true, "events": true, "json": true,
	"and": true, "or": true, "not": true, "eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"len": true, "index": true, "slice": true, "print": true, "printf": true, "println": true,
	"html": true, "js": true, "urlquery": true,
}

// checkTemplate refuses what could make rendering run away (see above).
func checkTemplate(t *template.Template) error {
	for _, tt := range t.Templates() {
		if tt.Name() != t.Name() {
			return fmt.Errorf("{{define %q}}: named templates are not allowed", tt.Name())
		}
	}
	if t.Tree == nil || t.Tree.Root == nil {
		return nil
	}
	return checkNode(t.Tree.Root, 0)
}

func checkNode(n parse.Node, ranges int) error {
	switch n := n.(type) {
	case nil:
		return nil
	case *parse.ListNode:
		if n == nil {
			return nil
		}
		for _, c := range n.Nodes {
			if err := checkNode(c, ranges); err != nil {
				return err
			}
		}
	case *parse.ActionNode:
		return checkPipe(n.Pipe)
	case *parse.IfNode:
		return checkBranch(&n.BranchNode, ranges)
	case *parse.WithNode:
		return checkBranch(&n.BranchNode, ranges)
	case *parse.RangeNode:
		if ranges+1 > maxRangeDepth {
			return fmt.Errorf("line %d: {{range}} nested more than %d deep", n.Line, maxRangeDepth)
		}
		if !rangesOverData(n.Pipe) {
			return fmt.Errorf("line %d: {{range %s}}: range only over a field of the data, such as .Messages or $.Events", n.Line, n.Pipe)
		}
		return checkBranch(&n.BranchNode, ranges+1)
	case *parse.TemplateNode:
		return fmt.Errorf("line %d: {{template %q}}: named templates are not allowed", n.Line, n.Name)
	case *parse.TextNode, *parse.CommentNode, *parse.BreakNode, *parse.ContinueNode:
		return nil
	default:
		return fmt.Errorf("unexpected template node %s", n)
	}
	return nil
}

func checkBranch(b *parse.BranchNode, ranges int) error {
	if err := checkPipe(b.Pipe); err != nil {
		return err
	}
	if err := checkNode(b.List, ranges); err != nil {
		return err
	}
	if b.ElseList != nil {
		return checkNode(b.ElseList, ranges)
	}
	return nil
}

func checkPipe(p *parse.PipeNode) error {
	if p == nil {
		return nil
	}
	for _, c := range p.Cmds {
		for _, a := range c.Args {
			if err := checkArg(a); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkArg(n parse.Node) error {
	switch n := n.(type) {
	case *parse.IdentifierNode:
		if !allowedFuncs[n.Ident] {
			return fmt.Errorf("function %q is not allowed", n.Ident)
		}
	case *parse.PipeNode:
		return checkPipe(n)
	case *parse.ChainNode:
		return checkArg(n.Node)
	}
	return nil
}

// rangesOverData reports whether a range pipeline is one field of the data:
// .Messages, .Session.X, $.Events or $v.Field.
func rangesOverData(p *parse.PipeNode) bool {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	switch a := p.Cmds[0].Args[0].(type) {
	case *parse.FieldNode:
		return true
	case *parse.VariableNode:
		return len(a.Ident) > 1
	}
	return false
}

// errStopped is what the writer of a rendering past its time limit says.
var errStopped = errors.New("stopped")

// boundedWriter is a buffer that refuses to grow past max bytes, and refuses
// every write once its rendering is stopped.
type boundedWriter struct {
	buf     bytes.Buffer
	max     int
	stopped *atomic.Bool
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	if w.stopped.Load() {
		return 0, errStopped
	}
	if w.buf.Len()+len(p) > w.max {
		return 0, fmt.Errorf("the output exceeds %d bytes", w.max)
	}
	return w.buf.Write(p)
}

// The functions a {{range}} is rewritten to call (guardRanges): with one
// variable or none, and with two (index or key, then element). They are no
// template's to call: checkTemplate refuses them as any function outside
// allowedFuncs.
const (
	rangeFunc     = "mnemoRange"
	rangePairFunc = "mnemoRange2"
)

// guardRanges rewrites every {{range X}} of a checked tree into {{range
// mnemoRange X}}, which ranges over X's elements one at a time and ends the
// loop once the rendering is stopped (rangeOver). A loop that writes nothing
// thus stops at the time limit too, and not only at its next write: an
// abandoned rendering burns no CPU on. Ranging keeps its meaning: the same
// elements in the same order, {{else}} when there are none.
func guardRanges(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			guardRanges(c)
		}
	case *parse.IfNode:
		guardBranch(&n.BranchNode)
	case *parse.WithNode:
		guardBranch(&n.BranchNode)
	case *parse.RangeNode:
		name := rangeFunc
		if len(n.Pipe.Decl) > 1 {
			name = rangePairFunc
		}
		cmd := n.Pipe.Cmds[0] // one field of the data (checkTemplate)
		ident := parse.NewIdentifier(name).SetPos(cmd.Pos)
		cmd.Args = append([]parse.Node{ident}, cmd.Args...)
		guardBranch(&n.BranchNode)
	}
}

func guardBranch(b *parse.BranchNode) {
	guardRanges(b.List)
	if b.ElseList != nil {
		guardRanges(b.ElseList)
	}
}

var boolType = reflect.TypeFor[bool]()

// rangeOver is what a guarded {{range}} ranges over: an iterator (iter.Seq,
// or iter.Seq2 of index or key and element when pairs) over x's elements,
// in text/template's order (map keys sorted), that stops yielding once
// stopped is set. A nil x ranges over nothing.
func rangeOver(stopped *atomic.Bool, pairs bool, x any) (reflect.Value, error) {
	v := reflect.ValueOf(x)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}, nil
		}
		v = v.Elem()
	}
	var (
		keyType, elemType reflect.Type
		n                 int
		at                func(i int) (key, elem reflect.Value)
	)
	switch v.Kind() {
	case reflect.Invalid:
		return reflect.Value{}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if pairs {
			return reflect.Value{}, fmt.Errorf("can't use %v to iterate over more than one variable", v)
		}
		if v.CanInt() {
			n = int(max(v.Int(), 0))
		} else {
			n = int(min(v.Uint(), uint64(math.MaxInt)))
		}
		elemType = v.Type()
		at = func(i int) (reflect.Value, reflect.Value) {
			return reflect.Value{}, reflect.ValueOf(i).Convert(elemType)
		}
	case reflect.Array, reflect.Slice:
		n, keyType, elemType = v.Len(), reflect.TypeFor[int](), v.Type().Elem()
		at = func(i int) (reflect.Value, reflect.Value) { return reflect.ValueOf(i), v.Index(i) }
	case reflect.Map:
		keys := v.MapKeys()
		var err error
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			switch {
			case a.Kind() == reflect.String:
				return strings.Compare(a.String(), b.String())
			case a.CanInt():
				return cmp.Compare(a.Int(), b.Int())
			case a.CanUint():
				return cmp.Compare(a.Uint(), b.Uint())
			}
			err = fmt.Errorf("range over a map keyed by %s", a.Type())
			return 0
		})
		if err != nil {
			return reflect.Value{}, err
		}
		n, keyType, elemType = len(keys), v.Type().Key(), v.Type().Elem()
		at = func(i int) (reflect.Value, reflect.Value) { return keys[i], v.MapIndex(keys[i]) }
	default:
		return reflect.Value{}, fmt.Errorf("range can't iterate over %v", v)
	}
	in := []reflect.Type{elemType}
	if pairs {
		in = []reflect.Type{keyType, elemType}
	}
	yieldType := reflect.FuncOf(in, []reflect.Type{boolType}, false)
	seq := reflect.MakeFunc(reflect.FuncOf([]reflect.Type{yieldType}, nil, false), func(args []reflect.Value) []reflect.Value {
		for i := range n {
			if stopped.Load() {
				break
			}
			key, elem := at(i)
			vals := []reflect.Value{elem}
			if pairs {
				vals = []reflect.Value{key, elem}
			}
			if !args[0].Call(vals)[0].Bool() {
				break
			}
		}
		return nil
	})
	return seq, nil
}

// execute renders t (parsed by parseTemplate) for data into at most max
// bytes within limit. A rendering past the limit is stopped: its loops end
// at their next element and its next write fails (guardRanges), and execute
// returns once it has ended, so that nothing of it runs on.
func execute(t *template.Template, data any, max int, limit time.Duration) (string, error) {
	t, err := t.Clone()
	if err != nil {
		return "", err
	}
	stopped := new(atomic.Bool)
	t.Funcs(template.FuncMap{
		rangeFunc:     func(x any) (reflect.Value, error) { return rangeOver(stopped, false, x) },
		rangePairFunc: func(x any) (reflect.Value, error) { return rangeOver(stopped, true, x) },
	})
	w := &boundedWriter{max: max, stopped: stopped}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("rendering failed: %v", r)
			}
		}()
		done <- t.Execute(w, data)
	}()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return "", err
		}
		return w.buf.String(), nil
	case <-timer.C:
		stopped.Store(true)
		<-done
		return "", fmt.Errorf("rendering took longer than %v", limit)
	}
}

// userView is what user.tmpl receives for a UserData: the same field names,
// every string of the session a Text.
type userView struct {
	Session  sessionView
	Messages []turnView
	Events   []eventView
	Part     int
	Parts    int
	// Earlier is the JSON of UserData.Earlier, empty when it has none.
	Earlier Text

	// The view holds nothing raw: fmt prints every field, exported or not,
	// and every pointer it meets in an error ({{printf "%A" .}}). The
	// template functions read the session itself (funcsFor).
	size int // bytes of session data, which bounds the rendering
}

type sessionView struct {
	ID, App, StartedAt, EndedAt, Timezone, DisplayName Text
}

type turnView struct {
	ID, Role, At, Content Text

	i int // its index in UserData.Messages
}

type eventView struct {
	Kind, At, MessageID Text
	// Data is the event's data as compact JSON.
	Data Text

	i int // its index in UserData.Events
}

// textOf is v's Text: its JSON, or empty for an empty string or a zero time.
func textOf(v any) Text {
	switch x := v.(type) {
	case string:
		if x == "" {
			return ""
		}
	case time.Time:
		if x.IsZero() {
			return ""
		}
	case json.RawMessage:
		if len(x) == 0 {
			return ""
		}
	case map[string]any:
		if len(x) == 0 {
			return ""
		}
	}
	b, err := json.Marshal(v) // escapes <, > and &
	if err != nil {
		return ""
	}
	return Text(b)
}

func newUserView(d UserData) *userView {
	v := &userView{
		Session: sessionView{
			ID: textOf(d.Session.ID), App: textOf(d.Session.App), StartedAt: textOf(d.Session.StartedAt),
			EndedAt: textOf(d.Session.EndedAt), Timezone: textOf(d.Session.Timezone), DisplayName: textOf(d.Session.DisplayName),
		},
		Messages: make([]turnView, len(d.Messages)),
		Events:   make([]eventView, len(d.Events)),
		Part:     d.Part, Parts: d.Parts,
		Earlier: textOf(d.Earlier),
	}
	v.size = len(v.Earlier) + 256
	for i, t := range d.Messages {
		v.Messages[i] = turnView{ID: textOf(t.ID), Role: textOf(t.Role), At: textOf(t.At), Content: textOf(t.Content), i: i}
		v.size += len(v.Messages[i].Content) + len(v.Messages[i].ID) + len(v.Messages[i].Role) + 64
	}
	for i, e := range d.Events {
		v.Events[i] = eventView{Kind: textOf(e.Type), At: textOf(e.At), MessageID: textOf(e.MessageID), Data: textOf(e.Data), i: i}
		v.size += len(v.Events[i].Data) + len(v.Events[i].Kind) + len(v.Events[i].MessageID) + 64
	}
	return v
}

// renderUser renders the user template t for d within limit.
func renderUser(t *template.Template, d UserData, limit time.Duration) (string, error) {
	t, err := t.Clone()
	if err != nil {
		return "", err
	}
	view := newUserView(d)
	return execute(t.Funcs(funcsFor(&d)), view, view.maxBytes(), limit)
}

// maxBytes bounds the rendering of v.
func (v *userView) maxBytes() int { return userSlackBytes + userDataFactor*v.size }

// systemView is what system.tmpl receives: the app's name, prompt version,
// schema (its JSON text) and policy (a map by field name, durations as
// strings such as "6h0m0s").
type systemView struct {
	Name          string
	PromptVersion string
	Schema        string
	Policy        map[string]any
}

func newSystemView(a *App) systemView {
	p, _ := plain(reflect.ValueOf(a.Policy)).(map[string]any)
	return systemView{Name: a.Name, PromptVersion: a.PromptVersion, Schema: string(a.Schema), Policy: p}
}

var durationType = reflect.TypeFor[Duration]()

// plain copies v into values without methods: maps, slices, strings,
// numbers and bools; a Duration becomes its string.
func plain(v reflect.Value) any {
	if v.Type() == durationType {
		return time.Duration(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.Struct:
		m := map[string]any{}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				if f.Anonymous {
					if inner, ok := plain(v.Field(i)).(map[string]any); ok {
						for k, x := range inner {
							m[k] = x
						}
					}
					continue
				}
				m[f.Name] = plain(v.Field(i))
			}
		}
		return m
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil
		}
		m := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			m[it.Key().String()] = plain(it.Value())
		}
		return m
	case reflect.Slice, reflect.Array:
		s := make([]any, v.Len())
		for i := range s {
			s[i] = plain(v.Index(i))
		}
		return s
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return plain(v.Elem())
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	return nil
}
