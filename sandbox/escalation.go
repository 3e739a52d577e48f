package sandbox

import (
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// ChangeKind is one kind of extra access an escalation grants.
type ChangeKind string

const (
	// GrantWrite makes a path writable (and readable).
	GrantWrite ChangeKind = "write"
	// GrantRead makes a path readable.
	GrantRead ChangeKind = "read"
	// GrantNetwork turns the network on.
	GrantNetwork ChangeKind = "network"
	// Unprotect removes a protect entry: the approver must see that a path
	// the profile keeps read-only on purpose would become writable.
	Unprotect ChangeKind = "unprotect"
	// Unhide removes a hide entry, exposing a secret the profile hides.
	Unhide ChangeKind = "unhide"
	// GrantHost lets the network proxy through to one host (or address),
	// on every port: a rule for just that name, never a suffix.
	GrantHost ChangeKind = "host"
)

// Change is one extra access.
type Change struct {
	Kind ChangeKind `json:"kind"`
	Path string     `json:"path,omitempty"`
	// Host is the host of a GrantHost.
	Host string `json:"host,omitempty"`
}

// String describes c for a prompt: "write access to /home/u/.cache/pip".
// The text is also what the escalation's request id and session key bind,
// so it must name one change only: a path holding a quote, a backslash,
// ";" or an unprintable character is quoted, and no unquoted path can then
// pass for a list of changes.
func (c Change) String() string {
	p := displayPath(c.Path)
	switch c.Kind {
	case GrantWrite:
		return "write access to " + p
	case GrantRead:
		return "read access to " + p
	case GrantNetwork:
		return "network access"
	case Unprotect:
		return "write access to protected " + p
	case Unhide:
		return "read access to hidden " + p
	case GrantHost:
		// A host name holds no quote or blank (egress.NormalizeHost).
		return "connections to " + c.Host
	}
	return string(c.Kind) + " " + p
}

// displayPath is p, or p quoted when it could be misread.
func displayPath(p string) string {
	if strings.ContainsAny(p, "\";\\") || strings.ContainsFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(p)
	}
	return p
}

// Escalation is the narrowest extra access that would have avoided a set
// of denials, for one re-run of one command.
type Escalation struct {
	Changes []Change `json:"changes"`
}

// String describes e in one line for the approval prompt.
func (e *Escalation) String() string {
	s := make([]string, len(e.Changes))
	for i, c := range e.Changes {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}

// Plan returns the narrowest escalation that would fix denials under p, and
// false when there is none: the profile is already unrestricted, or every
// denial is of a kind no profile grants (syscalls stay filtered under every
// profile, Mach services and sysctls have no profile setting).
//
// Paths are planned with their symlinks resolved, as the backends will
// open them, so that the escalation names what it grants.
//
// For a path the target is the nearest existing directory that is or
// contains the denied path: backends can only grant paths that exist
// (Landlock opens them), and tools write siblings (temporary files renamed
// over the target, lock files) next to the file they report. A denied
// read of an existing file grants just that file. A protect or hide entry
// is never dropped quietly: it becomes its own Unprotect or Unhide change.
// When the only directory that would do is "/", the grant is of "/": the
// rest of the profile (protect, hide, network, gatedexec's own files)
// still holds, which dropping the sandbox would not.
func Plan(p *Profile, denials []Denial) (*Escalation, bool) {
	if p == nil || p.Unrestricted {
		return nil, false
	}
	var e Escalation
	add := func(c Change) {
		if !slices.Contains(e.Changes, c) {
			e.Changes = append(e.Changes, c)
		}
	}
	for _, d := range denials {
		switch d.Kind {
		case KindNetConnect, KindNetBind:
			if p.Network != NetworkOn && p.Network != NetworkProxy {
				add(Change{Kind: GrantNetwork})
			}
		case KindNet:
			if p.Network == NetworkProxy && d.Host != "" && d.Evidence == egress.WhyNoRule && !StandInHost(d.Host) {
				add(Change{Kind: GrantHost, Host: d.Host})
			}
		case KindFSRead, KindFSWrite:
			if d.Path == "" || !filepath.IsAbs(d.Path) {
				continue
			}
			// The backends open the paths they grant, following links:
			// plan (and so show the approver) the real path, or a link
			// such as /proc/self/cwd/x or one the command left in its
			// workspace would be shown as one path and grant another.
			path, err := RealPath(filepath.Clean(d.Path))
			if err != nil {
				continue
			}
			if d.Kind == KindFSWrite && Under(path, p.Control) {
				// A command that may write gatedexec's rules or
				// sessions approves itself from then on.
				continue
			}
			if Under(path, p.Hide) {
				// Hidden on purpose (and, when it does not exist on the
				// host, the nearest directory to grant is its parent,
				// HOME for ~/.ssh/x): reported, never escalated.
				continue
			}
			if d.Kind == KindFSWrite {
				if pr := coveringRoot(path, p.Protect); pr != "" {
					add(Change{Kind: Unprotect, Path: pr})
				}
				if !Under(path, p.Write) {
					add(Change{Kind: GrantWrite, Path: nearestDir(path)})
				}
			} else if !p.ReadAll && !Under(path, p.Read) && !Under(path, p.Write) {
				add(Change{Kind: GrantRead, Path: nearestExisting(path)})
			}
		}
	}
	e.Changes = dropCovered(e.Changes)
	if len(e.Changes) == 0 {
		return nil, false
	}
	return &e, true
}

// dropCovered removes write and read grants already implied by another
// grant in the list (a path below a granted directory).
func dropCovered(cs []Change) []Change {
	var out []Change
	for i, c := range cs {
		covered := false
		for j, o := range cs {
			if i == j || c.Path == "" || o.Path == c.Path {
				continue
			}
			if (o.Kind == GrantWrite && (c.Kind == GrantWrite || c.Kind == GrantRead) ||
				o.Kind == GrantRead && c.Kind == GrantRead) && Under(c.Path, []string{o.Path}) {
				covered = true
			}
		}
		if !covered {
			out = append(out, c)
		}
	}
	return out
}

// RealPath returns the absolute path with the symlinks of its longest
// existing prefix resolved and the rest, which may not exist yet, kept as
// written: the path a backend that opens it, following links, reaches.
// It fails when the links cannot be resolved (a loop, a dangling link, an
// unreadable directory).
func RealPath(path string) (string, error) {
	existing, rest := path, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", err
	}
	return filepath.Join(real, rest), nil
}

// nearestExisting returns path if it exists, else its nearest existing
// ancestor.
func nearestExisting(path string) string {
	for {
		if _, err := os.Lstat(path); err == nil {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

// nearestDir returns path if it is an existing directory, else the
// nearest existing directory above it.
func nearestDir(path string) string {
	for {
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			return path
		}
		parent := filepath.Dir(path)
		if parent == path {
			return path
		}
		path = parent
	}
}

// Apply returns a copy of p with e's extra access; p is not modified.
func (e *Escalation) Apply(p *Profile) *Profile {
	q := *p
	q.Read = slices.Clone(p.Read)
	q.Write = slices.Clone(p.Write)
	q.Protect = slices.Clone(p.Protect)
	q.Hide = slices.Clone(p.Hide)
	q.EnvDeny = slices.Clone(p.EnvDeny)
	q.Control = slices.Clone(p.Control)
	for _, c := range e.Changes {
		switch c.Kind {
		case GrantWrite:
			q.Write = appendNew(q.Write, c.Path)
		case GrantRead:
			q.Read = appendNew(q.Read, c.Path)
		case GrantNetwork:
			q.Network = NetworkOn
		case Unprotect:
			q.Protect = slices.DeleteFunc(q.Protect, func(s string) bool { return s == c.Path })
		case Unhide:
			q.Hide = slices.DeleteFunc(q.Hide, func(s string) bool { return s == c.Path })
		case GrantHost:
			q.Hosts.Rules = append(slices.Clip(q.Hosts.Rules), egress.Rule{Pattern: c.Host, Decision: egress.Allow, Source: "escalation"})
		}
	}
	// A granted directory may contain a control path.
	q.protectControl()
	return &q
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// StandInHost reports whether host is an address of the network proxy's
// own stand-in range: granting one would grant nothing real.
func StandInHost(host string) bool {
	a, err := netip.ParseAddr(host)
	return err == nil && egress.StandIns.Contains(a.Unmap())
}
