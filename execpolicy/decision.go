// Package execpolicy holds gatedexec's exec policy: the Codex-compatible
// Starlark rules language, prefix matching, shell-script analysis, the
// wrappers seen through, the dangerous-command floor and rule amendment.
//
// It knows nothing of sandboxes: it turns a command into a Decision with
// the rules and reasons behind it.
package execpolicy

import "fmt"

// Decision is the verdict of the rules on a command. The zero value is not a
// valid decision so that a forgotten assignment never reads as "allow".
// Decisions are ordered by severity: Allow < Prompt < Forbidden.
type Decision int

// The decisions, in increasing severity.
const (
	Allow Decision = iota + 1
	Prompt
	Forbidden
)

// String returns the rules-language spelling of d.
func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Prompt:
		return "prompt"
	case Forbidden:
		return "forbidden"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// ParseDecision parses the rules-language spelling of a decision.
func ParseDecision(s string) (Decision, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "prompt":
		return Prompt, nil
	case "forbidden":
		return Forbidden, nil
	}
	return 0, fmt.Errorf("invalid decision: %s", s)
}

// MarshalText implements encoding.TextMarshaler.
func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Max returns the more severe of a and b. A zero Decision counts as less
// severe than any valid one.
func Max(a, b Decision) Decision {
	if a > b {
		return a
	}
	return b
}
