package execpolicy

import (
	"path"
	"slices"
)

// terminalReaders are programs that, on a terminal, take commands of
// their own from it, some of which run a shell: more's and pg's "!",
// nano's ^T, emacs's M-!, a file manager's or browser's shell escape.
// Most read no commands from stdin, so only an agent's terminal, which
// the model types into, makes them a way around the rules
// (EvalOptions.AgentTerminal); the vi family, gdb, the shells, the
// database clients, ftp and lftp read commands from stdin too ("printf
// '!CMD\n' | ftp") and prompt anyway (programExecOptions), and less and
// man there run with LESSSECURE=1 and cat as their pager.
var terminalReaders = []string{
	"elinks", "emacs", "emacs-nox", "ftp", "jed", "joe", "jpico", "jstar", "lftp", "lf", "links", "lynx", "mc", "mcedit",
	"mg", "micro", "more", "most", "mutt", "nano", "neomutt", "nnn", "pg", "pico", "ranger", "rnano", "telnet", "tig",
	"vifm", "w3m",
}

// terminalBatch are the options with which a terminal reader reads no
// keys: emacs run as a script.
var terminalBatch = []string{"--batch", "-batch", "--script", "-script"}

// readsTerminal reports whether the command ws takes commands from its
// terminal (terminalReaders); a dynamic program word is unanalysable
// already.
func readsTerminal(ws []word) bool {
	if !ws[0].static {
		return false // unanalysable already
	}
	if !slices.Contains(terminalReaders, path.Base(ws[0].value)) {
		return false
	}
	for _, w := range ws[1:] {
		if w.static && slices.Contains(terminalBatch, w.value) {
			return false
		}
	}
	return true
}
