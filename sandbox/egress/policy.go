package egress

import (
	"fmt"
	"net/netip"
	"strings"
)

// Decision is what a host rule says about a connection.
type Decision int

// Decisions, in order of severity: the most severe matching rule wins,
// as for exec rules.
const (
	Allow Decision = iota
	Prompt
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Prompt:
		return "prompt"
	}
	return "deny"
}

// Rule is one host pattern: an exact name ("registry.npmjs.org") or a
// suffix ("*.githubusercontent.com", which matches names below it, not
// the name itself).
type Rule struct {
	Pattern  string
	Decision Decision
	// Source says where the rule came from (a profile key, a rules file
	// position, a preset), for the audit record.
	Source string
	// Private lets the connection go to the private, loopback or
	// link-local addresses the host resolves to (Refused): the rule names
	// this one host, so an answer pointing inside is what its author
	// means. A suffix or a preset never sets it: a name below a suffix is
	// whatever its owner makes it resolve to (DNS rebinding).
	Private bool
	// NarrowOnly makes the rule count only for a host another rule
	// matches: it can make an allowed host ask or be refused, never make
	// a refused one (a host no rule matches) askable. A prompt rule from
	// below a managed ceiling is one: the ceiling's hosts are the most a
	// run may reach.
	NarrowOnly bool
}

// Policy is the host rules of one run. A name no rule matches is denied.
type Policy struct {
	Rules []Rule
	// Pins send a host's connections to fixed addresses instead of what
	// DNS answers (profile key network.connect_to).
	Pins []Pin
}

// JudgeAddr returns the decision for a connection to an address the client
// gave itself: only a rule naming that address allows it.
func (p *Policy) JudgeAddr(a netip.Addr) (Decision, *Rule) {
	lit := a.Unmap().String()
	return p.judge(func(r *Rule) bool { return r.Pattern == lit })
}

// Judge returns the decision for host and the rule that made it (the most
// severe of those that match; nil when none does and the host is denied).
func (p *Policy) Judge(host string) (Decision, *Rule) {
	name, err := NormalizeHost(host)
	if err != nil {
		return Deny, nil
	}
	return p.judge(func(r *Rule) bool { return matches(r.Pattern, name) })
}

// judge returns the most severe of the rules match accepts, and Deny
// with no rule when none does or only NarrowOnly ones do.
func (p *Policy) judge(match func(*Rule) bool) (Decision, *Rule) {
	var best *Rule
	granted := false
	for i := range p.Rules {
		r := &p.Rules[i]
		if !match(r) {
			continue
		}
		granted = granted || !r.NarrowOnly
		if best == nil || r.Decision > best.Decision {
			best = r
		}
	}
	if best == nil || !granted {
		return Deny, nil
	}
	return best.Decision, best
}

func matches(pattern, name string) bool {
	if suffix, ok := strings.CutPrefix(pattern, "*."); ok {
		return strings.HasSuffix(name, "."+suffix)
	}
	return pattern == name
}

// NormalizeHost lower-cases a host name and strips one trailing dot, and
// refuses what is no DNS name: empty labels, labels over 63 bytes, names
// over 253, and bytes other than letters, digits, '-' and '_'. An IP
// address is no name either: a connection to one is judged by the address
// it names, never by a host rule.
func NormalizeHost(host string) (string, error) {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "" || len(h) > 253 {
		return "", fmt.Errorf("host %q: not a DNS name", host)
	}
	allDigits := true
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("host %q: not a DNS name", host)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			switch {
			case c >= 'a' && c <= 'z' || c == '-' || c == '_':
				allDigits = false
			case c >= '0' && c <= '9':
			default:
				return "", fmt.Errorf("host %q: not a DNS name", host)
			}
		}
	}
	if allDigits {
		return "", fmt.Errorf("host %q: an address, not a name", host)
	}
	return h, nil
}

// ParsePattern checks a host pattern of allow_hosts or deny_hosts and
// returns it normalized: a name, or "*." and a name of at least two
// labels (a pattern "*.com" would allow half the internet).
func ParsePattern(p string) (string, error) {
	if suffix, ok := strings.CutPrefix(p, "*."); ok {
		name, err := NormalizeHost(suffix)
		if err != nil {
			return "", fmt.Errorf("pattern %q: %w", p, err)
		}
		if !strings.Contains(name, ".") {
			return "", fmt.Errorf("pattern %q: a suffix needs at least two labels", p)
		}
		return "*." + name, nil
	}
	if strings.ContainsAny(p, "*?[]/:@ ") {
		return "", fmt.Errorf("pattern %q: want a host name or *.suffix", p)
	}
	name, err := NormalizeHost(p)
	if err != nil {
		return "", fmt.Errorf("pattern %q: %w", p, err)
	}
	return name, nil
}
