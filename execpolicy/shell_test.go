package execpolicy

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func FuzzAnalyse(f *testing.F) {
	for _, row := range readCorpus(f) {
		f.Add(row.command)
	}
	// The readers of programs' own command languages.
	for _, s := range []string{
		"sqlite3 -lookaside 1 2 db '.sh x' -- '.once |y'",
		"psql -Xqc '\\! x' -o '|y' --var=a",
		"dc -e '[!x]x' -f - --expr=?",
		"emacs --ev '(shell-command \"x\")' -l",
		"echo x | gdb -batch --args y",
		"ssh h -N; sftp -b - h",
		"uv --color x run --with y -- z; npx -c 'w' ; kubectl exec p -- q | xargs find",
		// Round 13's launchers and runners.
		"mpirun -np 1 a : -np : -host h b : ; setarch -R x; capsh --print == -- -c y; capsh -+",
		"ctr -n k t exec --exec-id e c x; nix shell a -c; distrobox enter -e; srun : : ; nvm exec",
	} {
		f.Add(s)
	}
	p := corpusPolicy()
	f.Fuzz(func(t *testing.T, script string) {
		ev := p.Evaluate([]string{"bash", "-c", script}, EvalOptions{})
		ev2 := p.Evaluate([]string{script}, EvalOptions{Shell: true})
		if ev.Decision != ev2.Decision {
			t.Fatalf("bash -c and --shell disagree on %q: %v vs %v", script, ev.Decision, ev2.Decision)
		}
		if ev.Decision < Allow || ev.Decision > Forbidden {
			t.Fatalf("%q: invalid decision %v", script, ev.Decision)
		}
		if ev.Decision == Allow {
			if strings.IndexByte(script, 0) >= 0 {
				t.Fatalf("%q: NUL byte allowed", script)
			}
			// A script mvdan.cc/sh cannot parse allows only once its
			// heredoc delimiters are respelled as bash reads them and it
			// parses (respelled).
			if _, err := syntax.NewParser().Parse(strings.NewReader(script), ""); err != nil {
				fixed, _ := respellDelimiters(script, lexHeredocs(script))
				if _, err2 := syntax.NewParser().Parse(strings.NewReader(fixed), ""); fixed == "" || err2 != nil {
					t.Fatalf("%q: allowed despite parse error %v", script, err)
				}
			}
			if len(ev.Reasons) != 0 || ev.Dynamic || ev.Dangerous {
				t.Fatalf("%q: allowed with %+v", script, ev)
			}
		} else if len(ev.Reasons) == 0 {
			t.Fatalf("%q: %v without reasons", script, ev.Decision)
		}
	})
}

// script1KB is a realistic agent command of about 1 KB.
var script1KB = strings.TrimSpace(`
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
git status --porcelain | grep -v '^??' | cut -c4- | sort -u > /dev/null
for f in $(git diff --name-only HEAD~1 -- '*.go'); do
  if [ -f "$f" ]; then
    gofmt -l "$f" && go vet "./$(dirname "$f")/..." 2>&1 | head -n 20
  fi
done
find . -name '*_test.go' -not -path './vendor/*' | xargs grep -l 'func Fuzz' | while read -r t; do
  echo "fuzz target in $t"
done
cat <<'MSG'
Summary of the change:
  - analyser: strict and asymmetric
  - wrappers: table driven
MSG
ls -la build/ 2>/dev/null || mkdir -p build
go test -count=1 -run 'TestCorpus|TestEvaluate' ./execpolicy/ && echo ok || echo "tests failed: $?"
git log --oneline -n 5 | awk '{print $1}' | tr '\n' ' '
printf '%s\n' "done at $(date -u +%H:%M:%S)"
test -n "${CI:-}" && echo "running in CI" >&2
npm run --silent lint -- --fix >/dev/null 2>&1 || true
grep -rn "TODO" --include='*.go' . | wc -l
`)

func BenchmarkAnalyse1KB(b *testing.B) {
	p := corpusPolicy()
	argv := []string{"bash", "-lc", script1KB}
	b.SetBytes(int64(len(script1KB)))
	b.ReportAllocs()
	for b.Loop() {
		p.Evaluate(argv, EvalOptions{})
	}
}

func BenchmarkEvaluatePlain(b *testing.B) {
	p := corpusPolicy()
	argv := []string{"git", "status", "--porcelain"}
	b.ReportAllocs()
	for b.Loop() {
		p.Evaluate(argv, EvalOptions{})
	}
}

// BenchmarkParseBaseline is the parser alone on script1KB, the floor under
// BenchmarkAnalyse1KB.
func BenchmarkParseBaseline(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script1KB), ""); err != nil {
			b.Fatal(err)
		}
	}
}
