// The contract between the Go runner (helper.go, helper_spec.go) and the C
// helper (helper_linux.c). gatedexec is built without cgo: the Go side
// spells these out in ../helper_abi.go, and TestHelperABI fails when the
// two drift apart.
#ifndef GATEDEXEC_HELPER_LINUX_H
#define GATEDEXEC_HELPER_LINUX_H

// The first argument that turns gatedexec into the helper. Long and
// versioned so nothing triggers it by accident; starting it by hand grants
// nothing, since the helper only adds restrictions before exec'ing.
#define GX_HELPER_ARG "__gatedexec-sandbox-helper-v2__"

// The second argument of a helper started ahead of its run (a long-lived
// runner's next one, or a one-shot run's, started before the run is
// planned): the third is the unshare(2) flags, in decimal, which
// it applies at once. On GX_SPEC_FD, a unix socket, it then sends its
// mount namespace (GX_PRESTART_MNTNS), empties its bounding set, waits
// for GX_PRESTART_CGROUPS, and, with a PID namespace, forks the init,
// which mounts its /proc and does the rest: it receives the standard
// descriptors, the Landlock ruleset and the egress socket
// (GX_PRESTART_FDS), reads the spec, whose flags must be the same, and
// waits for the go-ahead.
#define GX_PRESTART_ARG "prestarted"
// The count of descriptors sent (3: stdin, stdout, stderr; then the
// ruleset when the spec has GX_TAG_LANDLOCK, then, with
// GX_PRESTART_EGRESS set, the egress socket), as the one data byte of the
// message carrying them, and the bit of that byte that says the last is
// the egress socket (which stays where it was received: an init the
// helper forked holds its status pipe at GX_EGRESS_FD).
#define GX_PRESTART_FDS 5
#define GX_PRESTART_EGRESS 0x80
// The one data byte of the message a prestarted helper sends back on
// GX_SPEC_FD once it has made its namespaces, with a descriptor of its
// mount namespace: a long-lived runner holds the namespace past the
// helper's exit; a one-shot run leaves the message unread.
#define GX_PRESTART_MNTNS 'N'
// The byte the runner sends a prestarted helper once it is in its run's
// cgroups (a unified hierarchy moves it there only after its start), or
// with the tasks files of the run's v1 cgroups, opened for writing, for
// the helper to move itself into (at most GX_PRESTART_CGROUP_FDS): it
// forks nothing before.
#define GX_PRESTART_CGROUPS 'C'
#define GX_PRESTART_CGROUP_FDS 4

// The fourth argument of a prestarted helper whose network namespace may
// be a kept one (GX_NETNS_FD): slots 0 to GX_KEPT_NETNS_MAX-1 of that
// directory are each a network namespace's file bound there ("N") and
// its lock ("N.lock"). The helper takes the first slot no other helper
// holds, making its namespace when there is none yet, and holds the lock
// until its init and it have ended; with no slot to be had it makes a
// namespace of its own as ever.
#define GX_KEPT_NETNS_ARG "kept-netns"
#define GX_KEPT_NETNS_MAX 16

// A prestarted helper given GX_SPIN_ARG (after its flags, before or after
// GX_KEPT_NETNS_ARG) has a CPU of its own, where nothing else is
// runnable (the runner moved it there): once ready for its run, it polls
// for the run's descriptors and spec for up to GX_SPIN_NS before it
// sleeps on them (receive_stdio).
#define GX_SPIN_ARG "spin"
#define GX_SPIN_NS 200000

// A prestarted helper given GX_SECCOMP_AHEAD_ARG (after its flags), which
// must be its PID namespace's init (prestart_as_init), is sent its run's
// seccomp program right after GX_PRESTART_CGROUPS: its length in bytes
// (a little-endian uint32, a whole number of instructions, at most
// BPF_MAXINSNS) and the program. The target it starts ahead loads it
// before the run comes, and the run's spec must hold that program
// (GX_TAG_BPF), byte for byte.
#define GX_SECCOMP_AHEAD_ARG "seccomp-ahead"

// File descriptors the runner hands the helper.
#define GX_SPEC_FD 3    // the spec's length, the spec, then the go-ahead (GX_GO_AHEAD)
#define GX_REPORT_FD 4  // made CLOEXEC: the target never holds it
#define GX_RULESET_FD 5 // the Landlock ruleset, when the spec has GX_TAG_LANDLOCK
#define GX_EGRESS_FD 6  // a unix socket the sockets of GX_TAG_EGRESS are sent on
// The helper program's own sealed memfd, by which the runner execs it
// (/proc/self/fd/7): a descriptor the child's own set-up cannot reuse, as
// it can any number above the ones it places. Closed by the helper first.
#define GX_SELF_FD 7
#define GX_NETNS_FD 8 // the directory of kept network namespaces (GX_KEPT_NETNS_ARG)

// The helper's exit status when it cannot set the sandbox up.
#define GX_HELPER_FAIL 125

// Report tags. GX_REPORT_NS means the namespaces or the mounts in them
// could not be set up, and nothing else was tried: a best-effort profile
// may run again without them.
#define GX_REPORT_SETUP "setup"
#define GX_REPORT_NS "namespaces"
#define GX_REPORT_NOTFOUND "notfound"     // execve: ENOENT or ENOTDIR (exit 127)
#define GX_REPORT_CANNOTEXEC "cannotexec" // execve: any other error (exit 126)
#define GX_REPORT_SIGNAL "signal"         // the target was killed by the signal that follows (exit 128+N)
// GX_REPORT_END is the last thing an init that ends its namespace itself
// (prestart_as_init) writes, in one write: a NUL, the tag, a space, the
// target's wait status in decimal and a newline. Every process of the
// namespace is gone by then, and the init holds no descriptor of the
// command's: the runner takes the run as over without waiting for the
// init's own exit. A report that comes before it is kept (the target's
// notfound or cannotexec); no GX_REPORT_SIGNAL follows it.
#define GX_REPORT_END "end"

// The largest spec the helper reads.
#define GX_MAX_SPEC (64 << 20)

// The go-ahead: the one byte the runner writes on GX_SPEC_FD after the
// spec, once the run may start. The pipe's end without it starts nothing.
#define GX_GO_AHEAD 'G'

// The spec is GX_SPEC_MAGIC, then records: a tag byte, a little-endian
// uint32 payload length, the payload.
#define GX_SPEC_MAGIC "GXH1"
#define GX_TAG_PATH 'p'          // the executable to exec
#define GX_TAG_ARG 'a'           // one argv element, in order
#define GX_TAG_ENV 'e'           // one environment entry, in order
#define GX_TAG_FALLBACK_PATH 'P' // an executable to exec with GX_TAG_FALLBACK_ARGs when GX_TAG_PATH's exec fails
#define GX_TAG_FALLBACK_ARG 'A'  // one argv element of the fallback, in order
#define GX_TAG_DIR 'd'           // the working directory
#define GX_TAG_MOUNT 'm'         // kind byte (GX_MOUNT_*), then the path
#define GX_TAG_PARENT_MNTNS 'n'  // uint64: the runner's mount namespace inode
#define GX_TAG_LOOPBACK 'l'      // bring "lo" up (empty payload)
#define GX_TAG_RLIMIT 'r'        // uint32 resource, uint64 value
#define GX_TAG_LANDLOCK 'k'      // uint32 landlock_restrict_self flags
#define GX_TAG_BPF 'b'           // the seccomp program, raw sock_filters
#define GX_TAG_UNSHARE 'u'       // uint32 unshare(2) flags, applied first
#define GX_TAG_CLOSE_FDS 'c'     // inherited descriptors above 2 end at exec (empty payload)
#define GX_TAG_DROP_CAPS 'x'     // the target starts with no capability at all (empty payload)
#define GX_TAG_TMP 't'           // a directory (/tmp, $TMPDIR) replaced by an empty tmpfs, before the mounts
#define GX_TAG_KEEP 'K'          // a path below a GX_TAG_TMP directory that stays the host's (bound back)
#define GX_TAG_REOPEN 'o'        // uint32 fd 0-2: reopen its file by path inside the mount namespace
#define GX_TAG_DEV 'D'           // a minimal /dev of its own: uint64 Landlock rights for its
                                 // devpts, uint64 for the writable directories the helper makes
                                 // (/dev/shm, private tmp; 0: no Landlock rules)
#define GX_TAG_EGRESS 'g'        // uint16 TCP ports, each: the namespace routes every address to
                                 // itself, and the helper listens on these ports and on UDP 53
                                 // and sends those sockets to GX_EGRESS_FD (see below)
#define GX_TAG_CTTY 'T'          // uint32 fd 0-2: a terminal (the runner's pty) that becomes the
                                 // controlling terminal of a session with job control (see below)
#define GX_TAG_AFFINITY 'y'      // the CPU mask (C longs, as sched_setaffinity takes it) the target
                                 // gets: the runner's, which the helper may have been moved off
                                 // one CPU of so as not to wait behind the runner

// With CLONE_NEWPID among the unshare flags the helper forks an init: pid 1
// of the new namespace, which mounts a /proc of its own (the spec must
// then also hold CLONE_NEWNS and GX_TAG_PARENT_MNTNS), forks the target,
// forwards signals to every process of the namespace, and exits with the
// target's status, which ends every process left in it. The helper waits
// for the init and exits as the target did.
//
// With GX_TAG_CTTY the command gets a terminal with job control, as a shell
// gives one: a job-control parent (the init, or without a PID namespace the
// helper itself, which then forks) leads a new session whose controlling
// terminal is that descriptor, and runs the target in a process group of
// its own in the terminal's foreground. That group is not orphaned, so the
// terminal's Ctrl-Z stops it; the parent sees the stop (WUNTRACED) and the
// helper then stops itself with SIGSTOP, which the runner sees as a stopped
// child. SIGCONT to the helper goes down to the command again.
//
// SIGTSTP sent to the helper stops the run: with job control it is passed on
// to the command (which stops, and is then reported as above); without, the
// init stops every process of the namespace with SIGSTOP (their groups are
// orphaned: the kernel drops a SIGTSTP whose action is to stop them) and the
// helper stops itself.

// With GX_TAG_EGRESS (which needs CLONE_NEWNET and GX_TAG_LOOPBACK) the
// helper sends one message on GX_EGRESS_FD before anything else is
// applied: "GXE1", the count of TCP listeners, the count of UDP sockets,
// and SCM_RIGHTS holding the listeners in the record's port order, then
// the IPv4 DNS socket and, where the namespace has IPv6, the IPv6 one.
#define GX_EGRESS_MAX_PORTS 8

// gx_egress_setup does that on the socket to and returns NULL, or what
// failed. Internal to the helper.
#include <stddef.h>
#include <stdint.h>
const char *gx_egress_setup(const uint16_t *ports, size_t nports, int to);

// Mount kinds, in the order the runner plans them: numbered from 1 without
// gaps, so that the decoder can refuse any other.
#define GX_MOUNT_PIN 1      // bind a directory onto itself (EBUSY on rename)
#define GX_MOUNT_READONLY 2 // bind a path onto itself read-only
#define GX_MOUNT_EMPTYDIR 3 // an empty read-only tmpfs over a directory
#define GX_MOUNT_NULLFILE 4 // /dev/null, read-only, over a file
#define GX_MOUNT_WRITABLE 5 // bind a write root onto itself, to stay writable
#define GX_MOUNT_TREE_READONLY 6 // every mount at and below the path read-only, but the write roots
#define GX_MOUNT_PIN_LINK 7 // mount a symbolic link onto itself: it can be neither removed nor replaced

// gx_spec_check decodes a spec without applying it and returns NULL, with
// the command's argument count in *argc, or the decoding error. For tests
// and fuzz targets only; not safe for concurrent use.
#include <stddef.h>
const char *gx_spec_check(const unsigned char *b, size_t len, size_t *argc);

#endif
