package auditlog

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gatedexec/gatedexec/execpolicy"
)

// Suggester turns recorded prompts and denials into the narrowest rule
// and profile changes that would have allowed them, printed as .rules and
// TOML text for a person to review (WriteText); it changes nothing.
type Suggester struct {
	// Profile, when set, returns the resolved write and read lists of a
	// profile, so that a suggested profile can write its whole lists
	// (profiles do not merge lists); nil or false: the additions alone
	// are listed.
	Profile func(name string) (write, read []string, ok bool)
	// Place says where each suggestion must go to take effect under the
	// configuration reading the log: a managed ceiling ignores allow rules,
	// network_rules and profiles of the lower layers, so a suggestion
	// that does not say where it counts misleads.
	Place Placement

	allow    *topK // execpolicy prefixes, as quoted words
	byRule   *topK // prompt rules an allow rule cannot lower
	other    *topK // other prompts an allow rule cannot lower: "kind: detail"
	denied   *topK // profile \x00 kind \x00 target
	examples map[string]string
	// empty is the policy suggestions are proposed against: the prefix
	// an "always" answer would write (execpolicy.ProposedPrefix), which
	// never offers a bare wrapper or interpreter, or a dynamic command.
	// Made by NewSuggester, not at start-up, which every gatedexec
	// command would pay.
	empty *execpolicy.Policy
}

// Placement says where suggestions must be written to take effect, each
// with why only there when a managed key decides it. A zero field says
// nothing of where (a log read without its configuration).
type Placement struct {
	// Rules is where an allow prefix_rule counts.
	Rules string
	// Network is where an allow network_rule counts.
	Network string
	// Profiles is the directory a new profile must go in.
	Profiles string
	// ProfileRefused, when set, says why the managed ceiling refuses a
	// profile of that name, naming its key and file:line, and what would
	// change that; "" when it allows it.
	ProfileRefused func(name string) string
}

// NewSuggester returns an empty Suggester.
func NewSuggester() *Suggester {
	return &Suggester{allow: newTopK(trackedKeys), byRule: newTopK(trackedKeys), other: newTopK(trackedKeys), denied: newTopK(trackedKeys), examples: map[string]string{},
		empty: execpolicy.NewPolicy()}
}

// Add takes the prompts and denials of the record at e.
func (s *Suggester) Add(e *Entry) {
	r := &e.Record
	where := fmt.Sprintf("%s:%d", e.File, e.Line)
	if r.AfterRun {
		for _, d := range r.Denials {
			if d.Target() == "" && d.Kind != "net-connect" && d.Kind != "net-bind" {
				continue
			}
			s.note(s.denied, r.Profile+"\x00"+d.Kind+"\x00"+d.Target(), where)
		}
		return
	}
	if r.Decision != "prompt" || len(r.Argv) == 0 {
		return
	}
	for _, m := range r.Rules {
		if m.Decision == "prompt" || m.Decision == "forbidden" {
			s.note(s.byRule, m.Decision+" rule "+strings.Join(m.MatchedPrefix, " ")+sourceOf(m), where)
			return
		}
	}
	if why := notUnmatched(r.Reasons); why != "" {
		s.note(s.other, why, where)
		return
	}
	// Judged as it was recorded: on an agent's terminal more is unanalysable.
	ev := s.empty.Evaluate(r.Argv, execpolicy.EvalOptions{Shell: r.Shell, AgentTerminal: r.AgentTerminal})
	if len(r.Reasons) == 0 {
		// A log of an earlier version records none: the reasons of the
		// empty policy stand in for those that do not depend on rules
		// (unanalysable, dangerous); a prompt rule matching a command
		// inside a script is not seen there.
		if why := notUnmatched(ev.Reasons); why != "" {
			s.note(s.other, why, where)
			return
		}
	}
	prefix, ok := execpolicy.ProposedPrefix(ev)
	if !ok {
		return
	}
	s.note(s.allow, quoteWords(prefix), where)
}

// notUnmatched returns "kind: detail" of the first of a prompt's reasons
// that is not "unmatched", or "": only a prompt for want of a rule is
// lowered by an allow rule (one for a redirect, a dangerous command or a
// prompt rule stays a prompt whatever allows the command).
func notUnmatched(reasons []execpolicy.Reason) string {
	for _, r := range reasons {
		if r.Kind != execpolicy.ReasonUnmatched {
			return string(r.Kind) + ": " + r.Detail
		}
	}
	return ""
}

func (s *Suggester) note(t *topK, key, where string) {
	t.add(key)
	if _, ok := s.examples[key]; !ok && len(s.examples) < 3*trackedKeys {
		s.examples[key] = where
	}
}

func sourceOf(m Rule) string {
	if m.Source == "" {
		return ""
	}
	return " (" + m.Source + ")"
}

// quoteWords writes words as a Starlark list.
func quoteWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// WriteText writes the suggestions.
func (s *Suggester) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Suggestions from the audit log: review them; nothing was applied.\n")
	allow := s.allow.top(trackedKeys)
	fmt.Fprintf(&b, "\n# Rules that would have allowed the recorded prompts; %s:\n", where(s.Place.Rules))
	if len(allow) == 0 {
		b.WriteString("# (none)\n")
	}
	for _, c := range allow {
		fmt.Fprintf(&b, "prefix_rule(pattern=%s, decision=\"allow\")  # %s, e.g. %s\n", c.Key, times(c), s.examples[c.Key])
	}
	if byRule := s.byRule.top(trackedKeys); len(byRule) > 0 {
		b.WriteString("\n# Prompts no allow rule can lower (prompt > allow): change the rule itself.\n")
		for _, c := range byRule {
			fmt.Fprintf(&b, "# %s: %s, e.g. %s\n", printable(c.Key), times(c), s.examples[c.Key])
		}
	}
	s.writeOther(&b)
	s.writeHosts(&b)
	s.writeProfiles(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeOther lists the prompts that were not for want of a rule, which
// no allow rule lowers, with what each kind needs instead.
func (s *Suggester) writeOther(b *strings.Builder) {
	other := s.other.top(trackedKeys)
	if len(other) == 0 {
		return
	}
	b.WriteString("\n# Prompts no allow rule lowers (not for want of a rule): an unanalysable script needs a plainer command\n" +
		"# (no redirect, expansion or construct the shell analysis cannot vouch for); a dangerous one stays a prompt\n" +
		"# (the floor); one from a prompt rule needs a change of that rule.\n")
	for _, c := range other {
		fmt.Fprintf(b, "# %s: %s, e.g. %s\n", printable(c.Key), times(c), s.examples[c.Key])
	}
}

// writeHosts writes a network_rule per host the egress proxy refused:
// rules join the profile's hosts by severity, so they add to any proxy
// profile without replacing its allow_hosts list.
func (s *Suggester) writeHosts(b *strings.Builder) {
	var hosts []string
	n := map[string]int{}
	for _, c := range s.denied.top(trackedKeys) {
		parts := strings.SplitN(c.Key, "\x00", 3)
		if parts[1] != "net" || parts[2] == "" {
			continue
		}
		host := parts[2]
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if n[host] == 0 {
			hosts = append(hosts, host)
		}
		n[host] += c.N
	}
	if len(hosts) == 0 {
		return
	}
	fmt.Fprintf(b, "\n# Hosts the network proxy refused (profiles in mode \"proxy\"); %s:\n", where(s.Place.Network))
	slices.Sort(hosts)
	for _, h := range hosts {
		word := "denials"
		if n[h] == 1 {
			word = "denial"
		}
		fmt.Fprintf(b, "%s  # %d %s\n", execpolicy.FormatNetworkRule(h), n[h], word)
	}
}

// times says how many records a suggestion stands for.
func times(c Count) string {
	if c.N == 1 {
		return "1 record"
	}
	if c.Over > 0 {
		return fmt.Sprintf("%d-%d records", c.N-c.Over, c.N)
	}
	return fmt.Sprintf("%d records", c.N)
}

// grants are the additions one profile needs.
type grants struct {
	write, read []string
	network     bool
	n           int
}

// writeProfiles writes, per profile, a profile extending it with the
// narrowest grants its denials need: the paths denied, not their
// parents, and the hosts denied, not the whole network, when known.
func (s *Suggester) writeProfiles(b *strings.Builder) {
	need := map[string]*grants{}
	var names []string
	for _, c := range s.denied.top(trackedKeys) {
		parts := strings.SplitN(c.Key, "\x00", 3)
		prof, kind, target := parts[0], parts[1], parts[2]
		if kind == "net" {
			// A host the egress proxy refused: a network_rule
			// (writeHosts), additive to the profile's own hosts.
			continue
		}
		g := need[prof]
		if g == nil {
			g = &grants{}
			need[prof] = g
			names = append(names, prof)
		}
		g.n += c.N
		switch {
		case kind == "fs-write":
			g.write = appendNew(g.write, target)
		case kind == "fs-read":
			g.read = appendNew(g.read, target)
		case strings.HasPrefix(kind, "net"):
			g.network = true
		}
	}
	b.WriteString("\n# Profiles that would have allowed the recorded sandbox denials (TOML):\n")
	if len(names) == 0 {
		b.WriteString("# (none)\n")
	}
	slices.Sort(names)
	for _, name := range names {
		g := need[name]
		if name == "" {
			name = "workspace-write"
		}
		file := safeName(name) + "-audit"
		fmt.Fprintf(b, "\n# %s.toml: %d denials under %s\n", filepath.Join(s.profileDir(), file), g.n, name)
		if why := s.refusedProfile(file); why != "" {
			fmt.Fprintf(b, "# refused by the managed layer: %s\n", why)
		}
		fmt.Fprintf(b, "extends = %s\n", strconv.Quote(name))
		if len(g.write) > 0 || len(g.read) > 0 {
			b.WriteString("[filesystem]\n")
			pw, pr, ok := s.lists(name)
			writeList(b, "write", pw, g.write, ok)
			writeList(b, "read", pr, g.read, ok)
		}
		if g.network {
			b.WriteString("[network]\n")
			b.WriteString("# or mode = \"proxy\" with allow_hosts for the hosts the command needs\n")
			b.WriteString("mode = \"on\"\n")
		}
	}
}

// where says where suggestions of one kind go: in a .rules file, unless
// the configuration says which.
func where(place string) string {
	if place == "" {
		return "for a .rules file"
	}
	return "to take effect, in " + place
}

// profileDir is the directory a suggested profile goes in.
func (s *Suggester) profileDir() string {
	if s.Place.Profiles == "" {
		return "profiles"
	}
	return s.Place.Profiles
}

// refusedProfile says why the ceiling refuses the profile name, or "".
func (s *Suggester) refusedProfile(name string) string {
	if s.Place.ProfileRefused == nil {
		return ""
	}
	return s.Place.ProfileRefused(name)
}

func (s *Suggester) lists(name string) (write, read []string, ok bool) {
	if s.Profile == nil {
		return nil, nil, false
	}
	return s.Profile(name)
}

// writeList writes key as the parent's list plus add, or, without the
// parent's list, the additions as a comment to merge by hand.
func writeList(b *strings.Builder, key string, parent, add []string, known bool) {
	if len(add) == 0 {
		return
	}
	if !known {
		fmt.Fprintf(b, "# add to the parent's %s list (lists are not merged: write the whole list):\n# %s = [..., %s]\n", key, key, strings.Trim(quoteWords(add), "[]"))
		return
	}
	all := slices.Clone(parent)
	for _, a := range add {
		all = appendNew(all, a)
	}
	fmt.Fprintf(b, "%s = %s\n", key, quoteWords(all))
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// safeName makes a profile name or file usable in a file name.
func safeName(name string) string {
	name = name[strings.LastIndexByte(name, '/')+1:]
	name = strings.TrimSuffix(name, ".toml")
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
}
