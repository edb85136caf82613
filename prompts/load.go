package prompts

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The files of an app folder.
const (
	filePolicy = "policy.json"
	fileSystem = "system.tmpl"
	fileUser   = "user.tmpl"
	fileSchema = "schema.json"
)

// builtin holds the presets: every folder of this package with a policy.json.
//
//go:embed */policy.json */system.tmpl */user.tmpl */schema.json
var builtin embed.FS

// LoadError is an app folder, or an App built in code, that cannot be used.
type LoadError struct {
	App  string // the app (folder) name
	Dir  string // the folder, when loaded from one
	File string // policy.json, system.tmpl, user.tmpl or schema.json
	Err  error
}

func (e *LoadError) Error() string {
	if e.Dir != "" {
		return fmt.Sprintf("app folder %s: %s: %v", e.Dir, e.File, e.Err)
	}
	return fmt.Sprintf("app %s: %s: %v", e.App, e.File, e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

// Builtin returns the embedded presets by name. Each call returns new Apps,
// which the caller may change.
func Builtin() (map[string]*App, error) {
	return loadFS(builtin, "builtin:")
}

// LoadDir loads an operator's apps: each subfolder of dir is one app, named
// after the folder (folders starting with "." are skipped). Every folder that
// cannot be used is reported, each error naming its folder and file.
func LoadDir(dir string) (map[string]*App, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("apps dir: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("apps dir %s is not a directory", dir)
	}
	return loadFS(os.DirFS(dir), dir)
}

// Load returns the built-in presets overlaid by the apps of appsDir (when not
// empty): an app in appsDir replaces the built-in one of the same name whole.
func Load(appsDir string) (map[string]*App, error) {
	apps, err := Builtin()
	if err != nil {
		return nil, err
	}
	if appsDir == "" {
		return apps, nil
	}
	extra, err := LoadDir(appsDir)
	if err != nil {
		return nil, err
	}
	maps.Copy(apps, extra)
	return apps, nil
}

func loadFS(fsys fs.FS, root string) (map[string]*App, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("apps dir %s: %w", root, err)
	}
	apps := map[string]*App{}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if info, err := fs.Stat(fsys, name); err != nil || !info.IsDir() {
			continue // a file beside the app folders, e.g. a README
		}
		dir := root + name
		if !strings.HasSuffix(root, ":") {
			dir = filepath.Join(root, name)
		}
		app, err := loadApp(fsys, name, dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		apps[app.Name] = app
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return apps, nil
}

// policyFile is policy.json: the Policy and the app's identity.
type policyFile struct {
	Name          string `json:"name"`
	PromptVersion string `json:"prompt_version"`
	Policy
}

func loadApp(fsys fs.FS, name, dir string) (*App, error) {
	fail := func(file string, err error) error { return &LoadError{App: name, Dir: dir, File: file, Err: err} }
	read := func(file string) ([]byte, bool, error) {
		b, err := fs.ReadFile(fsys, path.Join(name, file))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fail(file, err)
		}
		return b, true, nil
	}

	raw, ok, err := read(filePolicy)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fail(filePolicy, errors.New("file is missing"))
	}
	var pf policyFile
	if err := decodeStrict(raw, &pf); err != nil {
		return nil, fail(filePolicy, err)
	}
	if pf.Name == "" {
		pf.Name = name
	}
	if pf.Name != name {
		return nil, fail(filePolicy, fmt.Errorf("name %q differs from the folder name %q", pf.Name, name))
	}

	app := &App{Name: pf.Name, PromptVersion: pf.PromptVersion, Policy: pf.Policy}
	files := map[string][]byte{}
	for _, file := range []string{fileSystem, fileUser, fileSchema} {
		b, ok, err := read(file)
		if err != nil {
			return nil, err
		}
		if !ok && pf.LLM {
			return nil, fail(file, errors.New(`file is missing (required when the policy says "llm": true)`))
		}
		files[file] = b
	}
	app.System, app.User = string(files[fileSystem]), string(files[fileUser])
	if app.Events, err = loadEvents(fsys, name); err != nil {
		return nil, fail(FileEvents, err)
	}
	if files[fileSchema] != nil {
		app.Schema = json.RawMessage(files[fileSchema])
	}
	if err := app.Compile(); err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			le.Dir = dir
		}
		return nil, err
	}
	return app, nil
}

// decodeStrict decodes exactly one JSON value, refusing unknown fields.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("invalid JSON: data after the top-level object")
	}
	return nil
}

// Names returns the app names of apps, sorted.
func Names(apps map[string]*App) []string {
	return slices.Sorted(maps.Keys(apps))
}
