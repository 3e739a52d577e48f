// The sandbox helper: a small static C program that gatedexec carries
// inside its binary (../helperbin.go) and runs from a sealed memfd for
// every sandboxed command. It applies the plan the runner prepared (see
// ../helper_spec.go for the wire format) to itself and execs the target.
//
// C, and a program of its own, because what it does binds to the calling
// thread or process (Landlock, seccomp, unshare) and must happen before
// any other thread exists: a Go process has threads before main. Starting
// a second Go runtime, or even the big gatedexec binary, just to call a
// dozen syscalls and execve cost more than the rest of a sandboxed start.

#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <fcntl.h>
#include <net/if.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <linux/futex.h>
#include <time.h>
#include <sys/mount.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <linux/rtnetlink.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>

#include "helper_linux.h"

// Files are opened with openat(AT_FDCWD, ...), not open: musl's open
// follows an O_CLOEXEC open with an fcntl setting it again, for kernels
// older than the ones gatedexec runs on, a system call more each time.

#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446 // the same on every architecture
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442 // the same on every architecture
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445 // the same on every architecture
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428 // the same on every architecture
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429 // the same on every architecture
#endif
#define GX_OPEN_TREE_CLONE 1
#define GX_MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define GX_LANDLOCK_RULE_PATH_BENEATH 1
#ifndef SYS_close_range
#define SYS_close_range 436 // the same on every architecture
#endif
#define GX_CLOSE_RANGE_CLOEXEC (1U << 2)
#define GX_MOUNT_ATTR_RDONLY 0x00000001
#define GX_AT_RECURSIVE 0x8000

// struct mount_attr of mount_setattr(2), version 0.
struct mount_attr_v0 {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

// The report pipe stays silent on a successful exec (it is CLOEXEC); on
// failure it carries "TAG message", which the runner turns into an error.
__attribute__((noreturn, format(printf, 3, 4))) static void fail(int code, const char *tag, const char *fmt, ...) {
	char buf[1024];
	int n = snprintf(buf, sizeof buf, "%s ", tag);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && n < (int)sizeof buf) {
		vsnprintf(buf + n, sizeof buf - n, fmt, ap);
	}
	va_end(ap);
	size_t len = strnlen(buf, sizeof buf);
	for (size_t off = 0; off < len;) {
		ssize_t w = write(GX_REPORT_FD, buf + off, len - off);
		if (w <= 0) {
			break;
		}
		off += (size_t)w;
	}
	_exit(code);
}

#define setup_fail(...) fail(GX_HELPER_FAIL, GX_REPORT_SETUP, __VA_ARGS__)

// decode_jmp is set only while gx_spec_check decodes (in tests and fuzz
// targets, in a Go process): a decoding error then returns there with its
// message in decode_msg instead of ending the process.
static jmp_buf *decode_jmp;
static char decode_msg[256];

__attribute__((noreturn, format(printf, 1, 2))) static void decode_fail(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(decode_msg, sizeof decode_msg, fmt, ap);
	va_end(ap);
	if (decode_jmp != NULL) {
		longjmp(*decode_jmp, 1);
	}
	setup_fail("decoding spec: %s", decode_msg);
}
#define ns_fail(...) fail(GX_HELPER_FAIL, GX_REPORT_NS, __VA_ARGS__)

static uint32_t le32(const unsigned char *p) {
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p) {
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

// read_full reads exactly n bytes of the spec into buf; the spec's end
// before them fails the run: a spec cut short, even at a record
// boundary, would decode without the records (Landlock, seccomp) after
// the cut.
static void read_full(int fd, unsigned char *buf, size_t n) {
	while (n > 0) {
		ssize_t r = read(fd, buf, n);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r < 0) {
			setup_fail("reading spec: %s", strerror(errno));
		}
		if (r == 0) {
			setup_fail("reading spec: cut short");
		}
		buf += r;
		n -= (size_t)r;
	}
}

// The run's spec and what is decoded from it are kept in arena, taken in
// order and never given back (the helper execs or ends soon after): it
// was musl's malloc's first use, on the run's path after the spec, seven
// system calls (brk, mmap, munmap) and the faults of the pages they
// mapped. A spec too large for it takes the rest from malloc.
static unsigned char arena[256 << 10] __attribute__((aligned(16)));
static size_t arena_used;

// in_arena reports whether p was taken from arena.
static int in_arena(const void *p) {
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + sizeof arena;
}

// arena_alloc returns n bytes of arena, or of malloc when arena has not
// that many left; NULL when neither has.
static void *arena_alloc(size_t n) {
	size_t need = (n + 15) & ~(size_t)15;
	if (need >= n && need <= sizeof arena - arena_used) {
		void *p = arena + arena_used;
		arena_used += need;
		return p;
	}
	return malloc(n > 0 ? n : 1);
}

// arena_calloc is arena_alloc of n zeroed elements of size bytes.
static void *arena_calloc(size_t n, size_t size) {
	if (size != 0 && n > SIZE_MAX / size) {
		return NULL;
	}
	void *p = arena_alloc(n * size);
	if (p != NULL) {
		memset(p, 0, n * size);
	}
	return p;
}

// arena_free frees p unless it was taken from arena.
static void arena_free(void *p) {
	if (!in_arena(p)) {
		free(p);
	}
}

// read_spec reads the spec from fd: its length (four bytes, little
// endian), at most GX_MAX_SPEC, then the spec. The pipe stays open: the
// runner's go-ahead follows (await_go_ahead).
static unsigned char *read_spec(int fd, size_t *len) {
	unsigned char hdr[4];
	read_full(fd, hdr, sizeof hdr);
	uint32_t n = le32(hdr);
	if (n > GX_MAX_SPEC) {
		setup_fail("reading spec: larger than %d bytes", GX_MAX_SPEC);
	}
	unsigned char *buf = arena_alloc(n);
	if (buf == NULL) {
		setup_fail("reading spec: out of memory");
	}
	read_full(fd, buf, n);
	*len = n;
	return buf;
}

// read_go_ahead waits for the runner's go-ahead (GX_GO_AHEAD) after
// the spec, which it writes once it has put the helper in the run's
// cgroups and scanned the workspace: the helper sets up its namespaces
// and mounts meanwhile, but execs nothing before, so that all it starts
// is inside them. The pipe's end without it is a runner that failed, or
// was killed, before the run could start: nothing starts, though the
// helper's death signal has not come yet. Anything else after the spec
// is refused.
static void read_go_ahead(void) {
	unsigned char c[2];
	ssize_t r;
	while ((r = read(GX_SPEC_FD, c, sizeof c)) < 0 && errno == EINTR) {
	}
	if (r < 0) {
		setup_fail("waiting for the runner: %s", strerror(errno));
	}
	if (r == 0) {
		setup_fail("waiting for the runner: it ended without its go-ahead");
	}
	if (r > 1 || c[0] != GX_GO_AHEAD) {
		setup_fail("reading spec: data after its end");
	}
}

// await_go_ahead is read_go_ahead, then closes the spec's socket.
static void await_go_ahead(void) {
	read_go_ahead();
	close(GX_SPEC_FD);
}

struct mount_op {
	int kind;
	char *path;
};

struct spec {
	char *path, *dir;
	char **argv, **envp;
	size_t argc, envc;
	// fallback_path and fallback_argv, when set, are exec'd when path's
	// exec fails (the bash -c a plain command would have run under).
	char *fallback_path;
	char **fallback_argv;
	size_t fallback_argc;
	struct mount_op *mounts;
	size_t nmounts;
	char **tmps, **keeps;
	size_t ntmps, nkeeps;
	uint64_t parent_mntns;
	int loopback;
	uint16_t egress_ports[GX_EGRESS_MAX_PORTS];
	size_t negress;
	struct rlimit_op {
		uint32_t resource;
		uint64_t value;
	} *rlimits;
	size_t nrlimits;
	int close_fds;
	int drop_caps;
	int dev;
	uint64_t pts_access, dir_access;
	int reopen[3];
	int has_ctty, ctty;
	int landlock;
	uint32_t landlock_flags;
	uint32_t unshare_flags;
	unsigned char *bpf;
	size_t bpf_len;
	int has_affinity;
	cpu_set_t affinity;
};

// cstring copies a record's payload into a NUL-terminated string; a NUL
// inside it would silently shorten a path or argument, so it is an error.
static char *cstring(const unsigned char *p, uint32_t n) {
	if (memchr(p, 0, n) != NULL) {
		decode_fail("NUL byte in a string");
	}
	char *s = arena_alloc((size_t)n + 1);
	if (s == NULL) {
		decode_fail("out of memory");
	}
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

// grow makes room for one more element in arr, an array of count
// elements of size bytes made by grow: its room doubles from 8 elements
// when it is full (at 8, 16, 32, ...), to a new array with the elements
// copied.
static void *grow(void *arr, size_t count, size_t size) {
	if (count != 0 && (count < 8 || (count & (count - 1)) != 0)) {
		return arr;
	}
	size_t room = count == 0 ? 8 : 2 * count;
	if (room > SIZE_MAX / size) {
		decode_fail("out of memory");
	}
	void *p = arena_alloc(room * size);
	if (p == NULL) {
		decode_fail("out of memory");
	}
	if (count != 0) {
		memcpy(p, arr, count * size);
		arena_free(arr);
	}
	return p;
}

static void decode(const unsigned char *b, size_t len, struct spec *s) {
	memset(s, 0, sizeof *s);
	if (len < 4 || memcmp(b, GX_SPEC_MAGIC, 4) != 0) {
		decode_fail("bad magic");
	}
	size_t off = 4;
	unsigned char seen[256] = {0};
	while (off < len) {
		if (len - off < 5) {
			decode_fail("truncated record header at %zu", off);
		}
		unsigned char tag = b[off];
		uint32_t n = le32(b + off + 1);
		off += 5;
		if (n > len - off) {
			decode_fail("record %c of %u bytes overruns the spec", tag, n);
		}
		const unsigned char *p = b + off;
		off += n;
		// Every record but the lists appears at most once: a second
		// one would silently override what the runner planned.
		if (tag != GX_TAG_ARG && tag != GX_TAG_ENV && tag != GX_TAG_MOUNT && tag != GX_TAG_RLIMIT && tag != GX_TAG_REOPEN &&
		    tag != GX_TAG_TMP && tag != GX_TAG_KEEP && tag != GX_TAG_FALLBACK_ARG) {
			if (seen[tag]) {
				decode_fail("duplicate record %c", tag);
			}
			seen[tag] = 1;
		}
		switch (tag) {
		// Every pointer is stored only once it is valid, so that a
		// decoding error part-way leaves a spec free_spec can release.
		case GX_TAG_PATH:
		case GX_TAG_DIR:
		case GX_TAG_FALLBACK_PATH: {
			char **dst = tag == GX_TAG_PATH ? &s->path : tag == GX_TAG_DIR ? &s->dir : &s->fallback_path;
			*dst = cstring(p, n);
			break;
		}
		case GX_TAG_FALLBACK_ARG: {
			s->fallback_argv = grow(s->fallback_argv, s->fallback_argc, sizeof *s->fallback_argv);
			char *a = cstring(p, n);
			s->fallback_argv[s->fallback_argc++] = a;
			break;
		}
		case GX_TAG_ARG: {
			s->argv = grow(s->argv, s->argc, sizeof *s->argv);
			char *a = cstring(p, n);
			s->argv[s->argc++] = a;
			break;
		}
		case GX_TAG_ENV: {
			s->envp = grow(s->envp, s->envc, sizeof *s->envp);
			char *e = cstring(p, n);
			s->envp[s->envc++] = e;
			break;
		}
		case GX_TAG_MOUNT: {
			if (n < 2) {
				decode_fail("short mount record");
			}
			// A kind the helper does not know is a runner/helper
			// mismatch: refused here, before anything is applied, not
			// reported as a namespace failure a best-effort profile
			// would run again without.
			if (p[0] < GX_MOUNT_PIN || p[0] > GX_MOUNT_PIN_LINK) {
				decode_fail("unknown mount kind %d", p[0]);
			}
			s->mounts = grow(s->mounts, s->nmounts, sizeof *s->mounts);
			char *path = cstring(p + 1, n - 1);
			s->mounts[s->nmounts].kind = p[0];
			s->mounts[s->nmounts++].path = path;
			break;
		}
		case GX_TAG_PARENT_MNTNS:
			if (n != 8) {
				decode_fail("bad mount namespace record");
			}
			s->parent_mntns = le64(p);
			break;
		case GX_TAG_LOOPBACK:
			if (n != 0) {
				decode_fail("bad loopback record");
			}
			s->loopback = 1;
			break;
		case GX_TAG_EGRESS:
			if (n == 0 || n % 2 != 0 || n / 2 > GX_EGRESS_MAX_PORTS) {
				decode_fail("bad egress record");
			}
			for (uint32_t i = 0; i < n / 2; i++) {
				s->egress_ports[i] = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
				if (s->egress_ports[i] == 0) {
					decode_fail("bad egress record: port 0");
				}
			}
			s->negress = n / 2;
			break;
		case GX_TAG_CLOSE_FDS:
			if (n != 0) {
				decode_fail("bad close record");
			}
			s->close_fds = 1;
			break;
		case GX_TAG_TMP:
		case GX_TAG_KEEP: {
			char ***arr = tag == GX_TAG_TMP ? &s->tmps : &s->keeps;
			size_t *cnt = tag == GX_TAG_TMP ? &s->ntmps : &s->nkeeps;
			*arr = grow(*arr, *cnt, sizeof **arr);
			char *path = cstring(p, n);
			if (path[0] != '/') {
				arena_free(path);
				decode_fail("relative path in record %c", tag);
			}
			(*arr)[(*cnt)++] = path;
			break;
		}
		case GX_TAG_REOPEN:
			if (n != 4 || le32(p) > 2) {
				decode_fail("bad reopen record");
			}
			s->reopen[le32(p)] = 1;
			break;
		case GX_TAG_AFFINITY:
			if (n == 0 || n > sizeof s->affinity || n % sizeof(unsigned long) != 0) {
				decode_fail("bad CPU affinity record of %u bytes", n);
			}
			memcpy(&s->affinity, p, n);
			if (CPU_COUNT(&s->affinity) == 0) {
				decode_fail("CPU affinity record without a CPU");
			}
			s->has_affinity = 1;
			break;
		case GX_TAG_CTTY:
			if (n != 4 || le32(p) > 2) {
				decode_fail("bad terminal record");
			}
			s->has_ctty = 1;
			s->ctty = (int)le32(p);
			break;
		case GX_TAG_DEV:
			if (n != 16) {
				decode_fail("bad /dev record");
			}
			s->dev = 1;
			s->pts_access = le64(p);
			s->dir_access = le64(p + 8);
			break;
		case GX_TAG_DROP_CAPS:
			if (n != 0) {
				decode_fail("bad capabilities record");
			}
			s->drop_caps = 1;
			break;
		case GX_TAG_RLIMIT:
			if (n != 12) {
				decode_fail("bad rlimit record");
			}
			s->rlimits = grow(s->rlimits, s->nrlimits, sizeof *s->rlimits);
			s->rlimits[s->nrlimits].resource = le32(p);
			s->rlimits[s->nrlimits++].value = le64(p + 4);
			break;
		case GX_TAG_LANDLOCK:
			if (n != 4) {
				decode_fail("bad landlock record");
			}
			s->landlock = 1;
			s->landlock_flags = le32(p);
			break;
		case GX_TAG_UNSHARE:
			if (n != 4) {
				decode_fail("bad unshare record");
			}
			s->unshare_flags = le32(p);
			break;
		case GX_TAG_BPF:
			if (n == 0 || n % sizeof(struct sock_filter) != 0 || n / sizeof(struct sock_filter) > BPF_MAXINSNS) {
				decode_fail("seccomp program of %u bytes", n);
			}
			s->bpf = arena_alloc(n);
			if (s->bpf == NULL) {
				decode_fail("out of memory");
			}
			memcpy(s->bpf, p, n);
			s->bpf_len = n;
			break;
		default:
			// An unknown record is a runner/helper mismatch: refuse
			// rather than run with part of the plan.
			decode_fail("unknown record %c", tag);
		}
	}
	if (s->path == NULL || s->argc == 0) {
		decode_fail("no command");
	}
	if ((s->fallback_path == NULL) != (s->fallback_argc == 0)) {
		decode_fail("a fallback needs both its path and its arguments");
	}
	// The init mounts /proc for its namespace: only in a mount namespace
	// of its own that it can tell from the caller's.
	if ((s->unshare_flags & CLONE_NEWPID || s->dev || s->ntmps > 0) &&
	    (!(s->unshare_flags & CLONE_NEWNS) || s->parent_mntns == 0)) {
		decode_fail("a PID namespace or /dev needs a mount namespace");
	}
	s->argv = grow(s->argv, s->argc, sizeof *s->argv);
	s->argv[s->argc] = NULL;
	s->envp = grow(s->envp, s->envc, sizeof *s->envp);
	s->envp[s->envc] = NULL;
	if (s->fallback_path != NULL) {
		s->fallback_argv = grow(s->fallback_argv, s->fallback_argc, sizeof *s->fallback_argv);
		s->fallback_argv[s->fallback_argc] = NULL;
	}
}

static void free_spec(struct spec *s) {
	arena_free(s->path);
	arena_free(s->dir);
	arena_free(s->fallback_path);
	for (size_t i = 0; i < s->fallback_argc; i++) {
		arena_free(s->fallback_argv[i]);
	}
	arena_free(s->fallback_argv);
	for (size_t i = 0; i < s->argc; i++) {
		arena_free(s->argv[i]);
	}
	arena_free(s->argv);
	for (size_t i = 0; i < s->envc; i++) {
		arena_free(s->envp[i]);
	}
	arena_free(s->envp);
	for (size_t i = 0; i < s->nmounts; i++) {
		arena_free(s->mounts[i].path);
	}
	arena_free(s->mounts);
	for (size_t i = 0; i < s->ntmps; i++) {
		arena_free(s->tmps[i]);
	}
	arena_free(s->tmps);
	for (size_t i = 0; i < s->nkeeps; i++) {
		arena_free(s->keeps[i]);
	}
	arena_free(s->keeps);
	arena_free(s->rlimits);
	arena_free(s->bpf);
	memset(s, 0, sizeof *s);
}

const char *gx_spec_check(const unsigned char *b, size_t len, size_t *argc) {
	jmp_buf env;
	static struct spec s;
	memset(&s, 0, sizeof s);
	arena_used = 0; // free_spec gave back all the last check took
	decode_jmp = &env;
	if (setjmp(env) != 0) {
		decode_jmp = NULL;
		free_spec(&s);
		return decode_msg;
	}
	decode(b, len, &s);
	decode_jmp = NULL;
	*argc = s.argc;
	free_spec(&s);
	return NULL;
}

// own_mntns is the inode of the helper's mount namespace once
// mntns_inode has read it, 0 before, and again once the helper enters
// another (enter_namespaces).
static uint64_t own_mntns;

// mntns_inode returns the inode of the helper's mount namespace, read
// once for each namespace it is in.
static uint64_t mntns_inode(void) {
	if (own_mntns != 0) {
		return own_mntns;
	}
	struct stat st;
	if (stat("/proc/self/ns/mnt", &st) != 0) {
		ns_fail("mount namespace: %s", strerror(errno));
	}
	own_mntns = (uint64_t)st.st_ino;
	return own_mntns;
}

// bind_readonly bind-mounts src onto dst and makes every mount of the new
// tree read-only, the ones below dst too; a read-only remount would reach
// only the top one. Every plan starts with GX_MOUNT_TREE_READONLY, which
// needs mount_setattr (Linux 5.12) too, so there is no older fallback.
static int bind_readonly(const char *src, const char *dst) {
	if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0) {
		return -1;
	}
	struct mount_attr_v0 attr = {.attr_set = GX_MOUNT_ATTR_RDONLY};
	return (int)syscall(SYS_mount_setattr, AT_FDCWD, dst, GX_AT_RECURSIVE, &attr, sizeof attr);
}

// tree_readonly makes every mount at and below path read-only, then gives
// back write access to the write roots bound before it (ops[0..n)) that
// had it: only the top mount of each, so a read-only mount below a write
// root stays read-only, and one that was writable is now read-only too,
// which fails closed.
static int tree_readonly(const char *path, const struct mount_op *ops, const int *was_rw, size_t n) {
	struct mount_attr_v0 attr = {.attr_set = GX_MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, AT_FDCWD, path, GX_AT_RECURSIVE, &attr, sizeof attr) != 0) {
		return -1;
	}
	struct mount_attr_v0 clr = {.attr_clr = GX_MOUNT_ATTR_RDONLY};
	for (size_t i = 0; i < n; i++) {
		if (ops[i].kind == GX_MOUNT_WRITABLE && was_rw[i] &&
		    syscall(SYS_mount_setattr, AT_FDCWD, ops[i].path, 0, &clr, sizeof clr) != 0) {
			return -1;
		}
	}
	return 0;
}

struct landlock_path_beneath_attr_v1 {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

// landlock_allow adds a rule for path to the ruleset the runner prepared:
// the devpts and /dev/shm made here did not exist when it was built.
static void landlock_allow(const char *path, uint64_t access) {
	if (access == 0) {
		return;
	}
	int fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		ns_fail("landlock rule %s: %s", path, strerror(errno));
	}
	struct landlock_path_beneath_attr_v1 attr = {.allowed_access = access, .parent_fd = fd};
	if (syscall(SYS_landlock_add_rule, GX_RULESET_FD, GX_LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0) {
		setup_fail("landlock rule %s: %s", path, strerror(errno));
	}
	close(fd);
}

// mkdir_parents makes the missing directories above path.
static void mkdir_parents(const char *path) {
	char buf[4096];
	if (strlen(path) >= sizeof buf) {
		ns_fail("private tmp: path too long: %s", path);
	}
	strcpy(buf, path);
	for (char *p = buf + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = 0;
		if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
			ns_fail("private tmp: mkdir %s: %s", buf, strerror(errno));
		}
		*p = '/';
	}
}

// private_tmp gives each GX_TAG_TMP directory an empty tmpfs of its own:
// the host's /tmp holds the sockets of its daemons (tmux, ssh-agent, X11)
// and files of every user. The paths below it that the plan names (a
// workspace in /tmp, the home, the command itself) are cloned from the
// host's tree first and put back in the same place.
static void private_tmp(const struct spec *s) {
	int *fds = arena_calloc(s->nkeeps + 1, sizeof *fds);
	if (fds == NULL) {
		setup_fail("private tmp: out of memory");
	}
	for (size_t i = 0; i < s->nkeeps; i++) {
		fds[i] = (int)syscall(SYS_open_tree, AT_FDCWD, s->keeps[i], GX_OPEN_TREE_CLONE | GX_AT_RECURSIVE | O_CLOEXEC);
		if (fds[i] < 0 && errno != ENOENT) {
			ns_fail("private tmp: %s: %s", s->keeps[i], strerror(errno));
		}
	}
	for (size_t i = 0; i < s->ntmps; i++) {
		if (mount("tmpfs", s->tmps[i], "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) {
			ns_fail("private tmp: %s: %s", s->tmps[i], strerror(errno));
		}
		// Landlock does not look through a mount at the directory under
		// it, where the runner's rule for /tmp is.
		if (s->landlock) {
			landlock_allow(s->tmps[i], s->dir_access);
		}
	}
	for (size_t i = 0; i < s->nkeeps; i++) {
		if (fds[i] < 0) {
			continue;
		}
		struct stat st;
		if (fstat(fds[i], &st) != 0) {
			ns_fail("private tmp: %s: %s", s->keeps[i], strerror(errno));
		}
		mkdir_parents(s->keeps[i]);
		int rc;
		if (S_ISDIR(st.st_mode)) {
			rc = mkdir(s->keeps[i], 0755);
		} else if ((rc = openat(AT_FDCWD, s->keeps[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) >= 0) {
			rc = close(rc);
		}
		if (rc != 0 && errno != EEXIST) {
			ns_fail("private tmp: %s: %s", s->keeps[i], strerror(errno));
		}
		if (syscall(SYS_move_mount, fds[i], "", AT_FDCWD, s->keeps[i], GX_MOVE_MOUNT_F_EMPTY_PATH) != 0) {
			ns_fail("private tmp: %s: %s", s->keeps[i], strerror(errno));
		}
		close(fds[i]);
	}
	arena_free(fds);
}

// made_ahead is set once a prestarted helper has made its mount tree
// private and its /dev (make_ahead) before its spec came.
static int made_ahead;

// make_root_private keeps every mount made from now on in this namespace:
// the copy of the host's tree shares its mounts' propagation with it.
static void make_root_private(void) {
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		ns_fail("mount: making / private: %s", strerror(errno));
	}
}

// under_dev reports whether path is /dev or below it.
static int under_dev(const char *path) {
	return strncmp(path, "/dev", 4) == 0 && (path[4] == 0 || path[4] == '/');
}

// mounts_cover_cwd reports whether the mounts of s (apply_mounts) may
// cover the working directory of a process that entered it before them:
// at or below a protected or hidden path it is still the writable,
// visible tree underneath, until entered again by name (reenter_cwd).
// An absolute spec directory is entered by name later anyway.
static int mounts_cover_cwd(const struct spec *s) {
	return (s->nmounts > 0 || s->ntmps > 0) && (s->dir == NULL || s->dir[0] != '/');
}

// reenter_cwd enters the working directory again by name, landing on top
// of the mounts made since it was entered. It returns 0, or -1 with
// errno set and the directory in cwd ("" when unknown), n bytes: the
// kernel's getcwd gives no more than a page.
static int reenter_cwd(char *cwd, size_t n) {
	if (getcwd(cwd, n) == NULL) {
		cwd[0] = 0;
		return -1;
	}
	return chdir(cwd);
}

// apply_mounts applies the plan of s, in a mount namespace of the
// helper's own (prepare_run checks).
static void apply_mounts(const struct spec *s) {
	if (s->nmounts == 0 && s->ntmps == 0) {
		return;
	}
	if (!made_ahead) {
		make_root_private();
	}
	private_tmp(s);
	// Whether each write root was writable before the tree turned
	// read-only: one the host mounted read-only stays so.
	int *was_rw = arena_calloc(s->nmounts, sizeof *was_rw);
	if (was_rw == NULL) {
		setup_fail("mount: out of memory");
	}
	for (size_t i = 0; i < s->nmounts; i++) {
		const char *path = s->mounts[i].path;
		if (s->dev && under_dev(path)) {
			// The runner plans nothing where the run's own /dev
			// goes (runner.go): a plan that does is not its own.
			setup_fail("mount %s: below the run's own /dev", path);
		}
		struct statvfs st;
		int rc;
		switch (s->mounts[i].kind) {
		case GX_MOUNT_WRITABLE:
			rc = mount(path, path, NULL, MS_BIND | MS_REC, NULL);
			if (rc == 0) {
				rc = statvfs(path, &st);
				was_rw[i] = rc == 0 && !(st.f_flag & ST_RDONLY);
			}
			break;
		case GX_MOUNT_TREE_READONLY:
			rc = tree_readonly(path, s->mounts, was_rw, i);
			break;
		case GX_MOUNT_PIN:
			rc = mount(path, path, NULL, MS_BIND | MS_REC, NULL);
			break;
		case GX_MOUNT_READONLY:
			rc = bind_readonly(path, path);
			break;
		case GX_MOUNT_EMPTYDIR:
			rc = mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555");
			break;
		case GX_MOUNT_NULLFILE:
			rc = bind_readonly("/dev/null", path);
			break;
		case GX_MOUNT_PIN_LINK: {
			// mount(2) follows a link; a clone of the link itself,
			// moved onto it without following, makes it a mount point.
			int fd = (int)syscall(SYS_open_tree, AT_FDCWD, path, GX_OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW | O_CLOEXEC);
			rc = fd < 0 ? -1 : (int)syscall(SYS_move_mount, fd, "", AT_FDCWD, path, GX_MOVE_MOUNT_F_EMPTY_PATH);
			if (fd >= 0) {
				close(fd);
			}
			break;
		}
		default: // refused by decode
			setup_fail("mount %s: unknown mount kind %d", path, s->mounts[i].kind);
		}
		if (rc != 0) {
			ns_fail("mount %s: %s", path, strerror(errno));
		}
	}
	arena_free(was_rw);
	if (mounts_cover_cwd(s)) {
		char cwd[4096];
		if (reenter_cwd(cwd, sizeof cwd) != 0) {
			ns_fail("mount namespace: working directory %s: %s", cwd, strerror(errno));
		}
	}
}

// cloexec_inherited makes every descriptor above stderr close at exec.
// Those the caller left open were opened outside the sandbox: Landlock
// checks a path when it is opened, not a descriptor already open, and
// openat below a directory opened on the host's mounts passes under the
// protect and hide mounts. The helper's own stay usable until the exec.
static void cloexec_inherited(void) {
	if (syscall(SYS_close_range, 3U, ~0U, GX_CLOSE_RANGE_CLOEXEC) == 0) {
		return;
	}
	if (errno != ENOSYS && errno != EINVAL) {
		setup_fail("inherited descriptors: close_range: %s", strerror(errno));
	}
	// Before Linux 5.11: each descriptor /proc lists.
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL) {
		setup_fail("inherited descriptors: /proc/self/fd: %s", strerror(errno));
	}
	struct dirent *e;
	while ((errno = 0, e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (end == e->d_name || *end != 0 || fd <= 2 || fd == dirfd(d)) {
			continue;
		}
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0) {
			setup_fail("inherited descriptors: fd %ld: %s", fd, strerror(errno));
		}
	}
	if (errno != 0) {
		setup_fail("inherited descriptors: /proc/self/fd: %s", strerror(errno));
	}
	closedir(d);
}

// The device nodes a minimal /dev keeps from the host's: they reach no
// hardware, no other terminal and no disk.
static const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};

// dev_writable makes /dev/pts and /dev/shm writable again after a
// read-only mount of the tree above them (make_dev, the run's read-only
// tree for a /dev made ahead of it).
static void dev_writable(void) {
	struct mount_attr_v0 rw = {.attr_clr = GX_MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/dev/pts", 0, &rw, sizeof rw) != 0 ||
	    syscall(SYS_mount_setattr, AT_FDCWD, "/dev/shm", 0, &rw, sizeof rw) != 0) {
		ns_fail("/dev: writable pts and shm: %s", strerror(errno));
	}
}

// make_dev replaces /dev with a tmpfs holding only dev_nodes (bound from the
// host's), a devpts instance of its own (ptys of the command's, none of the
// caller's other terminals), a private /dev/shm and the usual links: block
// devices, which root may open by their mode alone, are gone with the rest.
// Everything in it is read-only but /dev/pts and /dev/shm: a device node
// bound writable would let uid 0 chmod the host's. It needs no spec: a
// prestarted helper makes it before its spec comes (make_ahead).
static void make_dev(void) {
	// Private first: a mount on a shared /dev would show up in the
	// caller's namespace too.
	if (mount(NULL, "/dev", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		ns_fail("mount: making /dev private: %s", strerror(errno));
	}
	int fds[sizeof dev_nodes / sizeof dev_nodes[0]];
	char path[64];
	for (size_t i = 0; i < sizeof dev_nodes / sizeof dev_nodes[0]; i++) {
		snprintf(path, sizeof path, "/dev/%s", dev_nodes[i]);
		fds[i] = (int)syscall(SYS_open_tree, AT_FDCWD, path, GX_OPEN_TREE_CLONE | O_CLOEXEC);
		if (fds[i] < 0 && errno != ENOENT) {
			ns_fail("/dev: %s: %s", path, strerror(errno));
		}
	}
	if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64") != 0) {
		ns_fail("/dev: tmpfs: %s", strerror(errno));
	}
	for (size_t i = 0; i < sizeof dev_nodes / sizeof dev_nodes[0]; i++) {
		if (fds[i] < 0) {
			continue;
		}
		snprintf(path, sizeof path, "/dev/%s", dev_nodes[i]);
		int f = openat(AT_FDCWD, path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
		if (f < 0) {
			ns_fail("/dev: %s: %s", path, strerror(errno));
		}
		close(f);
		if (syscall(SYS_move_mount, fds[i], "", AT_FDCWD, path, GX_MOVE_MOUNT_F_EMPTY_PATH) != 0) {
			ns_fail("/dev: %s: %s", path, strerror(errno));
		}
		close(fds[i]);
	}
	if (mkdir("/dev/pts", 0755) != 0 || mkdir("/dev/shm", 01777) != 0) {
		ns_fail("/dev: mkdir: %s", strerror(errno));
	}
	if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") != 0) {
		ns_fail("/dev/pts: %s", strerror(errno));
	}
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=256m") != 0) {
		ns_fail("/dev/shm: %s", strerror(errno));
	}
	static const char *const links[][2] = {{"pts/ptmx", "/dev/ptmx"}, {"/proc/self/fd", "/dev/fd"},
		{"/proc/self/fd/0", "/dev/stdin"}, {"/proc/self/fd/1", "/dev/stdout"}, {"/proc/self/fd/2", "/dev/stderr"}};
	for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
		if (symlink(links[i][0], links[i][1]) != 0) {
			ns_fail("/dev: %s: %s", links[i][1], strerror(errno));
		}
	}
	// Nothing more may be made in /dev itself, nor a node changed.
	struct mount_attr_v0 ro = {.attr_set = GX_MOUNT_ATTR_RDONLY};
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/dev", GX_AT_RECURSIVE, &ro, sizeof ro) != 0) {
		ns_fail("/dev: read-only: %s", strerror(errno));
	}
	dev_writable();
}

// make_ahead makes, in a prestarted helper's new mount namespace, what
// every run it may serve mounts first whatever its spec: the tree private
// and a /dev of its own (a prestarted run always has one). The runner
// still plans the run meanwhile, and plans nothing below /dev; after the
// spec only /dev/pts and /dev/shm are made writable again, under the
// run's read-only tree (0.1-0.15 ms off the run's path after its spec).
static void make_ahead(uint64_t host_mntns) {
	if (mntns_inode() == host_mntns) {
		setup_fail("mount namespace: not a private namespace");
	}
	make_root_private();
	make_dev();
	made_ahead = 1;
}

// reopen_stdio gives the command its own open of a file the caller passed
// on fd, made by path inside the mount namespace: the caller's was opened
// on the host's mounts, where a protect or hide mount does not apply, and
// /proc/self/fd/N would reopen it for writing past them. The offset is
// kept; a path that now names another file (hidden) is refused.
static void reopen_stdio(int fd) {
	struct stat before, after;
	char link[32], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (fstat(fd, &before) != 0 || n <= 0) {
		setup_fail("descriptor %d: %s", fd, strerror(errno));
	}
	path[n] = 0;
	int nfd = openat(AT_FDCWD, path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (nfd < 0 || fstat(nfd, &after) != 0 || after.st_dev != before.st_dev || after.st_ino != before.st_ino) {
		setup_fail("descriptor %d is %s, which the profile hides or protects: pass its content through a pipe", fd, path);
	}
	off_t off = lseek(fd, 0, SEEK_CUR);
	if ((off > 0 && lseek(nfd, off, SEEK_SET) != off) || dup2(nfd, fd) != fd) {
		setup_fail("descriptor %d: %s", fd, strerror(errno));
	}
	close(nfd);
}

static void write_file(const char *path, const char *text) {
	int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ns_fail("user namespace: %s: %s", path, strerror(errno));
	}
	size_t len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len) {
		ns_fail("user namespace: %s: %s", path, strerror(errno));
	}
	close(fd);
}

// enter_namespaces creates the namespaces in flags. Without privilege it
// takes a user namespace too and maps only the caller's own uid and gid,
// so the command keeps its identity and holds no capability after exec;
// the helper holds them until then, which the mounts need. The helper is
// single-threaded here, as unshare(CLONE_NEWUSER) requires.
static void enter_namespaces(uint32_t flags) {
	// The kernel lets an unprivileged process map only its effective ids.
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare((int)flags) != 0) {
		ns_fail("unshare: %s", strerror(errno));
	}
	if (flags & CLONE_NEWNS) {
		own_mntns = 0;
	}
	if (flags & CLONE_NEWUSER) {
		char map[64];
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
		write_file("/proc/self/uid_map", map);
		write_file("/proc/self/setgroups", "deny\n");
		snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		write_file("/proc/self/gid_map", map);
	}
}

// KEPT_LOCK_FD is where the lock of the kept network namespace a helper
// joined is held: above every descriptor the helper places, so that
// none of its dup2s closes it, and close-on-exec, so that the command
// does not hold it (the init, forked, does).
#define KEPT_LOCK_FD 64

// is_other_netns reports whether fd, a namespace's file, is a network
// namespace's and not the one this process is in.
static int is_other_netns(int fd) {
	struct stat st, self;
	return ioctl(fd, NS_GET_NSTYPE) == CLONE_NEWNET && fstat(fd, &st) == 0 && stat("/proc/self/ns/net", &self) == 0 &&
	       !(st.st_dev == self.st_dev && st.st_ino == self.st_ino);
}

// netns_untouched reports whether the network namespace this process is
// in has no interface but its loopback, and that down: as a slot's is
// made, and as no run can change it. One set up by someone else (a
// container's, bound there by root) is not joined. The links come from
// one RTM_GETLINK dump: /proc/self/net/dev, read instead, cost 45 µs of
// every prestarted helper's start (the first lookup of the namespace's
// net directory), more than the rest of joining the namespace.
static int netns_untouched(void) {
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0) {
		return 0;
	}
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req;
	memset(&req, 0, sizeof req);
	req.nh.nlmsg_len = sizeof req;
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	if (send(s, &req, sizeof req, 0) != (ssize_t)sizeof req) {
		close(s);
		return 0;
	}
	// A loopback's message is about 1.5 KB; one cut short (MSG_TRUNC)
	// fails the check, as does anything but links and the dump's end.
	union {
		char buf[8192];
		struct nlmsghdr align;
	} u;
	int links = 0, untouched = 1, done = 0;
	while (untouched && !done) {
		ssize_t n;
		while ((n = recv(s, u.buf, sizeof u.buf, MSG_TRUNC)) < 0 && errno == EINTR) {
		}
		if (n <= 0 || n > (ssize_t)sizeof u.buf) {
			untouched = 0;
			break;
		}
		int left = (int)n;
		for (struct nlmsghdr *h = &u.align; untouched && NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg))) {
				untouched = 0;
				break;
			}
			struct ifinfomsg *ifi = NLMSG_DATA(h);
			int lo = 0;
			int alen = (int)IFLA_PAYLOAD(h);
			for (struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
				if (a->rta_type == IFLA_IFNAME) {
					lo = RTA_PAYLOAD(a) == 3 && memcmp(RTA_DATA(a), "lo", 3) == 0;
				}
			}
			untouched = ++links == 1 && lo && (ifi->ifi_flags & IFF_LOOPBACK) && !(ifi->ifi_flags & IFF_UP);
		}
	}
	close(s);
	return untouched && done && links == 1;
}

// join_kept_slot is join_kept_netns, orig being the namespace it is in.
static int join_kept_slot(int orig) {
	char name[32];
	for (int i = 0; i < GX_KEPT_NETNS_MAX; i++) {
		snprintf(name, sizeof name, "%d.lock", i);
		int lock = openat(GX_NETNS_FD, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (lock < 0) {
			return 0;
		}
		if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
			close(lock);
			continue;
		}
		int held = fcntl(lock, F_DUPFD_CLOEXEC, KEPT_LOCK_FD);
		close(lock);
		if (held < 0) {
			return 0;
		}
		snprintf(name, sizeof name, "%d", i);
		int ns = openat(GX_NETNS_FD, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		struct statfs sf;
		if (ns >= 0 && fstatfs(ns, &sf) == 0 && sf.f_type == NSFS_MAGIC) {
			// A namespace bound there: joined when it is another
			// network namespace, untouched; the host's, another kind or
			// one set up is not ours to join or replace.
			int joined = is_other_netns(ns) && setns(ns, CLONE_NEWNET) == 0;
			close(ns);
			if (joined && !netns_untouched()) {
				if (setns(orig, CLONE_NEWNET) != 0) {
					setup_fail("kept network namespace: back to the host's: %s", strerror(errno));
				}
				joined = 0;
			}
			if (!joined) {
				close(held);
			}
			return joined;
		}
		if (ns >= 0) {
			close(ns);
		}
		// No namespace in the slot yet (or since a reboot): this
		// helper's own, kept by binding its file there.
		if (unshare(CLONE_NEWNET) != 0) {
			close(held);
			return 0;
		}
		int f = openat(GX_NETNS_FD, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		char target[64];
		snprintf(target, sizeof target, "/proc/self/fd/%d/%s", GX_NETNS_FD, name);
		if (f < 0 || mount("/proc/self/ns/net", target, NULL, MS_BIND, NULL) != 0) {
			// Not kept, but a namespace of its own all the same.
			close(held);
		}
		if (f >= 0) {
			close(f);
		}
		return 1;
	}
	return 0;
}

// join_kept_netns puts the helper in a kept network namespace
// (GX_KEPT_NETNS_ARG) and returns 1, or returns 0 with the helper where
// it was. A network-off run needs a namespace only to keep the host's
// abstract sockets out of reach and unbindable, and making one costs
// 0.33 ms (its teardown more, later): a namespace that served one run
// serves the next, since nothing of a run is left in it (every process
// of the run dies with its PID namespace, and one holds no capability
// to change the namespace), and the runner keeps a run from the abstract
// sockets of any other by Landlock's scope. A slot whose file is not a
// network namespace's gets a new one bound on it; one that holds this
// process's own namespace (the host's) or one set up (netns_untouched)
// is refused.
static int join_kept_netns(void) {
	int orig = openat(AT_FDCWD, "/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (orig < 0) {
		return 0;
	}
	int joined = join_kept_slot(orig);
	close(orig);
	return joined;
}

static void loopback_up(void) {
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ns_fail("netns: %s", strerror(errno));
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) {
		ns_fail("netns: %s", strerror(errno));
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0) {
		ns_fail("netns: %s", strerror(errno));
	}
	close(fd);
}

// bounds_dropped is set once drop_bounds has run, in this process or in
// the one it was forked from (whose bounding set and securebits it has).
static int bounds_dropped;

// holds_caps reports whether the calling thread has any effective or
// permitted capability.
static int holds_caps(void) {
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capget, &hdr, data) != 0) {
		setup_fail("capabilities: capget: %s", strerror(errno));
	}
	int held = 0;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		held |= data[i].effective != 0 || data[i].permitted != 0;
	}
	return held;
}

// drop_bounds locks the securebits that would give capabilities back at
// an exec (as root, or across a setuid) and empties the bounding set.
// Neither takes a capability the process holds now: a prestarted helper
// drops them before its go-ahead, and mounts after it (40 prctl calls
// off every warm call's path); its init and target inherit both.
static void drop_bounds(void) {
	int bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
		   SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0) {
		setup_fail("capabilities: securebits: %s", strerror(errno));
	}
	// PR_CAPBSET_DROP fails with EINVAL past the kernel's last
	// capability: the kernel's count is data, not a constant here,
	// and dropping one already gone succeeds.
	for (int cap = 0;; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) {
			continue;
		}
		if (errno == EINVAL && cap > 0) {
			break;
		}
		setup_fail("capabilities: dropping %d from the bounding set: %s", cap, strerror(errno));
	}
	bounds_dropped = 1;
}

// drop_caps empties every capability set before the exec: bounding and
// ambient first (dropping from the bounding set needs CAP_SETPCAP, which
// the capset at the end takes away), then effective, permitted and
// inheritable. The securebits keep root from regaining any at exec even if
// a set were left: with SECBIT_NOROOT uid 0 is not special to execve. A
// process that holds no capability to begin with (not root, no user
// namespace) cannot drop from its bounding set, and needs not: with
// no_new_privs and a non-zero uid nothing it execs gains any.
static void drop_caps(void) {
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
		setup_fail("capabilities: clearing the ambient set: %s", strerror(errno));
	}
	if (!bounds_dropped && holds_caps()) {
		drop_bounds();
	}
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capset, &hdr, data) != 0) {
		setup_fail("capabilities: capset: %s", strerror(errno));
	}
}

// new_session is set when the helper leads a session of its own (the
// setsid layer): a target forked by the namespace's init then starts
// another, so that it leads its session as the target the helper execs
// itself does, and no terminal of the caller's can become its own.
static int new_session;

// ahead_bpf is the seccomp program a prestarted init was sent for its
// run (GX_SECCOMP_AHEAD_ARG), ahead_bpf_len its length (0: none), which
// its target loads before the run comes (bpf_loaded, target_ahead).
static unsigned char *ahead_bpf;
static size_t ahead_bpf_len;
static int bpf_loaded;

// load_seccomp loads the seccomp program of len bytes at bpf; the caller
// has no_new_privs set.
static void load_seccomp(const unsigned char *bpf, size_t len) {
	struct sock_fprog prog = {
		.len = (unsigned short)(len / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)bpf,
	};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		setup_fail("seccomp: %s", strerror(errno));
	}
}

// restrict_target applies, in the process that becomes the target, the
// restrictions that bind the target itself: its session, limits,
// directory, CPUs, no_new_privs, capabilities, Landlock and seccomp.
static void restrict_target(const struct spec *s) {
	if (new_session && getsid(0) != getpid() && setsid() < 0) {
		setup_fail("setsid: %s", strerror(errno));
	}
	for (size_t i = 0; i < s->nrlimits; i++) {
		struct rlimit rl = {.rlim_cur = s->rlimits[i].value, .rlim_max = s->rlimits[i].value};
		if (setrlimit((int)s->rlimits[i].resource, &rl) != 0) {
			setup_fail("rlimit %u: %s", s->rlimits[i].resource, strerror(errno));
		}
	}
	if (s->dir != NULL && chdir(s->dir) != 0) {
		setup_fail("chdir %s: %s", s->dir, strerror(errno));
	}
	if (s->has_affinity && sched_setaffinity(0, sizeof s->affinity, &s->affinity) != 0) {
		// None of the runner's CPUs is left to it (its cpuset changed
		// meanwhile): every CPU the kernel still allows.
		cpu_set_t all;
		memset(&all, 0xff, sizeof all);
		if (sched_setaffinity(0, sizeof all, &all) != 0) {
			setup_fail("CPU affinity: %s", strerror(errno));
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		setup_fail("no_new_privs: %s", strerror(errno));
	}
	if (s->drop_caps) {
		drop_caps();
	}
	if (s->landlock) {
		if (syscall(SYS_landlock_restrict_self, GX_RULESET_FD, s->landlock_flags) != 0) {
			setup_fail("landlock_restrict_self: %s", strerror(errno));
		}
		// Gone at the exec, not before: a target started ahead shares
		// its init's descriptors, and the init closes its own.
		if (fcntl(GX_RULESET_FD, F_SETFD, FD_CLOEXEC) != 0) {
			setup_fail("landlock ruleset: %s", strerror(errno));
		}
	}
	if (s->bpf_len > 0 && !bpf_loaded) {
		load_seccomp(s->bpf, s->bpf_len);
	}
}

// exec_restricted execs the target restrict_target has bound; it returns
// only by failing.
__attribute__((noreturn)) static void exec_restricted(const struct spec *s) {
	execve(s->path, s->argv, s->envp);
	if (s->fallback_path != NULL) {
		// Nothing happened: bash runs the command instead, as it
		// would have from the start, with its own message and status
		// for whatever stopped the exec.
		execve(s->fallback_path, s->fallback_argv, s->envp);
	}
	int e = errno;
	if (e == ENOENT || e == ENOTDIR) {
		fail(127, GX_REPORT_NOTFOUND, "%s", strerror(e));
	}
	fail(126, GX_REPORT_CANNOTEXEC, "%s", strerror(e));
}

// exec_target applies the restrictions that bind the target itself and
// execs it; it returns only by failing.
__attribute__((noreturn)) static void exec_target(const struct spec *s) {
	restrict_target(s);
	exec_restricted(s);
}

// The signals the helper and the init pass on. SIGKILL and SIGSTOP cannot
// be caught: SIGKILL of the helper ends the init by its death signal, and
// with it the namespace.
static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGALRM, SIGTSTP};

// job_control is set when the target runs in the foreground of the
// terminal GX_TAG_CTTY names, ctty_fd (see helper_linux.h).
static int job_control;
static int ctty_fd = -1;

// forward_to is where a caught signal goes: the init's pid for the
// helper, -1 (every process of the namespace but the init) for the init.
// Until the helper has forked, a signal is kept in pending and sent after.
static volatile sig_atomic_t forward_to;
static volatile sig_atomic_t pending[NSIG];

// pass_on sends sig where forward_to says. SIGTSTP stops the run: without
// job control every process of the namespace is in an orphaned process
// group, for which the kernel drops a SIGTSTP that would stop it, so the
// init stops them with SIGSTOP and the helper stops itself, which the runner
// sees. With job control the command's group is not orphaned: it gets the
// SIGTSTP (an editor restores the terminal first), and its stop is reported.
static void pass_on(int sig) {
	pid_t to = (pid_t)forward_to;
	if (sig != SIGTSTP || job_control) {
		kill(to, sig);
	} else if (to == -1) {
		kill(-1, SIGSTOP);
	} else if (to > 0) {
		kill(to, SIGTSTP);
		kill(getpid(), SIGSTOP);
	}
}

static void on_signal(int sig) {
	int saved = errno;
	if (forward_to != 0) {
		pass_on(sig);
	} else {
		pending[sig] = 1;
	}
	errno = saved;
}

static void catch_signals(void) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
		if (sigaction(forwarded[i], &sa, NULL) != 0) {
			setup_fail("signals: %s", strerror(errno));
		}
	}
}

static void start_forwarding(pid_t to) {
	forward_to = to;
	for (int sig = 1; sig < NSIG; sig++) {
		if (pending[sig]) {
			pending[sig] = 0;
			pass_on(sig);
		}
	}
}

// waitpid_retry is waitpid that resumes after a signal handler ran.
static pid_t waitpid_retry(pid_t pid, int *status, int options) {
	pid_t r;
	while ((r = waitpid(pid, status, options)) < 0 && errno == EINTR) {
	}
	return r;
}

// lead_terminal makes the caller, which must lead a session of its own,
// take ctty_fd as its controlling terminal. The terminal is the runner's
// new pty, nobody's controlling terminal yet: no force (and no privilege)
// is needed, and seccomp later refuses the forced form to the command.
static void lead_terminal(void) {
	if (ioctl(ctty_fd, TIOCSCTTY, 0) != 0) {
		setup_fail("terminal: TIOCSCTTY: %s", strerror(errno));
	}
}

// enter_job, in the forked target, makes a process group of its own and
// puts it in the terminal's foreground before the exec, so that the command
// never reads the terminal from the background. SIGTTOU, which stops a
// background process calling tcsetpgrp, is ignored meanwhile.
static void enter_job(void) {
	struct sigaction ign, old;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	if (setpgid(0, 0) != 0 || sigaction(SIGTTOU, &ign, &old) != 0) {
		setup_fail("terminal: process group: %s", strerror(errno));
	}
	if (tcsetpgrp(ctty_fd, getpid()) != 0) {
		setup_fail("terminal: foreground: %s", strerror(errno));
	}
	if (sigaction(SIGTTOU, &old, NULL) != 0) {
		setup_fail("terminal: signals: %s", strerror(errno));
	}
}

// run_init is pid 1 of the command's PID namespace. It mounts the
// namespace's own /proc (the one inherited shows the host's processes),
// forks the target and reaps every process the namespace reparents to it
// until the target exits; then it hands the target's wait status to the
// helper through status_fd and exits, and the kernel kills whatever is
// left in the namespace: nothing of the run outlives it.
__attribute__((noreturn)) static void init_run(const struct spec *s, int status_fd, int life_fd);

// init_private keeps the init's memory from the target (not readable even
// through its own uid: it holds the plan and runs outside Landlock and
// seccomp) and mounts the PID namespace's own /proc, read-only, in the
// init's mount namespace, which must not be not_mntns (the host's).
static void init_private(uint64_t not_mntns) {
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		setup_fail("init: dumpable: %s", strerror(errno));
	}
	if (mntns_inode() == not_mntns) {
		setup_fail("mount namespace: not a private namespace");
	}
	// Private first: a mount on a shared /proc would show up in the
	// caller's namespace too.
	if (mount(NULL, "/proc", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		ns_fail("mount: making /proc private: %s", strerror(errno));
	}
	// Read-only: uid 0 needs no capability to write most of /proc/sys
	// (core_pattern) or /proc/sysrq-trigger, only the file mode.
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) != 0) {
		ns_fail("mount /proc: %s", strerror(errno));
	}
}

// init_start begins the init a helper forks: it dies with the helper and
// keeps to itself (init_private).
static void init_start(int life_fd, uint64_t not_mntns) {
	// The helper may have been killed before the death signal was set:
	// then the life pipe has already lost its writer.
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
		setup_fail("init: death signal: %s", strerror(errno));
	}
	struct pollfd pfd = {.fd = life_fd, .events = POLLIN};
	if (poll(&pfd, 1, 0) != 0) {
		_exit(GX_HELPER_FAIL);
	}
	init_private(not_mntns);
}

__attribute__((noreturn)) static void run_init(const struct spec *s, int status_fd, int life_fd) {
	init_start(life_fd, s->parent_mntns);
	init_run(s, status_fd, life_fd);
}

// init_run forks the target of the run s and reaps until it has ended,
// handing its status to the helper on status_fd.
__attribute__((noreturn)) static void init_run(const struct spec *s, int status_fd, int life_fd) {
	// Its own process group: the runner signals the helper's group, and
	// what reaches the namespace must come once, through the helper. With
	// a terminal, a session of its own, which it leads for job control.
	if (job_control) {
		if (setsid() < 0) {
			setup_fail("init: session: %s", strerror(errno));
		}
		lead_terminal();
	} else if (setpgid(0, 0) != 0) {
		setup_fail("init: process group: %s", strerror(errno));
	}
	pid_t target = fork();
	if (target < 0) {
		setup_fail("init: fork: %s", strerror(errno));
	}
	if (target == 0) {
		close(status_fd);
		close(life_fd);
		if (job_control) {
			enter_job();
		}
		exec_target(s);
	}
	start_forwarding(-1);
	// The init needs none of what the target was given.
	close(GX_REPORT_FD);
	if (s->landlock) {
		close(GX_RULESET_FD);
	}
	for (;;) {
		int st;
		pid_t r = waitpid_retry(-1, &st, job_control ? WUNTRACED : 0);
		// A way out without the target's status exits 0 with nothing
		// written: the helper then reports it (the init's own report
		// descriptor is closed), and a 125 is never silent.
		if (r < 0) {
			_exit(0); // ECHILD: the target is gone unseen
		}
		if (r == target && WIFSTOPPED(st)) {
			// The helper stops itself on this; a SIGCONT to it
			// comes back down here and resumes the command.
			uint32_t raw = (uint32_t)st;
			if (write(status_fd, &raw, sizeof raw) != (ssize_t)sizeof raw) {
				_exit(0);
			}
			continue;
		}
		if (r == target) {
			uint32_t raw = (uint32_t)st;
			if (write(status_fd, &raw, sizeof raw) != (ssize_t)sizeof raw) {
				_exit(0);
			}
			_exit(0);
		}
	}
}

// exit_as ends the helper the way the target ended: with its exit code,
// or by the signal that killed it, without a core dump of the helper.
__attribute__((noreturn)) static void exit_as(int st) {
	if (WIFEXITED(st)) {
		_exit(WEXITSTATUS(st));
	}
	int sig = WTERMSIG(st);
	struct rlimit no_core = {0, 0};
	setrlimit(RLIMIT_CORE, &no_core);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(sig, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), sig);
	_exit(128 + sig);
}

// supervise forks the namespace's init and waits for it, passing signals
// on, then ends as the target did.
__attribute__((noreturn)) static void supervise_init(pid_t init, int status_fd);

// fork_init makes the pipes an init and its helper share, and forks the
// init: 0 in the init, with *status_fd and *life_fd its ends; the init's
// pid in the helper, with *status_fd its end (the life pipe's write end,
// kept open and never written, is how the init knows the helper lives).
static pid_t fork_init(int *status_fd, int *life_fd) {
	int status[2], life[2];
	// With job control the init leads the command's session instead.
	new_session = !job_control && getsid(0) == getpid();
	if (pipe2(status, O_CLOEXEC) != 0 || pipe2(life, O_CLOEXEC) != 0) {
		setup_fail("init: pipe: %s", strerror(errno));
	}
	catch_signals();
	pid_t init = fork();
	if (init < 0) {
		setup_fail("init: fork: %s", strerror(errno));
	}
	if (init == 0) {
		close(status[0]);
		close(life[1]);
		*status_fd = status[1];
		*life_fd = life[0];
		return 0;
	}
	close(status[1]);
	close(life[0]);
	*status_fd = status[0];
	return init;
}

__attribute__((noreturn)) static void supervise(const struct spec *s) {
	int status_fd, life_fd;
	pid_t init = fork_init(&status_fd, &life_fd);
	if (init == 0) {
		run_init(s, status_fd, life_fd);
	}
	supervise_init(init, status_fd);
}

// supervise_init passes signals on to the init and waits for the target's
// status from it on status_fd, then ends as the target did.
__attribute__((noreturn)) static void supervise_init(pid_t init, int status_fd) {
	start_forwarding(init);
	// The init writes a stopped status each time the command stops (job
	// control), then its final one; end of file: it ended without.
	uint32_t raw;
	ssize_t n;
	for (;;) {
		while ((n = read(status_fd, &raw, sizeof raw)) < 0 && errno == EINTR) {
		}
		if (n != (ssize_t)sizeof raw || !WIFSTOPPED((int)raw)) {
			break;
		}
		kill(getpid(), SIGSTOP);
	}
	int st;
	if (waitpid_retry(init, &st, 0) < 0) {
		setup_fail("init: wait: %s", strerror(errno));
	}
	if (n == (ssize_t)sizeof raw) {
		exit_as((int)raw);
	}
	// The init ended before the target did: it reported why (exit
	// 125), it lost the target's status (exit 0), or it was killed.
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		_exit(WEXITSTATUS(st));
	}
	if (WIFEXITED(st)) {
		setup_fail("init: the command's status was lost");
	}
	setup_fail("init: killed by signal %d", WTERMSIG(st));
}

// job_parent runs the target with job control where there is no init to
// do it (no PID namespace): the helper, which the runner made a session
// leader, takes the terminal, forks the target into the foreground and
// waits for it, stopping itself whenever the command stops.
__attribute__((noreturn)) static void job_parent(const struct spec *s) {
	if (getsid(0) != getpid()) {
		setup_fail("terminal: the helper does not lead a session");
	}
	catch_signals();
	lead_terminal();
	pid_t self = getpid();
	pid_t target = fork();
	if (target < 0) {
		setup_fail("terminal: fork: %s", strerror(errno));
	}
	if (target == 0) {
		// It dies with the helper, as the command the helper would
		// have become would die with the runner.
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != self) {
			setup_fail("terminal: the helper is gone");
		}
		enter_job();
		exec_target(s);
	}
	start_forwarding(-target);
	close(GX_REPORT_FD);
	if (s->landlock) {
		close(GX_RULESET_FD);
	}
	for (;;) {
		int st;
		if (waitpid_retry(target, &st, WUNTRACED) < 0) {
			_exit(GX_HELPER_FAIL);
		}
		if (WIFSTOPPED(st)) {
			kill(getpid(), SIGSTOP);
			continue;
		}
		// What it left in its group goes with it, as the runner ends
		// the helper's group.
		kill(-target, SIGKILL);
		exit_as(st);
	}
}

// hand_mount_namespace sends the runner a descriptor of the helper's own
// mount namespace (GX_PRESTART_MNTNS): the last reference to it would be
// dropped by the helper's exit, which would then unmount every mount of
// the run and wait out an RCU grace period before the runner learns how
// the command ended (0.1 ms of a warm call). A long-lived runner drops
// it once it has the result; a one-shot run never reads it, and it goes
// with the runner's end of the socket, which gatedexec leaves open until
// after its caller has its status (Runner.LeaveToExit). A runner that no
// longer waits for it (its end closed) is no error: the helper goes on
// without.
static void hand_mount_namespace(void) {
	int fd = openat(AT_FDCWD, "/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		setup_fail("mount namespace: %s", strerror(errno));
	}
	unsigned char tag = GX_PRESTART_MNTNS;
	struct iovec iov = {.iov_base = &tag, .iov_len = 1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof ctl);
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	while (sendmsg(GX_SPEC_FD, &msg, MSG_NOSIGNAL) < 0 && errno == EINTR) {
	}
	close(fd);
}

// recv_fds receives on GX_SPEC_FD a message of one data byte, put in
// *data, and the descriptors that come with it (close-on-exec), at most
// max (no more than GX_RECV_FDS_MAX), put in fds; it returns how many.
// A message cut short or carrying anything else ends the helper, what
// saying what it was waiting for.
#define GX_RECV_FDS_MAX 5
_Static_assert(GX_PRESTART_FDS <= GX_RECV_FDS_MAX && GX_PRESTART_CGROUP_FDS <= GX_RECV_FDS_MAX,
               "recv_fds takes every message's descriptors");
static int recv_fds(unsigned char *data, int *fds, int max, const char *what) {
	struct iovec iov = {.iov_base = data, .iov_len = 1};
	union {
		char buf[CMSG_SPACE(GX_RECV_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	memset(&ctl, 0, sizeof ctl);
	struct msghdr msg = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = CMSG_SPACE(max * sizeof(int))};
	ssize_t r;
	while ((r = recvmsg(GX_SPEC_FD, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
	}
	if (r != 1) {
		setup_fail("%s: %s", what, r < 0 ? strerror(errno) : "the runner is gone");
	}
	if (msg.msg_flags & MSG_CTRUNC) {
		setup_fail("%s: more than %d descriptors", what, max);
	}
	struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
	if (h == NULL) {
		return 0;
	}
	size_t len = h->cmsg_len - CMSG_LEN(0);
	if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS || h->cmsg_len < CMSG_LEN(0) ||
	    len % sizeof(int) != 0 || len / sizeof(int) > (size_t)max) {
		setup_fail("%s: not a list of descriptors", what);
	}
	memcpy(fds, CMSG_DATA(h), len);
	return (int)(len / sizeof(int));
}

// await_cgroups waits until the runner has the prestarted helper in its
// run's cgroups (GX_PRESTART_CGROUPS): an init forked before would stay
// outside them. The message may carry the tasks files of the run's v1
// cgroups: the helper then moves itself, by writing "0" to each. A
// thread that names itself there moves alone, which the kernel does
// without its global threadgroup lock (whose write side waits out an RCU
// grace period); the runner had to lock a thread of its own, move it in
// and out around the fork, for the same.
static void await_cgroups(void) {
	unsigned char c = 0;
	int fds[GX_PRESTART_CGROUP_FDS];
	int n = recv_fds(&c, fds, GX_PRESTART_CGROUP_FDS, "prestart: waiting for the cgroups");
	if (c != GX_PRESTART_CGROUPS) {
		setup_fail("prestart: waiting for the cgroups: message %#x", c);
	}
	int err = 0;
	for (int i = 0; i < n; i++) {
		if (err == 0 && write(fds[i], "0", 1) != 1) {
			err = errno;
		}
		close(fds[i]);
	}
	if (err != 0) {
		setup_fail("prestart: entering the run's cgroups: %s", strerror(err));
	}
}

// received_egress says a prestarted helper was sent the egress socket
// (GX_PRESTART_EGRESS), which its spec must then have ports for, and
// egress_fd is that socket: GX_EGRESS_FD, where a helper started with its
// run has it, or where the message put it (an init forked by the helper
// holds its status pipe there).
static int received_egress;
static int egress_fd = GX_EGRESS_FD;

// spin is set for a helper started with GX_SPIN_ARG.
static int spin;

// spin_readable returns once fd is readable, or has hung up, or after
// ns nanoseconds, whichever comes first, without sleeping: the runner
// sends the run when it is ready, often a moment after the helper is.
// Woken from a sleep instead, the helper waited for its idle CPU to be
// woken: 0.03-0.07 ms on a VM, where the CPU halts (a sandboxed /bin/true
// 0.020 ms faster with it, in turns run by run).
static void spin_readable(int fd, long ns) {
	struct timespec start, now;
	if (clock_gettime(CLOCK_MONOTONIC, &start) != 0) {
		return;
	}
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (poll(&p, 1, 0) == 0) {
		if (clock_gettime(CLOCK_MONOTONIC, &now) != 0 ||
		    (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) >= ns) {
			return;
		}
	}
}

// receive_stdio takes the descriptors a prestarted helper is sent for
// its run: its standard descriptors, the Landlock ruleset when there is
// one more than those and the egress socket, and the egress socket when
// the message says so (GX_PRESTART_EGRESS).
static void receive_stdio(void) {
	if (spin) {
		spin_readable(GX_SPEC_FD, GX_SPIN_NS);
	}
	unsigned char head = 0;
	int fds[GX_PRESTART_FDS];
	int got = recv_fds(&head, fds, GX_PRESTART_FDS, "receiving descriptors");
	received_egress = (head & GX_PRESTART_EGRESS) != 0;
	int n = head & ~GX_PRESTART_EGRESS;
	if (n < 3 + received_egress || n > 4 + received_egress || got != n) {
		setup_fail("receiving descriptors: %d, not the %d announced", got, n);
	}
	if (received_egress) {
		// Left where it came (close-on-exec): above the standard
		// descriptors' and the ruleset's places, received before it.
		egress_fd = fds[--n];
	}
	for (int i = 0; i < n; i++) {
		// The kernel numbered them upwards from the lowest free one,
		// above GX_REPORT_FD: the first may be GX_RULESET_FD, but it
		// is moved to 0 and closed before the ruleset, received last
		// and so numbered above it, takes that place.
		int to = i < 3 ? i : GX_RULESET_FD;
		if (dup2(fds[i], to) != to) {
			setup_fail("receiving descriptors: %s", strerror(errno));
		}
		close(fds[i]);
	}
}

// prepare_run reads and decodes the run's spec into s and does all that
// comes before the target: the namespaces (made already by a prestarted
// helper, whose flags must be the spec's), the mounts, /dev, the
// reopened descriptors, the loopback and egress set-up. Its caller then
// waits for the go-ahead (await_go_ahead) before the target may start.
static void prepare_run(struct spec *s, uint32_t prestarted) {
	size_t len;
	unsigned char *data = read_spec(GX_SPEC_FD, &len);
	decode(data, len, s);
	arena_free(data);
	if (ahead_bpf_len > 0 && (s->bpf_len != ahead_bpf_len || memcmp(s->bpf, ahead_bpf, ahead_bpf_len) != 0)) {
		// Its target runs under that program already.
		setup_fail("seccomp: the run's program is not the one loaded ahead of it");
	}
	if (s->close_fds) {
		cloexec_inherited();
	}

	if (prestarted != 0) {
		if (s->unshare_flags != prestarted) {
			setup_fail("prestarted with namespaces %#x, the spec wants %#x", prestarted, s->unshare_flags);
		}
	} else if (s->unshare_flags != 0) {
		enter_namespaces(s->unshare_flags);
	}
	if (s->nmounts > 0 || s->ntmps > 0 || s->dev) {
		// Mount only in a namespace of our own: a helper started by
		// hand, in the caller's namespace, must not change the
		// caller's mount table.
		if (s->parent_mntns == 0 || mntns_inode() == s->parent_mntns) {
			setup_fail("mount namespace: not a private namespace");
		}
	}
	apply_mounts(s);
	if (s->dev) {
		if (made_ahead) {
			dev_writable();
		} else {
			make_dev();
		}
		if (s->landlock) {
			landlock_allow("/dev/pts", s->pts_access);
			landlock_allow("/dev/shm", s->dir_access);
		}
	} else if (made_ahead) {
		setup_fail("prestarted with a /dev of its own: the spec wants the host's");
	}
	for (int fd = 0; fd <= 2; fd++) {
		if (s->reopen[fd]) {
			if (!(s->unshare_flags & CLONE_NEWNS)) {
				setup_fail("reopening descriptor %d needs a mount namespace", fd);
			}
			reopen_stdio(fd);
		}
	}
	if (s->loopback) {
		loopback_up();
	}
	if (prestarted != 0 && received_egress != (s->negress > 0)) {
		setup_fail("egress: %s", received_egress ? "a socket and no ports" : "ports and no socket");
	}
	if (s->negress > 0) {
		// Without its own network namespace the routes and listeners
		// would be the host's.
		if (!(s->unshare_flags & CLONE_NEWNET) || !s->loopback) {
			setup_fail("egress needs a network namespace of its own");
		}
		const char *err = gx_egress_setup(s->egress_ports, s->negress, egress_fd);
		if (err != NULL) {
			setup_fail("%s", err);
		}
		close(egress_fd);
	}
	if (s->has_ctty) {
		job_control = 1;
		ctty_fd = s->ctty;
		if (!isatty(ctty_fd)) {
			setup_fail("terminal: descriptor %d is not a terminal", ctty_fd);
		}
	}
}

// prestart_init forks the PID namespace's init of a prestarted helper
// that made the namespace itself (in a user namespace: as root the runner
// forks the helper into it, prestart_as_init) before its run comes: the
// init mounts its /proc at once, then takes the run itself (its
// descriptors and spec from the runner, the mounts) and forks the target,
// while the helper only supervises. The init's fork and /proc are off the
// run's path then (0.1 ms of a warm call). A prestarted run has no
// terminal (job control needs the helper's session).
__attribute__((noreturn)) static void prestart_init(uint32_t prestarted, uint64_t host_mntns) {
	int status_fd, life_fd;
	pid_t init = fork_init(&status_fd, &life_fd);
	if (init == 0) {
		init_start(life_fd, host_mntns);
		receive_stdio();
		struct spec s;
		prepare_run(&s, prestarted);
		if (job_control) {
			setup_fail("terminal: not for a prestarted helper");
		}
		await_go_ahead();
		init_run(&s, status_fd, life_fd);
	}
	// The init's now: the runner's end sees it close when the init ends.
	close(GX_SPEC_FD);
	supervise_init(init, status_fd);
}

// seccomp_ahead is set for a helper started with GX_SECCOMP_AHEAD_ARG.
static int seccomp_ahead;

// read_ahead_bpf reads the seccomp program sent ahead of the run
// (GX_SECCOMP_AHEAD_ARG) into ahead_bpf.
static void read_ahead_bpf(void) {
	unsigned char n4[4];
	read_full(GX_SPEC_FD, n4, sizeof n4);
	uint32_t n = le32(n4);
	if (n == 0 || n % sizeof(struct sock_filter) != 0 || n > BPF_MAXINSNS * sizeof(struct sock_filter)) {
		setup_fail("prestart: a seccomp program of %u bytes", n);
	}
	if ((ahead_bpf = arena_alloc(n)) == NULL) {
		setup_fail("prestart: seccomp program: out of memory");
	}
	read_full(GX_SPEC_FD, ahead_bpf, n);
	ahead_bpf_len = n;
}

// target_stack is the stack the target runs on from its clone
// (start_ahead) to its exec, in the init's memory, which the init does
// not touch meanwhile (it waits for that exec).
static char target_stack[64 << 10] __attribute__((aligned(16)));

// spawn_mask is the init's signal mask, which start_ahead blocks every
// signal around, and the target takes back.
static sigset_t spawn_mask;

// target_go is 0 until the init has set the run up (go_target), the
// futex the target started ahead waits on; target_live is 1 until the
// target has exec'd or exited, when the kernel clears it and wakes the
// init (CLONE_CHILD_CLEARTID), which waits on it as vfork waits.
static uint32_t target_go;
static pid_t target_live = 1;

// target_ahead is the target from its clone, before the run has come:
// the init's signal handlers would run on its memory, so it takes the
// defaults and waits, every signal blocked, until the init has set the
// run up. Then it enters its working directory again, over the run's
// mounts, binds itself (restrict_target) while the runner still scans
// the workspace, and waits for the go-ahead, after which only its exec
// is left. It shares the init's descriptors (the spec's socket, which
// the init keeps for end_namespace, is closed at the exec) and memory,
// but not its working directory: a target that could move the init's
// would lead the init's path lookups.
static int target_ahead(void *arg) {
	const struct spec *s = arg;
	for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
		signal(forwarded[i], SIG_DFL);
	}
	if (ahead_bpf_len > 0) {
		// Most of its set-up (0.07 ms), off the run's path. Without
		// CAP_SYS_ADMIN only under no_new_privs, which restrict_target
		// sets again; nothing it calls before its exec is a call the
		// program refuses.
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
			setup_fail("no_new_privs: %s", strerror(errno));
		}
		load_seccomp(ahead_bpf, ahead_bpf_len);
		bpf_loaded = 1;
	}
	while (__atomic_load_n(&target_go, __ATOMIC_ACQUIRE) == 0) {
		syscall(SYS_futex, &target_go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	}
	sigprocmask(SIG_SETMASK, &spawn_mask, NULL);
	// Its working directory is its own, entered before the mounts.
	if (mounts_cover_cwd(s)) {
		char cwd[4096];
		if (reenter_cwd(cwd, sizeof cwd) != 0) {
			setup_fail("working directory %s: %s", cwd, strerror(errno));
		}
	}
	restrict_target(s);
	read_go_ahead();
	if (fcntl(GX_SPEC_FD, F_SETFD, FD_CLOEXEC) != 0) {
		setup_fail("spec socket: %s", strerror(errno));
	}
	exec_restricted(s);
}

// start_ahead starts the target of the run s will hold before its spec
// comes (target_ahead): a child sharing the init's memory and
// descriptors, its clone (0.03 ms in the run's PID namespace and
// cgroups) off the run's path. It returns the target's pid, or fails.
static pid_t start_ahead(const struct spec *s) {
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &spawn_mask);
	pid_t pid = clone(target_ahead, target_stack + sizeof target_stack,
			  CLONE_VM | CLONE_FILES | CLONE_CHILD_CLEARTID | SIGCHLD, (void *)s, NULL, NULL, &target_live);
	int saved = errno;
	sigprocmask(SIG_SETMASK, &spawn_mask, NULL);
	if (pid < 0) {
		setup_fail("init: starting the command: %s", strerror(saved));
	}
	return pid;
}

// go_target lets the target started ahead go on with the run the init
// has set up, and returns once it has exec'd or exited, as a vfork's
// parent does: the init touches nothing of the memory they share before,
// every signal blocked meanwhile. The target writes nothing the init
// reads after it: its stack and, on a failure, the report pipe before it
// exits; its errno is the init's thread's, which is put back.
static void go_target(void) {
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	__atomic_store_n(&target_go, 1, __ATOMIC_RELEASE);
	int saved = errno;
	syscall(SYS_futex, &target_go, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pid_t live;
	while ((live = __atomic_load_n(&target_live, __ATOMIC_ACQUIRE)) != 0) {
		syscall(SYS_futex, &target_live, FUTEX_WAIT, live, NULL, NULL, 0);
	}
	errno = saved;
	sigprocmask(SIG_SETMASK, &spawn_mask, NULL);
}

// linger waits until the runner's end of the spec socket is closed (its
// hang-up; a one-shot gatedexec leaves it open until after its exit,
// Runner.LeaveToExit, and any other runner kills the helper): what is
// left of the run, this init, then ends off the path of the runner's
// result.
static void linger(void) {
	struct pollfd p = {.fd = GX_SPEC_FD, .events = 0};
	while (poll(&p, 1, -1) < 0 && errno == EINTR) {
	}
}

// end_namespace ends the run of an init that is the helper
// (prestart_as_init) once its target has exited with status st: it kills
// and reaps every process left in the namespace, closes what it holds of
// the command's (its standard descriptors: a pipe of the caller's, or the
// runner's relay, ends when they close), tells the runner how the target
// ended (GX_REPORT_END) and exits as the target did once the runner has
// closed its end of the spec socket (linger). The runner takes the run as
// over on that word: an init's exit unmaps its memory (a TLB shootdown on
// every other CPU it or its target's clone ran on, each an IPI to an idle
// vCPU here), drops its namespaces and is reaped, 0.03-0.28 ms of a
// sandboxed /bin/true that came before the runner learned how the command
// ended, and made beside the runner's last steps it slowed them as much
// (+0.07 ms, one pair of builds). Should a process outlive the reaping (the wait
// failing otherwise than with ECHILD) or the word not be written whole,
// nothing is said before the exit, which the kernel's own end of the
// namespace then precedes, as before.
__attribute__((noreturn)) static void end_namespace(int st) {
	// Killed again at every reap: a process caught forking by the first
	// kill makes no child, but the loop does not rely on it. With no child
	// at all (ECHILD) no process of the namespace is left, each being the
	// init's descendant, an orphan its child: the kill, which walks every
	// process of the host (0.015 ms), is spared.
	if (waitpid_retry(-1, NULL, WNOHANG) >= 0 || errno != ECHILD) {
		do {
			kill(-1, SIGKILL);
		} while (waitpid_retry(-1, NULL, 0) > 0);
	}
	int code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	if (errno == ECHILD) {
		for (int fd = 0; fd <= 2; fd++) {
			close(fd);
		}
		// Nothing of the run is left to end with the runner's thread,
		// whose death signal, sent from within gatedexec's exit, would
		// add this exit to the one gatedexec's caller waits for; cleared
		// before the runner may let that thread go.
		prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
		char buf[64];
		buf[0] = '\0';
		int n = snprintf(buf + 1, sizeof buf - 1, "%s %d\n", GX_REPORT_END, st);
		if (n > 0 && (size_t)n < sizeof buf - 1 && write(GX_REPORT_FD, buf, (size_t)n + 1) == n + 1) {
			linger();
			_exit(code);
		}
	}
	if (WIFSIGNALED(st)) {
		fail(code, GX_REPORT_SIGNAL, "%d", WTERMSIG(st));
	}
	_exit(code);
}

// prestart_as_init runs a prestarted helper's run as the init of the PID
// namespace the runner cloned the helper into (GX_PRESTART_ARG with
// CLONE_NEWPID, as root): the namespace's /proc at once, then its
// descriptors and spec, the mounts, and the target, reaped with every
// orphan until it has ended; the helper then ends the namespace and says
// how it ended (end_namespace), and exits with its exit code. An
// init forked for it (prestart_init) cost a fork before the run could
// come, and one more exit, and its parent's wake, after the command. The
// target is cloned before the run comes (start_ahead), and bound
// (restrict_target) before the go-ahead, while the runner scans: after
// it, its exec is all that is left (0.1 ms of set-up off the start, its
// seccomp program's load most of it). Cloned once the run was set up,
// as it was, its clone took 0.03 ms of the run's path.
//
// What the runner sends the helper's process group comes to the
// namespace once, through this init: the target gets a session of its
// own (restrict_target). A namespace's init cannot end by a signal of its
// own (the kernel ignores it), so a target killed by signal N is told on
// the report pipe (GX_REPORT_END with its status, else GX_REPORT_SIGNAL
// N), and the helper exits 128+N.
__attribute__((noreturn)) static void prestart_as_init(uint32_t prestarted, uint64_t host_mntns) {
	int death = 0;
	// The runner's fork set it (Pdeathsig): the init dies with the thread
	// that forked it, and with it every process of the namespace.
	if (prctl(PR_GET_PDEATHSIG, &death, 0, 0, 0) != 0 || death != SIGKILL) {
		setup_fail("init: no death signal");
	}
	init_private(host_mntns);
	new_session = 1;
	catch_signals();
	if (seccomp_ahead) {
		read_ahead_bpf();
	}
	struct spec s;
	pid_t target = start_ahead(&s);
	receive_stdio();
	prepare_run(&s, prestarted);
	if (job_control) {
		setup_fail("terminal: not for a prestarted helper");
	}
	go_target();
	// The target took the go-ahead (or failed). The socket stays open:
	// its end is what end_namespace waits for.
	start_forwarding(-1);
	if (s.landlock) {
		close(GX_RULESET_FD);
	}
	for (;;) {
		int st;
		pid_t r = waitpid_retry(-1, &st, 0);
		if (r < 0) {
			setup_fail("init: the command's status was lost: %s", strerror(errno));
		}
		if (r != target) {
			continue; // an orphan of the namespace
		}
		end_namespace(st);
	}
}

__attribute__((noreturn)) static void run_helper(uint32_t prestarted, int kept_netns) {
	close(GX_SELF_FD); // absent (EBADF) when run from a file
	if (fcntl(GX_REPORT_FD, F_SETFD, FD_CLOEXEC) != 0) {
		_exit(GX_HELPER_FAIL);
	}
	if (prestarted != 0) {
		// The namespaces cost most of the helper's time: made while
		// the runner still judges and plans the run that takes it.
		uint64_t host_mntns = mntns_inode();
		uint32_t make = prestarted;
		// Cloned into its PID namespace by the runner, as root, the
		// helper is that namespace's init (prestart_as_init).
		int as_init = (prestarted & CLONE_NEWPID) && (prestarted & CLONE_NEWNS) && getpid() == 1;
		if (as_init) {
			make &= ~(uint32_t)CLONE_NEWPID;
		}
		if (kept_netns) {
			// Before the mount namespace: a new slot's namespace is
			// bound in the host's, where the next helper finds it.
			// Without privilege the namespace would belong to a user
			// namespace of this run's; the runner asks only as root.
			// Only a run whose processes all end with its init.
			if ((prestarted & CLONE_NEWNET) && (prestarted & CLONE_NEWPID) && !(prestarted & CLONE_NEWUSER) &&
			    join_kept_netns()) {
				make &= ~(uint32_t)CLONE_NEWNET;
			}
			close(GX_NETNS_FD);
		}
		enter_namespaces(make);
		if (prestarted & CLONE_NEWNS) {
			hand_mount_namespace();
		}
		// Only a restricted run is prestarted, and it drops every
		// capability (its spec says so, GX_TAG_DROP_CAPS).
		if (holds_caps()) {
			drop_bounds();
		}
		await_cgroups();
		if (prestarted & CLONE_NEWNS) {
			make_ahead(host_mntns);
		}
		if (as_init) {
			prestart_as_init(prestarted, host_mntns);
		}
		if (seccomp_ahead) {
			// Only an init starts its target ahead.
			setup_fail("prestart: %s for a helper that is not its namespace's init", GX_SECCOMP_AHEAD_ARG);
		}
		if ((prestarted & CLONE_NEWPID) && (prestarted & CLONE_NEWNS)) {
			prestart_init(prestarted, host_mntns);
		}
		receive_stdio();
	}
	struct spec s;
	prepare_run(&s, prestarted);
	await_go_ahead();
	if (s.unshare_flags & CLONE_NEWPID) {
		supervise(&s);
	}
	if (job_control) {
		job_parent(&s);
	}
	exec_target(&s);
}

// main runs the helper only when the runner started it so (argv[1] is
// GX_HELPER_ARG): run by hand, it applies nothing and runs nothing.
// The test hooks (../helper_check.go) include this file without it.
#ifndef GX_NO_MAIN
int main(int argc, char **argv) {
	// Started with every signal blocked (spawnexec, which keeps Go's
	// handlers from running in its child), or with its runner thread's
	// mask: none blocked, as the target and its init expect.
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (argc < 2 || argv == NULL || argv[1] == NULL || strcmp(argv[1], GX_HELPER_ARG) != 0) {
		static const char msg[] = "gatedexec-helper: started by gatedexec only; refusing\n";
		if (write(2, msg, sizeof msg - 1) < 0) {
			// nothing more to say
		}
		return GX_HELPER_FAIL;
	}
	uint32_t prestarted = 0;
	int kept_netns = 0;
	if (argc >= 4 && strcmp(argv[2], GX_PRESTART_ARG) == 0) {
		char *end;
		errno = 0;
		unsigned long v = strtoul(argv[3], &end, 10);
		if (errno != 0 || end == argv[3] || *end != '\0' || v == 0 || v > UINT32_MAX) {
			setup_fail("prestart: bad namespace flags %s", argv[3]);
		}
		prestarted = (uint32_t)v;
		for (int i = 4; i < argc; i++) {
			if (!kept_netns && strcmp(argv[i], GX_KEPT_NETNS_ARG) == 0) {
				kept_netns = 1;
			} else if (!spin && strcmp(argv[i], GX_SPIN_ARG) == 0) {
				spin = 1;
			} else if (!seccomp_ahead && strcmp(argv[i], GX_SECCOMP_AHEAD_ARG) == 0) {
				seccomp_ahead = 1;
			} else {
				setup_fail("prestart: unknown argument %s", argv[i]);
			}
		}
	}
	run_helper(prestarted, kept_netns);
}
#endif
