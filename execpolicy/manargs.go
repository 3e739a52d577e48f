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
	next := func(i *int) *word {
		if *i+1 >= len(ws) {
			return nil
		}
		*i++
		return &ws[*i]
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
			value := &word{value: val, src: val, static: true}
			switch {
			case longPrefixOf(name, manPagerLong) != "":
				if !hasEq {
					value = next(&i)
				}
				runs("--pager", value)
			case longPrefixOf(name, manHTMLLong) != "":
				if !hasEq {
					value = nil // the browser of $BROWSER
				}
				runs("--html", value)
			case longPrefixOf(name, manConfigLong) != "":
				if !hasEq {
					next(&i)
				}
				d = Max(d, a.unanalysable(prog+" --config-file may define the pager"))
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				var value *word
				if rest := v[j+1:]; rest != "" {
					value = &word{value: rest, src: rest, static: true}
				}
				switch {
				case c == 'P':
					if value == nil {
						value = next(&i)
					}
					runs("-P", value)
				case c == 'H':
					runs("-H", value)
				case c == 'C':
					if value == nil {
						next(&i)
					}
					d = Max(d, a.unanalysable(prog+" -C may define the pager"))
				case strings.IndexByte(manValued, c) >= 0:
					if value == nil {
						next(&i)
					}
				default:
					continue // a flag: the cluster goes on
				}
				break
			}
		}
	}
	return d
}
