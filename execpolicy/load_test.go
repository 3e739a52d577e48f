package execpolicy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// match is the part of a RuleMatch the loader tests compare.
type match struct {
	prefix        string
	decision      Decision
	justification string
	resolved      string
	profile       string
}

func summarize(ms []RuleMatch) []match {
	var out []match
	for _, m := range ms {
		out = append(out, match{strings.Join(m.MatchedPrefix, " "), m.Decision, m.Justification, m.ResolvedProgram, m.Profile})
	}
	return out
}

func TestLoadMatches(t *testing.T) {
	const home = "/home/alice"
	resolve := MatchOptions{ResolveHostExecutables: true}
	for _, tc := range []struct {
		name string
		src  string
		argv []string
		opts MatchOptions
		want []match
	}{
		{"default decision is allow", `prefix_rule(pattern=["git", "status"])`,
			[]string{"git", "status", "-s"}, MatchOptions{}, []match{{prefix: "git status", decision: Allow}}},
		{"decision None is allow", `prefix_rule(["ls"], None)`,
			[]string{"ls"}, MatchOptions{}, []match{{prefix: "ls", decision: Allow}}},
		{"positional decision", `prefix_rule(["rm"], "forbidden")`,
			[]string{"rm", "-rf", "/"}, MatchOptions{}, []match{{prefix: "rm", decision: Forbidden}}},
		{"argv shorter than pattern", `prefix_rule(["git", "push", "--force"], "forbidden")`,
			[]string{"git", "push"}, MatchOptions{}, nil},
		{"token must be equal", `prefix_rule(["git", "push"], "prompt")`,
			[]string{"git", "pushx"}, MatchOptions{}, nil},
		{"first-position alternatives become one rule per program", `prefix_rule([["npm", "pnpm"], "test"], "allow")`,
			[]string{"pnpm", "test"}, MatchOptions{}, []match{{prefix: "pnpm test", decision: Allow}}},
		{"first-position alternatives, other program", `prefix_rule([["npm", "pnpm"], "test"], "allow")`,
			[]string{"npm", "test"}, MatchOptions{}, []match{{prefix: "npm test", decision: Allow}}},
		{"later-position alternatives", `prefix_rule(["git", ["status", "log"]], "allow")`,
			[]string{"git", "log", "-1"}, MatchOptions{}, []match{{prefix: "git log", decision: Allow}}},
		{"single-item alternative list is a plain token", `prefix_rule([["git"], ["diff"]])`,
			[]string{"git", "diff"}, MatchOptions{}, []match{{prefix: "git diff", decision: Allow}}},
		{"all matches reported in load order, severity merged by caller",
			"prefix_rule([\"git\"], \"allow\")\nprefix_rule([\"git\", \"push\"], \"forbidden\", justification=\"no pushing\")\nprefix_rule([\"git\", \"push\"], \"prompt\")",
			[]string{"git", "push", "origin"}, MatchOptions{}, []match{
				{prefix: "git", decision: Allow},
				{prefix: "git push", decision: Forbidden, justification: "no pushing"},
				{prefix: "git push", decision: Prompt},
			}},
		{"justification kept", `prefix_rule(["curl"], "prompt", justification="network access")`,
			[]string{"curl", "x"}, MatchOptions{}, []match{{prefix: "curl", decision: Prompt, justification: "network access"}}},
		{"profile extension kept", `prefix_rule(["npm", "ci"], profile="workspace-net")`,
			[]string{"npm", "ci"}, MatchOptions{}, []match{{prefix: "npm ci", decision: Allow, profile: "workspace-net"}}},
		{"Starlark code builds rules",
			"for p in [\"cat\", \"head\"]:\n    prefix_rule([p])\ndef deny(*words):\n    prefix_rule(list(words), \"forbidden\")\ndeny(\"shred\")",
			[]string{"shred", "f"}, MatchOptions{}, []match{{prefix: "shred", decision: Forbidden}}},
		{"absolute path without resolution does not match", `prefix_rule(["git"])`,
			[]string{"/usr/bin/git", "status"}, MatchOptions{}, nil},
		{"undeclared basename resolves for any absolute path", `prefix_rule(["git"])`,
			[]string{"/opt/x/git", "status"}, resolve, []match{{prefix: "git", decision: Allow, resolved: "/opt/x/git"}}},
		{"relative path never resolves", `prefix_rule(["git"])`,
			[]string{"./git", "status"}, resolve, nil},
		{"declared path resolves",
			"host_executable(name=\"git\", paths=[\"/usr/bin/git\"])\nprefix_rule([\"git\", \"status\"], justification=\"read-only\")",
			[]string{"/usr/bin/git", "status"}, resolve, []match{{prefix: "git status", decision: Allow, justification: "read-only", resolved: "/usr/bin/git"}}},
		{"undeclared path of a declared name does not resolve",
			"host_executable(name=\"git\", paths=[\"/usr/bin/git\"])\nprefix_rule([\"git\"])",
			[]string{"/tmp/evil/git"}, resolve, nil},
		{"empty path list means never",
			"host_executable(name=\"git\", paths=[])\nprefix_rule([\"git\"])",
			[]string{"/usr/bin/git"}, resolve, nil},
		{"home-relative path expands with the loader's home",
			"host_executable(\"tool\", [\"~/bin/tool\"])\nprefix_rule([\"tool\"], \"prompt\")",
			[]string{home + "/bin/tool", "x"}, resolve, []match{{prefix: "tool", decision: Prompt, resolved: home + "/bin/tool"}}},
		{"declared paths are cleaned",
			"host_executable(\"git\", [\"/usr//bin/./git\"])\nprefix_rule([\"git\"])",
			[]string{"/usr/bin/git"}, resolve, []match{{prefix: "git", decision: Allow, resolved: "/usr/bin/git"}}},
		{"exact first token wins over fallback",
			"prefix_rule([\"/usr/bin/git\"], \"prompt\")\nprefix_rule([\"git\"], \"allow\")",
			[]string{"/usr/bin/git", "status"}, resolve, []match{{prefix: "/usr/bin/git", decision: Prompt}}},
		{"host executables accumulate",
			"host_executable(\"git\", [\"/usr/bin/git\"])\nhost_executable(\"git\", [\"/opt/git/bin/git\"])\nprefix_rule([\"git\"])",
			[]string{"/usr/bin/git"}, resolve, []match{{prefix: "git", decision: Allow, resolved: "/usr/bin/git"}}},
		{"examples that hold load",
			"prefix_rule([\"git\", [\"push\", \"fetch\"]], \"prompt\", match=[\"git push origin\", [\"git\", \"fetch\"]], not_match=[\"git status\", \"gitx push\"])",
			[]string{"git", "fetch"}, MatchOptions{}, []match{{prefix: "git fetch", decision: Prompt}}},
		{"match example resolved through a host executable declared later",
			"prefix_rule([\"git\"], match=[\"/usr/bin/git status\"])\nhost_executable(\"git\", [\"/usr/bin/git\"])",
			[]string{"git"}, MatchOptions{}, []match{{prefix: "git", decision: Allow}}},
		{"example strings are not expanded",
			`prefix_rule(["echo", "$HOME"], match=["echo '$HOME'", "echo \\$HOME", "echo $HOME"])`,
			[]string{"echo", "$HOME"}, MatchOptions{}, []match{{prefix: "echo $HOME", decision: Allow}}},
		{"network rules do not affect prefix rules",
			"network_rule(host=\"Example.COM:443\", protocol=\"https\", decision=\"allow\")\nprefix_rule([\"curl\"], \"prompt\")",
			[]string{"curl"}, MatchOptions{}, []match{{prefix: "curl", decision: Prompt}}},
		{"print is silent and harmless", `print("hello")` + "\nprefix_rule([\"ls\"])",
			[]string{"ls"}, MatchOptions{}, []match{{prefix: "ls", decision: Allow}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Loader{HomeDir: home}.Load("t.rules", []byte(tc.src))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			got := summarize(p.MatchArgv(tc.argv, tc.opts))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("MatchArgv(%q) = %+v, want %+v", tc.argv, got, tc.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		home string
		want string // the whole error message
	}{
		{"bad decision", "\nprefix_rule([\"git\"], decision=\"deny\")", "",
			"t.rules:2:1: invalid decision: deny"},
		{"decision of the wrong type", `prefix_rule(["git"], decision=1)`, "",
			"t.rules:1:1: invalid decision: 1 (got int, want string)"},
		{"blank justification", "x = 1\n  # comment\nprefix_rule([\"git\"], justification=\"  \")", "",
			"t.rules:3:1: invalid rule: justification cannot be empty"},
		{"blank profile", `prefix_rule(["npm"], profile="")`, "",
			"t.rules:1:1: invalid rule: profile cannot be empty"},
		{"justification of the wrong type", `prefix_rule(["npm"], justification=["x"])`, "",
			"t.rules:1:1: invalid rule: justification must be a string (got list)"},
		{"match example that does not match", "prefix_rule(\n    pattern=[\"git\", \"status\"],\n    match=[\"git push\"],\n)", "",
			`t.rules:1:1: expected every example to match at least one rule. rules: ["git status"]; unmatched examples: ["git push"]`},
		{"not_match example that matches", "if True:\n    prefix_rule([\"git\"], not_match=[[\"git\", \"status\"]])", "",
			"t.rules:2:5: expected example to not match rule `git`: git status"},
		{"not_match checked before match", `prefix_rule(["git"], match=["ls"], not_match=["git"])`, "",
			"t.rules:1:1: expected example to not match rule `git`: git"},
		{"match example via undeclared host path", "host_executable(\"git\", [\"/usr/bin/git\"])\nprefix_rule([\"git\"], match=[\"/tmp/git\"])", "",
			`t.rules:2:1: expected every example to match at least one rule. rules: ["git"]; unmatched examples: ["/tmp/git"]`},
		{"unknown keyword", `prefix_rule(["git"], decison="allow")`, "",
			`t.rules:1:1: prefix_rule: unexpected keyword argument "decison" (did you mean decision?)`},
		{"missing pattern", `prefix_rule(decision="allow")`, "",
			"t.rules:1:1: prefix_rule: missing argument for pattern"},
		{"pattern not a list", `prefix_rule("git")`, "",
			"t.rules:1:1: prefix_rule: for parameter pattern: got string, want list"},
		{"empty pattern", "prefix_rule(\n[])", "",
			"t.rules:1:1: invalid pattern element: pattern cannot be empty"},
		{"empty alternatives", `prefix_rule(["git", []])`, "",
			"t.rules:1:1: invalid pattern element: pattern alternatives cannot be empty"},
		{"pattern element of the wrong type", `prefix_rule(["git", 3])`, "",
			"t.rules:1:1: invalid pattern element: pattern element must be a string or list of strings (got int)"},
		{"alternative of the wrong type", `prefix_rule([["git", None]])`, "",
			"t.rules:1:1: invalid pattern element: pattern alternative must be a string (got NoneType)"},
		{"match not a list", `prefix_rule(["git"], match="git")`, "",
			"t.rules:1:1: invalid example: match must be a list (got string)"},
		{"empty example string", `prefix_rule(["git"], match=["  "])`, "",
			"t.rules:1:1: invalid example: example cannot be an empty string"},
		{"empty example list", `prefix_rule(["git"], not_match=[[]])`, "",
			"t.rules:1:1: invalid example: example cannot be an empty list"},
		{"example of the wrong type", `prefix_rule(["git"], match=[1])`, "",
			"t.rules:1:1: invalid example: example must be a string or list of strings (got int)"},
		{"example token of the wrong type", `prefix_rule(["git"], match=[["git", 1]])`, "",
			"t.rules:1:1: invalid example: example tokens must be strings (got int)"},
		{"example with unterminated quote", `prefix_rule(["git"], match=["git 'x"])`, "",
			"t.rules:1:1: invalid example: example string has invalid shell syntax"},
		{"error inside a function reports the call in the function", "def f():\n    prefix_rule([\"a\"], \"maybe\")\nf()", "",
			"t.rules:2:5: invalid decision: maybe"},
		{"syntax error with position", "prefix_rule([\"ls\"])\nprefix_rule([\"git\"]))", "",
			"t.rules:2:21: unexpected ')'"},
		{"unterminated string", "prefix_rule([\"git])", "",
			"t.rules:1:14: unexpected EOF in string"},
		{"undefined name", "prefix_rule([\"git\"])\nprefx_rule([\"ls\"])", "",
			"t.rules:2:1: undefined: prefx_rule"},
		{"runtime type error", "x = [\"a\"] + \"b\"", "",
			"t.rules:1:11: unknown binary op: list + string"},
		{"load is not available", `load("other.rules", "x")`, "",
			"t.rules:1:1: load not implemented by this application"},
		{"while is not available", "while True:\n    pass", "",
			"t.rules:1:1: this Starlark dialect does not support while loops"},
		{"bad network protocol", `network_rule("example.com", "ftp", "allow")`, "",
			"t.rules:1:1: invalid rule: network_rule protocol must be one of http, https, socks5_tcp, socks5_udp (got ftp)"},
		{"bad network decision", `network_rule("example.com", "https", "maybe")`, "",
			"t.rules:1:1: invalid decision: maybe"},
		{"network host with scheme", `network_rule(host="https://example.com", protocol="https", decision="allow")`, "",
			"t.rules:1:1: invalid rule: network_rule host must be a hostname or IP literal (without scheme or path): https://example.com"},
		{"network host with path", `network_rule("example.com/x", "http", "allow")`, "",
			"t.rules:1:1: invalid rule: network_rule host must be a hostname or IP literal (without scheme or path): example.com/x"},
		{"network host wildcard", `network_rule("*.example.com", "http", "allow")`, "",
			"t.rules:1:1: invalid rule: network_rule host must be a specific host; wildcards are not allowed: *.example.com"},
		{"network host empty", `network_rule(" ", "http", "allow")`, "",
			"t.rules:1:1: invalid rule: network_rule host cannot be empty"},
		{"network rule missing decision", `network_rule("example.com", "http")`, "",
			"t.rules:1:1: network_rule: missing argument for decision"},
		{"network rule blank justification", `network_rule("example.com", "http", "deny", justification="")`, "",
			"t.rules:1:1: invalid rule: justification cannot be empty"},
		{"host executable relative path", `host_executable("git", ["bin/git"])`, "",
			"t.rules:1:1: invalid rule: host_executable paths must be absolute or use `~/...` home-relative syntax (got bin/git)"},
		{"host executable wrong basename", `host_executable("git", ["/usr/bin/hub"])`, "",
			"t.rules:1:1: invalid rule: host_executable path `/usr/bin/hub` must have basename `git`"},
		{"host executable name with slash", `host_executable("bin/git", [])`, "",
			"t.rules:1:1: invalid rule: host_executable name must be a bare executable name (got bin/git)"},
		{"host executable empty name", `host_executable("", [])`, "",
			"t.rules:1:1: invalid rule: host_executable name cannot be empty"},
		{"host executable path not a string", `host_executable("git", [1])`, "",
			"t.rules:1:1: invalid rule: host_executable paths must be strings (got int)"},
		{"host executable ~ without a home", `host_executable("git", ["~/bin/git"])`, "",
			"t.rules:1:1: invalid rule: host_executable path ~/bin/git uses ~/ but no home directory is known"},
		{"host executable ~user is not home-relative", `host_executable("git", ["~bob/git"])`, "/home/alice",
			"t.rules:1:1: invalid rule: host_executable paths must be absolute or use `~/...` home-relative syntax (got ~bob/git)"},
		{"host executable unknown keyword", `host_executable(name="git", path=[])`, "",
			`t.rules:1:1: host_executable: unexpected keyword argument "path"`},
		{"error position is the failing call, not the first", "prefix_rule([\"a\"])\n\n    \n\nprefix_rule([\"b\"], decision=\"x\")", "",
			"t.rules:5:1: invalid decision: x"},
		{"column counts the call's start", "x = 1; prefix_rule([])", "",
			"t.rules:1:8: invalid pattern element: pattern cannot be empty"},
		{"step limit", "def f():\n    for i in range(1000000000):\n        pass\nf()", "",
			"t.rules:2:5: rules file exceeds the execution step limit (too many steps)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Loader{HomeDir: tc.home, MaxSteps: 100000}.Load("t.rules", []byte(tc.src))
			if err == nil {
				t.Fatalf("Load succeeded with %d rules, want error %q", p.Len(), tc.want)
			}
			if p != nil {
				t.Errorf("Load returned a policy alongside error %v", err)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
			}
			var le *LoadError
			if !errors.As(err, &le) || le.File != "t.rules" || le.Line < 1 || le.Col < 1 {
				t.Errorf("error %v is not a positioned *LoadError: %#v", err, le)
			}
		})
	}
}

func TestLoadFileTooLarge(t *testing.T) {
	src := []byte("prefix_rule([\"a\"])\n" + strings.Repeat("#", 100))
	_, err := Loader{MaxFileSize: 50}.Load("big.rules", src)
	if err == nil || err.Error() != "big.rules:1:1: rules file larger than 50 bytes" {
		t.Fatalf("Load = %v, want size error", err)
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "big.rules")
	if err := os.WriteFile(name, src, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Loader{MaxFileSize: 50}).LoadFiles(name); err == nil || !strings.HasPrefix(err.Error(), name+":1:1: rules file larger") {
		t.Fatalf("LoadFiles = %v, want size error", err)
	}
	if _, err := (Loader{MaxFileSize: int64(len(src))}).LoadFiles(name); err != nil {
		t.Fatalf("file of exactly the limit: %v", err)
	}
}

func writeRules(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadFilesOrderAndDirectories(t *testing.T) {
	dir := t.TempDir()
	writeRules(t, dir, map[string]string{
		"b.rules":   `prefix_rule(["git"], "prompt", justification="b")`,
		"a.rules":   `prefix_rule(["git"], "allow", justification="a")`,
		"c.txt":     `prefix_rule(["git"], "forbidden", justification="not a rules file")`,
		"z.rules":   `prefix_rule(["git", "push"], "forbidden", justification="z")`,
		"extra.cfg": `not starlark at all (`,
	})
	if err := os.Mkdir(filepath.Join(dir, "sub.rules"), 0o700); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "first.rules")
	if err := os.WriteFile(other, []byte(`prefix_rule(["git"], justification="explicit file")`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadFiles(other, dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range p.MatchArgv([]string{"git", "push"}, MatchOptions{}) {
		got = append(got, m.Justification)
	}
	want := []string{"explicit file", "a", "b", "z"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("load order = %q, want %q", got, want)
	}
	if p.Len() != 4 {
		t.Errorf("Len = %d, want 4", p.Len())
	}
	if src := p.MatchArgv([]string{"git"}, MatchOptions{})[1].Source; src != filepath.Join(dir, "a.rules")+":1:1" {
		t.Errorf("Source = %q", src)
	}
}

func TestLoadFilesFailsClosed(t *testing.T) {
	dir := t.TempDir()
	writeRules(t, dir, map[string]string{
		"good.rules": `prefix_rule(["rm"], "forbidden")`,
		"bad.rules":  "prefix_rule([\"git\"])\nprefix_rule([\"ls\"], \"sometimes\")",
	})
	good, bad := filepath.Join(dir, "good.rules"), filepath.Join(dir, "bad.rules")
	for _, paths := range [][]string{{good, bad}, {bad, good}, {dir}} {
		p, err := LoadFiles(paths...)
		if err == nil || p != nil {
			t.Errorf("LoadFiles(%q) = %v, %v; want no policy and an error", paths, p, err)
			continue
		}
		if want := bad + ":2:1: invalid decision: sometimes"; err.Error() != want {
			t.Errorf("LoadFiles(%q) error %q, want %q", paths, err, want)
		}
	}
	if _, err := LoadFiles(filepath.Join(dir, "missing.rules")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestLoadFilesHostExecutablesAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	writeRules(t, dir, map[string]string{
		"1.rules": `host_executable("git", ["/usr/bin/git"])`,
		// The match example relies on the declaration of the earlier file.
		"2.rules": `prefix_rule(["git"], "forbidden", match=["/usr/bin/git push"], not_match=["/tmp/git push"])`,
		// A later layer cannot withdraw a declared path.
		"3.rules": `host_executable("git", [])`,
	})
	p, err := LoadFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := MatchOptions{ResolveHostExecutables: true}
	if d := Strictest(p.MatchArgv([]string{"/usr/bin/git", "push"}, opts)); d != Forbidden {
		t.Errorf("/usr/bin/git push: %v, want forbidden", d)
	}
	if m := p.MatchArgv([]string{"/tmp/git", "push"}, opts); len(m) != 0 {
		t.Errorf("/tmp/git push matched %+v", m)
	}
	if p.Examples() != 2 {
		t.Errorf("Examples = %d, want 2", p.Examples())
	}
}

func TestNetworkRules(t *testing.T) {
	for _, tc := range []struct {
		host, protocol, decision string
		want                     NetworkRule
	}{
		{"Example.COM", "https", "allow", NetworkRule{Host: "example.com", Protocol: "https", Decision: Allow}},
		{"example.com:8443", "http", "prompt", NetworkRule{Host: "example.com", Protocol: "http", Decision: Prompt}},
		{"example.com.", "socks5_tcp", "forbidden", NetworkRule{Host: "example.com", Protocol: "socks5_tcp", Decision: Forbidden}},
		{"[::1]:443", "socks5_udp", "deny", NetworkRule{Host: "::1", Protocol: "socks5_udp", Decision: Forbidden}},
		{"fe80::1", "https_connect", "allow", NetworkRule{Host: "fe80::1", Protocol: "https", Decision: Allow}},
		{" 10.0.0.1:80 ", "http-connect", "allow", NetworkRule{Host: "10.0.0.1", Protocol: "https", Decision: Allow}},
	} {
		src := `network_rule(host="` + tc.host + `", protocol="` + tc.protocol + `", decision="` + tc.decision + `")`
		p, err := Load("n.rules", []byte(src))
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		tc.want.Source = "n.rules:1:1"
		if got := p.NetworkRules(); len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: got %+v, want %+v", src, got, tc.want)
		}
	}
	for _, bad := range []string{"", "http://x", "x/y", "x?q", "x#f", "*", "a.*.b", "[::1", "[::1]x", "a b", "."} {
		if h, err := NormalizeNetworkHost(bad); err == nil {
			t.Errorf("NormalizeNetworkHost(%q) = %q, want error", bad, h)
		}
	}
}

func TestSplitExample(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"git status", []string{"git", "status"}, false},
		{"  a\t b\n c  ", []string{"a", "b", "c"}, false},
		{`echo 'a b' "c d"`, []string{"echo", "a b", "c d"}, false},
		{`echo "a\"b\\c\$d\x"`, []string{"echo", `a"b\c$d\x`}, false},
		{`echo a\ b`, []string{"echo", "a b"}, false},
		{"echo a\\\nb", []string{"echo", "ab"}, false},
		{`echo $HOME *.go ~`, []string{"echo", "$HOME", "*.go", "~"}, false},
		{"ls # a comment\npwd", []string{"ls", "pwd"}, false},
		{"a#b", []string{"a#b"}, false},
		{`x''y ""`, []string{"xy", ""}, false},
		{"a;b|c", []string{"a;b|c"}, false},
		{"", nil, false},
		{"# only a comment", nil, false},
		{"'open", nil, true},
		{`"open`, nil, true},
		{`trailing\`, nil, true},
		{`"trailing\`, nil, true},
	} {
		got, err := splitExample(tc.in)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitExample(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestShellQuoteRoundTrip(t *testing.T) {
	words := []string{"git", "a b", "it's", "", "$HOME", `back\slash`, "tab\there"}
	got, err := splitExample(joinExample(words))
	if err != nil || !reflect.DeepEqual(got, words) {
		t.Errorf("splitExample(joinExample(%q)) = %q, %v", words, got, err)
	}
}

func TestLoadEntryLimit(t *testing.T) {
	loop := "def f():\n    for i in range(1000):\n        prefix_rule([\"a\"], match=[\"a\"])\nf()"
	_, err := Loader{MaxEntries: 100}.Load("loop.rules", []byte(loop))
	if want := "loop.rules:3:9: rules file declares more than 100 rules, examples and paths"; err == nil || err.Error() != want {
		t.Errorf("Load = %v, want %q", err, want)
	}
	// Exactly at the limit loads: 50 rules with one example each.
	atLimit := strings.Replace(loop, "1000", "50", 1)
	if p, err := (Loader{MaxEntries: 100}).Load("loop.rules", []byte(atLimit)); err != nil || p.Len() != 50 || p.Examples() != 50 {
		t.Errorf("Load at the limit = %v, %v", p, err)
	}
}

func TestLoadFilesRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "d.rules"), 0o700); err != nil {
		t.Fatal(err)
	}
	// Named directly, a directory is expanded (to nothing here); inside a
	// directory, a *.rules directory is skipped.
	if p, err := LoadFiles(filepath.Join(dir, "d.rules"), dir); err != nil || p.Len() != 0 {
		t.Errorf("LoadFiles = %v, %v", p, err)
	}
	if _, err := LoadFiles("/dev/null"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("LoadFiles(/dev/null) = %v, want not a regular file", err)
	}
}
