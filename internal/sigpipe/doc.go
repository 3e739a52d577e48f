// Package sigpipe takes the signals a supervising process hands on to
// its command without os/signal: a handler of its own, a few
// instructions that write the signal's number into a pipe, and a
// goroutine that reads the pipe and sends each signal to the channels
// subscribed to it, as os/signal would.
//
// os/signal enables each signal with a round trip to a goroutine locked
// to a thread of its own, which the runtime creates, with a template
// thread and a thread to take over the locker's processor: three threads
// and a hand-off per signal between them, in a process that runs for a
// few milliseconds. Here Notify costs a pipe, once, and a system call per
// signal. Where the handler cannot be installed (other platforms) Notify
// and Stop are os/signal's.
//
// A signal taken here never reaches the Go runtime, whose os/signal then
// does not see it either: every subscription to it in the process must
// go through this package. Once no channel is subscribed to it, Stop
// gives it back to the runtime, which acts on it as before (SIGTERM ends
// the process).
package sigpipe
