// Package darwin is the macOS backend: it turns a resolved sandbox.Profile
// into a Seatbelt (SBPL) policy for /usr/bin/sandbox-exec and runs commands
// under it.
//
// The generator is plain Go and builds on every OS so that its output can
// be tested anywhere; only the runner is darwin-specific. Paths never
// appear in the policy text: each one is a (param "KEY") whose value is
// passed as a -DKEY=VALUE argument, so no path can inject SBPL.
package darwin

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatedexec/gatedexec/sandbox"
)

// Param is one -D parameter of a policy.
type Param struct {
	Key, Value string
}

// Policy is a generated SBPL profile and the parameters it refers to.
type Policy struct {
	Text   string
	Params []Param
}

// Args returns the -DKEY=VALUE arguments for sandbox-exec, in order.
func (p *Policy) Args() []string {
	args := make([]string, len(p.Params))
	for i, kv := range p.Params {
		args[i] = "-D" + kv.Key + "=" + kv.Value
	}
	return args
}

// Generate builds the policy for p, canonicalising its paths on this host.
func Generate(p *sandbox.Profile) (*Policy, error) {
	return GenerateWith(p, HostResolver)
}

// GenerateWith builds the policy for p, canonicalising paths with resolve.
// Output is deterministic: path lists are deduplicated and sorted.
// An error means no policy; the command must not run.
func GenerateWith(p *sandbox.Profile, resolve Resolver) (*Policy, error) {
	return generate(p, resolve, 0)
}

// GenerateProxied builds the policy for p in network mode "proxy": the
// command may connect to the proxy's endpoint on localhost:port and to
// nothing else (DESIGN §9), and the proxy, outside, decides per host.
func GenerateProxied(p *sandbox.Profile, port uint16, resolve Resolver) (*Policy, error) {
	if port == 0 {
		return nil, fmt.Errorf("sbpl: network mode proxy needs the proxy's port")
	}
	return generate(p, resolve, port)
}

func generate(p *sandbox.Profile, resolve Resolver, proxyPort uint16) (*Policy, error) {
	if p == nil {
		return nil, fmt.Errorf("sbpl: nil profile")
	}
	g := &gen{resolve: resolve}
	if p.Unrestricted {
		g.line("(version 1)")
		g.line("(allow default)")
		return &Policy{Text: g.b.String()}, nil
	}
	read, err := g.paths("read", p.Read)
	if err != nil {
		return nil, err
	}
	write, err := g.paths("write", p.Write)
	if err != nil {
		return nil, err
	}
	protect, err := g.paths("protect", p.Protect)
	if err != nil {
		return nil, err
	}
	hide, err := g.paths("hide", p.Hide)
	if err != nil {
		return nil, err
	}

	g.line("(version 1)")
	g.line("(deny default)")
	g.text(baseRules)

	readK := g.keys("READ", read)
	writeK := g.keys("WRITE", write)
	protectK := g.keys("PROTECT", protect)
	hideK := g.keys("HIDE", hide)
	keepK := g.keys("KEEP", ancestors(append(slices.Clone(protect), hide...), write))

	// Protect and hide paths are carved out twice: by require-not inside
	// the allows, and by deny rules after them (for file operations the
	// last matching rule wins), so neither mechanism alone is trusted.
	notHide := nots(hideK)
	g.line("")
	if p.ReadAll {
		g.line("; reads: the whole filesystem except hide paths")
		g.allow("file-read*", nil, notHide)
	} else {
		// stat(2) of any path stays allowed, as under Landlock, so that
		// realpath and shells' PATH searches work; contents need a grant.
		g.line("; reads: metadata everywhere, contents only under read and write paths")
		g.line("(allow file-read-metadata)")
		g.allow("file-read*", append(slices.Clone(readK), writeK...), notHide)
	}
	if len(writeK) > 0 {
		g.line("; writes: the write paths except protect and hide paths")
		g.allow("file-write*", writeK, append(nots(protectK), notHide...))
	}
	g.rule("; protect: read-only inside the writable tree, even before it exists\n(deny file-write* file-link", protectK, "subpath")
	g.rule("; hide: neither readable nor writable\n(deny file-read* file-write* file-link", hideK, "subpath")
	g.rule("; ancestors of protect and hide paths inside the writable tree cannot be\n; renamed or removed, so a protected path cannot be moved away and recreated\n(deny file-write-unlink", keepK, "literal")

	g.line("")
	switch p.Network {
	case sandbox.NetworkOn:
		g.line("; network: on")
		g.line("(allow network*)")
	case sandbox.NetworkIsolated:
		g.line("; network: loopback only")
		g.line(`(allow network-bind network-inbound (local ip "localhost:*"))`)
		g.line(`(allow network-outbound (remote ip "localhost:*"))`)
	case sandbox.NetworkProxy:
		if proxyPort == 0 {
			return nil, fmt.Errorf("sbpl: network mode proxy needs the proxy's port (GenerateProxied)")
		}
		g.line("; network: only gatedexec's proxy endpoint, which judges every host")
		g.line(fmt.Sprintf(`(allow network-outbound (remote ip "localhost:%d"))`, proxyPort))
	case sandbox.NetworkOff, "":
		g.line("; network: off")
	default:
		return nil, fmt.Errorf("sbpl: unknown network mode %q", p.Network)
	}
	if p.UnixSockets && p.Network != sandbox.NetworkOn {
		g.line("(allow system-socket (socket-domain AF_UNIX))")
		g.line("(allow network-bind (local unix-socket))")
		g.line("(allow network-outbound (remote unix-socket))")
	}
	return &Policy{Text: g.b.String(), Params: g.params}, nil
}

type gen struct {
	resolve Resolver
	b       strings.Builder
	params  []Param
}

func (g *gen) line(s string) { g.b.WriteString(s); g.b.WriteByte('\n') }
func (g *gen) text(s string) { g.b.WriteString(s) }

// paths canonicalises, deduplicates and sorts one path list.
func (g *gen) paths(what string, in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, p := range in {
		c, err := g.resolve(p)
		if err != nil {
			return nil, fmt.Errorf("sbpl: %s path: %w", what, err)
		}
		if c, err = Lexical(c); err != nil {
			return nil, fmt.Errorf("sbpl: %s path: %w", what, err)
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// keys registers one parameter per path and returns their keys.
func (g *gen) keys(prefix string, paths []string) []string {
	keys := make([]string, len(paths))
	for i, p := range paths {
		keys[i] = fmt.Sprintf("%s_%d", prefix, i)
		g.params = append(g.params, Param{Key: keys[i], Value: p})
	}
	return keys
}

// rule writes head followed by one (filter (param KEY)) per key and the
// closing parenthesis; nothing when there are no keys.
func (g *gen) rule(head string, keys []string, filter string) {
	if len(keys) == 0 {
		return
	}
	g.line(head)
	for _, k := range keys {
		fmt.Fprintf(&g.b, "  (%s (param %q))\n", filter, k)
	}
	g.line(")")
}

// allow writes (allow op ...) for paths under any of the keys (everything
// when keys is nil) that match none of the exclusions. With keys empty but
// non-nil nothing is allowed and nothing is written.
func (g *gen) allow(op string, keys []string, excl []string) {
	if keys != nil && len(keys) == 0 {
		return
	}
	if keys == nil && len(excl) == 0 {
		g.line("(allow " + op + ")")
		return
	}
	g.line("(allow " + op)
	g.line("  (require-all")
	if keys != nil {
		g.line("    (require-any")
		for _, k := range keys {
			fmt.Fprintf(&g.b, "      (subpath (param %q))\n", k)
		}
		g.line("    )")
	}
	for _, e := range excl {
		g.line("    " + e)
	}
	g.line("  )")
	g.line(")")
}

// nots returns a (require-not (subpath (param KEY))) filter per key.
func nots(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("(require-not (subpath (param %q)))", k)
	}
	return out
}

// ancestors returns every proper ancestor of the targets that lies inside
// (or is) a writable path, sorted and deduplicated.
func ancestors(targets, writable []string) []string {
	var out []string
	for _, t := range targets {
		for a := filepath.Dir(t); a != "/" && a != "."; a = filepath.Dir(a) {
			if within(a, writable) {
				out = append(out, a)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func within(p string, roots []string) bool {
	for _, r := range roots {
		if p == r || r == "/" || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}
