package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// who is a caller of gatedexec the isolation suite runs as.
type who struct {
	name string
	// fixture returns the fixture and the probe that caller can run.
	fixture func(t *testing.T, probe string) (fixture, string)
}

var callers = []who{
	{"root", func(t *testing.T, probe string) (fixture, string) {
		if os.Geteuid() != 0 {
			t.Skip("not root: the unprivileged run covers this caller")
		}
		return newFixture(t), probe
	}},
	{"unprivileged", unprivileged},
}

// requireIsolation skips (outside CI) when the host cannot give a PID
// namespace, which every restricted profile needs.
func requireIsolation(t *testing.T) {
	t.Helper()
	requireFeature(t, doctor(t).Host.PIDNS, "PID namespaces")
}

// TestIsolationCapabilities: a restricted command holds no capability, also
// as root, and the kernel itself refuses what they would allow.
func TestIsolationCapabilities(t *testing.T) {
	requireIsolation(t)
	probe := buildProbe(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, probe := c.fixture(t, probe)
			netOn := writeProfile(t, f, "net-on.toml", "extends = \"workspace-write\"\n[network]\nmode = \"on\"\n")
			for _, prof := range restricted {
				t.Run(prof+"/no-caps", func(t *testing.T) {
					out, code := f.sandboxed(t, prof, probe, "nocaps")
					expectProbe(t, out, code, true)
				})
				t.Run(prof+"/chroot", func(t *testing.T) {
					out, code := f.sandboxed(t, prof, probe, "chroot")
					expectProbe(t, out, code, false)
				})
				t.Run(prof+"/setuid", func(t *testing.T) {
					out, code := f.sandboxed(t, prof, probe, "setuid")
					expectProbe(t, out, code, false)
				})
			}
			// With network on, seccomp allows the socket: only the
			// missing CAP_NET_RAW can refuse it.
			t.Run("raw-socket-network-on", func(t *testing.T) {
				out, code := f.sandboxed(t, netOn, probe, "raw-socket")
				expectProbe(t, out, code, false)
			})
			if c.name == "root" {
				// Positive controls: as root, outside the sandbox and
				// under full-access, the same calls work.
				for _, op := range []string{"chroot", "setuid", "raw-socket"} {
					if out, err := exec.Command(probe, op).CombinedOutput(); err != nil {
						t.Errorf("control: %s outside the sandbox as root: %v\n%s", op, err, out)
					}
				}
				out, code := f.sandboxed(t, "full-access", probe, "nocaps")
				expectProbe(t, out, code, false)
			}
		})
	}
}

// TestIsolationProcesses: the command sees and reaches no process but its
// own tree, and nothing of it outlives the run.
func TestIsolationProcesses(t *testing.T) {
	requireIsolation(t)
	probe := buildProbe(t)
	outsider := exec.Command("sleep", "60")
	outsider.Env = []string{"OUTSIDER_SECRET=hunter2"}
	if err := outsider.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { outsider.Process.Kill(); outsider.Wait() }()
	pid := strconv.Itoa(outsider.Process.Pid)
	self := strconv.Itoa(os.Getpid())
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, probe := c.fixture(t, probe)
			for _, prof := range restricted {
				t.Run(prof, func(t *testing.T) {
					for _, target := range []string{pid, self} {
						out, code := f.sandboxed(t, prof, probe, "environ", target)
						expectProbe(t, out, code, false)
						out, code = f.sandboxed(t, prof, probe, "kill0", target)
						expectProbe(t, out, code, false)
					}
					out, code := f.sandboxed(t, prof, "sh", "-c", "ls /proc | grep -c '^[0-9]'")
					if n, _ := strconv.Atoi(strings.TrimSpace(out)); code != 0 || n == 0 || n > 8 {
						t.Errorf("want only the run's few processes in /proc, got exit %d:\n%s", code, out)
					}
					// Positive controls: its own children it sees, reads
					// and signals.
					out, code = f.sandboxed(t, prof, "sh", "-c",
						`sleep 30 & p=$!; ps -e -o pid= | grep -qw $p && tr '\0' ' ' </proc/$p/cmdline | grep -q sleep && kill $p && wait $p; echo rc=$?`)
					if code != 0 || !strings.Contains(out, "rc=143") {
						t.Errorf("own child: want it seen, read and killed (rc=143), got exit %d:\n%s", code, out)
					}
					out, code = f.sandboxed(t, prof, "sh", "-c", "tr '\\0' ' ' </proc/1/cmdline")
					if code != 0 || !strings.Contains(out, "gatedexec-sandbox") && !strings.Contains(out, "sh -c") {
						t.Errorf("pid 1: want the helper or the command, got exit %d:\n%s", code, out)
					}
				})
			}
		})
	}
}

// TestIsolationNoOrphans: a run ends every process it started, when the
// command exits, when gatedexec is killed and when the timeout fires.
func TestIsolationNoOrphans(t *testing.T) {
	requireIsolation(t)
	probe := buildProbe(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, _ := c.fixture(t, probe)
			t.Run("command-exits", func(t *testing.T) {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "setsid sleep 31401 & nohup sleep 31402 >/dev/null 2>&1 & echo started")
				if code != 0 || !strings.Contains(out, "started") {
					t.Fatalf("exit %d:\n%s", code, out)
				}
				waitGone(t, "sleep 31401", "sleep 31402")
			})
			t.Run("gatedexec-killed", func(t *testing.T) {
				cmd := f.command("sandbox", "-p", "workspace-write", "-C", f.ws, "-w", f.ws, "--",
					"sh", "-c", "setsid sleep 31403 & sleep 31404")
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				waitSeen(t, "sleep 31403", "sleep 31404")
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				waitGone(t, "sleep 31403", "sleep 31404")
			})
			t.Run("timeout", func(t *testing.T) {
				prof := writeProfile(t, f, "timeout.toml", "extends = \"workspace-write\"\n[limits]\ntimeout = \"1s\"\n")
				out, code := f.sandboxed(t, prof, "sh", "-c", `trap "" TERM; setsid sleep 31405 & sleep 31406`)
				if code == 0 {
					t.Errorf("a timed-out command exited 0:\n%s", out)
				}
				waitGone(t, "sleep 31405", "sleep 31406")
			})
			t.Run("signal-forwarded", func(t *testing.T) {
				expectSIGINTReaches(t, f.command("sandbox", "-p", "workspace-write", "-C", f.ws, "-w", f.ws, "--",
					"sh", "-c", sigintScript(31407)), 31407)
			})
		})
	}
}

// TestIsolationEnvironment: the names agents carry their keys in, and URLs
// with passwords, do not reach the command; ordinary variables do.
func TestIsolationEnvironment(t *testing.T) {
	requireIsolation(t)
	f := newFixture(t)
	secret := []string{"ANTHROPIC_API_KEY=sk-ant-1", "OPENAI_API_KEY=sk-2", "GEMINI_API_KEY=g3", "GOOGLE_API_KEY=g4",
		"HF_TOKEN=hf5", "NPM_TOKEN=n6", "MY_SERVICE_CREDENTIALS=c7", "PGPASSWORD=p8", "MYSQL_PWD=p9",
		"AWS_SECRET_ACCESS_KEY=a10", "GITHUB_TOKEN=gh11", "CLAUDE_CODE_OAUTH_TOKEN=o12", "SENTRY_DSN=https://k@s/1",
		"DATABASE_URL=postgres://app:s3cret@db:5432/app", "REDIS=redis://:pw@localhost:6379/0"}
	kept := []string{"KEEP_ME=1", "PUBLIC_URL=https://example.com/a:b@c", "GIT_URL=https://user@example.com/r.git", "LANG=C.UTF-8"}
	f.env = append(slices.Clone(secret), kept...)
	for _, prof := range restricted {
		t.Run(prof, func(t *testing.T) {
			out, code := f.sandboxed(t, prof, "env")
			if code != 0 {
				t.Fatalf("env: exit %d:\n%s", code, out)
			}
			lines := strings.Split(out, "\n")
			for _, kv := range secret {
				if slices.Contains(lines, kv) {
					t.Errorf("%s reached the command", kv)
				}
			}
			for _, kv := range kept {
				if !slices.Contains(lines, kv) {
					t.Errorf("%s was scrubbed", kv)
				}
			}
		})
	}
	out, code := f.sandboxed(t, "full-access", "env")
	if code != 0 || !strings.Contains(out, "ANTHROPIC_API_KEY=sk-ant-1") {
		t.Errorf("control: full-access keeps the caller's environment, got exit %d:\n%s", code, out)
	}
}

// TestIsolationGitControl: a command can neither write the files through
// which the host's next git would run its code, nor create them unseen.
func TestIsolationGitControl(t *testing.T) {
	requireIsolation(t)
	probe := buildProbe(t)
	for _, c := range callers {
		t.Run(c.name, func(t *testing.T) {
			f, probe := c.fixture(t, probe)
			gitAs(t, f, "commit", "-q", "--allow-empty", "-m", "first")
			gitAs(t, f, "config", "core.hooksPath", ".githooks")
			gitAs(t, f, "worktree", "add", "-q", filepath.Join(filepath.Dir(f.ws), "wt"))
			for _, d := range []string{".githooks", ".git/modules/sub/hooks"} {
				mkdirAs(t, f, filepath.Join(f.ws, d))
			}
			for _, p := range []string{".git/modules/sub/config", ".git/info/attributes"} {
				writeAs(t, f, filepath.Join(f.ws, p), "[core]\n")
			}
			for _, rel := range []string{".git/info/attributes", ".git/modules/sub/config", ".git/modules/sub/hooks/post-checkout",
				".githooks/pre-commit", ".git/worktrees/wt/commondir", ".git/config", ".git/hooks/pre-commit"} {
				t.Run("write-"+rel, func(t *testing.T) {
					p := filepath.Join(f.ws, rel)
					before := readFile(t, p)
					out, code := f.sandboxed(t, "workspace-write", probe, "write", p)
					expectProbe(t, out, code, false)
					if got := readFile(t, p); got != before {
						t.Errorf("%s changed to %q", rel, got)
					}
				})
			}
			t.Run("commit-control", func(t *testing.T) {
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "echo x > a && git add a && git commit -q -m second && echo committed")
				if code != 0 || !strings.Contains(out, "committed") || strings.Contains(out, "gatedexec: warning") {
					t.Errorf("git commit: want it to work and report nothing, got exit %d:\n%s", code, out)
				}
			})
			t.Run("tampered", func(t *testing.T) {
				out, code := f.sandboxedJSON(t, "workspace-write",
					"sh", "-c", "git init -q sub2 && git -C sub2 config core.fsmonitor 'touch PWNED' && echo x > .git/config.worktree && echo made")
				if code != 0 || !strings.Contains(out.stdout, "made") {
					t.Fatalf("exit %d:\n%s%s", code, out.stdout, out.stderr)
				}
				for _, want := range []string{filepath.Join(f.ws, "sub2", ".git"), filepath.Join(f.ws, ".git", "config.worktree")} {
					if !slices.Contains(out.result.Tampered, want) {
						t.Errorf("tampered = %q, want %s in it", out.result.Tampered, want)
					}
					if !strings.Contains(out.stderr, "gatedexec: warning: the command created or changed "+want) {
						t.Errorf("stderr does not name %s:\n%s", want, out.stderr)
					}
					if _, err := os.Lstat(want); err != nil {
						t.Errorf("%s was removed: %v", want, err)
					}
				}
			})
			t.Run("venv-control", func(t *testing.T) {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("no python3")
				}
				out, code := f.sandboxed(t, "workspace-write", "sh", "-c", "python3 -m venv --without-pip venv && ./venv/bin/python -c 'print(\"venv ok\")'")
				if code != 0 || !strings.Contains(out, "venv ok") {
					t.Errorf("python3 -m venv: exit %d:\n%s", code, out)
				}
			})
		})
	}
}

// jsonRun is what `sandbox --json` printed.
type jsonRun struct {
	stdout, stderr string
	result         struct {
		Tampered []string `json:"tampered"`
		Layers   []string `json:"layers"`
	}
}

// sandboxedJSON runs argv with --json and parses the result line.
func (f fixture) sandboxedJSON(t *testing.T, profile string, argv ...string) (jsonRun, int) {
	t.Helper()
	cmd := f.command(append([]string{"sandbox", "--json", "-p", profile, "-C", f.ws, "-w", f.ws, "--"}, argv...)...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatalf("running gatedexec: %v", err)
	}
	// Every command these tests run ends at once: a gatedexec still
	// there after a minute is held (a scan waiting on a FIFO was), and
	// fails its test rather than the whole package's timeout.
	held := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	if !held.Stop() {
		t.Fatalf("gatedexec sandbox %q still running after a minute, killed:\n%s", argv, se.String())
	}
	code := exitOf(t, err)
	r := jsonRun{stdout: so.String(), stderr: se.String()}
	// The result is the last thing on stderr, after gatedexec's warnings.
	i := strings.LastIndex(r.stderr, "\n{")
	if err := json.Unmarshal([]byte(r.stderr[i+1:]), &r.result); err != nil {
		t.Fatalf("sandbox --json: %v\n%s", err, r.stderr)
	}
	return r, code
}

// writeProfile writes a profile file into the fixture's home, readable by
// the fixture's user, and returns its path.
func writeProfile(t *testing.T, f fixture, name, src string) string {
	t.Helper()
	p := filepath.Join(f.home, name)
	writeAs(t, f, p, src)
	return p
}

func writeAs(t *testing.T, f fixture, p, s string) {
	t.Helper()
	mustWrite(t, p, s)
	if f.cred != nil {
		os.Lchown(p, int(f.cred.Uid), int(f.cred.Gid))
	}
}

func mkdirAs(t *testing.T, f fixture, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if f.cred != nil {
		base := filepath.Dir(f.ws) // the fixture's own directory
		for p := d; p != f.ws && p != base && p != filepath.Dir(p); p = filepath.Dir(p) {
			os.Lchown(p, int(f.cred.Uid), int(f.cred.Gid))
		}
	}
}

// gitAs runs git in the fixture's workspace as the fixture's user.
func gitAs(t *testing.T, f fixture, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = f.ws
	cmd.Env = append(os.Environ(), "HOME="+f.home, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if f.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: f.cred}
		// The fixture's base directory belongs to root: let git make the
		// worktree beside the workspace.
		os.Chown(filepath.Dir(f.ws), int(f.cred.Uid), int(f.cred.Gid))
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// processesMatching returns the host's processes whose command line
// contains any of pats.
func processesMatching(pats ...string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		for _, p := range pats {
			if strings.Contains(cl, p) && !strings.Contains(cl, "sh -c") {
				found = append(found, e.Name()+": "+cl)
			}
		}
	}
	return found
}

// waitGone fails unless no process matching pats is left within 3 s.
func waitGone(t *testing.T, pats ...string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := processesMatching(pats...)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the run outlived it: %q", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitSeen waits up to 5 s until every pattern has a process.
func waitSeen(t *testing.T, pats ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := 0
		for _, p := range pats {
			if len(processesMatching(p)) > 0 {
				n++
			}
		}
		if n == len(pats) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %q did not start", pats)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sigintScript is a command whose trap exits 7 on SIGINT while it waits
// for a child sleeping n seconds (n names it among the host's processes).
func sigintScript(n int) string {
	return fmt.Sprintf(`trap 'echo got-int; exit 7' INT; sleep %d & wait`, n)
}

// expectSIGINTReaches starts cmd (running sigintScript(n)), sends
// gatedexec SIGINT once the child runs, and wants the command's own trap
// to answer it, and nothing of the run left after.
func expectSIGINTReaches(t *testing.T, cmd *exec.Cmd, n int) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sleep := fmt.Sprintf("sleep %d", n)
	waitSeen(t, sleep)
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitOf(t, cmd.Wait()); code != 7 || !strings.Contains(out.String(), "got-int") {
		t.Errorf("SIGINT: want the command's trap to run and exit 7, got %d:\n%s", code, out.String())
	}
	waitGone(t, sleep)
}
