package sandbox

import (
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/gatedexec/gatedexec/internal/lazyregexp"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// Denial kinds.
const (
	KindFSRead  = "fs-read"
	KindFSWrite = "fs-write"
	// KindFSHidden is an access to a path the profile hides: the command
	// sees it empty or missing. It is reported, never escalated: the
	// profile hides it on purpose, and the narrowest grant that would
	// "fix" a missing path is write access to its parent (all of HOME
	// for ~/.ssh/x).
	KindFSHidden   = "fs-hidden"
	KindNetConnect = "net-connect"
	KindNetBind    = "net-bind"
	// KindNet is a host the network policy refused (network mode
	// "proxy"): Host and Port say which; Port 0 is a refused lookup.
	KindNet     = "net"
	KindSyscall = "syscall"
	// KindOther is a denial of something no profile setting grants
	// (a Mach service, a sysctl); it is reported but never escalated.
	KindOther = "other"
)

// Denial is one access the sandbox most likely refused.
type Denial struct {
	Kind     string `json:"kind"`
	Path     string `json:"path,omitempty"`
	Host     string `json:"host,omitempty"`
	Port     int    `json:"port,omitempty"`
	Evidence string `json:"evidence"`
}

// String gives the short form used in messages: "fs-write /etc/x",
// "net example.com:443".
func (d Denial) String() string {
	if d.Host != "" {
		if d.Port == 0 {
			return d.Kind + " " + d.Host
		}
		return d.Kind + " " + net.JoinHostPort(d.Host, strconv.Itoa(d.Port))
	}
	if d.Path == "" {
		return d.Kind
	}
	return d.Kind + " " + d.Path
}

// maxDenials bounds what one run reports; the first ones are what matter.
const maxDenials = 16

// maxEvidence bounds the stderr excerpt kept per denial.
const maxEvidence = 240

// Detect decides from a failed command's result whether the sandbox caused
// the failure, per DESIGN §8. Evidence, strongest first: the command was
// killed by SIGSYS or printed a denied-syscall error; error text names a
// path outside what p grants; a known network error while the network is
// off or isolated. A success, a timeout, exit 127 (not found) and failures
// without such evidence give no denials: an error about a path p does grant
// is the host's permission, not the sandbox's. Relative paths in messages
// are resolved against cwd, the command's working directory.
//
// The denials the backend saw itself (Result.Denied: hosts the network
// proxy refused) are certain, not read from stderr, and come first
// whatever the command's status: a command may carry on after a refused
// connection.
func Detect(p *Profile, res *Result, cwd string) []Denial {
	if p == nil || res == nil {
		return nil
	}
	seen := slices.Clone(res.Denied)
	if p.Unrestricted || res.TimedOut || res.ExitCode == 0 || res.ExitCode == 127 {
		return seen
	}
	d := &detector{p: p, cwd: cwd, seen: map[string]bool{}, out: seen}
	if res.Signal == int(syscall.SIGSYS) {
		d.add(Denial{Kind: KindSyscall, Evidence: "killed by SIGSYS"})
	}
	lines := strings.Split(string(res.StderrTail), "\n")
	for _, l := range lines {
		d.syscallLine(l)
	}
	for _, l := range lines {
		d.pathLine(l)
	}
	// Under the proxy the network's refusals are known exactly (above); a
	// network error in the output is the host's or the command's.
	if p.Network == NetworkOff || p.Network == NetworkIsolated {
		for _, l := range lines {
			d.networkLine(l)
		}
	}
	return d.out
}

type detector struct {
	p    *Profile
	cwd  string
	seen map[string]bool
	out  []Denial
}

func (d *detector) add(x Denial) {
	key := x.Kind + "\x00" + x.Path
	if d.seen[key] || len(d.out) >= maxDenials {
		return
	}
	d.seen[key] = true
	if len(x.Evidence) > maxEvidence {
		x.Evidence = x.Evidence[:maxEvidence]
	}
	d.out = append(d.out, x)
}

// syscallRe matches errors naming a syscall the Linux seccomp filter
// always denies with EPERM; the names are specific enough that the error
// is the filter's, not the host's.
var syscallRe = &lazyregexp.Regexp{Expr: `(?i)\b(ptrace|process_vm_(?:readv|writev)|io_uring_\w+|bpf|perf_event_open|keyctl|add_key|request_key|userfaultfd|kexec_\w+|init_module|finit_module|delete_module|pivot_root|unshare|setns|umount2?)\b[^\n]*(operation not permitted|function not implemented)`}

func (d *detector) syscallLine(l string) {
	lower := strings.ToLower(l)
	if !strings.Contains(lower, "not permitted") && !strings.Contains(lower, "not implemented") {
		return
	}
	if m := syscallRe.Get().FindStringSubmatch(l); m != nil {
		d.add(Denial{Kind: KindSyscall, Path: strings.ToLower(m[1]), Evidence: strings.TrimSpace(l)})
	}
}

// fsErrRe finds the errno texts the sandbox produces for file access:
// EACCES (Landlock), EROFS (read-only bind mounts), EPERM (Seatbelt).
var fsErrRe = &lazyregexp.Regexp{Expr: `(?i)permission denied|read-only file system|operation not permitted|\bEACCES\b|\bEROFS\b|\bEPERM\b|\[Errno (?:1|13|30)\]`}

// enoentRe matches "not found" errors, evidence only for hidden paths,
// which appear empty under the Linux backend.
var enoentRe = &lazyregexp.Regexp{Expr: `(?i)no such file or directory|\bENOENT\b|\[Errno 2\]`}

// readVerbRe marks a message as about reading; writeVerbRe as about writing.
var (
	readVerbRe  = &lazyregexp.Regexp{Expr: `(?i)^(?:cat|head|tail|less|more|grep|egrep|rg|ls|find|du|wc|sort|diff|cmp|file|stat|readlink|md5sum|sha\w*sum|source|tar|zip|unzip -l): |cannot open .* for reading|cannot access|cannot read|cannot stat|cannot open directory|opendir|\bscandir\b|\blstat\b|\bstat\b|failed to read|could not read|unable to read|\bread\b`}
	writeVerbRe = &lazyregexp.Regexp{Expr: `(?i)read-only file system|\bEROFS\b|\[Errno 30\]|cannot touch|cannot create|cannot remove|cannot move|cannot overwrite|cannot make|unable to create|could not create|failed to create|could not lock|unable to write|could not write|failed to write|\bmkdir\b|\bwrite\b|\bcreat\w*|\brename\b|\bunlink\w*|\bremove\b|\bchmod\b|\bsymlink\b|\blink\b|\btruncate\b|\bopen\b.*\bw\b`}
)

// Candidate path shapes: quoted (ASCII, GNU's ‘’ and Rust's backticks),
// the "prog: PATH: error" shape, and bare absolute paths.
var (
	quotedRe   = &lazyregexp.Regexp{Expr: "'([^'\\n]+)'|\"([^\"\\n]+)\"|‘([^’\\n]+)’|`([^`\\n]+)`"}
	colonRe    = &lazyregexp.Regexp{Expr: `: (?i:permission denied|read-only file system|operation not permitted|no such file or directory)`}
	absRe      = &lazyregexp.Regexp{Expr: `(?:^|[\s(=])(/[^\s:'"(),;]+)`}
	goOpPathRe = &lazyregexp.Regexp{Expr: `\b(?:open|openat|mkdir|mkdirat|remove|rename|stat|lstat|chmod|chown|symlink|link|unlinkat|write|read|create|truncate) (\S+?)(?: (\S+?))?: `}
)

// fsHints are substrings (lower case) one of which every fsErrRe or
// enoentRe match contains.
var fsHints = []string{"denied", "read-only", "not permitted", "eacces", "erofs", "eperm", "errno", "no such file", "enoent"}

func (d *detector) pathLine(l string) {
	if !hasAny(strings.ToLower(l), fsHints) {
		return
	}
	fs := fsErrRe.Get().MatchString(l)
	nf := !fs && enoentRe.Get().MatchString(l)
	if !fs && !nf {
		return
	}
	for _, path := range d.candidates(l) {
		kind, ok := d.classify(path, l, nf)
		if ok {
			d.add(Denial{Kind: kind, Path: path, Evidence: strings.TrimSpace(l)})
			return // one path per line: the first named is the one the error is about
		}
	}
}

// candidates returns the absolute paths a line names, best guesses first.
func (d *detector) candidates(l string) []string {
	var raw []string
	quoted := map[string]bool{}
	for _, m := range quotedRe.Get().FindAllStringSubmatch(l, -1) {
		for _, g := range m[1:] {
			if g != "" {
				raw = append(raw, g)
				quoted[g] = true
			}
		}
	}
	for _, m := range goOpPathRe.Get().FindAllStringSubmatch(l, -1) {
		raw = append(raw, m[1])
		if m[2] != "" {
			raw = append(raw, m[2])
		}
	}
	// "prog: [line 1: ]PATH: error": the segment just before the error.
	if loc := colonRe.Get().FindStringIndex(l); loc != nil {
		segs := strings.Split(l[:loc[0]], ": ")
		raw = append(raw, strings.TrimSpace(segs[len(segs)-1]))
	}
	for _, m := range absRe.Get().FindAllStringSubmatch(l, -1) {
		raw = append(raw, m[1])
	}
	var out []string
	for _, r := range raw {
		r = strings.TrimRight(r, ".,:;")
		if r == "" || strings.ContainsAny(r, "\x00") || strings.Contains(r, "://") {
			continue
		}
		if !filepath.IsAbs(r) {
			// An unquoted relative name must look like a path: words such
			// as "bind" or "cannot touch 'x'" are message fragments.
			if d.cwd == "" || !filepath.IsAbs(d.cwd) ||
				!quoted[r] && (strings.ContainsAny(r, " \t'\"‘’`") || !strings.ContainsAny(r, "./")) {
				continue
			}
			r = filepath.Join(d.cwd, r)
		}
		out = append(out, filepath.Clean(r))
	}
	return out
}

// classify says whether an error about path is the sandbox's doing.
func (d *detector) classify(path, line string, notFound bool) (string, bool) {
	p := d.p
	if implicitDevice(path) {
		return "", false
	}
	// macOS tools may print the /private form of /tmp, /var and /etc
	// while the profile names the short one (or the reverse).
	if alt, ok := unprivate(path); ok && (Under(alt, p.Write) || Under(alt, p.Hide) || Under(alt, p.Read)) {
		path = alt
	}
	// Under a hidden path any error, "not found" included, is the
	// hiding's doing, whether the command read or wrote.
	if Under(path, p.Hide) {
		return KindFSHidden, true
	}
	if notFound {
		return "", false
	}
	// A message with no verb is taken as a write, as the sandbox denies
	// far more writes than reads.
	write := writeVerbRe.Get().MatchString(line) || !readVerbRe.Get().MatchString(line)
	if !p.ReadAll && !Under(path, p.Read) && !Under(path, p.Write) {
		return KindFSRead, true
	}
	if write && (!Under(path, p.Write) || Under(path, p.Protect)) {
		return KindFSWrite, true
	}
	return "", false
}

// implicitDevice reports paths every backend grants whatever the profile.
func implicitDevice(path string) bool {
	switch path {
	case "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
		"/dev/ptmx", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	return strings.HasPrefix(path, "/dev/pts/") || strings.HasPrefix(path, "/dev/fd/") ||
		strings.HasPrefix(path, "/dev/ttys") || strings.HasPrefix(path, "/proc/self/fd/")
}

// Under reports whether path is one of roots or lies below one: the
// prefix test of whole path components every profile check uses.
func Under(path string, roots []string) bool {
	return coveringRoot(path, roots) != ""
}

// coveringRoot returns the root of roots that path is or lies below.
func coveringRoot(path string, roots []string) string {
	for _, r := range roots {
		if path == r || r == "/" || strings.HasPrefix(path, strings.TrimSuffix(r, "/")+"/") {
			return r
		}
	}
	return ""
}

// netRe matches resolver and connect errors of curl, wget, git, ssh, pip,
// npm, Go, Python and Node when the network is unavailable.
var netRe = &lazyregexp.Regexp{Expr: `(?i)could not resolve (?:host|hostname|proxy)|temporary failure in name resolution|temporary failure resolving|name or service not known|nodename nor servname|unable to resolve host|network is unreachable|network unreachable|no route to host|failed to establish a new connection|newconnectionerror|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|\bEAI_AGAIN\b|code ENOTFOUND|couldn't connect to server|curl: \(7\)|dial tcp[^\n]*(?:operation not permitted|permission denied|no such host|server misbehaving)|lookup \S+[^\n]*(?:no such host|server misbehaving)|(?:socket|connect)(?:\(\))?(?: failed)?: (?:operation not permitted|permission denied)|address family not supported|\bENETUNREACH\b|\bEHOSTUNREACH\b`}

// bindRe matches a refused bind or listen.
var bindRe = &lazyregexp.Regexp{Expr: `(?i)(?:bind|listen)(?:\(\))?(?: tcp[^\n]*)?: (?:operation not permitted|permission denied)|listen EACCES|listen EPERM`}

// netHints are substrings (lower case) one of which every netRe or
// bindRe match contains; they spare the big regexps most lines.
var netHints = []string{"resol", "unreach", "route", "connect", "getaddrinfo", "eai_again", "enotfound",
	"dial", "lookup", "socket", "address family", "name or service", "nodename", "bind", "listen"}

func (d *detector) networkLine(l string) {
	if !hasAny(strings.ToLower(l), netHints) {
		return
	}
	switch {
	case bindRe.Get().MatchString(l):
		d.add(Denial{Kind: KindNetBind, Evidence: strings.TrimSpace(l)})
	case netRe.Get().MatchString(l):
		d.add(Denial{Kind: KindNetConnect, Evidence: strings.TrimSpace(l)})
	}
}

func hasAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// unprivate maps /private/{tmp,var,etc}/... to /{tmp,var,etc}/....
func unprivate(path string) (string, bool) {
	for _, l := range []string{"/tmp", "/var", "/etc"} {
		if path == "/private"+l || strings.HasPrefix(path, "/private"+l+"/") {
			return strings.TrimPrefix(path, "/private"), true
		}
	}
	return "", false
}

// NetDenials turns the network proxy's refusals into denials.
func NetDenials(ds []egress.Denial) []Denial {
	var out []Denial
	for _, d := range ds {
		out = append(out, Denial{Kind: KindNet, Host: d.Host, Port: int(d.Port), Evidence: d.Why})
	}
	return out
}
