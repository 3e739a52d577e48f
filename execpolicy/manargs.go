package execpolicy

import "strings"

// man-db's options that run a program of the caller's choosing: the pager
// (-P, --pager) and the browser of -H/--html, given only attached; and the
// configuration file (-C), which may define the pager.
var (
	manPagerLong  = []string{"--pager"}
	manHTMLLong   = []string{"--html"}
	manConfigLong = []string{"--config-file"}
)

// manValued are man-db's short options that take a value, attached or in
// the next word, besides -P and -C: in a cluster, the rest of the word is
// that value.
const manValued = "eELmMprRsSTW"

// manArgs judges man's arguments (execOptions.script): a pager or browser
// given there is a command man runs through a shell, which an allow rule
// for man says nothing about. Each is unanalysable and searched for
// forbidden commands; -H without a browser and -C are unanalysable.
func manArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	runs := func(opt string, v *word) {
		d = Max(d, a.unanalysable(prog+" "+opt+" runs a command"))
		if v != nil && v.static {
			d = Max(d, a.forbiddenIn(v.value, depth))
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			continue // the command is not plain already
		case v == "--":
			return d
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			switch {
			case longPrefixOf(name, manPagerLong) != "":
				runs("--pager", longValue(ws, &i, val, hasEq))
			case longPrefixOf(name, manHTMLLong) != "":
				var browser *word // without one, $BROWSER's
				if hasEq {
					browser = &word{value: val, src: val, static: true}
				}
				runs("--html", browser)
			case longPrefixOf(name, manConfigLong) != "":
				longValue(ws, &i, val, hasEq)
				d = Max(d, a.unanalysable(prog+" --config-file may define the pager"))
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				switch {
				case c == 'P':
					runs("-P", shortValue(ws, &i, v, j))
				case c == 'H':
					runs("-H", attachedValue(v, j))
				case c == 'C':
					shortValue(ws, &i, v, j)
					d = Max(d, a.unanalysable(prog+" -C may define the pager"))
				case strings.IndexByte(manValued, c) >= 0:
					shortValue(ws, &i, v, j)
				default:
					continue // a flag: the cluster goes on
				}
				break
			}
		}
	}
	return d
}
