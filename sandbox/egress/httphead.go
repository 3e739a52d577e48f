package egress

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"strings"
)

// requestHead is an HTTP/1 request line and its header lines as read.
type requestHead struct {
	line                  string // the request line, without CRLF
	method, target, proto string
	headers               []string // header lines, without CRLF
}

// readRequestHead reads a request line and headers up to the blank line,
// within MaxRequestHead bytes.
func readRequestHead(r *bufio.Reader) (*requestHead, error) {
	budget := MaxRequestHead
	next := func() (string, error) {
		line, err := r.ReadSlice('\n')
		if budget -= len(line); budget < 0 {
			return "", fmt.Errorf("longer than %d bytes", MaxRequestHead)
		}
		return strings.TrimRight(string(line), "\r\n"), err
	}
	line, err := next()
	if err != nil {
		return nil, err
	}
	f := strings.Fields(line)
	if len(f) != 3 || !strings.HasPrefix(f[2], "HTTP/1.") {
		return nil, fmt.Errorf("want METHOD TARGET HTTP/1.x, got %q", line)
	}
	h := &requestHead{line: line, method: f[0], target: f[1], proto: f[2]}
	for {
		l, err := next()
		if err != nil {
			return nil, fmt.Errorf("headers: %w", err)
		}
		if l == "" {
			return h, nil
		}
		h.headers = append(h.headers, l)
	}
}

// header returns the value of the first header called name.
func (h *requestHead) header(name string) (string, bool) {
	for _, l := range h.headers {
		k, v, ok := strings.Cut(l, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// connectTarget is the host:port of a CONNECT request.
func (h *requestHead) connectTarget() (Target, error) {
	t, err := parseHostPort(h.target)
	if err != nil {
		return Target{}, fmt.Errorf("CONNECT request: %w", err)
	}
	return t, nil
}

// ProxyRequest is what a client sent an HTTP proxy: a CONNECT (Head is
// nil: the tunnel starts after it) or a request for an http:// URL, whose
// Head is the request rewritten to go to the origin server.
type ProxyRequest struct {
	Target Target
	Head   []byte
}

// ReadProxyRequest reads a request to an HTTP proxy: CONNECT host:port, or
// a request whose target is an absolute http:// URL (curl's and git's
// plain-HTTP requests through HTTP_PROXY). The latter is rewritten for the
// origin: the path as target, the URL's host as Host header, no Proxy-*
// headers, and "Connection: close", since a later request on the same
// client connection could be for another host and would still go to this
// one.
func ReadProxyRequest(r *bufio.Reader) (ProxyRequest, error) {
	h, err := readRequestHead(r)
	if err != nil {
		return ProxyRequest{}, fmt.Errorf("proxy request: %w", err)
	}
	if h.method == "CONNECT" {
		t, err := h.connectTarget()
		return ProxyRequest{Target: t}, err
	}
	u, err := url.Parse(h.target)
	if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ProxyRequest{}, fmt.Errorf("proxy request: want CONNECT or an absolute http:// URL, got %q", h.line)
	}
	hostport := u.Host
	if u.Port() == "" {
		hostport += ":80"
	}
	t, err := parseHostPort(hostport)
	if err != nil {
		return ProxyRequest{}, fmt.Errorf("proxy request: %w", err)
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		path += "?" + u.RawQuery
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %s\r\nHost: %s\r\n", h.method, path, h.proto, u.Host)
	for _, l := range h.headers {
		k, _, _ := strings.Cut(l, ":")
		k = strings.ToLower(strings.TrimSpace(k))
		if k == "host" || k == "connection" || strings.HasPrefix(k, "proxy-") {
			continue
		}
		b.WriteString(l + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	return ProxyRequest{Target: t, Head: b.Bytes()}, nil
}

// hostHeader returns the name in a request head's Host header, without a
// port; "" when there is none or it is an address.
func hostHeader(h *requestHead) string {
	v, ok := h.header("Host")
	if !ok {
		return ""
	}
	if t, err := parseHostPort(v); err == nil {
		return t.Host
	}
	n, err := NormalizeHost(v)
	if err != nil {
		return ""
	}
	return n
}
