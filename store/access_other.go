//go:build !unix

package store

import (
	"errors"
	"os"
)

// canWrite reports whether path looks writable; without access(2) the
// read-only attribute is all there is to go by. A variable for tests.
var canWrite = func(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.IsDir() && fi.Mode().Perm()&0o200 == 0 {
		return errors.New("read-only")
	}
	return nil
}

// flockExclusive has no advisory lock to take here: a second worker on the
// same file is not detected on this platform.
func flockExclusive(*os.File) error { return nil }
