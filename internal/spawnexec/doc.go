// Package spawnexec starts a program from a Go process without waiting
// for its execve, which syscall.ForkExec does: its child shares the
// parent's memory until the execve (CLONE_VFORK), and the parent waits
// that long. A sandboxed start waits so for its helper's exec and the
// making of its PID namespace (0.2 ms here), work the helper's own CPU
// could do beside the parent's planning.
//
// Start clones a child that runs no Go: a few lines of assembly, reading
// a plan written into a mapping of its own, where nothing of Go's is ever
// placed, place the descriptors and exec the program. The mapping is
// kept until the child has exec'd or exited (Child.Execed).
package spawnexec
