package execpolicy

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// fileBuilder collects what one rules file declares. Its builtins close
// over it, so loading needs no global or thread-local state.
type fileBuilder struct {
	file       string
	home       string
	policy     *Policy
	callStarts callStartMap
	pending    []pendingExamples
	// entries counts the rules, examples and paths declared so far, up
	// to maxEntries (Loader.MaxEntries).
	entries, maxEntries int
}

// charge counts n more entries against the file's limit.
func (b *fileBuilder) charge(n int) error {
	b.entries += n
	if b.entries > b.maxEntries {
		return fmt.Errorf("rules file declares more than %d rules, examples and paths", b.maxEntries)
	}
	return nil
}

// pendingExamples are the examples of one prefix_rule call. They are
// checked once the whole file has run, as Codex does, so that a
// host_executable declared further down applies to them.
type pendingExamples struct {
	pos        syntax.Position
	rules      []PrefixRule
	matches    [][]string
	notMatches [][]string
}

// builtins returns the functions a rules file may call.
func (b *fileBuilder) builtins() starlark.StringDict {
	return starlark.StringDict{
		"prefix_rule":     starlark.NewBuiltin("prefix_rule", b.prefixRule),
		"network_rule":    starlark.NewBuiltin("network_rule", b.networkRule),
		"host_executable": starlark.NewBuiltin("host_executable", b.hostExecutable),
	}
}

// callPos returns where the builtin being run was called from.
func (b *fileBuilder) callPos(thread *starlark.Thread) syntax.Position {
	return b.callStarts.start(thread.CallFrame(1).Pos)
}

// source renders pos as a rule's Source, "file:line:col". It runs once per
// rule, so it avoids fmt.
func (b *fileBuilder) source(pos syntax.Position) string {
	buf := make([]byte, 0, len(b.file)+12)
	buf = append(buf, b.file...)
	buf = append(buf, ':')
	buf = strconv.AppendInt(buf, int64(pos.Line), 10)
	buf = append(buf, ':')
	buf = strconv.AppendInt(buf, int64(pos.Col), 10)
	return string(buf)
}

// prefixRule implements prefix_rule. The positional order after pattern
// and decision follows Codex (match, not_match, justification) so that a
// Codex file calling it positionally loads the same.
func (b *fileBuilder) prefixRule(thread *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		pattern                                       *starlark.List
		decisionV, matchV, notMatchV, justV, profileV starlark.Value = starlark.None, starlark.None, starlark.None, starlark.None, starlark.None
	)
	if err := starlark.UnpackArgs(fn.Name(), args, kwargs,
		"pattern", &pattern, "decision?", &decisionV, "match?", &matchV,
		"not_match?", &notMatchV, "justification?", &justV, "profile?", &profileV); err != nil {
		return nil, err
	}
	decision := Allow
	if decisionV != starlark.None {
		s, ok := starlark.AsString(decisionV)
		if !ok {
			return nil, fmt.Errorf("invalid decision: %s (got %s, want string)", decisionV, decisionV.Type())
		}
		d, err := ParseDecision(s)
		if err != nil {
			return nil, err
		}
		decision = d
	}
	justification, err := optionalText(justV, "justification")
	if err != nil {
		return nil, err
	}
	profile, err := optionalText(profileV, "profile")
	if err != nil {
		return nil, err
	}
	first, rest, err := parsePattern(pattern)
	if err != nil {
		return nil, err
	}
	matches, err := parseExamples(matchV, "match")
	if err != nil {
		return nil, err
	}
	notMatches, err := parseExamples(notMatchV, "not_match")
	if err != nil {
		return nil, err
	}

	if err := b.charge(len(first) + len(matches) + len(notMatches)); err != nil {
		return nil, err
	}
	pos := b.callPos(thread)
	src := b.source(pos)
	// The policy points into rules rather than copying each rule: one
	// allocation per call, not per rule.
	rules := make([]PrefixRule, len(first))
	for i, prog := range first {
		rules[i] = PrefixRule{Program: prog, Rest: rest, Decision: decision, Justification: justification, Profile: profile, Source: src}
		b.policy.add(&rules[i])
	}
	b.policy.nexamples += len(matches) + len(notMatches)
	if len(matches)+len(notMatches) > 0 {
		b.pending = append(b.pending, pendingExamples{pos: pos, rules: rules, matches: matches, notMatches: notMatches})
	}
	return starlark.None, nil
}

// optionalText unpacks an optional string argument that, when given, must
// not be blank: a blank justification or profile is a mistake, not a
// default.
func optionalText(v starlark.Value, what string) (string, error) {
	if v == starlark.None {
		return "", nil
	}
	s, ok := starlark.AsString(v)
	if !ok {
		return "", fmt.Errorf("invalid rule: %s must be a string (got %s)", what, v.Type())
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("invalid rule: %s cannot be empty", what)
	}
	return s, nil
}

// parsePattern splits a prefix_rule pattern into the alternatives of its
// first position (one rule each) and the alternatives of every later
// position.
func parsePattern(pattern *starlark.List) (first []string, rest [][]string, err error) {
	if pattern.Len() == 0 {
		return nil, nil, fmt.Errorf("invalid pattern element: pattern cannot be empty")
	}
	for i := range pattern.Len() {
		alts, err := parsePatternElement(pattern.Index(i))
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			first = alts
		} else {
			rest = append(rest, alts)
		}
	}
	return first, rest, nil
}

// parsePatternElement returns the alternatives a pattern element accepts.
func parsePatternElement(v starlark.Value) ([]string, error) {
	if s, ok := starlark.AsString(v); ok {
		return []string{s}, nil
	}
	l, ok := v.(*starlark.List)
	if !ok {
		return nil, fmt.Errorf("invalid pattern element: pattern element must be a string or list of strings (got %s)", v.Type())
	}
	if l.Len() == 0 {
		return nil, fmt.Errorf("invalid pattern element: pattern alternatives cannot be empty")
	}
	return listStrings(l, "invalid pattern element: pattern alternative must be a string")
}

// listStrings returns the items of l, which must all be strings; notString
// is the error, less the type named after it, for an item that is not.
func listStrings(l *starlark.List, notString string) ([]string, error) {
	ss := make([]string, l.Len())
	for i := range l.Len() {
		s, ok := starlark.AsString(l.Index(i))
		if !ok {
			return nil, fmt.Errorf("%s (got %s)", notString, l.Index(i).Type())
		}
		ss[i] = s
	}
	return ss, nil
}

// parseExamples unpacks a match or not_match argument: None or a list
// whose items are token lists or strings split shell-style.
func parseExamples(v starlark.Value, what string) ([][]string, error) {
	if v == starlark.None {
		return nil, nil
	}
	l, ok := v.(*starlark.List)
	if !ok {
		return nil, fmt.Errorf("invalid example: %s must be a list (got %s)", what, v.Type())
	}
	out := make([][]string, 0, l.Len())
	for i := range l.Len() {
		ex, err := parseExample(l.Index(i))
		if err != nil {
			return nil, err
		}
		out = append(out, ex)
	}
	return out, nil
}

func parseExample(v starlark.Value) ([]string, error) {
	if s, ok := starlark.AsString(v); ok {
		words, err := splitExample(s)
		if err != nil {
			return nil, fmt.Errorf("invalid example: %w", err)
		}
		if len(words) == 0 {
			return nil, fmt.Errorf("invalid example: example cannot be an empty string")
		}
		return words, nil
	}
	l, ok := v.(*starlark.List)
	if !ok {
		return nil, fmt.Errorf("invalid example: example must be a string or list of strings (got %s)", v.Type())
	}
	if l.Len() == 0 {
		return nil, fmt.Errorf("invalid example: example cannot be an empty list")
	}
	return listStrings(l, "invalid example: example tokens must be strings")
}

// validateExamples checks every prefix_rule call's examples against the
// rules of that call alone, with host-executable resolution on and the
// host executables declared so far (earlier files plus this one). As in
// Codex, not_match examples are checked first.
func (b *fileBuilder) validateExamples(earlier map[string][]string) error {
	hosts := map[string][]string{}
	for name, paths := range earlier {
		hosts[name] = slices.Clone(paths)
	}
	for name, paths := range b.policy.hostExecutables {
		hosts[name] = appendNew(hosts[name], paths...)
	}
	opts := MatchOptions{ResolveHostExecutables: true}
	for _, pe := range b.pending {
		call := NewPolicy()
		call.hostExecutables = hosts
		for _, r := range pe.rules {
			call.AddPrefixRule(r)
		}
		for _, ex := range pe.notMatches {
			if m := call.MatchArgv(ex, opts); len(m) > 0 {
				return newLoadError(b.file, pe.pos, fmt.Sprintf("expected example to not match rule `%s`: %s", joinExample(m[0].MatchedPrefix), joinExample(ex)))
			}
		}
		var unmatched []string
		for _, ex := range pe.matches {
			if len(call.MatchArgv(ex, opts)) == 0 {
				unmatched = append(unmatched, joinExample(ex))
			}
		}
		if len(unmatched) > 0 {
			rendered := make([]string, len(pe.rules))
			for i := range pe.rules {
				rendered[i] = pe.rules[i].String()
			}
			return newLoadError(b.file, pe.pos, fmt.Sprintf("expected every example to match at least one rule. rules: %q; unmatched examples: %q", rendered, unmatched))
		}
	}
	return nil
}

// networkRule implements network_rule. "deny" is accepted for forbidden,
// as in Codex.
func (b *fileBuilder) networkRule(thread *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		host, protocol, decisionS string
		justV                     starlark.Value = starlark.None
	)
	if err := starlark.UnpackArgs(fn.Name(), args, kwargs,
		"host", &host, "protocol", &protocol, "decision", &decisionS, "justification?", &justV); err != nil {
		return nil, err
	}
	proto, err := parseNetworkProtocol(protocol)
	if err != nil {
		return nil, err
	}
	if decisionS == "deny" {
		decisionS = "forbidden"
	}
	decision, err := ParseDecision(decisionS)
	if err != nil {
		return nil, err
	}
	justification, err := optionalText(justV, "justification")
	if err != nil {
		return nil, err
	}
	normalized, err := NormalizeNetworkHost(host)
	if err != nil {
		return nil, err
	}
	if err := b.charge(1); err != nil {
		return nil, err
	}
	pos := b.callPos(thread)
	b.policy.network = append(b.policy.network, NetworkRule{
		Host: normalized, Protocol: proto, Decision: decision, Justification: justification,
		Source: b.source(pos),
	})
	return starlark.None, nil
}

// parseNetworkProtocol returns the canonical spelling of a network_rule
// protocol, accepting Codex's aliases for https.
func parseNetworkProtocol(s string) (string, error) {
	switch s {
	case "http", "socks5_tcp", "socks5_udp":
		return s, nil
	case "https", "https_connect", "http-connect":
		return "https", nil
	}
	return "", fmt.Errorf("invalid rule: network_rule protocol must be one of http, https, socks5_tcp, socks5_udp (got %s)", s)
}

// hostExecutable implements host_executable.
func (b *fileBuilder) hostExecutable(thread *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		name  string
		paths *starlark.List
	)
	if err := starlark.UnpackArgs(fn.Name(), args, kwargs, "name", &name, "paths", &paths); err != nil {
		return nil, err
	}
	if name == "" {
		return nil, fmt.Errorf("invalid rule: host_executable name cannot be empty")
	}
	if strings.ContainsRune(name, '/') || name == "." || name == ".." {
		return nil, fmt.Errorf("invalid rule: host_executable name must be a bare executable name (got %s)", name)
	}
	var parsed []string
	for i := range paths.Len() {
		raw, ok := starlark.AsString(paths.Index(i))
		if !ok {
			return nil, fmt.Errorf("invalid rule: host_executable paths must be strings (got %s)", paths.Index(i).Type())
		}
		p, err := b.hostPath(raw)
		if err != nil {
			return nil, err
		}
		if path.Base(p) != name {
			return nil, fmt.Errorf("invalid rule: host_executable path `%s` must have basename `%s`", raw, name)
		}
		parsed = appendNew(parsed, p)
	}
	if err := b.charge(1 + len(parsed)); err != nil {
		return nil, err
	}
	// AddHostExecutable records the name even for an empty list, which
	// means "never resolve this name".
	b.policy.AddHostExecutable(name, parsed)
	return starlark.None, nil
}

// hostPath makes a host_executable path absolute and clean, expanding a
// leading "~/" with the loader's home directory.
func (b *fileBuilder) hostPath(raw string) (string, error) {
	p := raw
	if rest, ok := strings.CutPrefix(raw, "~/"); ok {
		if b.home == "" || !path.IsAbs(b.home) {
			return "", fmt.Errorf("invalid rule: host_executable path %s uses ~/ but no home directory is known", raw)
		}
		p = path.Join(b.home, rest)
	}
	if !path.IsAbs(p) {
		return "", fmt.Errorf("invalid rule: host_executable paths must be absolute or use `~/...` home-relative syntax (got %s)", raw)
	}
	return path.Clean(p), nil
}

// appendNew appends the items of add not already in list.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
