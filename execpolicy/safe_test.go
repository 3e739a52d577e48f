package execpolicy

import (
	"strings"
	"testing"
)

// knownSafe reports whether argv (literal words) is on the known-safe
// list, as Policy.Evaluate looks it up through lookupProgram. The program
// must be named exactly, not by path.
func knownSafe(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	entries, _ := knownSafeList.lookup(argv[0])
	return knownSafeAmong(argv, entries)
}

// safeCases has a safe and, where the entry restricts options, an unsafe
// use for every program of knownSafeList; TestKnownSafeCovered checks that
// none is left untested.
var safeCases = map[string]struct{ safe, unsafe []string }{
	"cat": {safe: []string{"cat a b"}}, "ls": {safe: []string{"ls -la /"}}, "head": {safe: []string{"head -n 5 f"}},
	"tail": {safe: []string{"tail -f log"}}, "wc": {safe: []string{"wc -l f"}}, "grep": {safe: []string{"grep -rn x ."}},
	"cut": {safe: []string{"cut -d: -f1 f"}}, "tr": {safe: []string{"tr a-z A-Z"}}, "echo": {safe: []string{"echo hi"}},
	"printf": {safe: []string{"printf %s x"}}, "pwd": {safe: []string{"pwd"}}, "which": {safe: []string{"which go"}},
	"stat": {safe: []string{"stat f"}}, "du": {safe: []string{"du -sh ."}}, "df": {safe: []string{"df -h"}},
	"diff": {safe: []string{"diff -u a b"}}, "cmp": {safe: []string{"cmp a b"}}, "basename": {safe: []string{"basename /a/b"}},
	"dirname": {safe: []string{"dirname /a/b"}}, "realpath": {safe: []string{"realpath ."}}, "readlink": {safe: []string{"readlink -f x"}},
	"true": {safe: []string{"true"}}, "false": {safe: []string{"false"}}, "id": {safe: []string{"id -u"}},
	"whoami": {safe: []string{"whoami"}}, "uname": {safe: []string{"uname -a"}}, "nl": {safe: []string{"nl f"}},
	"od": {safe: []string{"od -c f"}}, "sha256sum": {safe: []string{"sha256sum f"}}, "md5sum": {safe: []string{"md5sum f"}},
	"uniq": {safe: []string{"uniq -c f"}, unsafe: []string{"uniq in out"}},
	"file": {safe: []string{"file x"}, unsafe: []string{"file -C -m magic", "file --compile"}},
	"date": {safe: []string{"date +%s", "date -u"}, unsafe: []string{"date -s 2020-01-01", "date --set=x"}},
	"sort": {safe: []string{"sort -u f"}, unsafe: []string{"sort -o f f", "sort -uo f", "sort --output=f", "sort --compress-program=sh"}},
	"rg":   {safe: []string{"rg -n foo"}, unsafe: []string{"rg --pre ./x foo", "rg --pre=sh foo", "rg -z foo"}},
	"find": {safe: []string{"find . -name *.go"}, unsafe: []string{"find . -exec rm {} ;", "find . -execdir x ;", "find . -ok x ;", "find . -okdir x ;", "find . -delete", "find . -fprint f"}},
	"sed":  {safe: []string{"sed -n 1,5p f", "sed s/a/b/g f", "sed -e s/a/b/ -e /x/d f"}, unsafe: []string{"sed -i s/a/b/ f", "sed --in-place s/a/b/ f", "sed s/a/b/w out f", "sed s/a/b/e f", "sed 1e f", "sed w out", "sed -f script f"}},
	"git":  {safe: []string{"git status", "git log --oneline", "git diff HEAD", "git show HEAD", "git branch -a"}, unsafe: []string{"git -c x=y status", "git -C /x log", "git log --output=f", "git diff --ext-diff", "git branch new", "git branch -D x", "git push", "git"}},
}

func TestKnownSafe(t *testing.T) {
	for prog, c := range safeCases {
		t.Run(prog, func(t *testing.T) {
			for _, s := range c.safe {
				if !knownSafe(strings.Fields(s)) {
					t.Errorf("knownSafe(%q) = false", s)
				}
			}
			for _, s := range c.unsafe {
				if knownSafe(strings.Fields(s)) {
					t.Errorf("knownSafe(%q) = true", s)
				}
			}
		})
	}
	for _, s := range []string{"awk {print}", "env", "rm x", "/bin/ls", "tee f", "xargs ls"} {
		if knownSafe(strings.Fields(s)) {
			t.Errorf("knownSafe(%q) = true", s)
		}
	}
}

func TestKnownSafeCovered(t *testing.T) {
	for _, r := range knownSafeList {
		if _, ok := safeCases[r.name]; !ok {
			t.Errorf("known-safe %q has no test", r.name)
		}
	}
}
