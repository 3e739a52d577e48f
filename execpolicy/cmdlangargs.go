package execpolicy

import (
	"slices"
	"strings"
)

// gdb and the vi family read commands of their own language from their
// arguments, and that language runs shell commands (gdb's "shell CMD" and
// "!CMD", vim's ":!CMD", "silent !CMD", system()). An allow rule for the
// program says nothing about those.

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
}

var (
	gdbLang = &cmdLang{
		runs:        []string{"ex", "iex", "eval-command", "init-eval-command"},
		readsValued: []string{"x", "ix", "command", "init-command"},
		runsRest:    "args",
	}
	vimLang = &cmdLang{
		runs:        []string{"c", "cmd"},
		reads:       []string{"e", "E", "es", "Es", "s-"},
		readsValued: []string{"S", "s", "u", "U"},
		plus:        true,
	}
)

// gdbArgs and vimArgs are execOptions.script for gdb and the vi family.
func gdbArgs(a *analysis, ws []word, depth int) Decision { return gdbLang.judge(a, ws, depth) }
func vimArgs(a *analysis, ws []word, depth int) Decision { return vimLang.judge(a, ws, depth) }

// judge makes each command-language option unanalysable and searches its
// text, past what introduces a shell command there, for forbidden
// commands.
func (l *cmdLang) judge(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue // the command is not plain already
		}
		v := w.value
		if v == "--" {
			return d
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
		switch {
		case name == l.runsRest && name != "":
			d = Max(d, a.unanalysable(prog+" "+v+": starts a program"))
			if rest := joinWords(ws[i+1:]); rest.static {
				d = Max(d, a.forbiddenIn(rest.value, depth))
			}
			return d
		case slices.Contains(l.runs, name):
			d = Max(d, a.unanalysable(prog+" "+v+": runs a command of its own"))
			if text := longValue(ws, &i, val, hasEq); text != nil && text.static {
				d = Max(d, a.forbiddenIn(shellPart(text.value), depth))
			}
		case slices.Contains(l.readsValued, name):
			longValue(ws, &i, val, hasEq)
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands of its own"))
		case slices.Contains(l.reads, name):
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands of its own"))
		}
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
