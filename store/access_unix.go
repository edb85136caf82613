//go:build unix

package store

import "syscall"

// canWrite reports whether this process may open path for writing: its
// permissions as they apply to this user, and a read-only mount. A variable
// for tests, which run as root, whom permissions do not bind.
var canWrite = func(path string) error {
	return syscall.Access(path, 0x2) // W_OK
}
