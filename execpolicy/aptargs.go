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
	for opt, v := range aptOptions.options(ws) {
		switch opt {
		case "-o", "--option":
			option(v)
		case "-c", "--config-file":
			d = Max(d, a.unanalysable(prog+" -c: a configuration file may set a command apt runs"))
		}
	}
	return d
}

// aptOptions are apt's options that take a value: its long ones in full,
// but in any case, as apt's CommandLine::Parse compares names with
// stringcasecmp (--OPTION, --Config-File).
var aptOptions = getopt{valued: "octaP", long: []string{"--option", "--config-file"}, fold: true, exact: true}

// dpkgOptions are dpkg's options whose value is a command it runs
// through a shell; dpkg takes them only in full.
var dpkgOptions = getopt{long: []string{"--pre-invoke", "--post-invoke", "--status-logger"}, exact: true}

// dpkgArgs judges dpkg's arguments (execOptions.script): "dpkg
// --pre-invoke=./x --configure -a", --post-invoke and --status-logger,
// with the value attached or the next word, ran x (dpkg 1.21.22) while
// judged allow.
func dpkgArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for opt, v := range dpkgOptions.options(ws) {
		if opt == "" {
			continue
		}
		d = Max(d, a.unanalysable(prog+" "+opt+" runs a command"))
		if v != nil && v.static {
			d = Max(d, a.forbiddenIn(v.value, depth))
		}
	}
	return d
}
