//go:build linux && !amd64

package spawnexec

// Supported says whether Start can start a child here.
const Supported = false

func clone(plan, stack uintptr, flags uint64) int64 { return -1 }
