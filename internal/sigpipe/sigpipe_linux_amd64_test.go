package sigpipe

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestNotify: signals sent to the process come out of the channels that
// asked for them, in order, instead of ending it (SIGTERM, SIGINT and
// SIGHUP would, SIGQUIT would dump its goroutines), only in the process
// that installed the handler; a channel stopped gets nothing more; a
// signal no channel wants goes back to the runtime, whose os/signal then
// sees it again.
func TestNotify(t *testing.T) {
	all := make(chan os.Signal, 8)
	hup := make(chan os.Signal, 8)
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
	if err := Notify(all, sigs...); err != nil {
		t.Fatal(err)
	}
	if err := Notify(hup, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	receive := func(c chan os.Signal, want syscall.Signal) {
		t.Helper()
		select {
		case got := <-c:
			if got != want {
				t.Errorf("got %v, want %v", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%v: nothing came", want)
		}
	}
	for _, s := range sigs {
		syscall.Kill(os.Getpid(), s)
		receive(all, s)
	}
	receive(hup, syscall.SIGHUP)
	if len(hup) != 0 {
		t.Errorf("%v came to a channel that asked for SIGHUP only", <-hup)
	}
	// Taken in another process than the one that installed the handler
	// (a forked child before its exec), a signal is not handed on.
	owner := ownerPID
	ownerPID = owner + 1
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	select {
	case sig := <-hup:
		t.Errorf("%v handed on from another process", sig)
	case <-time.After(100 * time.Millisecond):
	}
	ownerPID = owner
	Stop(all)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	receive(hup, syscall.SIGHUP)
	if len(all) != 0 {
		t.Errorf("%v came to a stopped channel", <-all)
	}
	// SIGHUP is no one's here now: the runtime's again.
	Stop(hup)
	if _, ok := taken.prev[syscall.SIGHUP]; ok {
		t.Error("SIGHUP still taken with no channel subscribed")
	}
	rt := make(chan os.Signal, 1)
	signal.Notify(rt, syscall.SIGHUP)
	defer signal.Stop(rt)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	receive(rt, syscall.SIGHUP)
}
