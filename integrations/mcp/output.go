package mcp

import (
	"fmt"
	"sync"
)

// DefaultMaxOutput bounds what run_command returns of each of stdout and
// stderr: a model's context is small, and a command's output need not be.
const DefaultMaxOutput = 64 << 10

// bounded keeps the first and the last bytes written to it, up to max in
// all, and counts the rest: the start of an output says what ran, its end
// usually says what went wrong.
type bounded struct {
	mu   sync.Mutex
	max  int
	head []byte
	tail []byte // a ring of max-len(head) bytes once head is full
	next int    // where the ring is written next
	n    int64  // bytes written in all
}

func newBounded(max int) *bounded { return &bounded{max: max} }

// Write keeps p's bytes within the bound; it never fails, so the command
// never sees a broken pipe for the caller's limit.
func (b *bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	written := len(p)
	b.n += int64(written)
	headMax := b.max / 4
	if room := headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	tailMax := b.max - headMax
	for len(p) > 0 && tailMax > 0 {
		if len(b.tail) < tailMax {
			k := min(tailMax-len(b.tail), len(p))
			b.tail = append(b.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(b.tail[b.next:], p)
		b.next = (b.next + k) % tailMax
		p = p[k:]
	}
	return written, nil
}

// String returns what was kept, with a mark where bytes were left out,
// and whether any were.
func (b *bounded) String() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	kept := int64(len(b.head) + len(b.tail))
	tail := append(append([]byte{}, b.tail[b.next:]...), b.tail[:b.next]...)
	if b.n <= kept {
		return string(b.head) + string(tail), false
	}
	return fmt.Sprintf("%s\n[gatedexec: %d bytes of output left out]\n%s", b.head, b.n-kept, tail), true
}
