//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// canWrite reports whether this process may open path for writing: its
// permissions as they apply to this user, and a read-only mount. A variable
// for tests, which run as root, whom permissions do not bind.
var canWrite = func(path string) error {
	return syscall.Access(path, 0x2) // W_OK
}

// flockExclusive takes an exclusive advisory lock on f without waiting;
// errLocked when another open file holds it.
func flockExclusive(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) {
		return errLocked
	}
	return err
}
