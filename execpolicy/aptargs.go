package execpolicy

import (
	"slices"
	"strings"
)

// apt's -o KEY=VALUE sets any configuration item, and many are commands
// it or dpkg runs (APT::Update::Pre-Invoke, DPkg::Pre-Invoke,
// DPkg::Post-Invoke, Acquire::http::ProxyAutoDetect, Dir::Bin::dpkg,
// Dpkg::Options::=--pre-invoke=CMD); -c FILE reads a file of them. apt
// reads its options anywhere among its arguments, and takes long ones
// only in full but in any case.

// aptSafeKeys are configuration items, lower-cased, that run nothing;
// aptSafePrefixes are the prefixes of more (APT::Get::Assume-Yes).
var (
	aptSafeKeys     = []string{"apt::install-recommends", "apt::install-suggests", "acquire::retries", "acquire::check-valid-until", "acquire::languages", "apt::color", "dpkg::use-pty", "quiet", "debug::nolocking"}
	aptSafePrefixes = []string{"apt::get::"}
)

// aptArgs judges the arguments of apt and apt-get (execOptions.script):
// an -o that sets an item not of aptSafeKeys (nor a dpkg --force option),
// and -c, are unanalysable; the value is searched for forbidden
// commands. "apt-get -o APT::Update::Pre-Invoke::=./x update", its -qo,
// -oKEY, --option=KEY and --OPTION KEY spellings, "apt -o
// APT::Update::Post-Invoke::=./x update", "apt-get -c ./conf update" and
// --Config-File ./conf ran x (apt 2.6.1) while judged allow.
func aptArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	option := func(v *word) {
		if v == nil || !v.static {
			d = Max(d, a.unanalysable(prog+" -o: a dynamic configuration item"))
			return
		}
		key, val, _ := strings.Cut(v.value, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		switch {
		case slices.Contains(aptSafeKeys, key) || slices.ContainsFunc(aptSafePrefixes, func(p string) bool { return strings.HasPrefix(key, p) }):
			return
		case strings.TrimSuffix(key, "::") == "dpkg::options" && strings.HasPrefix(val, "--force-"):
			return
		}
		d = Max(d, a.unanalysable(prog+" -o "+key+": may set a command apt runs"))
		d = Max(d, a.forbiddenIn(val, depth))
		if _, cmd, ok := strings.Cut(val, "="); ok { // Dpkg::Options::=--pre-invoke=CMD
			d = Max(d, a.forbiddenIn(cmd, depth))
		}
	}
	config := func() {
		d = Max(d, a.unanalysable(prog+" -c: a configuration file may set a command apt runs"))
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			continue
		case v == "--":
			return d
		case aptLong(v, "--option"):
			_, val, hasEq := strings.Cut(v, "=")
			option(longValue(ws, &i, val, hasEq))
		case aptLong(v, "--config-file"):
			if !strings.Contains(v, "=") {
				nextWord(ws, &i)
			}
			config()
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--"):
			for j := 1; j < len(v); j++ {
				switch c := v[j]; {
				case c == 'o':
					option(shortValue(ws, &i, v, j))
				case c == 'c':
					shortValue(ws, &i, v, j)
					config()
				case strings.IndexByte("taP", c) >= 0:
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

// aptLong reports whether v is the long option name, alone or with
// "=VALUE": in full, but in any case, as apt's CommandLine::Parse compares
// names with stringcasecmp (--OPTION, --Config-File).
func aptLong(v, name string) bool {
	n, _, _ := strings.Cut(v, "=")
	return strings.EqualFold(n, name)
}

// dpkgRuns are dpkg's options whose value is a command it runs through a
// shell; dpkg takes them only in full.
var dpkgRuns = []string{"--pre-invoke", "--post-invoke", "--status-logger"}

// dpkgArgs judges dpkg's arguments (execOptions.script): "dpkg
// --pre-invoke=./x --configure -a", --post-invoke and --status-logger,
// with the value attached or the next word, ran x (dpkg 1.21.22) while
// judged allow.
func dpkgArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue
		}
		if w.value == "--" {
			return d
		}
		name, val, hasEq := strings.Cut(w.value, "=")
		if !slices.Contains(dpkgRuns, name) {
			continue
		}
		d = Max(d, a.unanalysable(prog+" "+name+" runs a command"))
		if v := longValue(ws, &i, val, hasEq); v != nil && v.static {
			d = Max(d, a.forbiddenIn(v.value, depth))
		}
	}
	return d
}
