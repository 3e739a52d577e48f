package egress

import (
	"net"

	"golang.org/x/sys/unix"
)

// enableDstInfo asks the kernel to say, with each datagram conn reads, the
// address it was sent to.
func enableDstInfo(conn *net.UDPConn) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		domain, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_DOMAIN)
		if err != nil {
			serr = err
			return
		}
		if domain == unix.AF_INET6 {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO, 1)
		} else {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_PKTINFO, 1)
		}
	})
	if err != nil {
		return err
	}
	return serr
}

// replyInfo turns the destination of a datagram read (its control
// messages) into the control message that sends the reply from it.
func replyInfo(oob []byte) []byte {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	for _, m := range msgs {
		switch {
		case m.Header.Level == unix.IPPROTO_IP && m.Header.Type == unix.IP_PKTINFO && len(m.Data) >= unix.SizeofInet4Pktinfo:
			var in unix.Inet4Pktinfo
			copy(in.Addr[:], m.Data[8:12]) // ipi_addr: the header's destination
			return unix.PktInfo4(&unix.Inet4Pktinfo{Spec_dst: in.Addr})
		case m.Header.Level == unix.IPPROTO_IPV6 && m.Header.Type == unix.IPV6_PKTINFO && len(m.Data) >= unix.SizeofInet6Pktinfo:
			var in unix.Inet6Pktinfo
			copy(in.Addr[:], m.Data[:16])
			return unix.PktInfo6(&in)
		}
	}
	return nil
}
