package darwin

import (
	"fmt"
	"strings"
	"testing"
)

// node is an S-expression: an atom (Atom set) or a list.
type node struct {
	Atom   string
	String bool // Atom came from a "..." or #"..." literal
	List   []node
}

// parseSBPL parses the subset of Scheme syntax SBPL profiles use:
// lists, symbols, "strings" with \-escapes, #"regex" literals and ;
// comments. It rejects unbalanced parentheses and bad strings.
func parseSBPL(src string) ([]node, error) {
	var stack [][]node
	var top []node
	push := func(n node) {
		if len(stack) == 0 {
			top = append(top, n)
		} else {
			stack[len(stack)-1] = append(stack[len(stack)-1], n)
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == '(':
			stack = append(stack, nil)
			i++
		case c == ')':
			if len(stack) == 0 {
				return nil, fmt.Errorf("offset %d: unbalanced )", i)
			}
			l := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			push(node{List: l})
			i++
		case c == '"' || (c == '#' && i+1 < len(src) && src[i+1] == '"'):
			if c == '#' {
				i++
			}
			j := i + 1
			var b strings.Builder
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
				if j >= len(src) || src[j] == '\n' {
					return nil, fmt.Errorf("offset %d: bad string", i)
				}
				b.WriteByte(src[j])
			}
			if j >= len(src) {
				return nil, fmt.Errorf("offset %d: unterminated string", i)
			}
			push(node{Atom: b.String(), String: true})
			i = j + 1
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \n\t()\";", rune(src[j])) {
				j++
			}
			push(node{Atom: src[i:j]})
			i = j
		}
	}
	if len(stack) != 0 {
		return nil, fmt.Errorf("%d unclosed (", len(stack))
	}
	return top, nil
}

// knownOps and knownFilters are the SBPL names the generator may use.
var knownOps = map[string]bool{
	"default": true, "process-exec": true, "process-fork": true, "signal": true, "process-info*": true,
	"user-preference-read": true, "ipc-posix-sem": true, "mach-host*": true, "iokit-open": true,
	"mach-lookup": true, "sysctl-read": true, "pseudo-tty": true,
	"file-read*": true, "file-read-metadata": true, "file-write*": true, "file-write-data": true,
	"file-write-unlink": true, "file-ioctl": true, "file-link": true,
	"network*": true, "network-bind": true, "network-inbound": true, "network-outbound": true,
	"system-socket": true,
}

var knownFilters = map[string]bool{
	"target": true, "global-name": true, "sysctl-name": true, "sysctl-name-prefix": true,
	"iokit-registry-entry-class": true, "literal": true, "subpath": true, "regex": true,
	"param": true, "local": true, "require-all": true, "require-any": true, "require-not": true, "remote": true, "socket-domain": true,
}

func expr(t *testing.T, text string) []node {
	t.Helper()
	top, err := parseSBPL(text)
	if err != nil {
		t.Fatalf("%v in\n%s", err, text)
	}
	return top
}

// ruleIndex returns the index of the first top-level (action op ...) form.
func ruleIndex(top []node, action, op string) int {
	for i, n := range top {
		if len(n.List) > 1 && n.List[0].Atom == action {
			for _, o := range n.List[1:] {
				if o.Atom == op {
					return i
				}
			}
		}
	}
	return -1
}

func checkFilter(t *testing.T, name string, n node) {
	if n.List == nil {
		if !n.String && !strings.HasPrefix(n.Atom, "AF_") && n.Atom != "same-sandbox" {
			t.Errorf("%s: unexpected bare atom %q in filter", name, n.Atom)
		}
		return
	}
	head := n.List[0].Atom
	if !knownFilters[head] {
		t.Errorf("%s: unknown filter %q", name, head)
	}
	for _, a := range n.List[1:] {
		if head == "local" || head == "remote" {
			if a.List == nil && (a.Atom == "ip" || a.Atom == "unix-socket") {
				continue
			}
		}
		checkFilter(t, name, a)
	}
}

func TestPolicySyntax(t *testing.T) {
	for name, p := range profiles() {
		pol, err := generateFor(p)
		if err != nil {
			t.Fatal(err)
		}
		top := expr(t, pol.Text)
		if len(top) < 2 || top[0].List[0].Atom != "version" || top[0].List[1].Atom != "1" {
			t.Errorf("%s: must start with (version 1)", name)
		}
		for _, n := range top[1:] {
			if len(n.List) < 2 {
				t.Errorf("%s: malformed rule %+v", name, n)
				continue
			}
			act := n.List[0].Atom
			if act != "allow" && act != "deny" {
				t.Errorf("%s: unknown action %q", name, act)
			}
			for _, a := range n.List[1:] {
				if a.List == nil {
					if !knownOps[a.Atom] {
						t.Errorf("%s: unknown operation %q", name, a.Atom)
					}
					continue
				}
				checkFilter(t, name, a)
			}
		}
		if !p.Unrestricted && (top[1].List[0].Atom != "deny" || top[1].List[1].Atom != "default") {
			t.Errorf("%s: second form must be (deny default)", name)
		}
	}
}

func TestParserRejects(t *testing.T) {
	for _, bad := range []string{"(allow", "(allow))", `(allow (literal "x))`, "(a \"b\nc\")"} {
		if _, err := parseSBPL(bad); err == nil {
			t.Errorf("parseSBPL(%q): want error", bad)
		}
	}
}
