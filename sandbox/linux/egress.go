//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// The ports of the command's namespace the proxy listens on: every TCP
// connection to them is captured and judged by its name (80 and 443, and
// 22 for git over SSH, judged by the name looked up alone), and
// proxyPort is the HTTP CONNECT + SOCKS5 endpoint the proxy variables
// name, through which proxy-aware clients reach every other port.
const (
	proxyPort = 3128
)

var capturePorts = []uint16{22, 80, 443}

// egressRun is the network proxy of one run: the runner's end of the
// socket the helper sends its namespace's sockets on, and the Proxy that
// serves them until the run ends.
type egressRun struct {
	proxy *egress.Proxy
	// mine is the runner's end; theirs the helper's (ExtraFiles).
	mine, theirs *os.File
	cancel       context.CancelFunc
	wg           sync.WaitGroup
	stopOnce     sync.Once
	denied       []sandbox.Denial
	// err is why serving stopped early, if it did.
	mu  sync.Mutex
	err error
}

// newEgress makes the socket pair for a run under p in mode "proxy".
func newEgress(p *sandbox.Profile, hooks sandbox.NetHooks) (*egressRun, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: egress socket: %w", err)
	}
	return &egressRun{
		proxy: &egress.Proxy{Policy: &p.Hosts, Ask: hooks.Ask, Record: hooks.Record},
		mine:  os.NewFile(uintptr(fds[0]), "egress"),
		// The helper's end is passed as GX_EGRESS_FD.
		theirs: os.NewFile(uintptr(fds[1]), "egress-helper"),
	}, nil
}

// helperEnd is the descriptor to pass the helper; nil without egress.
func (e *egressRun) helperEnd() *os.File {
	if e == nil {
		return nil
	}
	return e.theirs
}

// egressPorts are the TCP ports the helper listens on, in the order it
// sends their sockets.
func egressPorts() []uint16 { return append(append([]uint16(nil), capturePorts...), proxyPort) }

// start closes the runner's copy of the helper's end (the helper holds
// the only one left, so its exit ends the wait) and serves, in the
// background, what the helper sends.
func (e *egressRun) start(ctx context.Context) {
	e.theirs.Close()
	ctx, e.cancel = context.WithCancel(ctx)
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		if err := e.serve(ctx); err != nil && ctx.Err() == nil {
			e.mu.Lock()
			e.err = err
			e.mu.Unlock()
		}
	}()
}

// serve receives the namespace's sockets and serves them until ctx ends.
func (e *egressRun) serve(ctx context.Context) error {
	defer e.mine.Close()
	ports := egressPorts()
	head := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace((len(ports)+2)*4))
	n, oobn, _, _, err := unix.Recvmsg(int(e.mine.Fd()), head, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return fmt.Errorf("egress: receiving the namespace's sockets: %w", err)
	}
	if n == 0 {
		// The helper ended before sending: it reports why itself.
		return nil
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if got, err := unix.ParseUnixRights(&m); err == nil {
				fds = append(fds, got...)
			}
		}
	}
	files := make([]*os.File, len(fds))
	for i, fd := range fds {
		files[i] = os.NewFile(uintptr(fd), "egress-socket")
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	if n != 6 || string(head[:4]) != "GXE1" || int(head[4]) != len(ports) || int(head[4])+int(head[5]) != len(fds) || head[5] == 0 {
		return errors.New("egress: the helper sent a malformed message")
	}
	var serving sync.WaitGroup
	errs := make(chan error, len(files))
	for i, f := range files {
		var run func() error
		if i < len(ports) {
			l, err := net.FileListener(f)
			if err != nil {
				return fmt.Errorf("egress: listener on port %d: %w", ports[i], err)
			}
			if ports[i] == proxyPort {
				run = func() error { return e.proxy.ServeEndpoint(ctx, l) }
			} else {
				run = func() error { return e.proxy.ServeCapture(ctx, l) }
			}
		} else {
			pc, err := net.FilePacketConn(f)
			if err != nil {
				return fmt.Errorf("egress: DNS stub socket: %w", err)
			}
			udp, ok := pc.(*net.UDPConn)
			if !ok {
				pc.Close()
				return errors.New("egress: DNS stub socket is not UDP")
			}
			run = func() error { return e.proxy.ServeDNS(ctx, udp) }
		}
		serving.Add(1)
		go func() {
			defer serving.Done()
			if err := run(); err != nil {
				errs <- err
			}
		}()
	}
	// The descriptors are duplicated into the listeners; the originals go.
	for _, f := range files {
		f.Close()
	}
	files = nil
	serving.Wait()
	close(errs)
	return <-errs
}

// stop ends the proxy with the run and returns the hosts it refused, as
// denials, and why serving failed, if it did. It may be called again.
func (e *egressRun) stop() ([]sandbox.Denial, error) {
	e.stopOnce.Do(func() {
		if e.cancel != nil {
			e.cancel()
		}
		e.proxy.Close()
		e.wg.Wait()
		e.denied = sandbox.NetDenials(e.proxy.Denials())
	})
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.denied, e.err
}

// startFallback runs c under p in mode "proxy" without namespaces (the
// best-effort fallback, LayerEgressFallback): the proxy's endpoint is on
// the host's loopback, the command's ruleset lets it connect to that port
// alone, and seccomp refuses it UDP and raw sockets. Without a Landlock ABI
// that handles TCP (4) nothing would hold the command to the proxy, and it
// does not run.
func (r *Runner) startFallback(ctx context.Context, c *Command, p *sandbox.Profile, spec *helperSpec, env []string, caps Capabilities, cgs *pendingCgroups, hold *termHold, watch *sandbox.GitWatch) (*sandbox.Result, error) {
	if !spec.Landlock || caps.LandlockABI < 4 {
		return nil, fmt.Errorf("profile %s: network mode \"proxy\" without a network namespace needs Landlock ABI 4 (TCP rules); this host has %d: %w",
			p.Name, caps.LandlockABI, sandbox.ErrLayerUnavailable)
	}
	hooks := hold.hooks(c.Net)
	local, err := egress.StartLocal(ctx, &egress.Proxy{Policy: &p.Hosts, Ask: hooks.Ask, Record: hooks.Record})
	if err != nil {
		return nil, err
	}
	fd, flags, err := newRulesetFD(p, caps.LandlockABI, local.Port())
	if err != nil || fd < 0 {
		local.Stop()
		return nil, fmt.Errorf("profile %s: the egress fallback's Landlock ruleset: %v: %w", p.Name, err, sandbox.ErrLayerUnavailable)
	}
	ruleset := os.NewFile(uintptr(fd), "landlock-ruleset")
	defer ruleset.Close()
	spec.LandlockFlags = flags
	if spec.BPF, err = buildBPF(append(seccompRules(p), fallbackSeccompRules()...)); err != nil {
		local.Stop()
		return nil, err
	}
	spec.Env = egress.ProxyEnv(env, local.Port())
	res, err := r.start(ctx, c, p, spec, ruleset, cgs, hold, nil, watch)
	denied := sandbox.NetDenials(local.Stop())
	if res != nil {
		res.Denied = denied
		res.Layers = append(res.Layers, sandbox.LayerEgressFallback)
	}
	return res, err
}

// fallbackSeccompRules refuse an IPv4 or IPv6 socket other than a TCP
// stream: the UDP ones a command sharing the host's network could send
// anywhere with (DNS included: its names go to the proxy), and the stream
// protocols Landlock's TCP rules do not cover (MPTCP, SCTP, SMC), which
// would connect anywhere past the rule that allows the proxy's port alone.
// Type and protocol are compared as the ints the kernel reads.
func fallbackSeccompRules() []SyscallRule {
	var rules []SyscallRule
	for _, domain := range []uint64{unix.AF_INET, unix.AF_INET6} {
		family := ArgCond{Arg: 0, Op: MaskedEqual, Mask: 0xffffffff, Value: domain}
		rules = append(rules,
			SyscallRule{Syscall: "socket", Errno: unix.EPERM,
				Conds: []ArgCond{family, {Arg: 1, Op: MaskedNotEqual, Mask: 0xf, Value: unix.SOCK_STREAM}}},
			SyscallRule{Syscall: "socket", Errno: unix.EPERM,
				Conds: []ArgCond{family, {Arg: 2, Op: MaskedNotEqual, Mask: 0xffffffff, Value: 0},
					{Arg: 2, Op: MaskedNotEqual, Mask: 0xffffffff, Value: unix.IPPROTO_TCP}}})
	}
	return rules
}
