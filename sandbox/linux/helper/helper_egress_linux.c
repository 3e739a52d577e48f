// The network half of the helper for a profile whose network mode is
// "proxy" (DESIGN §9), run in the command's new network namespace while
// the helper still holds its capabilities there.
//
// Every address is made local to the namespace (a "local" route for
// 0.0.0.0/0 and ::/0 on lo), so every TCP connection the command makes, to
// whatever address, lands on a listener of this namespace, and every DNS
// query, to whatever server /etc/resolv.conf names, on the stub's socket.
// The helper makes those sockets and hands them to the runner, which
// serves them from outside; it keeps none. Nothing leaves the namespace
// but through the runner's process: when it is gone, nothing leaves.

#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "helper_linux.h"

static char egress_msg[200];

#define egress_fail(...) (snprintf(egress_msg, sizeof egress_msg, __VA_ARGS__), egress_msg)

// add_local_default adds "local default dev lo" for family to the local
// table, as `ip route add local 0.0.0.0/0 dev lo` does.
static int add_local_default(int family, int ifindex) {
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		return -errno;
	}
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[RTA_SPACE(sizeof(int))];
	} req;
	memset(&req, 0, sizeof req);
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof req.rt);
	req.nh.nlmsg_type = RTM_NEWROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	req.nh.nlmsg_seq = 1;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_table = RT_TABLE_LOCAL;
	req.rt.rtm_protocol = RTPROT_BOOT;
	req.rt.rtm_scope = RT_SCOPE_HOST;
	req.rt.rtm_type = RTN_LOCAL;
	struct rtattr *rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = RTA_OIF;
	rta->rta_len = RTA_LENGTH(sizeof(int));
	memcpy(RTA_DATA(rta), &ifindex, sizeof(int));
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + rta->rta_len;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	char buf[512];
	ssize_t n = recv(fd, buf, sizeof buf, 0);
	int e = n < 0 ? errno : 0;
	close(fd);
	if (n < 0) {
		return -e;
	}
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	if (!NLMSG_OK(nh, (unsigned)n) || nh->nlmsg_type != NLMSG_ERROR ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		return -EPROTO;
	}
	struct nlmsgerr *err = NLMSG_DATA(nh);
	return err->error; // 0 or -errno
}

// listener returns a listening TCP socket on port for IPv6 and IPv4 (IPv4
// alone where the namespace has no IPv6), or -errno.
static int listener(uint16_t port) {
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		int off = 0;
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port), .sin6_addr = IN6ADDR_ANY_INIT};
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off) == 0 &&
		    bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 4096) == 0) {
			return fd;
		}
		close(fd);
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = {htonl(INADDR_ANY)}};
	if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4096) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

// dns_socket returns a UDP socket on port 53 of family (IPv6 only, for
// AF_INET6), or -errno.
static int dns_socket(int family) {
	int fd = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -errno;
	}
	int r;
	if (family == AF_INET6) {
		int on = 1;
		struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(53), .sin6_addr = IN6ADDR_ANY_INIT};
		r = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
		if (r == 0) {
			r = bind(fd, (struct sockaddr *)&a, sizeof a);
		}
	} else {
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(53), .sin_addr = {htonl(INADDR_ANY)}};
		r = bind(fd, (struct sockaddr *)&a, sizeof a);
	}
	if (r != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

const char *gx_egress_setup(const uint16_t *ports, size_t nports, int to) {
	int fds[GX_EGRESS_MAX_PORTS + 2];
	size_t n = 0;
	const char *err = NULL;
	if (nports == 0 || nports > GX_EGRESS_MAX_PORTS) {
		return egress_fail("egress: %zu ports", nports);
	}
	unsigned lo = if_nametoindex("lo");
	if (lo == 0) {
		return egress_fail("egress: no loopback interface: %s", strerror(errno));
	}
	int r = add_local_default(AF_INET, (int)lo);
	if (r != 0) {
		return egress_fail("egress: routing every IPv4 address to the namespace: %s", strerror(-r));
	}
	// Without IPv6 in the namespace an IPv6 address has no route at all:
	// that fails closed, so only IPv4 is required.
	int v6 = add_local_default(AF_INET6, (int)lo) == 0;
	for (size_t i = 0; i < nports; i++) {
		int fd = listener(ports[i]);
		if (fd < 0) {
			err = egress_fail("egress: listening on port %u: %s", ports[i], strerror(-fd));
			goto out;
		}
		fds[n++] = fd;
	}
	int u4 = dns_socket(AF_INET);
	if (u4 < 0) {
		err = egress_fail("egress: DNS stub: %s", strerror(-u4));
		goto out;
	}
	fds[n++] = u4;
	if (v6) {
		int u6 = dns_socket(AF_INET6);
		if (u6 >= 0) {
			fds[n++] = u6;
		}
	}
	unsigned char head[6] = {'G', 'X', 'E', '1', (unsigned char)nports, (unsigned char)(n - nports)};
	struct iovec iov = {.iov_base = head, .iov_len = sizeof head};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof fds)];
	} ctl;
	memset(&ctl, 0, sizeof ctl);
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = CMSG_SPACE(n * sizeof(int))};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	if (sendmsg(to, &msg, MSG_NOSIGNAL) < 0) {
		err = egress_fail("egress: handing the sockets to gatedexec: %s", strerror(errno));
	}
out:
	for (size_t i = 0; i < n; i++) {
		close(fds[i]);
	}
	return err;
}
