package seal

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// GenerateKeyFile creates the file path holding a new random key, in the
// syntax of ParseKeys ("k1:" and base64 of 32 random bytes), and returns that
// spec. The file is readable only by its owner (0600) and missing parent
// directories are created 0700; existing directories are left as they are.
//
// GenerateKeyFile never replaces an existing file, since that would make
// every transcript sealed under the old key unreadable: if path exists it
// fails with an error wrapping fs.ErrExist. The file appears complete or not
// at all, so a concurrent reader never sees it half written.
func GenerateKeyFile(path string) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create key file directory: %w", err)
	}
	var raw [32]byte
	_, _ = rand.Read(raw[:]) // never fails: it crashes the program instead
	spec := "k1:" + base64.StdEncoding.EncodeToString(raw[:])

	// Written under a temporary name, then linked into place: unlike a
	// rename, a link fails rather than replace a key file another process
	// created meanwhile.
	tmp, err := os.CreateTemp(dir, ".mnemo-key-*.tmp") // mode 0600
	if err != nil {
		return "", fmt.Errorf("create key file: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(spec + "\n")
	if err == nil {
		// The key must be on disk before anything is sealed under it.
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write key file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("create key file: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		// Persists the new directory entry; not every platform supports it.
		_ = d.Sync()
		_ = d.Close()
	}
	return spec, nil
}

// LoadOrCreateKeyFile returns the key spec stored in the file path, creating
// the file with GenerateKeyFile first if it does not exist; created reports
// whether it did. It is for deployments that configure no
// MNEMO_ENCRYPTION_KEY: the file must then be backed up with the database,
// since transcripts cannot be read without it. Workers starting at the same
// time all end up with the same key.
func LoadOrCreateKeyFile(path string) (spec string, created bool, err error) {
	spec, err = readKeyFile(path)
	if err == nil {
		return spec, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, err
	}
	spec, err = GenerateKeyFile(path)
	if errors.Is(err, fs.ErrExist) {
		// Another process created it since the read.
		spec, err = readKeyFile(path)
		return spec, false, err
	}
	if err != nil {
		return "", false, err
	}
	return spec, true, nil
}

func readKeyFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read key file: %w", err)
	}
	spec := strings.TrimSpace(string(b))
	if spec == "" {
		return "", fmt.Errorf("key file %s is empty", path)
	}
	return spec, nil
}
