package sandbox

import "sync"

// TailBuffer is an io.Writer that keeps only the last Max bytes written,
// for Result.StderrTail: the stream itself goes to the caller live, and
// denial detection needs only its end. It is safe for concurrent use.
type TailBuffer struct {
	Max int

	mu  sync.Mutex
	buf []byte
}

// Write keeps the tail of p; it never fails.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if n >= t.Max {
		t.buf = append(t.buf[:0], p[n-t.Max:]...)
		return n, nil
	}
	if over := len(t.buf) + n - t.Max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// Bytes returns a copy of the kept tail; a nil TailBuffer (none kept,
// Command.NoStderrTail) has none.
func (t *TailBuffer) Bytes() []byte {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
