package execpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// FormatAllowRule returns the rules-file line that "always allow" appends
// for prefix, e.g. prefix_rule(pattern=["git", "status"], decision="allow").
func FormatAllowRule(prefix []string) string {
	var b strings.Builder
	b.WriteString("prefix_rule(pattern=[")
	for i, tok := range prefix {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(starlarkQuote(tok))
	}
	b.WriteString(`], decision="allow")`)
	return b.String()
}

// starlarkQuote returns s as a double-quoted Starlark string literal.
// Starlark accepts \n \t \r \\ \" and \xHH (HH < 0x80 in a text string),
// \uXXXX and \UXXXXXXXX, so printable UTF-8 is kept and every other rune
// becomes one of those escapes. s must be valid UTF-8 (checked by
// AppendAllowRule): a literal cannot hold an invalid byte faithfully.
func starlarkQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0, r == 0x2028, r == 0x2029, r == 0xfeff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// AppendAllowRule appends an allow rule for prefix to the rules file at
// path (normally the user layer's rules/default.rules), creating the file
// and its directories as needed. It holds an exclusive lock on the file
// while it reads and writes it, so that concurrent appenders neither lose
// rules nor interleave them, and it skips a rule already present as the
// exact same line. added reports whether a line was written.
func AppendAllowRule(path string, prefix []string) (added bool, err error) {
	if len(prefix) == 0 {
		return false, errors.New("append allow rule: empty prefix")
	}
	for _, tok := range prefix {
		if tok == "" || !utf8.ValidString(tok) || strings.ContainsRune(tok, 0) {
			return false, fmt.Errorf("append allow rule to %s: token %q is empty, contains NUL or is not UTF-8", path, tok)
		}
	}
	return appendRuleLine(path, FormatAllowRule(prefix))
}

// FormatNetworkRule returns a network_rule line allowing host.
func FormatNetworkRule(host string) string {
	return `network_rule(host=` + starlarkQuote(host) + `, protocol="https", decision="allow")`
}

// FormatApprovedNetworkRule returns the network_rule line AppendNetworkRule
// writes for host: FormatNetworkRule's, marked ApprovedJustification.
func FormatApprovedNetworkRule(host string) string {
	return strings.TrimSuffix(FormatNetworkRule(host), ")") + `, justification=` + starlarkQuote(ApprovedJustification) + `)`
}

// AppendNetworkRule appends a network_rule allowing host (a name or an
// address, as NormalizeNetworkHost accepts it) to the rules file at path,
// as AppendAllowRule does for commands: an "always" answer to a host the
// network proxy refused.
func AppendNetworkRule(path, host string) (added bool, err error) {
	h, err := NormalizeNetworkHost(host)
	if err != nil || h != host {
		return false, fmt.Errorf("append network rule to %s: host %q: not a normalized host", path, host)
	}
	return appendRuleLine(path, FormatApprovedNetworkRule(host))
}

// appendRuleLine appends line to the rules file at path under its lock,
// unless the file holds that line already.
func appendRuleLine(path, line string) (added bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("append rule: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("append rule: %w", err)
	}
	defer f.Close()
	if err := flockRetry(int(f.Fd()), unix.LOCK_EX); err != nil {
		return false, fmt.Errorf("append rule: locking %s: %w", path, err)
	}
	defer unix.Flock(int(f.Fd()), unix.LOCK_UN)

	// Read through f, the file locked: path may name another file by now
	// (an editor saves by renaming over it).
	data, err := io.ReadAll(f)
	if err != nil {
		return false, fmt.Errorf("append rule: %w", err)
	}
	for l := range bytes.Lines(data) {
		if string(bytes.TrimSpace(l)) == line {
			return false, nil
		}
	}
	var buf []byte
	if len(data) > 0 && data[len(data)-1] != '\n' {
		buf = append(buf, '\n')
	}
	buf = append(buf, line...)
	buf = append(buf, '\n')
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return false, fmt.Errorf("append rule: %w", err)
	}
	if _, err := f.Write(buf); err != nil {
		return false, fmt.Errorf("append rule to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return false, fmt.Errorf("append rule to %s: %w", path, err)
	}
	return true, nil
}

// flockRetry is unix.Flock, retried when a signal interrupts the wait.
func flockRetry(fd, how int) error {
	for {
		err := unix.Flock(fd, how)
		if err != unix.EINTR {
			return err
		}
	}
}
