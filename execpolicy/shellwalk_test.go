package execpolicy

import (
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// recorder is a nodeVisitor that logs the walk and prunes every prune-th
// node it enters, so that pruning is compared too.
type recorder struct {
	log   []string
	n     int
	prune int
}

func (r *recorder) visit(n syntax.Node) bool {
	if n == nil {
		r.log = append(r.log, "leave")
		return true
	}
	r.n++
	if c, ok := n.(*syntax.Comment); ok {
		// syntax.Walk visits a copy of each comment: compare contents.
		r.log = append(r.log, fmt.Sprintf("Comment@%d%q", c.Pos().Offset(), c.Text))
	} else {
		r.log = append(r.log, fmt.Sprintf("%T@%p", n, n))
	}
	return r.prune == 0 || r.n%r.prune != 0
}

// walkScripts are scripts with every kind of node the walk descends into
// itself, and comments, which it leaves to syntax.Walk.
var walkScripts = []string{
	script1KB,
	"# lead\nls # after\n# trail",
	"if a; then b; elif c; then d; else e; fi # c1\nwhile x; do y; done; until z; do :; done",
	"for i in a \"$b\" $(c | d); do echo \"${i:-x}\" >&2 <<<w; done; for ((i=0; i<3; i++)); do :; done",
	"{ a; b & } | (c; d) |& e && f || ! g; coproc h; time i; [[ -n $j ]]; (( k++ )); declare -x l=$m",
	"f() { f | f & }; case $x in a|b) c ;; *) d ;; esac; cat <<EOF\n$(x) ${y} $((1+2))\nEOF",
	"echo <(a) >(b) @(c|d) $'\\x41' $\"e\" ~/f {g,h} 'i'\"j\"k; let x=1; arr=(a [1]=b)",
}

func TestNodeWalkerMatchesWalk(t *testing.T) {
	var scripts []string
	scripts = append(scripts, walkScripts...)
	for _, row := range readCorpus(t) {
		scripts = append(scripts, row.command)
	}
	for _, src := range scripts {
		for _, keep := range []bool{false, true} {
			p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(keep))
			f, err := p.Parse(strings.NewReader(src), "")
			if err != nil {
				continue
			}
			for _, prune := range []int{0, 2, 3, 7} {
				want, got := &recorder{prune: prune}, &recorder{prune: prune}
				syntax.Walk(f, want.visit)
				newNodeWalker(got).walk(f)
				if w, g := strings.Join(want.log, " "), strings.Join(got.log, " "); w != g {
					t.Errorf("%q (comments %v, prune %d):\nsyntax.Walk %s\nnodeWalker  %s", src, keep, prune, w, g)
				}
			}
		}
	}
}
