package gate

import "strings"

// agentTerminalEnv is what a command on an agent's terminal
// (Config.AgentTerminal) runs with in place of the caller's values. A
// pager that git, man or systemctl starts reads its commands from that
// terminal, which the model types into: less's "!" and "|", more's "!",
// run what no rule judged. There the pagers are cat, and a less run by
// name is in its secure mode (no shell, editor, LESSOPEN or lesskey). A
// script cannot undo it: an assignment, unset or env -u of a variable is
// unanalysable, and prompts.
var agentTerminalEnv = []string{"LESSSECURE=1", "PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "SYSTEMD_PAGER=cat"}

// withAgentTerminalEnv returns env with agentTerminalEnv in place of its
// own values of those names: getenv(3) takes the first of a name.
func withAgentTerminalEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(agentTerminalEnv))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !setsAgentTerminalVar(name) {
			out = append(out, kv)
		}
	}
	return append(out, agentTerminalEnv...)
}

func setsAgentTerminalVar(name string) bool {
	for _, kv := range agentTerminalEnv {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}
