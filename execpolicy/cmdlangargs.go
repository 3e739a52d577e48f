package execpolicy

import (
	"slices"
	"strings"
)

// gdb, ed and the vi family read commands of their own language from
// their arguments and from stdin, and that language runs shell commands
// (gdb's "shell CMD" and "!CMD", ed's "!CMD", vim's ":!CMD", "silent
// !CMD", system()). An allow rule for the program says nothing about
// those: "echo 'shell rm x' | gdb" runs rm.

// cmdLang describes the arguments of such a program.
type cmdLang struct {
	// runs are the options whose value is a command of the program's
	// language, with one or two dashes, the value attached after "=" or
	// in the next word.
	runs []string
	// reads are the options that read commands from elsewhere (a file,
	// stdin), with their value in the next word when valued.
	reads, readsValued []string
	// plus: "+CMD" is a command (vim), "+" alone or "+N" a line number.
	plus bool
	// runsRest: the option after which the rest of the arguments is a
	// program the debugger starts (gdb --args PROG ...).
	runsRest string
	// stdin: the program reads its commands (or, for the vi family, its
	// keys) from stdin unless one of the options of batch is given. What
	// a pipe, a heredoc or the caller feeds it is not seen, as for a
	// shell reading stdin.
	stdin bool
	batch []string
	// abbrev: an option may be given as any prefix of its name of two
	// letters or more (emacs --ev). An ambiguous one is taken for the
	// first that fits: stricter. longAbbrev: only an option given with
	// two dashes may, as getopt_long reads them (lftp --rc FILE), a word
	// with one dash being a cluster of letters.
	abbrev, longAbbrev bool
	// lisp: the commands are Lisp, whose string constants are what a
	// shell would run ((shell-command "CMD")).
	lisp bool
	// flags are the options known to take no value: a batch option right
	// after one is one. After any other option it may be that option's
	// value (gdb -d --version reads stdin with the directory
	// "--version"), and does not count.
	flags []string
	// shortRuns and shortReads are the letters of a cluster of short
	// options (vim -nc CMD) that run the rest of the cluster or the next
	// word, or read commands from a file named so; shortValued those that
	// take a value so. Without shortRuns every option word is one option.
	shortRuns, shortReads, shortValued string
	// bangFile: a file operand "!CMD" is the output of CMD (ed).
	bangFile bool
	// shellLines are the marks after which the rest of a line is a shell
	// command wherever the mark is in the line: lftp's "!" after "open
	// h;" and its "|" piping a command's output to a shell command, which
	// shellPart, looking at the start of the text only, misses.
	shellLines []string
}

var (
	// gdb reads its options with getopt_long_only: one dash or two, any
	// unambiguous prefix (-ev is -eval-command).
	gdbLang = &cmdLang{
		runs:        []string{"ex", "iex", "eval-command", "init-eval-command"},
		readsValued: []string{"x", "ix", "command", "init-command"},
		runsRest:    "args",
		stdin:       true,
		batch:       []string{"batch", "batch-silent", "version", "help", "configuration"},
		abbrev:      true,
		flags: []string{"q", "quiet", "silent", "nx", "n", "nh", "nw", "nowindows", "readnow", "readnever",
			"write", "tui", "return-child-result"},
	}
	// vim reads a cluster of one-letter options (-nR), -c with its command
	// attached (-c!CMD) or in the next word; --remote-send and
	// --remote-expr run keys and expressions in another, running vim.
	vimLang = &cmdLang{
		runs:        []string{"c", "cmd", "remote-send", "remote-expr"},
		reads:       []string{"e", "E", "es", "Es", "s-", "l", "ll"},
		readsValued: []string{"S", "s", "u", "U"},
		plus:        true,
		stdin:       true,
		batch:       []string{"version", "help", "h"},
		flags: []string{"v", "e", "E", "d", "y", "R", "Z", "m", "M", "b", "C", "N", "D", "n", "r", "L", "A", "H", "x",
			"clean", "noplugin", "not-a-term", "ttyfail", "literal", "nofork", "headless"},
		shortRuns:   "c",
		shortReads:  "SsuU",
		shortValued: "TtiwWq",
	}
	// emacs --eval runs Lisp, which runs programs (shell-command,
	// call-process); -l, --script and -f run Lisp from a file or by name.
	emacsLang = &cmdLang{
		runs:        []string{"eval", "execute"},
		readsValued: []string{"l", "load", "script", "x", "f", "funcall"},
		abbrev:      true,
		lisp:        true,
	}
	// GNU ed: its only option with a value is -p PROMPT; a file "!CMD" is
	// read from CMD's output.
	edLang = &cmdLang{
		readsValued: []string{"p", "prompt"},
		stdin:       true,
		batch:       []string{"version", "help", "V", "h"},
		flags:       []string{"G", "traditional", "l", "loose-exit-status", "r", "restricted", "s", "quiet", "silent", "v", "verbose", "E", "extended-regexp"},
		bangFile:    true,
	}
	// ftp (tnftp, netkit's) reads its commands from stdin, and "!CMD"
	// among them runs CMD in a shell; -N names a netrc file whose "macdef
	// init" macro runs on login, and -o an output file that is a pipe to
	// a shell command when it starts with "|".
	ftpLang = &cmdLang{
		runs:        []string{"o"},
		readsValued: []string{"N"},
		stdin:       true,
		shellLines:  []string{"|"},
	}
	// lftp runs the commands of -c and exits, runs -e's before reading
	// stdin, reads them from -f and --rcfile files; "!CMD", and
	// "CMD | SHELLCMD", run shell commands. It reads its options with
	// getopt_long (-dc CMD is -d -c CMD).
	lftpLang = &cmdLang{
		runs:        []string{"c", "e"},
		readsValued: []string{"f", "rcfile"},
		stdin:       true,
		batch:       []string{"version", "help", "v", "h"},
		longAbbrev:  true,
		flags:       []string{"d", "norc"},
		shortRuns:   "ce",
		shortReads:  "f",
		shortValued: "ups",
		shellLines:  []string{"!", "|"},
	}
)

// gdbArgs, vimArgs, edArgs, ftpArgs, lftpArgs and emacsArgs are
// execOptions.script for gdb, the vi family, ed, ftp, lftp and emacs.
func gdbArgs(a *analysis, ws []word, depth int) Decision  { return gdbLang.judge(a, ws, depth) }
func vimArgs(a *analysis, ws []word, depth int) Decision  { return vimLang.judge(a, ws, depth) }
func edArgs(a *analysis, ws []word, depth int) Decision   { return edLang.judge(a, ws, depth) }
func ftpArgs(a *analysis, ws []word, depth int) Decision  { return ftpLang.judge(a, ws, depth) }
func lftpArgs(a *analysis, ws []word, depth int) Decision { return lftpLang.judge(a, ws, depth) }
func emacsArgs(a *analysis, ws []word, depth int) Decision {
	return emacsLang.judge(a, ws, depth)
}

// judge makes each command-language option unanalysable and searches its
// text, past what introduces a shell command there, for forbidden
// commands; and makes the command unanalysable when it reads stdin.
func (l *cmdLang) judge(a *analysis, ws []word, depth int) Decision {
	d, batch := l.options(a, ws, depth)
	if l.stdin && !batch {
		d = Max(d, a.unanalysable(ws[0].value+": reads its commands from stdin"))
	}
	return d
}

// options judges the options of ws (see judge) and says whether one of
// them is of l.batch.
func (l *cmdLang) options(a *analysis, ws []word, depth int) (d Decision, batch bool) {
	prog := ws[0].value
	// known: the word before is no option that may take the next word.
	known := true
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			known = false
			continue // the command is not plain already
		}
		v := w.value
		after := known
		known = true
		if v == "--" {
			return d, batch
		}
		if l.plus && strings.HasPrefix(v, "+") {
			if n := strings.TrimLeft(v[1:], "0123456789"); n != "" {
				d = Max(d, a.unanalysable(prog+" "+v+": runs a command of its own"))
				d = Max(d, l.forbiddenIn(a, n, depth))
			}
			continue
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			if l.bangFile && strings.HasPrefix(v, "!") {
				d = Max(d, a.unanalysable(prog+" "+v+": reads the output of a command"))
				d = Max(d, a.forbiddenIn(v[1:], depth))
			}
			continue
		}
		name, val, hasEq := strings.Cut(strings.TrimLeft(v, "-"), "=")
		name = l.option(name, strings.HasPrefix(v, "--"))
		switch {
		case slices.Contains(l.batch, name):
			// Only an option: after one that may take a value, it may be
			// that value.
			batch = batch || after
		case name == l.runsRest && name != "":
			d = Max(d, a.unanalysable(prog+" "+v+": starts a program"))
			if rest := joinWords(ws[i+1:]); rest.static {
				d = Max(d, a.forbiddenIn(rest.value, depth))
			}
			return d, batch
		case slices.Contains(l.runs, name):
			d = Max(d, a.unanalysable(prog+" "+v+": runs a command of its own"))
			if text := longValue(ws, &i, val, hasEq); text != nil && text.static {
				d = Max(d, l.forbiddenIn(a, text.value, depth))
			}
		case slices.Contains(l.readsValued, name):
			// The file is not skipped: were it no value of the option
			// (vim -S alone), the next word is judged as what it is.
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands of its own"))
			known = hasEq
		case slices.Contains(l.reads, name):
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands of its own"))
		case slices.Contains(l.flags, name):
		case l.shortRuns != "" && !strings.HasPrefix(v, "--"):
			d = Max(d, l.cluster(a, ws, &i, depth))
			known = false
		default:
			known = false
		}
	}
	return d, batch
}

// cluster judges ws[*i], a cluster of l's one-letter options, up to its
// first option that takes a value: the rest of the cluster, or the next
// word.
func (l *cmdLang) cluster(a *analysis, ws []word, i *int, depth int) Decision {
	prog, v := ws[0].value, ws[*i].value
	for j := 1; j < len(v); j++ {
		c := v[j]
		switch {
		case strings.IndexByte(l.shortRuns, c) >= 0:
			d := a.unanalysable(prog + " " + v + ": runs a command of its own")
			if text := shortValue(ws, i, v, j); text != nil && text.static {
				d = Max(d, l.forbiddenIn(a, text.value, depth))
			}
			return d
		case strings.IndexByte(l.shortReads, c) >= 0:
			return a.unanalysable(prog + " " + v + ": reads commands of its own")
		case strings.IndexByte(l.shortValued, c) >= 0:
			// Its value is not skipped: a word that may be one is judged
			// as an option too, which is only stricter.
			return 0
		}
	}
	return 0
}

// option returns the option of l that name (its dashes cut, two when
// long) stands for: name, or with l.abbrev (l.longAbbrev and long) the
// first that name abbreviates.
func (l *cmdLang) option(name string, long bool) string {
	if !(l.abbrev || l.longAbbrev && long) || len(name) < 2 {
		return name
	}
	lists := [][]string{l.runs, {l.runsRest}, l.readsValued, l.reads, l.batch, l.flags}
	for _, opts := range lists {
		if slices.Contains(opts, name) {
			return name
		}
	}
	for _, opts := range lists {
		for _, o := range opts {
			if strings.HasPrefix(o, name) {
				return o
			}
		}
	}
	return name
}

// forbiddenIn searches text, a command of l's language, for forbidden
// commands where a shell would run them: past what introduces a shell
// command, and in its string constants (vim's system("CMD"), gdb's
// python os.system("CMD"), Lisp's (shell-command "CMD")).
func (l *cmdLang) forbiddenIn(a *analysis, text string, depth int) Decision {
	d := Decision(0)
	if !l.lisp {
		d = a.forbiddenIn(shellPart(text), depth)
	}
	for _, mark := range l.shellLines {
		for line := range linesAfter(text, mark) {
			d = Max(d, a.forbiddenIn(line, depth))
		}
	}
	for _, s := range quotedStrings(text, !l.lisp) {
		d = Max(d, a.forbiddenIn(s, depth))
	}
	return d
}

// quotedStrings returns the string constants of text in double quotes
// (see awkStrings) and, with single, in single quotes too, taken as they
// stand.
func quotedStrings(text string, single bool) []string {
	out := awkStrings(text)
	for single {
		open := strings.IndexByte(text, '\'')
		if open < 0 {
			break
		}
		s, rest, ok := strings.Cut(text[open+1:], "'")
		out = append(out, s)
		if !ok {
			break
		}
		text = rest
	}
	return out
}

// shellPart returns what a command of gdb's or vim's language would run
// in a shell: the text after "shell", "!" or "silent!" (and vim's ":"),
// or the whole text, searched anyway: a forbidden command named anywhere
// in it is reason enough to refuse.
func shellPart(text string) string {
	t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(text), ":"))
	for _, p := range []string{"silent!", "silent", "shell", "!"} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "!"))
			break
		}
	}
	return t
}
