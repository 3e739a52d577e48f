package execpolicy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"path"
	"slices"
	"strings"
)

// PrefixRule is one program's prefix rule. A rules-file prefix_rule whose
// first pattern element lists alternatives becomes one PrefixRule per
// alternative program.
type PrefixRule struct {
	// Program is the first token the command must have.
	Program string
	// Rest holds, for each further position, the alternatives accepted there.
	Rest          [][]string
	Decision      Decision
	Justification string
	// Profile is the gatedexec profile= extension, empty when unset.
	Profile string
	// Source is where the rule was defined ("file.rules:3:1").
	Source string
}

// String renders r's pattern as a rules reader would write it, with
// alternatives as [a|b].
func (r *PrefixRule) String() string {
	parts := []string{r.Program}
	for _, alts := range r.Rest {
		if len(alts) == 1 {
			parts = append(parts, alts[0])
		} else {
			parts = append(parts, "["+strings.Join(alts, "|")+"]")
		}
	}
	return strings.Join(parts, " ")
}

// matches reports whether argv (whose first token has already been compared)
// covers every further position of r.
func (r *PrefixRule) matches(argv []string) bool {
	if len(argv) < 1+len(r.Rest) {
		return false
	}
	for i, alts := range r.Rest {
		if !slices.Contains(alts, argv[1+i]) {
			return false
		}
	}
	return true
}

// Policy is a loaded set of rules. Build it with the loader (LoadFiles,
// Load) or, in tests, with AddPrefixRule; it is read-only once built and
// safe for concurrent use.
type Policy struct {
	// byProgram indexes prefix rules by their first token, each bucket in
	// load order, so that matching costs one map lookup plus the rules of
	// that one program.
	byProgram map[string]*bucket
	nrules    int
	// hostExecutables maps a basename to the absolute paths declared for it
	// with host_executable. A present key with no paths means "never".
	hostExecutables map[string][]string
	network         []NetworkRule
	sources         []source
	// nexamples counts the match/not_match examples verified at load.
	nexamples int
	// scratch is shared by the copies of a Policy, as its rules are.
	scratch *scratchPool
}

// source is one loaded file, kept for Digest: its name and the SHA-256
// of its contents.
type source struct {
	name string
	sum  [sha256.Size]byte
}

// sourcesOf returns the sources of files whose contents have the
// SHA-256s sums.
func sourcesOf(files []string, sums [][sha256.Size]byte) []source {
	s := make([]source, len(files))
	for i, name := range files {
		s[i] = source{name: name, sum: sums[i]}
	}
	return s
}

// NetworkRule is a validated network_rule, kept for the network layer.
type NetworkRule struct {
	Host          string
	Protocol      string
	Decision      Decision
	Justification string
	Source        string
	// NarrowOnly marks a rule that may only narrow the hosts others
	// allow (see WithoutNetworkAllows): it never makes a host no other
	// rule names reachable, even by asking.
	NarrowOnly bool
}

// ApprovedJustification is the justification of the network_rule an
// "always" answer writes (FormatNetworkRule). The approver was shown a
// name, not where it resolves: a name its owner points at a private or
// metadata address later (DNS rebinding) must not reach it through that
// answer, so such a rule allows the host's public addresses only.
const ApprovedJustification = "approved at a prompt: public addresses only"

// PublicOnly reports whether r allows only the public addresses its host
// resolves to, not the private, loopback or link-local ones an exact rule
// otherwise may reach: a rule an approval wrote (ApprovedJustification).
func (r NetworkRule) PublicOnly() bool { return r.Justification == ApprovedJustification }

// NewPolicy returns an empty policy.
func NewPolicy() *Policy {
	return &Policy{byProgram: map[string]*bucket{}, hostExecutables: map[string][]string{}, scratch: &scratchPool{}}
}

// AddPrefixRule appends r to p, after every rule already in p.
func (p *Policy) AddPrefixRule(r PrefixRule) {
	p.add(&r)
}

// add appends r to its program's bucket.
func (p *Policy) add(r *PrefixRule) {
	p.bucket(r.Program).add(r)
	p.nrules++
}

// bucket returns prog's bucket, made empty when p has none.
func (p *Policy) bucket(prog string) *bucket {
	b := p.byProgram[prog]
	if b == nil {
		b = &bucket{}
		p.byProgram[prog] = b
	}
	return b
}

// AddHostExecutable records that name may be resolved to any of paths.
// Repeated declarations for one name accumulate.
func (p *Policy) AddHostExecutable(name string, paths []string) {
	p.hostExecutables[name] = appendNew(p.hostExecutables[name], paths...)
}

// Merge appends the rules, host executables, network rules and sources of
// other after those of p, as if other's files had been loaded after p's.
// Host-executable paths accumulate: a later layer can add paths for a name
// but cannot withdraw the ones an earlier layer declared.
func (p *Policy) Merge(other *Policy) {
	for prog, b := range other.byProgram {
		p.bucket(prog).appendAll(b)
	}
	p.nrules += other.nrules
	for name, paths := range other.hostExecutables {
		p.AddHostExecutable(name, paths)
	}
	p.network = append(p.network, other.network...)
	p.sources = append(p.sources, other.sources...)
	p.nexamples += other.nexamples
}

// empty reports whether p holds nothing at all, not even a source.
func (p *Policy) empty() bool {
	return len(p.byProgram) == 0 && len(p.hostExecutables) == 0 && len(p.network) == 0 && len(p.sources) == 0 && p.nexamples == 0
}

// Digest returns the hex SHA-256 of the names and contents of the files p
// was loaded from, in load order (of each content its SHA-256, which the
// loader has already computed). Approval request ids include it, so an
// approval given under one set of rules is not valid under another.
func (p *Policy) Digest() string {
	h := sha256.New()
	var n [8]byte
	// Length prefixes keep ("ab","c") and ("a","bc") apart.
	field := func(b []byte) {
		binary.BigEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, s := range p.sources {
		field([]byte(s.name))
		field(s.sum[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Examples returns the number of match and not_match examples that were
// verified when p was loaded.
func (p *Policy) Examples() int { return p.nexamples }

// Len returns the number of prefix rules in p.
func (p *Policy) Len() int { return p.nrules }

// NetworkRules returns the network rules of p in load order.
func (p *Policy) NetworkRules() []NetworkRule { return p.network }

// MatchOptions tunes MatchArgv.
type MatchOptions struct {
	// ResolveHostExecutables enables the basename fallback for absolute
	// program paths (DESIGN §3 "Host executables").
	ResolveHostExecutables bool
}

// MatchArgv returns every prefix rule matching argv, in load order, exactly
// as Codex's execpolicy would: the argv is taken as literal tokens.
func (p *Policy) MatchArgv(argv []string, opts MatchOptions) []RuleMatch {
	if len(argv) == 0 {
		return nil
	}
	if m := p.matchProgram(argv[0], argv, ""); len(m) > 0 || !opts.ResolveHostExecutables {
		return m
	}
	prog := argv[0]
	if !path.IsAbs(prog) {
		return nil
	}
	base := path.Base(prog)
	if declared, ok := p.hostExecutables[base]; ok && !slices.Contains(declared, path.Clean(prog)) && !slices.Contains(declared, prog) {
		return nil
	}
	return p.matchProgram(base, argv, prog)
}

// matchProgram matches the rules filed under program against argv. When
// resolved is set the match is a host-executable fallback: the reported
// prefix starts with program (the basename) and carries resolved.
func (p *Policy) matchProgram(program string, argv []string, resolved string) []RuleMatch {
	b := p.byProgram[program]
	if b == nil {
		return nil
	}
	var out []RuleMatch
	for _, r := range b.matching(argv) {
		prefix := make([]string, 1+len(r.Rest))
		prefix[0] = program
		copy(prefix[1:], argv[1:1+len(r.Rest)])
		out = append(out, RuleMatch{
			MatchedPrefix:   prefix,
			Decision:        r.Decision,
			Justification:   r.Justification,
			ResolvedProgram: resolved,
			Profile:         r.Profile,
			Source:          r.Source,
		})
	}
	return out
}

// Strictest returns the most severe decision among ms, or 0 when ms is empty.
func Strictest(ms []RuleMatch) Decision {
	var d Decision
	for _, m := range ms {
		d = Max(d, m.Decision)
	}
	return d
}
