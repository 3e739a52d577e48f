// Package egress holds the network policy of a run whose profile has
// network mode "proxy" (DESIGN §9): which host names the command may reach
// (Policy), which resolved addresses are never dialled for it unless a rule
// names them (Refused), and the parsers of what a client sends first, from
// which the name of each connection is taken: an HTTP CONNECT request, a
// SOCKS5 request, or the server name of a TLS ClientHello.
//
// Every parser reads from a bounded prefix and fails closed: anything it
// cannot read is a refused connection, never an unjudged one.
package egress
