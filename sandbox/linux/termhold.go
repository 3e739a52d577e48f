//go:build linux

package linux

import (
	"context"
	"sync"

	"github.com/gatedexec/gatedexec/sandbox"
)

// termHold gives a prompt asked while the command runs (a network prompt
// rule asks when the connection is made) the caller's terminal to itself.
// Without it the pty relay goes on copying the command's output under the
// prompt, so the command could wipe the prompt's lines and draw its own
// question in their place ("connections to registry.npmjs.org:443?" over
// one naming another host), and goes on reading the keys, so the person's
// answer could go to the command. While a prompt holds the terminal, the
// relay writes none of the command's output to it (the pty's buffer fills
// and the command waits) and reads no key from it; both go on after.
type termHold struct {
	mu      sync.Mutex
	changed *sync.Cond
	prompts int // prompts holding the terminal
	relays  int // relay steps on the terminal in progress
}

func newTermHold() *termHold {
	h := &termHold{}
	h.changed = sync.NewCond(&h.mu)
	return h
}

// hooks returns n with its Ask holding the terminal while it asks.
func (h *termHold) hooks(n sandbox.NetHooks) sandbox.NetHooks {
	if n.Ask == nil {
		return n
	}
	ask := n.Ask
	n.Ask = func(ctx context.Context, host string, port uint16) bool {
		h.hold()
		defer h.release()
		return ask(ctx, host, port)
	}
	return n
}

// hold takes the terminal for a prompt, once the relay step in progress
// (a write of output, a read of keys) has ended.
func (h *termHold) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prompts++
	for h.relays > 0 {
		h.changed.Wait()
	}
}

func (h *termHold) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.prompts--
	h.changed.Broadcast()
}

// enter starts a relay step on the terminal, waiting while a prompt holds
// it; leave ends the step.
func (h *termHold) enter() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.prompts > 0 {
		h.changed.Wait()
	}
	h.relays++
}

func (h *termHold) leave() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.relays--
	h.changed.Broadcast()
}
