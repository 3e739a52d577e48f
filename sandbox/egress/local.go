package egress

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
)

// Local is a Proxy's HTTP CONNECT + SOCKS5 endpoint on the host's own
// loopback, for a command that shares the host's network stack: on macOS,
// whose sandbox lets it connect to that one port alone, and on Linux
// without namespaces (a best-effort fallback that Landlock narrows to the
// port). Only proxy-aware clients get through; the rest fail closed.
type Local struct {
	proxy  *Proxy
	l      net.Listener
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// StartLocal serves p on a free port of 127.0.0.1 until Stop.
func StartLocal(ctx context.Context, p *Proxy) (*Local, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("egress: proxy endpoint: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	lp := &Local{proxy: p, l: l, cancel: cancel}
	lp.wg.Add(1)
	go func() {
		defer lp.wg.Done()
		p.ServeEndpoint(ctx, l)
	}()
	return lp, nil
}

// Port is the endpoint's port.
func (lp *Local) Port() uint16 { return uint16(lp.l.Addr().(*net.TCPAddr).Port) }

// Stop closes the endpoint and every connection through it, and returns
// the hosts the proxy refused.
func (lp *Local) Stop() []Denial {
	lp.cancel()
	lp.proxy.Close()
	lp.wg.Wait()
	return lp.proxy.Denials()
}

// ProxyEnv returns env with the proxy variables naming the endpoint on
// 127.0.0.1:port, in both cases, replacing the caller's own (the host's
// proxy is not for the command to reach, and a NO_PROXY would send
// clients past the endpoint), and Java's proxy properties added to
// JAVA_TOOL_OPTIONS, since the JVM reads no variable.
func ProxyEnv(env []string, port uint16) []string {
	endpoint := "127.0.0.1:" + strconv.Itoa(int(port))
	set := []struct{ k, v string }{
		{"HTTP_PROXY", "http://" + endpoint}, {"HTTPS_PROXY", "http://" + endpoint}, {"ALL_PROXY", "socks5h://" + endpoint},
	}
	p := strconv.Itoa(int(port))
	java := "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=" + p + " -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=" + p
	out := make([]string, 0, len(env)+len(set)*2+1)
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY":
			continue
		}
		if k == "JAVA_TOOL_OPTIONS" {
			java = v + " " + java
			continue
		}
		out = append(out, kv)
	}
	for _, s := range set {
		out = append(out, s.k+"="+s.v, strings.ToLower(s.k)+"="+s.v)
	}
	return append(out, "JAVA_TOOL_OPTIONS="+java)
}
