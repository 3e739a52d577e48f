package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// ServeCapture accepts the connections that land on l, a listener in the
// command's namespace that every TCP connection to its port reaches (the
// namespace routes every address to itself). The address a connection
// was made to says its name when it is a stand-in of the DNS stub; else
// the client dialled an address itself, which only a rule naming it
// allows. A TLS server name or HTTP Host header that names another host
// must be allowed too. ServeCapture returns when ctx ends or l fails.
func (p *Proxy) ServeCapture(ctx context.Context, l net.Listener) error {
	return p.serve(ctx, l, p.capture)
}

// ServeEndpoint accepts proxy-aware clients on l: SOCKS5 (first byte 5)
// or HTTP (CONNECT, or a request for an http:// URL).
func (p *Proxy) ServeEndpoint(ctx context.Context, l net.Listener) error {
	return p.serve(ctx, l, p.endpoint)
}

func (p *Proxy) serve(ctx context.Context, l net.Listener, handle func(context.Context, net.Conn)) error {
	p.init()
	stop := context.AfterFunc(ctx, func() { l.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if !p.track(c) {
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.untrack(c)
			defer c.Close()
			handle(ctx, c)
		}()
	}
}

// capture handles one connection from ServeCapture.
func (p *Proxy) capture(ctx context.Context, c net.Conn) {
	local, ok := c.LocalAddr().(*net.TCPAddr)
	if !ok {
		return
	}
	dst := local.AddrPort()
	ip, port := dst.Addr().Unmap(), dst.Port()
	host, via := "", "address"
	if n, ok := p.names.name(ip); ok {
		host, via = n, "dns"
	} else if StandIns.Contains(ip) {
		// A stand-in this run never gave out: nothing to connect to.
		return
	}
	c.SetReadDeadline(time.Now().Add(p.handshakeTimeout()))
	br := bufio.NewReaderSize(c, 4096)
	claimed, err := claimedName(br)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		p.record(Record{Host: hostOr(host, ip), Port: port, Via: via, Decision: Deny.String(), Why: err.Error(), Start: time.Now()})
		return
	}
	r, err := p.decide(ctx, host, ip, port, via)
	if err == nil && claimed != "" && claimed != host {
		// The client looked one name up and names another in its
		// request: that one is judged too (and a name for an address
		// the client dialled itself does not make it allowed).
		var cr *route
		if cr, err = p.decide(ctx, claimed, netip.Addr{}, port, via); err != nil {
			r = cr
		}
	}
	p.carry(ctx, c, br, nil, r, err)
}

func hostOr(host string, ip netip.Addr) string {
	if host != "" {
		return host
	}
	return ip.String()
}

// claimedName reads, without consuming, the name a client's first bytes
// give: a TLS server name or an HTTP Host header; "" when they give none
// (another protocol). A client that sends nothing within the deadline is
// an error.
func claimedName(br *bufio.Reader) (string, error) {
	first, err := br.Peek(1)
	if err != nil {
		return "", errors.New("the client sent nothing")
	}
	skip := blankLines(br)
	switch {
	case first[0] == 22: // a TLS handshake record
		for n := 5; ; {
			b, err := br.Peek(n)
			if err != nil {
				return "", errors.New("TLS ClientHello cut short")
			}
			name, need, err := ServerName(b)
			if err != nil {
				return "", err
			}
			if need == 0 {
				return name, nil
			}
			if n += need; n > br.Size() {
				return "", errors.New("TLS ClientHello larger than the proxy reads")
			}
		}
	case isHTTPMethod(br, skip):
		// An HTTP request: the head must fit the reader's buffer.
		for n := skip + 1; n <= br.Size(); n++ {
			b, err := br.Peek(n)
			if err != nil {
				return "", errors.New("HTTP request head cut short")
			}
			if l := len(b); l >= 4 && string(b[l-4:]) == "\r\n\r\n" || l >= 2 && string(b[l-2:]) == "\n\n" {
				h, err := readRequestHead(bufio.NewReader(bytes.NewReader(b[skip:])))
				if err != nil {
					return "", err
				}
				return hostHeader(h), nil
			}
		}
		return "", errors.New("HTTP request head larger than the proxy reads")
	}
	return "", nil
}

// isHTTPMethod reports whether br, past skip bytes, goes on with an HTTP
// method and a blank ("GET ", "OPTIONS "): letters only, so "SSH-2.0" is
// not one. Lower-case letters count: servers that take "get" as GET
// would otherwise be sent a Host nobody judged.
func isHTTPMethod(br *bufio.Reader, skip int) bool {
	for n := skip + 1; n <= skip+16; n++ {
		b, err := br.Peek(n)
		if err != nil {
			return false
		}
		switch c := b[n-1] | 0x20; {
		case b[n-1] == ' ':
			return n > skip+1
		case c < 'a' || c > 'z':
			return false
		}
	}
	return false
}

// blankLines returns how many CR and LF bytes br starts with: servers
// skip the empty lines before a request line (RFC 9112 section 2.2), so
// the request the server reads, and its Host, starts after them.
func blankLines(br *bufio.Reader) int {
	n := 0
	for n < br.Size() {
		b, err := br.Peek(n + 1)
		if err != nil || (b[n] != '\r' && b[n] != '\n') {
			return n
		}
		n++
	}
	return n
}

// endpoint handles one connection from ServeEndpoint.
func (p *Proxy) endpoint(ctx context.Context, c net.Conn) {
	c.SetReadDeadline(time.Now().Add(p.handshakeTimeout()))
	br := bufio.NewReaderSize(c, MaxRequestHead)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	var t Target
	var head []byte
	via := "connect"
	if first[0] == 5 {
		via = "socks5"
		t, err = ReadSocks5(br, c)
	} else {
		var req ProxyRequest
		req, err = ReadProxyRequest(br)
		t, head = req.Target, req.Head
		if head != nil {
			via = "http"
		}
	}
	c.SetReadDeadline(time.Time{})
	if err != nil {
		p.record(Record{Host: t.Host, Port: t.Port, Via: via, Decision: Deny.String(), Why: err.Error(), Start: time.Now()})
		if via == "connect" {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n")
		}
		return
	}
	host, addr := t.Host, t.Addr
	if host == "" {
		// A client that resolved through the stub gives its stand-in.
		if n, ok := p.names.name(addr); ok {
			host = n
		}
	}
	r, err := p.decide(ctx, host, addr, t.Port, via)
	p.carry(ctx, c, br, head, r, err)
}

// carry dials r's host and splices c to it, answering a proxy client
// first, and records the connection. A refusal or a failed dial is
// answered in the client's protocol and recorded.
func (p *Proxy) carry(ctx context.Context, c net.Conn, br *bufio.Reader, head []byte, r *route, err error) {
	var up net.Conn
	if err == nil {
		up, err = p.dial(ctx, r)
	}
	reply(c, r.rec.Via, head != nil, err)
	if err != nil {
		r.rec.DurationMS = time.Since(r.rec.Start).Milliseconds()
		p.record(r.rec)
		return
	}
	defer up.Close()
	if !p.track(up) {
		return
	}
	defer p.untrack(up)
	if head != nil {
		n, werr := up.Write(head)
		r.rec.BytesOut += int64(n)
		if werr != nil {
			p.record(r.rec)
			return
		}
	}
	out, in := splice(c, br, up)
	r.rec.BytesOut += out
	r.rec.BytesIn += in
	r.rec.DurationMS = time.Since(r.rec.Start).Milliseconds()
	p.record(r.rec)
}

// reply answers a proxy client whether its tunnel is open. A captured
// connection gets no answer: a refusal just closes it.
func reply(c net.Conn, via string, plainHTTP bool, err error) {
	switch via {
	case "socks5":
		code := byte(SocksSucceeded)
		if errors.Is(err, errRefused) {
			code = SocksNotAllowed
		} else if err != nil {
			code = SocksUnreachable
		}
		SocksReply(c, code)
	case "connect", "http":
		switch {
		case errors.Is(err, errRefused):
			body := "gatedexec: " + err.Error() + "\n"
			io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: "+
				strconv.Itoa(len(body))+"\r\n\r\n"+body)
		case err != nil:
			io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		case !plainHTTP:
			io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		}
	}
}

// splice copies both ways until both ends are done, and returns the bytes
// sent to up and received from it. What br holds already goes first.
func splice(c net.Conn, br *bufio.Reader, up net.Conn) (out, in int64) {
	done := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(c, up)
		closeWrite(c)
		done <- n
	}()
	if k := br.Buffered(); k > 0 {
		b, _ := br.Peek(k)
		m, err := up.Write(b)
		out += int64(m)
		if err != nil {
			up.Close()
			c.Close()
			return out, <-done
		}
	}
	n, _ := io.Copy(up, c)
	out += n
	closeWrite(up)
	in = <-done
	return out, in
}

// closeWrite ends the sending side of c, or all of it.
func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
