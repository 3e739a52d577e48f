package gate

// agentTerminalEnv is what a command on an agent's terminal
// (Config.AgentTerminal) runs with in place of the caller's values, set
// after the profile's env_deny (sandbox.Command.SetEnv). A pager that
// git, man or systemctl starts reads its commands from that terminal,
// which the model types into: less's "!" and "|", more's "!", run what no
// rule judged. There the pagers are cat, and a less run by name is in its
// secure mode (no shell, editor, LESSOPEN or lesskey) with nothing
// allowed back (LESSSECURE_ALLOW, less 643). A script cannot undo it: an
// assignment, unset, env -u or -i, or exec -c prompts there
// (execpolicy.EvalOptions.AgentTerminal).
var agentTerminalEnv = []string{"LESSSECURE=1", "LESSSECURE_ALLOW=", "PAGER=cat", "GIT_PAGER=cat", "MANPAGER=cat", "SYSTEMD_PAGER=cat"}
