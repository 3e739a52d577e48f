package execpolicy

import (
	"fmt"
	"strings"
)

// NormalizeNetworkHost validates a network_rule host and returns it in the
// form the network layer compares: trimmed, lower-case, without a port or a
// trailing dot, and without the brackets of an IPv6 literal. Schemes, paths,
// queries, wildcards and blanks are rejected: a rule must name one host.
func NormalizeNetworkHost(raw string) (string, error) {
	host := strings.TrimSpace(raw)
	if host == "" {
		return "", fmt.Errorf("invalid rule: network_rule host cannot be empty")
	}
	if strings.ContainsAny(host, "/?#") {
		return "", fmt.Errorf("invalid rule: network_rule host must be a hostname or IP literal (without scheme or path): %s", raw)
	}
	if inside, ok := strings.CutPrefix(host, "["); ok {
		addr, suffix, ok := strings.Cut(inside, "]")
		if !ok {
			return "", fmt.Errorf("invalid rule: network_rule host has an invalid bracketed IPv6 literal: %s", raw)
		}
		if port, ok := strings.CutPrefix(suffix, ":"); suffix != "" && (!ok || !isDigits(port)) {
			return "", fmt.Errorf("invalid rule: network_rule host contains an unsupported suffix: %s", raw)
		}
		host = addr
	} else if strings.Count(host, ":") == 1 {
		// One colon is host:port; more is an unbracketed IPv6 literal,
		// which has no port to strip.
		name, port, _ := strings.Cut(host, ":")
		if name != "" && isDigits(port) {
			host = name
		}
	}
	host = strings.ToLower(strings.TrimSpace(strings.TrimRight(host, ".")))
	switch {
	case host == "":
		return "", fmt.Errorf("invalid rule: network_rule host cannot be empty")
	case strings.Contains(host, "*"):
		return "", fmt.Errorf("invalid rule: network_rule host must be a specific host; wildcards are not allowed: %s", raw)
	case strings.ContainsAny(host, " \t\r\n\v\f"):
		return "", fmt.Errorf("invalid rule: network_rule host cannot contain whitespace: %q", raw)
	}
	return host, nil
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
