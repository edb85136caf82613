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
	// Read through an os.Root: no link leads out of dir. confined refuses,
	// naming the file, a link that leaves its app folder.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("apps dir: %w", err)
	}
	defer root.Close()
	return loadFS(root.FS(), dir)
}

// confined says why the file of an app folder under the apps dir root (file
// empty: the folder itself) may not be read: it is a link whose target lies
// outside the app folder (for a folder, outside the apps dir). Files are the
// operator's, but a link out of the folder reads whatever it points to,
// which the folder's owner may not see, into prompts.
func confined(root, app, file string) error {
	base, p := root, filepath.Join(root, app)
	if file != "" {
		base, p = p, filepath.Join(p, file)
	}
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil // a missing file is reported where it is read
	}
	target, err := realPath(p)
	if err != nil {
		return fmt.Errorf("is a link that cannot be followed: %w", err)
	}
	if t, err := os.Stat(target); file == "" && (err != nil || !t.IsDir()) {
		return nil // a link beside the app folders to something not a folder: not an app
	}
	realBase, err := realPath(base)
	if err != nil {
		return err
	}
	if !within(realBase, target) {
		where := "app folder"
		if file == "" {
			where = "apps dir"
		}
		return fmt.Errorf("is a link to %s, outside the %s: copy the file into the folder instead", target, where)
	}
	return nil
}

// confinedApp checks the app folder name under the apps dir root and every
// file in it with confined.
func confinedApp(root, name string) error {
	dir := filepath.Join(root, name)
	if err := confined(root, name, ""); err != nil {
		return &LoadError{App: name, Dir: dir, File: "folder", Err: err}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // not a folder: a file beside the app folders
	}
	for _, e := range entries {
		if err := confined(root, name, e.Name()); err != nil {
			return &LoadError{App: name, Dir: dir, File: e.Name(), Err: err}
		}
	}
	return nil
}

// realPath is path absolute with every link resolved.
func realPath(path string) (string, error) {
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

// within reports whether path is dir or lies under it; both are clean and
// absolute.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
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
		if !strings.HasSuffix(root, ":") {
			if err := confinedApp(root, name); err != nil {
				errs = append(errs, err)
				continue
			}
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
