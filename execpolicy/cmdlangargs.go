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
	// first that fits: stricter.
	abbrev bool
	// lisp: the commands are Lisp, whose string constants are what a
	// shell would run ((shell-command "CMD")).
	lisp bool
}

var (
	gdbLang = &cmdLang{
		runs:        []string{"ex", "iex", "eval-command", "init-eval-command"},
		readsValued: []string{"x", "ix", "command", "init-command"},
		runsRest:    "args",
		stdin:       true,
		batch:       []string{"batch", "batch-silent", "version", "help", "configuration"},
	}
	vimLang = &cmdLang{
		runs:        []string{"c", "cmd"},
		reads:       []string{"e", "E", "es", "Es", "s-"},
		readsValued: []string{"S", "s", "u", "U"},
		plus:        true,
		stdin:       true,
		batch:       []string{"version", "help", "h"},
	}
	// emacs --eval runs Lisp, which runs programs (shell-command,
	// call-process); -l, --script and -f run Lisp from a file or by name.
	emacsLang = &cmdLang{
		runs:        []string{"eval", "execute"},
		readsValued: []string{"l", "load", "script", "x", "f", "funcall"},
		abbrev:      true,
		lisp:        true,
	}
	// GNU ed: its only option with a value is -p PROMPT.
	edLang = &cmdLang{
		readsValued: []string{"p", "prompt"},
		stdin:       true,
		batch:       []string{"version", "help", "V", "h"},
	}
)

// gdbArgs, vimArgs, edArgs and emacsArgs are execOptions.script for gdb,
// the vi family, ed and emacs.
func gdbArgs(a *analysis, ws []word, depth int) Decision { return gdbLang.judge(a, ws, depth) }
func vimArgs(a *analysis, ws []word, depth int) Decision { return vimLang.judge(a, ws, depth) }
func edArgs(a *analysis, ws []word, depth int) Decision  { return edLang.judge(a, ws, depth) }
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
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue // the command is not plain already
		}
		v := w.value
		if v == "--" {
			return d, batch
		}
		if l.plus && strings.HasPrefix(v, "+") {
			if n := strings.TrimLeft(v[1:], "0123456789"); n != "" {
				d = Max(d, a.unanalysable(prog+" "+v+": runs a command of its own"))
				d = Max(d, a.forbiddenIn(shellPart(n), depth))
			}
			continue
		}
		if !strings.HasPrefix(v, "-") {
			continue
		}
		name, val, hasEq := strings.Cut(strings.TrimLeft(v, "-"), "=")
		name = l.option(name)
		switch {
		case slices.Contains(l.batch, name):
			batch = true
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
			longValue(ws, &i, val, hasEq)
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands of its own"))
		case slices.Contains(l.reads, name):
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands of its own"))
		}
	}
	return d, batch
}

// option returns the option of l that name (its dashes cut) stands for:
// name, or with l.abbrev the first that name abbreviates.
func (l *cmdLang) option(name string) string {
	if !l.abbrev || len(name) < 2 {
		return name
	}
	for _, opts := range [][]string{l.runs, l.readsValued, l.reads, l.batch} {
		for _, o := range opts {
			if strings.HasPrefix(o, name) {
				return o
			}
		}
	}
	return name
}

// forbiddenIn searches text, a command of l's language, for forbidden
// commands where a shell would run them.
func (l *cmdLang) forbiddenIn(a *analysis, text string, depth int) Decision {
	if !l.lisp {
		return a.forbiddenIn(shellPart(text), depth)
	}
	d := Decision(0)
	for _, s := range awkStrings(text) {
		d = Max(d, a.forbiddenIn(s, depth))
	}
	return d
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
