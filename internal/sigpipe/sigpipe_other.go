//go:build !(linux && amd64)

package sigpipe

import (
	"os"
	"os/signal"
	"syscall"
)

// Own says Notify takes the signals itself here, rather than through
// os/signal.
const Own = false

// Notify is signal.Notify here.
func Notify(c chan<- os.Signal, sigs ...syscall.Signal) error {
	list := make([]os.Signal, len(sigs))
	for i, s := range sigs {
		list[i] = s
	}
	signal.Notify(c, list...)
	return nil
}

// Stop is signal.Stop here.
func Stop(c chan<- os.Signal) { signal.Stop(c) }
