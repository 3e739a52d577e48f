package darwin

import (
	"strconv"
	"strings"

	"github.com/gatedexec/gatedexec/internal/lazyregexp"
	"github.com/gatedexec/gatedexec/sandbox"
)

// Violation is one Seatbelt denial as the kernel logs it:
// "Sandbox: touch(4242) deny(1) file-write-create /private/etc/x".
type Violation struct {
	Process   string
	PID       int
	Operation string
	Target    string // a path, address, Mach service or sysctl name; may be empty
}

// violationRe matches the report wherever it sits in a log line (log
// stream prefixes timestamps and "kernel: (Sandbox)").
var violationRe = &lazyregexp.Regexp{Expr: `Sandbox: (.+?)\((\d+)\) deny\(\d+\) ([a-z0-9*-]+)(?: (.*))?$`}

// ParseViolation parses one log line; ok is false when it is not a report.
func ParseViolation(line string) (v Violation, ok bool) {
	m := violationRe.Get().FindStringSubmatch(strings.TrimRight(line, "\r\n"))
	if m == nil {
		return Violation{}, false
	}
	pid, err := strconv.Atoi(m[2])
	if err != nil {
		return Violation{}, false
	}
	return Violation{Process: m[1], PID: pid, Operation: m[3], Target: strings.TrimSpace(m[4])}, true
}

// Denial maps a violation to the backend-neutral denial record.
func (v Violation) Denial(evidence string) sandbox.Denial {
	d := sandbox.Denial{Kind: sandbox.KindOther, Path: v.Target, Evidence: evidence}
	op := v.Operation
	switch {
	case strings.HasPrefix(op, "file-read") || op == "file-test-existence" || op == "file-map-executable" || op == "process-exec":
		d.Kind = sandbox.KindFSRead
	case strings.HasPrefix(op, "file-write") || op == "file-link" || op == "file-clone" || op == "file-mknod":
		d.Kind = sandbox.KindFSWrite
	case op == "network-outbound":
		d.Kind = sandbox.KindNetConnect
		if !strings.HasPrefix(v.Target, "/") {
			d.Path = "" // an address, not a path; the kind says enough
		}
	case op == "network-bind" || op == "network-inbound":
		d.Kind = sandbox.KindNetBind
		if !strings.HasPrefix(v.Target, "/") {
			d.Path = ""
		}
	case strings.HasPrefix(op, "syscall"):
		d.Kind = sandbox.KindSyscall
	default:
		// Mach services, sysctls, IOKit: reported with the operation so
		// the record says what was refused.
		d.Path = strings.TrimSpace(op + " " + v.Target)
	}
	return d
}

// Denials parses every violation in log and returns their denials,
// deduplicated, keeping those of processes in pids when pids is non-nil.
func Denials(log string, pids map[int]bool) []sandbox.Denial {
	var out []sandbox.Denial
	seen := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		v, ok := ParseViolation(l)
		if !ok || pids != nil && !pids[v.PID] {
			continue
		}
		d := v.Denial(strings.TrimSpace(l))
		if k := d.Kind + "\x00" + d.Path; !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}
