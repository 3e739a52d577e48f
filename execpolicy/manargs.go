package execpolicy

// manOptions are man-db's options as its getopt reads them. Those that run
// a program of the caller's choosing: the pager (-P, --pager) and the
// browser of -H/--html, given only attached; and the configuration file
// (-C, --config-file), which may define the pager. The other short options
// of valued take a value too, attached or in the next word: in a cluster,
// the rest of the word is that value.
var manOptions = getopt{valued: "eELmMprRsSTWPC", attached: "H", long: []string{"--pager", "--config-file"}, longAttached: []string{"--html"}}

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
	for opt, v := range manOptions.options(ws) {
		switch opt {
		case "-P", "--pager", "-H", "--html":
			runs(opt, v)
		case "-C", "--config-file":
			d = Max(d, a.unanalysable(prog+" "+opt+" may define the pager"))
		}
	}
	return d
}
