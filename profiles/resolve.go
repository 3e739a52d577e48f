package profiles

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gatedexec/gatedexec/internal/tomlkeys"
	"github.com/gatedexec/gatedexec/sandbox"
)

// over returns child with every key it leaves unset taken from parent.
// Lists are replaced whole, never merged.
func over(parent, child *File) *File {
	m := *child
	inherit(&m.Description, parent.Description)
	inherit(&m.Enforcement, parent.Enforcement)
	inherit(&m.Filesystem.Read, parent.Filesystem.Read)
	inherit(&m.Filesystem.Write, parent.Filesystem.Write)
	inherit(&m.Filesystem.Protect, parent.Filesystem.Protect)
	inherit(&m.Filesystem.Hide, parent.Filesystem.Hide)
	inherit(&m.Filesystem.PrivateTmp, parent.Filesystem.PrivateTmp)
	inherit(&m.Network.Mode, parent.Network.Mode)
	inherit(&m.Network.UnixSockets, parent.Network.UnixSockets)
	inherit(&m.Network.AllowHosts, parent.Network.AllowHosts)
	inherit(&m.Network.DenyHosts, parent.Network.DenyHosts)
	inherit(&m.Network.ConnectTo, parent.Network.ConnectTo)
	inherit(&m.Process.EnvDeny, parent.Process.EnvDeny)
	inherit(&m.Process.Setsid, parent.Process.Setsid)
	inherit(&m.Process.PIDNamespace, parent.Process.PIDNamespace)
	inherit(&m.Process.Pty, parent.Process.Pty)
	l, pl := &m.Limits, &parent.Limits
	inherit(&l.NoFile, pl.NoFile)
	inherit(&l.NProc, pl.NProc)
	inherit(&l.FSize, pl.FSize)
	inherit(&l.CPU, pl.CPU)
	inherit(&l.AS, pl.AS)
	inherit(&l.Memory, pl.Memory)
	inherit(&l.Timeout, pl.Timeout)
	return &m
}

// inherit sets an unset key to the parent's value.
func inherit[T any](key **T, parent *T) {
	if *key == nil {
		*key = parent
	}
}

// source remembers which file set a key after merging, so that an error in
// an inherited value names the file and line it came from.
type source map[string]*File

func (s source) note(f *File) {
	set := func(key string, isSet bool) {
		if isSet {
			s[key] = f
		}
	}
	set("enforcement", f.Enforcement != nil)
	set("filesystem.read", f.Filesystem.Read != nil)
	set("filesystem.write", f.Filesystem.Write != nil)
	set("filesystem.protect", f.Filesystem.Protect != nil)
	set("filesystem.hide", f.Filesystem.Hide != nil)
	set("network.mode", f.Network.Mode != nil)
	set("network.unix_sockets", f.Network.UnixSockets != nil)
	set("network.allow_hosts", f.Network.AllowHosts != nil)
	set("network.deny_hosts", f.Network.DenyHosts != nil)
	set("network.connect_to", f.Network.ConnectTo != nil)
	set("process.env_deny", f.Process.EnvDeny != nil)
}

// elemErrorf is errorf for one element of the list at key: the line is
// the element's own where the list spans several.
func (s source) elemErrorf(key, elem, format string, args ...any) error {
	f := s[key]
	if f == nil {
		return s.errorf(key, format, args...)
	}
	p, ok := f.keys().Elem(strings.Split(key, "."), elem)
	if !ok {
		p = tomlkeys.Pos{Line: 1}
	}
	return errorAt(f.Name, p, "%s: "+format, append([]any{key}, args...)...)
}

func (s source) errorf(key, format string, args ...any) error {
	f := s[key]
	if f == nil {
		return fmt.Errorf("%s: "+format, append([]any{key}, args...)...)
	}
	return errorAt(f.Name, f.Pos(key), "%s: "+format, append([]any{key}, args...)...)
}

// build turns a merged file into a resolved profile. Unset keys take the
// fail-closed defaults: strict enforcement, nothing readable or writable,
// network off; unix sockets allowed and a new session, as in the built-ins.
func build(name string, m *File, src source, v *Vars) (*sandbox.Profile, error) {
	p := &sandbox.Profile{
		Name:        name,
		Enforcement: sandbox.Strict,
		Network:     sandbox.NetworkOff,
		UnixSockets: true,
	}
	if m.Description != nil {
		p.Description = *m.Description
	}
	if e := m.Enforcement; e != nil {
		switch sandbox.Enforcement(*e) {
		case sandbox.Strict, sandbox.BestEffort:
			p.Enforcement = sandbox.Enforcement(*e)
		default:
			return nil, src.errorf("enforcement", "want \"strict\" or \"best-effort\", got %q", *e)
		}
	}
	var writeAll bool
	var err error
	real := realPaths{}
	fs := &m.Filesystem
	if fs.Read != nil {
		if p.Read, p.ReadAll, err = v.expandList(*fs.Read, true, real); err != nil {
			return nil, src.errorf("filesystem.read", "%v", err)
		}
	}
	if fs.Write != nil {
		if p.Write, writeAll, err = v.expandList(*fs.Write, true, real); err != nil {
			return nil, src.errorf("filesystem.write", "%v", err)
		}
		// A tool makes its cache on first use: made for it, or the
		// first build under the profile could not write it.
		for _, e := range *fs.Write {
			if strings.HasPrefix(e, ":cache:") {
				dirs, _ := v.expand(e, real)
				p.MakeDirs = append(p.MakeDirs, dirs...)
			}
		}
	}
	if fs.Protect != nil {
		if p.Protect, p.Watch, err = v.expandProtect(*fs.Protect, real); err != nil {
			return nil, src.errorf("filesystem.protect", "%v", err)
		}
	}
	if fs.Hide != nil {
		if p.Hide, _, err = v.expandList(*fs.Hide, false, real); err != nil {
			return nil, src.errorf("filesystem.hide", "%v", err)
		}
	}
	if writeAll {
		// Writable implies readable, and "/" is what a backend needs to
		// grant the whole tree.
		p.ReadAll = true
		p.Write = []string{"/"}
	}
	if n := m.Network.Mode; n != nil {
		switch sandbox.NetworkMode(*n) {
		case sandbox.NetworkOff, sandbox.NetworkOn, sandbox.NetworkIsolated, sandbox.NetworkProxy:
			p.Network = sandbox.NetworkMode(*n)
		default:
			return nil, src.errorf("network.mode", "want \"off\", \"on\", \"isolated\" or \"proxy\", got %q", *n)
		}
	}
	if p.Hosts, err = hostPolicy(m, src); err != nil {
		return nil, err
	}
	if p.Network != sandbox.NetworkProxy && (len(p.Hosts.Rules) > 0 || len(p.Hosts.Pins) > 0) {
		// Hosts that nothing judges would read as a policy in force.
		key := "network.allow_hosts"
		for _, k := range []string{"network.allow_hosts", "network.deny_hosts", "network.connect_to"} {
			if src[k] != nil {
				key = k
				break
			}
		}
		return nil, src.errorf(key, "hosts apply only with network.mode = \"proxy\" (mode is %q)", p.Network)
	}
	var sshAgent bool
	if u := m.Network.UnixSockets; u != nil {
		switch u.mode {
		case "allow":
			p.UnixSockets = true
		case "deny":
			p.UnixSockets = false
		case "list":
			p.UnixSockets = true
			if p.Sockets, sshAgent, err = v.expandSockets(u.list, real); err != nil {
				return nil, src.errorf("network.unix_sockets", "%v", err)
			}
		default:
			return nil, src.errorf("network.unix_sockets", "want \"allow\", \"deny\" or a list of sockets, got %q", u.mode)
		}
	}
	if e := m.Process.EnvDeny; e != nil {
		for _, pat := range *e {
			if err := checkEnvPattern(pat); err != nil {
				return nil, src.errorf("process.env_deny", "%v", err)
			}
		}
		p.EnvDeny = slices.Clone(*e)
	}
	if sshAgent {
		// The agent is reachable on purpose: so is its address.
		p.EnvDeny = slices.DeleteFunc(p.EnvDeny, func(s string) bool { return s == "SSH_AUTH_SOCK" })
	}
	if s := m.Process.Setsid; s != nil {
		p.NoSetsid = !*s
	}
	if s := m.Process.PIDNamespace; s != nil {
		p.SharePIDs = !*s
	}
	if s := m.Process.Pty; s != nil {
		p.NoPty = !*s
	}
	l := &m.Limits
	for _, f := range []struct {
		in  *count
		out *uint64
	}{{l.NoFile, &p.Limits.NoFile}, {l.NProc, &p.Limits.NProc}, {l.CPU, &p.Limits.CPU}} {
		if f.in != nil {
			*f.out = uint64(*f.in)
		}
	}
	if l.FSize != nil {
		p.Limits.FSize = uint64(*l.FSize)
	}
	if m := l.Memory; m != nil {
		p.Limits.Memory, p.Limits.MemoryPercent = m.bytes, m.percent
	}
	if l.AS != nil {
		p.Limits.AS = uint64(*l.AS)
	}
	if l.Timeout != nil {
		p.Limits.Timeout = time.Duration(*l.Timeout)
	}
	p.Unrestricted = p.ReadAll && writeAll && p.Network == sandbox.NetworkOn &&
		p.UnixSockets && len(p.Protect) == 0 && len(p.Hide) == 0
	if !p.Unrestricted && (m.Filesystem.PrivateTmp == nil || *m.Filesystem.PrivateTmp) {
		p.PrivateTmp, err = v.privateTmp(real)
		if err != nil {
			return nil, src.errorf("filesystem.private_tmp", "%v", err)
		}
	}
	if filepath.IsAbs(v.Workspace) {
		if p.Workspace, err = real.resolve(v.Workspace); err != nil {
			return nil, fmt.Errorf("workspace %s: %w", v.Workspace, err)
		}
	}
	return p, nil
}

// checkEnvPattern accepts a variable name in which * may stand for any run
// of characters; anything else would never match and hide a typo.
func checkEnvPattern(pat string) error {
	if pat == "" {
		return fmt.Errorf("empty pattern")
	}
	if pat == sandbox.EnvCredentialURLs {
		return nil
	}
	for _, c := range pat {
		if !(c == '*' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return fmt.Errorf("bad pattern %q: want a variable name with * wildcards, or %q", pat, sandbox.EnvCredentialURLs)
		}
	}
	return nil
}
