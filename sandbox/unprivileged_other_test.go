//go:build !linux

package sandbox

import "testing"

// asUnprivileged runs f; only the Linux tests switch a root thread to an
// unprivileged user.
func asUnprivileged(_ *testing.T, f func()) { f() }
