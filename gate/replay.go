package gate

import (
	"io"
	"os"

	"github.com/gatedexec/gatedexec/auditlog"
	"github.com/gatedexec/gatedexec/execpolicy"
)

// Replayed is one recorded decision judged again under new rules.
type Replayed struct {
	File  string   `json:"file"`
	Line  int      `json:"line"`
	Argv  []string `json:"argv"`
	Shell bool     `json:"shell,omitempty"`
	// AgentTerminal says the record was judged, and so is judged again,
	// as on an agent's terminal.
	AgentTerminal bool   `json:"agent_terminal,omitempty"`
	Recorded      string `json:"recorded"`
	Now           string `json:"now"`
	// Change is "same", "stricter" or "looser".
	Change string `json:"change"`
}

// ReplaySummary counts the decisions replayed by how they changed.
type ReplaySummary struct {
	Decisions int `json:"decisions"`
	Same      int `json:"same"`
	Stricter  int `json:"stricter"`
	Looser    int `json:"looser"`
}

// Replay judges every decision recorded in logs ("-" is stdin) under the
// rules files rules alone, as run would judge the same argv, and calls fn
// for each; lines that are not records go to bad. Only the rules are
// replayed: the approval policy and the sandbox of the time are not. A
// record says how its command was judged (a --shell script, on an agent's
// terminal), and it is judged the same way again: else a command that an
// agent's terminal made a prompt would show as looser under the very
// rules that judged it. The logs are only read. A bad rules file is
// ErrConfig.
func Replay(rules []string, logs []string, stdin io.Reader, fn func(Replayed), bad func(auditlog.Problem)) (ReplaySummary, error) {
	var sum ReplaySummary
	home, _ := os.UserHomeDir()
	p, err := (&execpolicy.Loader{HomeDir: home}).LoadFiles(rules...)
	if err != nil {
		return sum, configErr(err)
	}
	each := func(e *auditlog.Entry) error {
		r := &e.Record
		was, ok := severity(r.Decision)
		if !r.IsDecision() || (r.Kind != "" && r.Kind != "exec") || len(r.Argv) == 0 || !ok {
			return nil
		}
		ev := p.Evaluate(r.Argv, execpolicy.EvalOptions{Shell: r.Shell, AgentTerminal: r.AgentTerminal})
		out := Replayed{File: e.File, Line: e.Line, Argv: r.Argv, Shell: r.Shell, AgentTerminal: r.AgentTerminal, Recorded: r.Decision, Now: ev.Decision.String(), Change: "same"}
		sum.Decisions++
		switch now, _ := severity(out.Now); {
		case now > was:
			out.Change = "stricter"
			sum.Stricter++
		case now < was:
			out.Change = "looser"
			sum.Looser++
		default:
			sum.Same++
		}
		fn(out)
		return nil
	}
	return sum, auditlog.ScanFiles(logs, stdin, each, bad)
}

// severity ranks a recorded decision: allow < prompt < forbidden.
func severity(d string) (int, bool) {
	switch d {
	case "allow":
		return 1, true
	case "prompt":
		return 2, true
	case "forbidden":
		return 3, true
	}
	return 0, false
}
