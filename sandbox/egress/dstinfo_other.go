//go:build !linux

package egress

import "net"

// enableDstInfo does nothing: the stub runs in a namespace only on Linux.
func enableDstInfo(*net.UDPConn) error { return nil }

// replyInfo has nothing to say off Linux.
func replyInfo([]byte) []byte { return nil }
