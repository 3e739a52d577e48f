package gate

import (
	"strconv"

	"github.com/gatedexec/gatedexec/sandbox"
)

// ProfileView is the JSON form of a resolved profile (`profiles show`).
type ProfileView struct {
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Enforcement  string   `json:"enforcement"`
	Unrestricted bool     `json:"unrestricted"`
	ReadAll      bool     `json:"read_all"`
	Read         []string `json:"read"`
	Write        []string `json:"write"`
	Protect      []string `json:"protect"`
	// Watch are the paths the run's scan reports made or changed besides
	// the git control files (sandbox.Profile.Watch).
	Watch      []string `json:"watch"`
	Hide       []string `json:"hide"`
	PrivateTmp []string `json:"private_tmp"`
	Network    string   `json:"network"`
	Sockets    []string `json:"unix_sockets_reachable"`
	// Hosts are the host rules of network mode "proxy", presets expanded;
	// ConnectTo its pins.
	Hosts        []HostView `json:"hosts,omitempty"`
	ConnectTo    []string   `json:"connect_to,omitempty"`
	UnixSockets  string     `json:"unix_sockets"`
	EnvDeny      []string   `json:"env_deny"`
	Setsid       bool       `json:"setsid"`
	PIDNamespace bool       `json:"pid_namespace"`
	Limits       struct {
		NoFile  uint64 `json:"nofile,omitempty"`
		NProc   uint64 `json:"nproc,omitempty"`
		FSize   uint64 `json:"fsize,omitempty"`
		CPU     uint64 `json:"cpu,omitempty"`
		AS      uint64 `json:"as,omitempty"`
		Memory  string `json:"memory,omitempty"`
		Timeout string `json:"timeout,omitempty"`
	} `json:"limits"`
	Workspace string `json:"workspace"`
	Cwd       string `json:"cwd"`
	// Layers are what the sandbox would apply on this host; Missing the
	// layers the profile needs that the host lacks.
	Layers  []string `json:"layers"`
	Missing []string `json:"missing"`
	// Rlimits are Limits' rlimits by name, in the schema's order, for
	// a text view.
	Rlimits []sandbox.Rlimit `json:"-"`
}

// HostView is one host rule of a profile.
type HostView struct {
	Pattern  string `json:"pattern"`
	Decision string `json:"decision"`
	Source   string `json:"source"`
}

// ViewProfile describes p as resolved at pl, with the layers this host
// would apply.
func ViewProfile(p *sandbox.Profile, pl Place) ProfileView {
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	v := ProfileView{
		Name: p.Name, Description: p.Description, Enforcement: string(p.Enforcement),
		Unrestricted: p.Unrestricted, ReadAll: p.ReadAll,
		Read: nonNil(p.Read), Write: nonNil(p.Write), Protect: nonNil(p.Protect), Watch: nonNil(p.Watch), Hide: nonNil(p.Hide),
		PrivateTmp: nonNil(p.PrivateTmp), Sockets: nonNil(p.Sockets),
		Network: string(p.Network), UnixSockets: "deny", EnvDeny: nonNil(p.EnvDeny), Setsid: !p.NoSetsid,
		PIDNamespace: p.IsolatesPIDs(), Workspace: pl.Workspace, Cwd: pl.Cwd,
	}
	if p.UnixSockets {
		v.UnixSockets = "allow"
	}
	for _, r := range p.Hosts.Rules {
		v.Hosts = append(v.Hosts, HostView{Pattern: r.Pattern, Decision: r.Decision.String(), Source: r.Source})
	}
	for _, pin := range p.Hosts.Pins {
		v.ConnectTo = append(v.ConnectTo, pin.String())
	}
	layers, missing := HostLayers(p)
	v.Layers, v.Missing = nonNil(layers), nonNil(missing)
	l := p.Limits
	v.Rlimits = l.Rlimits()
	v.Limits.NoFile, v.Limits.NProc, v.Limits.FSize, v.Limits.CPU, v.Limits.AS = l.NoFile, l.NProc, l.FSize, l.CPU, l.AS
	switch {
	case l.MemoryPercent > 0:
		v.Limits.Memory = strconv.Itoa(l.MemoryPercent) + "%"
	case l.Memory > 0:
		v.Limits.Memory = strconv.FormatUint(l.Memory, 10)
	}
	if l.Timeout > 0 {
		v.Limits.Timeout = l.Timeout.String()
	}
	return v
}

// Unenforceable lists the layers p needs that this host's sandbox cannot
// apply.
func Unenforceable(p *sandbox.Profile) []string {
	_, missing := HostLayers(p)
	var out []string
	for _, m := range missing {
		msg := "needs " + m
		if p.Enforcement == sandbox.Strict {
			msg += " (strict: the command would not run)"
		}
		out = append(out, msg)
	}
	return out
}
