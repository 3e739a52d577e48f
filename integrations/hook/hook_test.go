package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
)

// testEnv is a home, state and configuration of the test's own.
type testEnv struct {
	env   map[string]string
	ws    string // a git workspace
	rules string
	exe   string // stands for the gatedexec binary
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &testEnv{
		env: map[string]string{
			"HOME":                     filepath.Join(root, "home"),
			"XDG_CONFIG_HOME":          filepath.Join(root, "config"),
			"XDG_STATE_HOME":           filepath.Join(root, "state"),
			"XDG_CACHE_HOME":           filepath.Join(root, "cache"),
			"GATEDEXEC_SYSTEM_DIR":     filepath.Join(root, "etc"),
			"GATEDEXEC_NO_RULES_CACHE": "1",
		},
		ws:    filepath.Join(root, "ws"),
		rules: filepath.Join(root, "test.rules"),
		exe:   filepath.Join(root, "bin", "gx"),
	}
	for _, d := range []string{e.env["HOME"], filepath.Join(e.ws, ".git"), filepath.Dir(e.exe)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write(t, e.exe, "#!/bin/sh\n")
	write(t, e.rules, `
prefix_rule(pattern=["make"], decision="allow")
prefix_rule(pattern=["nano"], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt", justification="pushing publishes the branch")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="never delete trees")
`)
	return e
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o700); err != nil {
		t.Fatal(err)
	}
}

func (e *testEnv) config(agent Agent) Config {
	return Config{Agent: agent, Exe: e.exe, Rules: []string{e.rules}, Getenv: func(k string) string { return e.env[k] }}
}

// event reads a recorded event and puts the test's cwd and command in it.
func (e *testEnv) event(t *testing.T, name, command string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "events", name))
	if err != nil {
		t.Fatal(err)
	}
	esc := func(s string) string {
		q, _ := json.Marshal(s)
		return string(q[1 : len(q)-1])
	}
	return strings.NewReplacer("$CWD", esc(e.ws), "$COMMAND", esc(command)).Replace(string(b))
}

// registered counts the requests registered as approved in advance.
func (e *testEnv) registered(t *testing.T) int {
	ents, err := os.ReadDir(filepath.Join(e.env["XDG_STATE_HOME"], "gatedexec", "preapproved"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(ents)
}

// decoded is a hook's JSON answer.
type decoded struct {
	HookSpecificOutput struct {
		HookEventName            string
		PermissionDecision       string
		PermissionDecisionReason string
		UpdatedInput             map[string]any
	}
}

// Recorded events of both agents get the answers of DESIGN §10.
func TestHandleEvents(t *testing.T) {
	cases := []struct {
		name    string
		agent   Agent
		event   string
		command string
		// want is the permissionDecision; "" is no output at all.
		want     string
		deny     string // a substring of the denial's reason
		register bool   // the request is registered for the run
	}{
		{"allowed", ClaudeCode, "claude-bash.json", "make test", "allow", "", false},
		{"unmatched runs under on-request", ClaudeCode, "claude-bash.json", "ls -la | wc -l", "allow", "", false},
		{"prompted", ClaudeCode, "claude-bash.json", "git push origin main", "ask", "", true},
		// The rewritten run's terminal is the agent's: judged so here too.
		{"a program taking commands from its terminal", ClaudeCode, "claude-bash.json", "nano notes.txt", "ask", "", true},
		{"prompted, prompts bypassed", ClaudeCode, "claude-bash-bypass.json", "git push origin main", "ask", "", false},
		{"codex allowed", Codex, "codex-bash.json", "make", "allow", "", false},
		{"codex prompted asks gatedexec's approver", Codex, "codex-bash.json", "git push", "allow", "", false},
		{"forbidden", ClaudeCode, "claude-bash.json", "make && rm -rf build", "deny", "never delete trees", false},
		{"codex forbidden", Codex, "codex-bash.json", "rm -rf /", "deny", "rm -rf", false},
		{"pre-wrapped", ClaudeCode, "claude-bash.json", "gatedexec run --shell -- 'git push'", "deny", "runs gatedexec itself", false},
		{"pre-wrapped by path", Codex, "codex-bash.json", "$EXE run -- make", "deny", "runs gatedexec itself", false},
		{"through the dynamic loader", ClaudeCode, "claude-bash.json", "/lib64/ld-linux-x86-64.so.2 $EXE version", "deny", "runs gatedexec itself", false},
		{"through ld.so, by name", Codex, "codex-bash.json", "ld.so --library-path /x gatedexec run -- make", "deny", "runs gatedexec itself", false},
		{"the loader running another program", ClaudeCode, "claude-bash.json", "/lib64/ld-linux-x86-64.so.2 /bin/ls", "allow", "", false},
		{"wrapped in env", ClaudeCode, "claude-bash.json", "env -i gatedexec sandbox -p full-access -- make", "deny", "runs gatedexec itself", false},
		{"sets GATEDEXEC_", ClaudeCode, "claude-bash.json", "GATEDEXEC_APPROVER=exec:true make", "deny", "GATEDEXEC_", false},
		// Quoting hides the name from the text, not from the shell: the
		// names are judged as the analysis decodes them.
		{"env sets GATEDEXEC_, quoted", ClaudeCode, "claude-bash.json", "env GATEDEX''EC_APPROVER=exec:true make", "deny", "GATEDEXEC_APPROVER", false},
		{"env sets GATEDEXEC_, ANSI-C quoted", ClaudeCode, "claude-bash.json", `env $'\x47ATEDEXEC_APPROVER=exec:true' make`, "deny", "GATEDEXEC_APPROVER", false},
		{"env sets GATEDEXEC_ after another", Codex, "codex-bash.json", `env GATEDEX""EC_APPROVER=exec:true A=1 make`, "deny", "GATEDEXEC_APPROVER", false},
		{"sudo sets GATEDEXEC_", ClaudeCode, "claude-bash.json", "sudo GATEDEX''EC_X=1 make", "deny", "GATEDEXEC_X", false},
		{"export sets GATEDEXEC_, ANSI-C quoted", ClaudeCode, "claude-bash.json", `export $'\x47ATEDEXEC_APPROVER=exec:true'; make`, "deny", "GATEDEXEC_APPROVER", false},
		{"export names GATEDEXEC_ without a value", ClaudeCode, "claude-bash.json", `export A=1 GATEDE''XEC_X; make`, "deny", "GATEDEXEC_X", false},
		{"declare -x sets GATEDEXEC_, quoted", ClaudeCode, "claude-bash.json", `declare -x GATEDEX""EC_X=1; make`, "deny", "GATEDEXEC_X", false},
		{"typeset -x sets GATEDEXEC_, quoted", Codex, "codex-bash.json", `typeset -x G'ATEDEXEC_X=1'; make`, "deny", "GATEDEXEC_X", false},
		{"local -x sets GATEDEXEC_, quoted", ClaudeCode, "claude-bash.json", `f() { local -x GATEDEX\EC_X=1; make; }; f`, "deny", "GATEDEXEC_X", false},
		{"readonly sets GATEDEXEC_, ANSI-C quoted", ClaudeCode, "claude-bash.json", `readonly $'GATEDEXEC\x5fX=1'; make`, "deny", "GATEDEXEC_X", false},
		{"export through command", ClaudeCode, "claude-bash.json", `command export GATEDEX''EC_X=1; make`, "deny", "GATEDEXEC_X", false},
		{"export through eval", ClaudeCode, "claude-bash.json", `eval "export GATEDEX''EC_X=1"; make`, "deny", "GATEDEXEC_X", false},
		{"nameref to GATEDEXEC_", ClaudeCode, "claude-bash.json", `declare -n r=GATEDEX''EC_X; export r=1; make`, "deny", "GATEDEXEC_X", false},
		{"printf -v sets GATEDEXEC_", ClaudeCode, "claude-bash.json", `printf -v GATEDEX''EC_X 1; make`, "deny", "GATEDEXEC_X", false},
		{"a quoted prefix is a command word naming GATEDEXEC_", ClaudeCode, "claude-bash.json", `GATEDEX''EC_X=1 make`, "deny", "GATEDEXEC_", false},
		{"exports another variable", ClaudeCode, "claude-bash.json", `export GATEDEX=1 A_GATEDEXEC=1; make`, "ask", "", true},
		{"unknown event", ClaudeCode, "claude-posttooluse.json", "make", "deny", "only PreToolUse", false},
		{"other tool", ClaudeCode, "claude-write.json", "", "", "", false},
		{"codex other tool", Codex, "codex-apply-patch.json", "", "", "", false},
		{"claude's Bash in a codex event is still judged", Codex, "claude-bash.json", "rm -rf x", "deny", "never delete trees", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newTestEnv(t)
			command := strings.ReplaceAll(c.command, "$EXE", e.exe)
			ans := Handle(context.Background(), e.config(c.agent), strings.NewReader(e.event(t, c.event, command)))
			if c.want == "" {
				if ans.Output != nil || ans.Deny != "" {
					t.Fatalf("want no answer, got %q (deny %q)", ans.Output, ans.Deny)
				}
				return
			}
			var out decoded
			if err := json.Unmarshal(ans.Output, &out); err != nil {
				t.Fatalf("answer %q: %v", ans.Output, err)
			}
			hs := out.HookSpecificOutput
			if hs.HookEventName != "PreToolUse" || hs.PermissionDecision != c.want {
				t.Fatalf("answer %s: want %s", ans.Output, c.want)
			}
			if (ans.Deny != "") != (c.want == "deny") || !strings.Contains(ans.Deny, c.deny) {
				t.Errorf("deny %q: want one naming %q", ans.Deny, c.deny)
			}
			if got := e.registered(t); got != map[bool]int{true: 1}[c.register] {
				t.Errorf("%d requests registered, want register=%v", got, c.register)
			}
			if c.want == "deny" {
				if hs.UpdatedInput != nil {
					t.Errorf("a denial rewrote the input: %v", hs.UpdatedInput)
				}
				return
			}
			checkRewrite(t, e, hs.UpdatedInput, command)
		})
	}
}

// checkRewrite checks that input is the original tool input with its
// command replaced by a gatedexec run of the same script, in the event's
// cwd and session, with the hook's rules.
func checkRewrite(t *testing.T, e *testEnv, input map[string]any, script string) {
	t.Helper()
	cmd, _ := input["command"].(string)
	words, err := approval.SplitCommand(cmd)
	if err != nil {
		t.Fatalf("rewritten command %q: %v", cmd, err)
	}
	if len(words) < 4 || words[0] != e.exe || words[1] != "run" || words[len(words)-2] != "--" || words[len(words)-1] != script {
		t.Fatalf("rewritten command %q is not a gatedexec run of %q", cmd, script)
	}
	flags := strings.Join(words[2:len(words)-2], " ")
	for _, want := range []string{"--shell", "-C " + e.ws, "-r " + e.rules, "--session "} {
		if !strings.Contains(flags, want) {
			t.Errorf("rewritten command %q lacks %q", cmd, want)
		}
	}
	if d, ok := input["description"]; ok && d != "Run the command" {
		t.Errorf("description changed to %v", d)
	}
}

// Whatever is wrong with the input, or with the configuration, denies.
func TestHandleFailsClosed(t *testing.T) {
	e := newTestEnv(t)
	good := e.event(t, "claude-bash.json", "make")
	cases := map[string]string{
		"empty":               "",
		"truncated":           good[:len(good)/2],
		"not an object":       `["PreToolUse"]`,
		"null":                "null",
		"two events":          good + good,
		"missing session":     strings.Replace(good, `"session_id":`, `"x":`, 1),
		"missing cwd":         strings.Replace(good, `"cwd":`, `"x":`, 1),
		"relative cwd":        strings.Replace(good, e.ws, "ws", 1),
		"missing event name":  strings.Replace(good, `"hook_event_name":`, `"x":`, 1),
		"missing tool name":   strings.Replace(good, `"tool_name":`, `"x":`, 1),
		"tool_input a string": strings.Replace(good, `"tool_input":{`, `"tool_input":"x","y":{`, 1),
		"no command":          strings.Replace(good, `"command":`, `"x":`, 1),
		"command a number":    strings.Replace(good, `"command":"make"`, `"command":7`, 1),
		"command empty":       strings.Replace(good, `"command":"make"`, `"command":"  "`, 1),
		"command with NUL":    strings.Replace(good, `"command":"make"`, `"command":"make\u0000 x"`, 1),
		"cwd missing on disk": strings.Replace(good, e.ws, filepath.Join(e.ws, "gone"), 1),
		"session id a path":   strings.Replace(good, `"session_id":"`, `"session_id":"../`, 1),
		// The rewritten command is quoted for a POSIX shell; PowerShell
		// or fish would read a quote or backslash otherwise.
		"shell pwsh":         strings.Replace(good, `"command":"make"`, `"command":"make","shell":"pwsh"`, 1),
		"shell fish path":    strings.Replace(good, `"command":"make"`, `"command":"make","shell":"/usr/bin/fish"`, 1),
		"shell not a string": strings.Replace(good, `"command":"make"`, `"command":"make","shell":["bash"]`, 1),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			ans := Handle(context.Background(), e.config(ClaudeCode), strings.NewReader(in))
			if ans.Deny == "" || !strings.Contains(string(ans.Output), `"deny"`) {
				t.Errorf("answer %q, deny %q: want a denial", ans.Output, ans.Deny)
			}
		})
	}
	t.Run("shell bash", func(t *testing.T) {
		in := strings.Replace(good, `"command":"make"`, `"command":"make","shell":"/bin/bash"`, 1)
		ans := Handle(context.Background(), e.config(ClaudeCode), strings.NewReader(in))
		if ans.Deny != "" || !strings.Contains(string(ans.Output), "updatedInput") {
			t.Errorf("answer %q, deny %q: want the command rewritten for bash", ans.Output, ans.Deny)
		}
	})
	t.Run("bad rules", func(t *testing.T) {
		write(t, e.rules, `prefix_rule(pattern=["make"], decision="allow"`)
		ans := Handle(context.Background(), e.config(ClaudeCode), strings.NewReader(good))
		if ans.Deny == "" || !strings.Contains(ans.Deny, e.rules+":") {
			t.Errorf("deny %q: want a denial naming %s:line", ans.Deny, e.rules)
		}
	})
}

// A relative -r, --config or profile file given to the hook is read from
// the hook's directory; the rewritten run starts in the agent's shell,
// whose directory the model moves, so it must name the same files by
// absolute paths, never ones the model could put in its own directory.
func TestRewriteNamesFilesAbsolutely(t *testing.T) {
	e := newTestEnv(t)
	dir := filepath.Dir(e.rules)
	write(t, filepath.Join(dir, "c.toml"), "")
	write(t, filepath.Join(dir, "p.toml"), "extends = \"workspace-write\"\n")
	ev := e.event(t, "claude-bash.json", "make")
	t.Chdir(dir)
	cfg := e.config(ClaudeCode)
	cfg.Rules, cfg.ConfigFile, cfg.Profile = []string{filepath.Base(e.rules)}, "c.toml", "p.toml"
	ans := Handle(context.Background(), cfg, strings.NewReader(ev))
	var out decoded
	if err := json.Unmarshal(ans.Output, &out); err != nil || ans.Deny != "" {
		t.Fatalf("answer %q (deny %q): %v", ans.Output, ans.Deny, err)
	}
	cmd, _ := out.HookSpecificOutput.UpdatedInput["command"].(string)
	words, err := approval.SplitCommand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	flags := strings.Join(words, " ")
	for _, want := range []string{"-r " + e.rules, "--config " + filepath.Join(dir, "c.toml"), "--profile " + filepath.Join(dir, "p.toml")} {
		if !strings.Contains(flags, want) {
			t.Errorf("rewritten command %q lacks %q", cmd, want)
		}
	}
}

// A command the person is asked about must show as it runs: a carriage
// return or an escape sequence could draw "git push" over what runs.
// Codex asks nobody at its prompt (the run asks gatedexec's approver,
// which escapes what it shows): there it is rewritten as usual.
func TestAskShowsTheCommandAsItRuns(t *testing.T) {
	e := newTestEnv(t)
	for _, c := range []struct {
		agent   Agent
		command string
		deny    bool
	}{
		{ClaudeCode, "git push\n", false},
		{ClaudeCode, "touch x; git push\r", true},
		{ClaudeCode, "git push \x1b[2K\x1b[1G", true},
		{ClaudeCode, "git push \u202e", true},
		{Codex, "touch x; git push\r", false},
	} {
		file := map[Agent]string{ClaudeCode: "claude-bash.json", Codex: "codex-bash.json"}[c.agent]
		ans := Handle(context.Background(), e.config(c.agent), strings.NewReader(e.event(t, file, c.command)))
		if denied := ans.Deny != "" || strings.Contains(string(ans.Output), `"deny"`); denied != c.deny {
			t.Errorf("%v %q: answer %s (deny %q), want denied %v", c.agent, c.command, ans.Output, ans.Deny, c.deny)
		}
	}
}
