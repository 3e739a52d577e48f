package execpolicy

import (
	"slices"
	"strings"
)

// tmux runs shell commands in its server, which may be the user's own,
// outside the sandbox: new-session, new-window, split-window,
// respawn-pane, run-shell, if-shell, pipe-pane and display-popup take
// one; #(CMD) in any format runs one; -c runs one as a shell's -c;
// source-file and -f read commands of tmux's own, -C reads them from
// stdin, and send-keys types into a shell. An allow rule for tmux says
// nothing of them: "tmux run-shell 'rm x'" runs rm.

// tmuxQuiet are the tmux commands that run nothing, named in full: any
// other, an abbreviation included, is unanalysable.
var tmuxQuiet = []string{"capture-pane", "capturep", "detach", "detach-client", "has", "has-session", "kill-pane",
	"kill-server", "kill-session", "kill-window", "killp", "killw", "list-buffers", "list-clients", "list-commands",
	"list-keys", "list-panes", "list-sessions", "list-windows", "ls", "lsb", "lsc", "lscm", "lsk", "lsp", "lsw",
	"rename", "rename-session", "rename-window", "renamew", "select-pane", "select-window", "selectp", "selectw",
	"show", "show-buffer", "show-environment", "show-options", "show-window-options", "showb", "showenv", "showw"}

// tmuxGlobalValue are tmux's options whose value is the next word (or
// attached); -c's is a shell command and -f's a file of tmux commands.
const tmuxGlobalValue = "LSTcf"

// tmuxArgs judges tmux's arguments (execOptions.script): every command
// not of tmuxQuiet, and every format with #(, makes the command
// unanalysable; each word is searched for forbidden commands as a script
// (run-shell CMD) and from each operand on as an argv (new-session CMD
// ARGS), and the text of each #(...) as a script.
func tmuxArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	i := 1
opts:
	for ; i < len(ws); i++ {
		v := ws[i].value
		if !ws[i].static || !strings.HasPrefix(v, "-") || v == "-" {
			break
		}
		if v == "--" {
			i++
			break
		}
		for j := 1; j < len(v); j++ {
			c := v[j]
			if c == 'C' {
				d = Max(d, a.unanalysable(prog+" -C: reads its commands from stdin"))
			}
			if strings.IndexByte(tmuxGlobalValue, c) < 0 {
				continue
			}
			value := shortValue(ws, &i, v, j)
			switch c {
			case 'c':
				d = Max(d, a.unanalysable(prog+" -c runs a command"))
				if value != nil && value.static {
					d = Max(d, a.forbiddenIn(value.value, depth))
				}
			case 'f':
				d = Max(d, a.unanalysable(prog+" -f reads commands of its own"))
			}
			continue opts
		}
	}
	if i >= len(ws) {
		return Max(d, a.unanalysable(prog+": starts a shell"))
	}
	// start: the next word is a command name.
	start := true
	for k := i; k < len(ws); k++ {
		w := ws[k]
		if !w.static {
			start = false
			continue // the command is not plain already
		}
		v := w.value
		cmd, sep := strings.CutSuffix(v, ";")
		if start && cmd != "" && !slices.Contains(tmuxQuiet, cmd) {
			d = Max(d, a.unanalysable(prog+" "+cmd+": may run a command"))
		}
		if strings.Contains(v, "#(") {
			d = Max(d, a.unanalysable(prog+": a format runs a command"))
			for _, s := range strings.Split(v, "#(")[1:] {
				d = Max(d, a.forbiddenIn(strings.TrimSuffix(s, ")"), depth))
			}
		}
		if !start || !slices.Contains(tmuxQuiet, cmd) {
			d = Max(d, a.forbiddenIn(v, depth))
		}
		start = sep || start && cmd == ""
	}
	if d > Allow {
		d = Max(d, tmuxArgvs(a, ws[i:], depth))
	}
	return d
}

// tmuxArgvs searches, from each of the first operands of ws on, the
// words that follow as an argv (new-session CMD ARGS runs CMD with ARGS).
func tmuxArgvs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	for k := 0; k < len(ws) && k < 8; k++ {
		rest := ws[k:]
		if slices.ContainsFunc(rest, func(w word) bool { return !w.static }) {
			break
		}
		argv := make([]string, len(rest))
		for j, w := range rest {
			argv[j] = strings.TrimSuffix(w.value, ";")
		}
		d = Max(d, a.forbiddenIn(QuoteArgv(argv), depth))
	}
	return d
}
