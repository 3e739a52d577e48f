package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/integrations"
)

// Agent is the agent whose event is answered.
type Agent string

// The agents a hook answers.
const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
)

// ParseAgent returns the agent named s.
func ParseAgent(s string) (Agent, error) {
	switch a := Agent(s); a {
	case ClaudeCode, Codex:
		return a, nil
	}
	return "", fmt.Errorf("unknown agent %q (want claude-code or codex)", s)
}

// shellTools are the tool names whose tool_input.command is a shell
// script. Claude Code's shell tool is Bash; Codex reports its shell tools
// (shell, exec_command, unified exec) as Bash in hook events too, and
// the internal names are judged as well should an event carry one.
// A function rather than a map, which every start of gatedexec would
// build.
func shellTools(a Agent) []string {
	switch a {
	case ClaudeCode:
		return []string{"Bash"}
	case Codex:
		return []string{"Bash", "shell", "shell_command", "exec_command", "local_shell", "unified_exec"}
	}
	return nil
}

// Config is how the hook reads the configuration and writes the run that
// replaces a command. The rewritten run gets the same settings, so that
// it reaches the decision the hook reached.
type Config struct {
	Agent Agent
	// Exe is the absolute path of gatedexec, which the rewritten command
	// runs.
	Exe string
	// Rules, ConfigFile, ApprovalPolicy and Profile are the -r, --config,
	// --approval-policy and --profile values given to the hook.
	Rules          []string
	ConfigFile     string
	ApprovalPolicy string
	Profile        string
	// Getenv reads the environment; nil is os.Getenv.
	Getenv  func(string) string
	Version string
}

// Answer is the hook's answer to one event.
type Answer struct {
	// Output is written to stdout; nil passes the tool call through
	// untouched (another tool than a shell).
	Output []byte
	// Deny, when set, denies the tool call: the hook prints it on stderr,
	// where the agent shows it to the model, and exits 2.
	Deny string
}

// output is the JSON answer of a PreToolUse hook.
type output struct {
	HookSpecificOutput specific `json:"hookSpecificOutput"`
}

type specific struct {
	HookEventName            string                     `json:"hookEventName"`
	PermissionDecision       string                     `json:"permissionDecision"`
	PermissionDecisionReason string                     `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             map[string]json.RawMessage `json:"updatedInput,omitempty"`
}

// Handle answers the PreToolUse event read from in. It never fails: an
// error of any kind is a denial naming it.
func Handle(ctx context.Context, cfg Config, in io.Reader) Answer {
	ans, err := handle(ctx, cfg, in)
	if err != nil {
		return deny("gatedexec: hook: " + err.Error() + " (denied: the hook never lets a command it could not judge run)")
	}
	return ans
}

func handle(ctx context.Context, cfg Config, in io.Reader) (Answer, error) {
	cfg, err := cfg.absolute()
	if err != nil {
		return Answer{}, err
	}
	ev, err := parseEvent(in)
	if err != nil {
		return Answer{}, err
	}
	if !slices.Contains(shellTools(cfg.Agent), ev.ToolName) {
		return Answer{}, nil
	}
	si, err := ev.shell()
	if err != nil {
		return Answer{}, err
	}
	// The rewritten run takes it as --session, which must accept it.
	if err := gate.CheckSessionID(ev.SessionID); err != nil {
		return Answer{}, fmt.Errorf("session_id: %w", err)
	}
	pl, err := gate.ResolvePlace(ev.Cwd, "")
	if err != nil {
		return Answer{}, err
	}
	g, err := gate.New(gate.Config{
		Workspace: pl.Workspace,
		Rules:     cfg.Rules,
		Flags:     gate.Flags{ConfigFile: cfg.ConfigFile, ApprovalPolicy: cfg.ApprovalPolicy, Profile: cfg.Profile},
		Getenv:    cfg.Getenv,
		Version:   cfg.Version,
		// As the rewritten run (--agent-terminal) will judge it.
		AgentTerminal: true,
	})
	if err != nil {
		return Answer{}, err
	}
	defer g.Close()
	req := gate.Request{Argv: []string{si.command}, Shell: true, Cwd: pl.Cwd, Session: ev.SessionID}
	chk, err := g.Check(ctx, req)
	if err != nil {
		return Answer{}, err
	}
	if why := integrations.SelfInvocation(si.command, chk, cfg.Exe); why != "" {
		return deny("gatedexec: " + why), nil
	}
	if chk.Action == gate.ActionDeny {
		return deny("gatedexec: " + denyReason(chk)), nil
	}
	if chk.Action == gate.ActionAsk && cfg.Agent == ClaudeCode {
		// The person is shown the rewritten command and answers for it:
		// it must show as it runs.
		if what := integrations.Unshown(si.command); what != "" {
			return deny("gatedexec: the command holds " + what + ", which would show it at the prompt otherwise than it runs; write it without"), nil
		}
	}
	if chk.Action == gate.ActionAsk {
		// Registered when the agent puts the question to the person;
		// otherwise a registration left from an earlier question about
		// the same request, which the person refused, is removed, so
		// that it cannot approve this run. Judged again either way: a
		// rules edit in between is the one the request id binds.
		settle := g.Unregister
		if cfg.registers(ev.PermissionMode) {
			settle = g.Register
		}
		reg, err := settle(ctx, req)
		if err != nil {
			return Answer{}, err
		}
		if chk = reg.CheckResult; chk.Action != gate.ActionAsk {
			return Answer{}, errors.New("the rules changed while the command was judged")
		}
	}
	input, err := si.with(cfg.runCommand(pl.Cwd, ev.SessionID, si.command))
	if err != nil {
		return Answer{}, err
	}
	decision, reason := "allow", "gatedexec: "+chk.Decision.String()+" ("+reasons(chk)+"); runs in the sandbox through gatedexec run"
	if chk.Action == gate.ActionAsk {
		reason = "gatedexec: approval needed (" + reasons(chk) + "); runs in the sandbox through gatedexec run"
		// Codex parses "ask" but does not support it, and a hook answer
		// it does not support lets the command run as it was: the
		// rewritten run asks gatedexec's own approver instead.
		if cfg.Agent == ClaudeCode {
			decision = "ask"
		}
	}
	out, err := marshal(output{specific{HookEventName: "PreToolUse", PermissionDecision: decision, PermissionDecisionReason: reason, UpdatedInput: input}})
	if err != nil {
		return Answer{}, err
	}
	return Answer{Output: append(out, '\n')}, nil
}

// absolute returns cfg with its rules, config and profile file paths
// made absolute from the hook's working directory, where the hook reads
// them. The rewritten run starts in the agent's shell, whose directory
// the model moves (cd in Claude Code's shell, workdir in Codex's
// exec_command): a relative path written into it would name a file there,
// which the model can write, and the run would be gated by rules the hook
// never read.
func (cfg Config) absolute() (Config, error) {
	abs := func(what, p string) (string, error) {
		if p == "" || filepath.IsAbs(p) {
			return p, nil
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", what, p, err)
		}
		return a, nil
	}
	rules := make([]string, len(cfg.Rules))
	var err error
	for i, r := range cfg.Rules {
		if rules[i], err = abs("rules", r); err != nil {
			return cfg, err
		}
	}
	cfg.Rules = rules
	if cfg.ConfigFile, err = abs("config", cfg.ConfigFile); err != nil {
		return cfg, err
	}
	if gate.IsProfileFile(cfg.Profile) {
		if cfg.Profile, err = abs("profile", cfg.Profile); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// registers says whether an "ask" answer registers the request as
// approved for the run: only when the agent asks the person itself
// (Claude Code, in a mode that prompts). A mode that skips prompts
// (bypassPermissions), denies them (dontAsk) or is unknown registers
// nothing, and the run asks gatedexec's own approver.
func (cfg Config) registers(mode string) bool {
	if cfg.Agent != ClaudeCode {
		return false
	}
	switch mode {
	case "", "default", "acceptEdits", "plan":
		return true
	}
	return false
}

// runCommand is the command line that replaces script: a gatedexec run
// of the same script, in the event's cwd and session, with the hook's
// settings, quoted for the agent's shell. --agent-terminal: a terminal
// the run has is the agent's, where the model types (Codex's exec_command
// with tty), so gatedexec's approver may never be the tty prompt.
func (cfg Config) runCommand(cwd, session, script string) string {
	words := []string{cfg.Exe, "run", "--agent-terminal", "--shell", "--session", session, "-C", cwd}
	for _, r := range cfg.Rules {
		words = append(words, "-r", r)
	}
	for _, f := range [][2]string{{"--config", cfg.ConfigFile}, {"--approval-policy", cfg.ApprovalPolicy}, {"--profile", cfg.Profile}} {
		if f[1] != "" {
			words = append(words, f[0], f[1])
		}
	}
	words = append(words, "--", script)
	for i, w := range words {
		words[i] = quote(w)
	}
	return strings.Join(words, " ")
}

// quote quotes s as one word for a POSIX shell (bash, zsh).
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// denyReason says why the policy denies: the rules and justifications
// that forbade the command, else the approval policy's refusal.
func denyReason(chk *gate.CheckResult) string {
	if chk.Decision.String() != "forbidden" {
		return "denied by the approval policy (" + reasons(chk) + ")"
	}
	var parts []string
	for _, r := range chk.Reasons {
		if string(r.Kind) == "rule" || string(r.Kind) == "dangerous" {
			parts = append(parts, r.Detail)
		}
	}
	for _, c := range chk.Commands {
		for _, m := range c.MatchedRules {
			if m.Decision.String() == "forbidden" && m.Justification != "" && !slices.Contains(parts, m.Justification) {
				parts = append(parts, m.Justification)
			}
		}
	}
	if len(parts) == 0 {
		parts = []string{reasons(chk)}
	}
	return "forbidden: " + strings.Join(parts, "; ")
}

// reasons lists the decision's reasons and the justifications of the
// rules that gave it.
func reasons(chk *gate.CheckResult) string {
	var parts []string
	for _, r := range chk.Reasons {
		parts = append(parts, string(r.Kind)+": "+r.Detail)
	}
	for _, c := range chk.Commands {
		for _, m := range c.MatchedRules {
			if m.Decision == chk.Decision && m.Justification != "" && !slices.Contains(parts, m.Justification) {
				parts = append(parts, m.Justification)
			}
		}
	}
	if len(parts) == 0 {
		return chk.Decision.String()
	}
	return strings.Join(parts, "; ")
}

// deny is the answer denying the tool call for reason.
func deny(reason string) Answer {
	out, err := marshal(output{specific{HookEventName: "PreToolUse", PermissionDecision: "deny", PermissionDecisionReason: reason}})
	if err != nil {
		out = nil
	}
	return Answer{Output: append(out, '\n'), Deny: reason}
}
