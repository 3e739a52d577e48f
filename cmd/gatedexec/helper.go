package main

import (
	"os"

	"github.com/gatedexec/gatedexec/gate"
)

// init stops a sandbox helper invocation that reached Go (see
// gate.StopStrayHelper): the command must not run unsandboxed.
func init() { gate.StopStrayHelper(os.Args) }
