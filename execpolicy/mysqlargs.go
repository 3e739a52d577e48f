package execpolicy

import (
	"slices"
	"strings"
)

// The mysql (mariadb) client runs programs for some of its own commands,
// which it reads in the text of -e/--execute and, when not given -e, from
// stdin: "system CMD" and "\! CMD" run CMD in a shell, "pager CMD" and
// "\P CMD" pipe results to CMD, "edit" and "\e" run $EDITOR, "source F"
// and "\. F" read more commands from F. --pager=CMD names a pager,
// --defaults-file reads options (a pager among them) from a file, and
// --plugin-dir with --default-auth loads a library. An allow rule for
// mysql says nothing of them: "mysql -e 'system rm x'" runs rm, and so
// does "echo 'system rm x' | mysql" (MariaDB 10.11). --init-command is
// sent to the server as SQL: "system" there is a syntax error.

// mysqlValuedShort are mysql's short options whose value is the rest of
// the cluster or the next word; mysqlAttachedShort those whose optional
// value is only the rest of the cluster (-pSECRET, -#d:t).
const (
	mysqlValuedShort   = "DehPSu"
	mysqlAttachedShort = "p#"
)

// mysqlValuedLong are mysql's long options whose value is the next word
// when not after "=" (the optional-valued --pager, --password and --debug
// take it only after "=").
var mysqlValuedLong = []string{
	"character-sets-dir", "connect-timeout", "database", "default-auth", "default-character-set",
	"defaults-extra-file", "defaults-file", "defaults-group-suffix", "delimiter", "execute", "host",
	"init-command", "max-allowed-packet", "max-join-size", "net-buffer-length", "plugin-dir", "port",
	"prompt", "protocol", "quick-max-column-width", "select-limit", "server-arg", "socket", "ssl-ca",
	"ssl-capath", "ssl-cert", "ssl-cipher", "ssl-crl", "ssl-crlpath", "ssl-key", "tee", "tls-version", "user",
}

// mysqlLoads are the long options that read options from a file or load
// a library into the client.
var mysqlLoads = []string{"defaults-file", "defaults-extra-file", "plugin-dir", "default-auth"}

// mysqlFlagsLong are mysql's long options known to take no value: a
// batch option right after one is one.
var mysqlFlagsLong = []string{
	"abort-source-on-error", "auto-rehash", "auto-vertical-output", "batch", "binary-as-hex", "binary-mode",
	"column-names", "column-type-info", "comments", "compress", "connect-expired-password", "debug-check",
	"debug-info", "force", "html", "ignore-spaces", "line-numbers", "local-infile", "named-commands",
	"no-auto-rehash", "no-beep", "no-defaults", "one-database", "print-defaults", "print-query-on-error",
	"progress-reports", "quick", "raw", "reconnect", "safe-updates", "sandbox", "secure-auth", "show-warnings",
	"sigint-ignore", "silent", "skip-column-names", "skip-line-numbers", "ssl", "ssl-verify-server-cert",
	"table", "unbuffered", "verbose", "vertical", "wait", "xml",
}

// mysqlCommandLetters are the letters of mysql's one-letter commands: a
// backslash before one runs it anywhere outside a string (and "select 1
// \! CMD" runs CMD). Strings are not told apart here: "\n" in one is
// taken for a command, which is only stricter.
const mysqlCommandLetters = "!#-.?CGPRTWcdeghnpqrstuw"

// mysqlNamedRuns are the named commands that run a program, write a file
// or read commands from one; mysql takes them, in any case, at the start
// of a line. The others only print, set the prompt or reconnect.
var mysqlNamedRuns = []string{"edit", "pager", "source", "system", "tee"}

// mysqlArgs judges the arguments of mysql and mariadb
// (execOptions.script).
func mysqlArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	stdin := true
	// known: the word before is no option that may take the next word.
	known := true
	execute := func(v *word, after bool) {
		stdin = stdin && !after
		if v != nil && v.static {
			d = Max(d, mysqlCommand(a, prog, v.value, depth))
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			known = false
			continue // the command is not plain already
		}
		v := w.value
		after := known
		known = true
		switch {
		case v == "--":
			i = len(ws)
		case strings.HasPrefix(v, "--"):
			// my_getopt: "_" for "-", a "loose-" prefix, any unambiguous
			// prefix of a name.
			name, val, hasEq := strings.Cut(strings.ReplaceAll(v[2:], "_", "-"), "=")
			name = strings.TrimPrefix(name, "loose-")
			opt := longPrefixOf("--"+name, []string{"--execute", "--pager", "--help", "--version"})
			if opt == "" {
				opt = longPrefixOf("--"+name, prefixed("--", mysqlLoads))
			}
			switch opt = strings.TrimPrefix(opt, "--"); {
			case opt == "execute":
				execute(longValue(ws, &i, val, hasEq), after)
			case opt == "pager":
				if hasEq {
					d = Max(d, a.unanalysable(prog+" --pager: runs a command"))
					d = Max(d, a.forbiddenIn(val, depth))
				}
			case opt == "help" || opt == "version":
				stdin = stdin && !after
			case opt != "":
				d = Max(d, a.unanalysable(prog+" "+v+": loads options or a library"))
				known = hasEq
			case hasEq || slices.Contains(mysqlFlagsLong, name):
			case longPrefixOf("--"+name, prefixed("--", mysqlValuedLong)) != "":
				nextWord(ws, &i)
			default:
				known = false
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'e' {
					execute(shortValue(ws, &i, v, j), after)
					break
				}
				if strings.IndexByte(mysqlValuedShort, c) >= 0 {
					shortValue(ws, &i, v, j)
					break
				}
				if strings.IndexByte(mysqlAttachedShort, c) >= 0 {
					break
				}
				if strings.IndexByte("V?I", c) >= 0 {
					stdin = stdin && !after
				}
			}
		}
	}
	if stdin {
		d = Max(d, a.unanalysable(prog+": reads its commands from stdin"))
	}
	return d
}

// mysqlCommand judges text, the value of mysql -e: a one-letter command
// (a backslash before one of mysqlCommandLetters), a line that starts
// with one of mysqlNamedRuns, and SQL that loads a library into the
// server (SONAME) are unanalysable, and what \!, \P, system and pager
// would run is searched for forbidden commands.
func mysqlCommand(a *analysis, prog, text string, depth int) Decision {
	d := Decision(0)
	for rest := text; ; {
		i := strings.IndexByte(rest, '\\')
		if i < 0 || i+1 >= len(rest) {
			break
		}
		c := rest[i+1]
		rest = rest[i+2:]
		if strings.IndexByte(mysqlCommandLetters, c) < 0 {
			continue
		}
		d = Max(d, a.unanalysable(prog+" -e: \\"+string(c)+" is a command of mysql's own"))
		if c == '!' || c == 'P' {
			line, _, _ := strings.Cut(rest, "\n")
			d = Max(d, a.forbiddenIn(line, depth))
		}
	}
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(line, " \t\r\v\f")
		for _, name := range mysqlNamedRuns {
			if len(t) < len(name) || !strings.EqualFold(t[:len(name)], name) {
				continue
			}
			d = Max(d, a.unanalysable(prog+" -e: "+name+" is a command of mysql's own"))
			// mysql runs what follows the first space; the name may end
			// at a tab before it.
			_, afterSpace, _ := strings.Cut(t, " ")
			d = Max(d, a.forbiddenIn(t[len(name):], depth))
			d = Max(d, a.forbiddenIn(afterSpace, depth))
		}
	}
	if hasSQLWord(text, "soname") {
		d = Max(d, a.unanalysable(prog+" -e: SONAME loads a library into the server"))
	}
	return d
}

// prefixed returns names, each with p before it.
func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}
