package execpolicy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRestrictedLoad(t *testing.T) {
	rule := `prefix_rule(pattern=["ls"], decision="prompt")`
	tests := []struct {
		name string
		src  string
		// pos is the file:line:col prefix of the error, "" when the file loads.
		pos, what string
	}{
		{"plain calls", rule + "\nnetwork_rule(host=\"example.com\", protocol=\"https\", decision=\"prompt\")\n", "", ""},
		{"names and containers", "CMDS = [\"git\", [\"push\", \"fetch\"]]\nD = {\"d\": \"prompt\"}\nT = (1, -2)\nprefix_rule(pattern=CMDS, decision=\"prompt\", justification=\"x\" + \"y\")\n", "", ""},
		{"string repetition", "x = \"a\" * 1000000000\n" + rule, "r.rules:1:5", "operator *"},
		{"list repetition", "x = [1] * 300000000\n", "r.rules:1:5", "operator *"},
		{"doubling by names", "a = [\"x\"]\nb = a + a\n", "r.rules:2:5", "operator +"},
		{"formatting", "x = \"%0999999999d\" % 1\n", "r.rules:1:5", "operator %"},
		{"method call", "x = \"\".join([\"a\"])\n", "r.rules:1:5", "only literals, names"},
		{"other builtins", "x = list(range(1000000000))\n", "r.rules:1:5", "only literals, names"},
		{"calling a non-builtin", "len([1])\n", "r.rules:1:1", "only prefix_rule"},
		{"comprehension", "x = [a + a for a in [\"b\"]]\n", "r.rules:1:5", "only literals, names"},
		{"def", "def f():\n    pass\n", "r.rules:1:1", "at top level"},
		{"for", "for i in [1]:\n    pass\n", "r.rules:1:1", "at top level"},
		{"augmented assignment", "a = [1]\na += a\n", "r.rules:2:1", "name = value"},
		{"index", "a = [1]\nb = a[0]\n", "r.rules:2:5", "only literals, names"},
		{"load", "load(\"x.star\", \"y\")\n", "r.rules:1:1", "at top level"},
		{"call argument", "prefix_rule(pattern=[\"a\" * 10], decision=\"prompt\")\n", "r.rules:1:22", "operator *"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Loader{Restricted: true}.Load("r.rules", []byte(tt.src))
			if tt.pos == "" {
				if err != nil {
					t.Fatalf("restricted load failed: %v", err)
				}
				return
			}
			var le *LoadError
			if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), tt.pos+": ") || !strings.Contains(err.Error(), tt.what) {
				t.Fatalf("err = %v, want %s: ...%s...", err, tt.pos, tt.what)
			}
		})
	}
}

// TestUnrestrictedLoadKeepsFullLanguage: the user's own files keep the
// whole language; only Restricted refuses these constructs.
func TestUnrestrictedLoadKeepsFullLanguage(t *testing.T) {
	src := "CMDS = [\"git\"] + [\"ls\"]\n" +
		"def rule(c):\n    prefix_rule(pattern=[c], decision=\"prompt\", justification=\"-\" * 3)\n" +
		"[rule(c) for c in CMDS]\n"
	p, err := Loader{}.Load("u.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if ev := p.Evaluate([]string{"ls"}, EvalOptions{}); ev.Decision != Prompt {
		t.Fatalf("decision %v, want prompt", ev.Decision)
	}
	if _, err := (Loader{Restricted: true}).Load("u.rules", []byte(src)); err == nil {
		t.Fatal("the restricted loader accepted def and a comprehension")
	}
}

func TestRestrictedSizeLimits(t *testing.T) {
	dir := t.TempDir()
	line := "prefix_rule(pattern=[\"ls\"], decision=\"prompt\")\n"
	big := strings.Repeat(line, MaxRestrictedBytes/len(line)+1)
	write := func(name, src string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	one := write("one.rules", big)
	if _, err := (Loader{}).LoadFiles(one); err != nil {
		t.Fatalf("a trusted load of %d bytes failed: %v", len(big), err)
	}
	if _, err := (Loader{Restricted: true}).LoadFiles(one); err == nil || !strings.Contains(err.Error(), "one.rules:1:1: rules file larger than") {
		t.Fatalf("restricted load of one big file: %v", err)
	}
	// Together, not each: two files of half the limit and a bit more.
	half := strings.Repeat(line, MaxRestrictedBytes/len(line)/2+1)
	sub := filepath.Join(dir, "layer")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "a.rules"), []byte(half), 0o644)
	os.WriteFile(filepath.Join(sub, "b.rules"), []byte(half), 0o644)
	if _, err := (Loader{Restricted: true}).LoadFiles(sub); err == nil || !strings.Contains(err.Error(), "b.rules:1:1: untrusted rules larger than") {
		t.Fatalf("restricted load of two halves: %v", err)
	}
	many := filepath.Join(dir, "many")
	os.Mkdir(many, 0o755)
	for i := 0; i <= MaxRestrictedFiles; i++ {
		os.WriteFile(filepath.Join(many, fmt.Sprintf("%04d.rules", i)), []byte(line), 0o644)
	}
	if _, err := (Loader{Restricted: true}).LoadFiles(many); err == nil || !strings.Contains(err.Error(), "more than 256 rules files") {
		t.Fatalf("restricted load of %d files: %v", MaxRestrictedFiles+1, err)
	}
	if _, err := (Loader{}).LoadFiles(many); err != nil {
		t.Fatalf("trusted load of many files: %v", err)
	}
}
