package gate

import (
	"bufio"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gatedexec/gatedexec/approval"
	"github.com/gatedexec/gatedexec/config"
	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/sandbox"
)

// profileRunner records the profile of every command it is asked to run.
type profileRunner struct {
	mu       sync.Mutex
	profiles []*sandbox.Profile
}

func (r *profileRunner) Run(_ context.Context, c *sandbox.Command) (*sandbox.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.profiles = append(r.profiles, c.Profile)
	return &sandbox.Result{Layers: []string{"fake"}}, nil
}

// managedHost is a testHost whose system layer is managed.
type managedHost struct {
	*testHost
	system, log string
}

// managedConfig is the base managed config.toml; extra keys follow it.
const managedConfig = "managed = true\napproval_policy = \"on-request\"\naudit_log = \"LOG\"\n"

func newManagedHost(t *testing.T, extra string) *managedHost {
	t.Helper()
	if os.Geteuid() != 0 {
		// The managed layer must be root's: only root can make one.
		t.Skip("a managed layer must be owned by root")
	}
	h := &managedHost{testHost: newTestHost(t)}
	h.system = h.env["GATEDEXEC_SYSTEM_DIR"]
	h.log = filepath.Join(filepath.Dir(h.system), "managed.jsonl")
	h.write(t, filepath.Join(h.system, "config.toml"), strings.Replace(managedConfig, "LOG", h.log, 1)+extra)
	h.write(t, filepath.Join(h.system, "rules", "managed.rules"), `
prefix_rule(pattern=["git", "push"], decision="prompt")
prefix_rule(pattern=["rm"], decision="forbidden")
host_executable(name="git", paths=["/usr/bin/git"])
prefix_rule(pattern=["git", "status"], decision="allow")
`)
	for _, d := range []string{h.system, filepath.Join(h.system, "rules")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// records reads the audit log at path.
func records(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// Every way a lower layer, the environment or a flag could loosen the
// managed ceiling: the command must not run (or run only as the ceiling
// allows), and the refusal is said.
func TestManagedCeilingHoldsAgainstEveryLooseningPath(t *testing.T) {
	unanalysable := Request{Argv: []string{"ls > out.txt"}, Shell: true}
	tests := []struct {
		name    string
		managed string                                  // extra managed config.toml keys
		setup   func(*managedHost, *testing.T, *Config) // the loosening attempt
		req     Request
		// wantBy is who refused (the approver "policy", "managed"); ""
		// means the command must run, under a profile for which
		// wantProfile reports what is wrong (nil: any).
		wantBy      string
		wantReason  string
		wantRefused string // in the Refused line
		wantProfile func(*sandbox.Profile) string
	}{
		{name: "user allow rule more specific than a managed prompt",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.user, "rules", "u.rules"), `prefix_rule(pattern=["git", "push", "origin"], decision="allow")`)
			},
			req: Request{Argv: []string{"git", "push", "origin", "main"}}, wantBy: "policy", wantReason: DenyApproverReason},
		{name: "trusted workspace allow rule",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.workspace, ".gatedexec", "rules", "ws.rules"), `prefix_rule(pattern=["git", "push"], decision="allow")`)
				h.trust(t)
			},
			req: Request{Argv: []string{"git", "push"}}, wantBy: "policy", wantReason: DenyApproverReason},
		{name: "-r allow rule over a managed forbidden",
			setup: func(h *managedHost, t *testing.T, c *Config) {
				p := filepath.Join(h.env["HOME"], "mine.rules")
				h.write(t, p, `prefix_rule(pattern=["rm", "-rf", "build"], decision="allow")`)
				c.Rules = []string{p}
			},
			req: Request{Argv: []string{"rm", "-rf", "build"}}, wantBy: "rule"},
		{name: "--approval-policy never",
			setup: func(_ *managedHost, _ *testing.T, c *Config) { c.Flags.ApprovalPolicy = "never" },
			req:   unanalysable, wantBy: "policy", wantReason: DenyApproverReason, wantRefused: "approval policy never from --approval-policy"},
		{name: "GATEDEXEC_APPROVAL_POLICY=never",
			setup: func(h *managedHost, _ *testing.T, _ *Config) { h.env["GATEDEXEC_APPROVAL_POLICY"] = "never" },
			req:   unanalysable, wantBy: "policy", wantReason: DenyApproverReason, wantRefused: "approval policy never from GATEDEXEC_APPROVAL_POLICY"},
		{name: "user config.toml approval_policy = on-failure",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.user, "config.toml"), "approval_policy = \"on-failure\"\n")
			},
			req: unanalysable, wantBy: "policy", wantReason: DenyApproverReason, wantRefused: "approval policy on-failure from"},
		{name: "--config approval_policy = never",
			setup: func(h *managedHost, t *testing.T, c *Config) {
				c.Flags.ConfigFile = filepath.Join(h.env["HOME"], "c.toml")
				h.write(t, c.Flags.ConfigFile, "approval_policy = \"never\"\n")
			},
			req: unanalysable, wantBy: "policy", wantReason: DenyApproverReason, wantRefused: "c.toml:1:1: approval_policy (looser than the managed approval_policy"},
		{name: "-p full-access",
			setup: func(_ *managedHost, _ *testing.T, c *Config) { c.Flags.Profile = "full-access" },
			req:   Request{Argv: []string{"ls"}}, wantBy: "managed", wantReason: "allow_full_access"},
		{name: "GATEDEXEC_PROFILE=full-access",
			setup: func(h *managedHost, _ *testing.T, _ *Config) { h.env["GATEDEXEC_PROFILE"] = "full-access" },
			req:   Request{Argv: []string{"ls"}}, wantBy: "managed", wantReason: "allow_full_access"},
		{name: "user config.toml profile = full-access",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.user, "config.toml"), "profile = \"full-access\"\n")
			},
			req: Request{Argv: []string{"ls"}}, wantBy: "managed", wantReason: "allow_full_access"},
		{name: "a user profile as wide as full-access under another name",
			setup: func(h *managedHost, t *testing.T, c *Config) {
				h.write(t, filepath.Join(h.user, "profiles", "wide.toml"), "[filesystem]\nread = [\":all\"]\nwrite = [\":all\"]\n[network]\nmode = \"on\"\n")
				c.Flags.Profile = "wide"
			},
			req: Request{Argv: []string{"ls"}}, wantBy: "managed", wantReason: "allow_full_access"},
		{name: "a rule's profile=full-access",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.user, "rules", "u.rules"), `prefix_rule(pattern=["npm", "ci"], decision="allow", profile="full-access")`)
			},
			req: Request{Argv: []string{"npm", "ci"}}, wantBy: "managed", wantReason: "allow_full_access"},
		{name: "a profile outside allowed_profiles", managed: "allowed_profiles = [\"read-only\"]\n",
			setup: func(_ *managedHost, _ *testing.T, c *Config) { c.Flags.Profile = "workspace-write" },
			req:   Request{Argv: []string{"ls"}}, wantBy: "managed", wantReason: "allowed_profiles"},
		{name: "a profile file outside allowed_profiles", managed: "allowed_profiles = [\"read-only\"]\n",
			setup: func(h *managedHost, t *testing.T, c *Config) {
				c.Flags.Profile = filepath.Join(h.env["HOME"], "p.toml")
				h.write(t, c.Flags.Profile, "extends = \"read-only\"\n")
			},
			req: Request{Argv: []string{"ls"}}, wantBy: "managed", wantReason: "allowed_profiles"},
		{name: "a user profile shadowing an allowed name", managed: "allowed_profiles = [\"workspace-write\"]\n",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.user, "profiles", "workspace-write.toml"), "[filesystem]\nread = [\":all\"]\nwrite = [\":workspace\"]\n[network]\nmode = \"on\"\n")
			},
			req: Request{Argv: []string{"ls"}}, wantRefused: "the profiles of",
			wantProfile: func(p *sandbox.Profile) string {
				if p.Network == sandbox.NetworkOn {
					return "the user's workspace-write (network on) was used"
				}
				return ""
			}},
		{name: "allow_user_rules = false", managed: "allow_user_rules = false\n",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.user, "rules", "u.rules"), `prefix_rule(pattern=["mytool"], decision="allow")`)
				h.env["GATEDEXEC_APPROVAL_POLICY"] = "untrusted"
			},
			req: Request{Argv: []string{"mytool"}}, wantBy: "policy", wantReason: DenyApproverReason, wantRefused: "allow_user_rules"},
		{name: "allow_workspace_rules = false", managed: "allow_workspace_rules = false\n",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.workspace, ".gatedexec", "rules", "ws.rules"), `prefix_rule(pattern=["mytool"], decision="allow")`)
				h.trust(t)
				h.env["GATEDEXEC_APPROVAL_POLICY"] = "untrusted"
			},
			req: Request{Argv: []string{"mytool"}}, wantBy: "policy", wantReason: DenyApproverReason, wantRefused: "allow_workspace_rules"},
		{name: "a user host_executable for a name the managed layer declared",
			setup: func(h *managedHost, t *testing.T, _ *Config) {
				h.write(t, filepath.Join(h.user, "rules", "u.rules"), `host_executable(name="git", paths=["/tmp/evil/git"])`)
				h.env["GATEDEXEC_APPROVAL_POLICY"] = "untrusted"
			},
			req:    Request{Argv: []string{"/tmp/evil/git", "status"}, ResolveHostExecutables: true},
			wantBy: "policy", wantReason: DenyApproverReason, wantRefused: "host_executable paths for git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newManagedHost(t, tt.managed)
			cfg := Config{Workspace: h.workspace, Getenv: h.getenv}
			runner := &profileRunner{}
			cfg.Runner = runner
			tt.setup(h, t, &cfg)
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if !strings.Contains(g.Refused(), tt.wantRefused) || (tt.wantRefused != "" && !strings.HasPrefix(g.Refused(), "managed layer "+h.system+" refused: ")) {
				t.Errorf("Refused() = %q, want it to say %q", g.Refused(), tt.wantRefused)
			}
			res, err := g.Run(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantBy == "" && !res.Ran:
				t.Fatalf("did not run: %+v", res.Approval)
			case tt.wantBy != "" && (res.Ran || len(runner.profiles) > 0):
				t.Fatalf("ran under %s: %+v", res.Profile, res.Approval)
			case tt.wantBy != "" && (res.Approval.By != tt.wantBy || !strings.Contains(res.Approval.Reason, tt.wantReason)):
				t.Errorf("approval = %+v, want by %s with %q", res.Approval, tt.wantBy, tt.wantReason)
			}
			if tt.wantProfile != nil && len(runner.profiles) > 0 {
				if msg := tt.wantProfile(runner.profiles[0]); msg != "" {
					t.Error(msg)
				}
			}
			if recs := records(t, h.log); len(recs) == 0 {
				t.Errorf("nothing in the managed audit log %s", h.log)
			}
		})
	}
}

// A managed audit_fsync = true holds for the managed log whatever a lower
// layer says: the user's audit_fsync = false had it written without
// fsync.
func TestManagedAuditFsyncHolds(t *testing.T) {
	h := newManagedHost(t, "audit_fsync = true\n")
	h.write(t, filepath.Join(h.user, "config.toml"), "audit_fsync = false\n")
	g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &profileRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.state.Load().runParts(g); err != nil {
		t.Fatal(err)
	}
	if _, ok := g.logs["true:"+h.log]; !ok || len(g.logs) != 1 {
		t.Errorf("managed log opened as %v, want with fsync", slices.Collect(maps.Keys(g.logs)))
	}
}

// A log asked for below the managed layer is written beside the managed
// one, never instead of it.
func TestManagedAuditLogCannotBeSwitchedOff(t *testing.T) {
	for _, how := range []string{"flag", "env", "user config"} {
		t.Run(how, func(t *testing.T) {
			h := newManagedHost(t, "")
			other := filepath.Join(h.env["HOME"], "mine.jsonl")
			cfg := Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &profileRunner{}}
			switch how {
			case "flag":
				cfg.Flags.AuditLog = other
			case "env":
				h.env["GATEDEXEC_AUDIT_LOG"] = other
			case "user config":
				h.write(t, filepath.Join(h.user, "config.toml"), "audit_log = \""+other+"\"\n")
			}
			g, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if _, err := g.Run(context.Background(), Request{Argv: []string{"ls"}}); err != nil {
				t.Fatal(err)
			}
			m, o := records(t, h.log), records(t, other)
			if len(m) == 0 || len(m) != len(o) {
				t.Fatalf("managed log has %d records, the other %d", len(m), len(o))
			}
			for _, want := range []string{`"managed_digest":"`, `"rules_digest":"`, `"profile_digest":"`} {
				if !strings.Contains(m[0], want) {
					t.Errorf("record lacks %s: %s", want, m[0])
				}
			}
		})
	}
}

// A managed audit log that cannot be appended to stops the run (exit 125).
func TestManagedAuditLogUnwritableFails(t *testing.T) {
	h := newManagedHost(t, "")
	h.write(t, filepath.Join(h.system, "config.toml"), strings.Replace(managedConfig, "LOG", "/nonexistent/dir/a.jsonl", 1))
	runner := &profileRunner{}
	g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, err = g.Run(context.Background(), Request{Argv: []string{"ls"}})
	if err == nil || errors.Is(err, ErrConfig) || errors.Is(err, ErrUsage) || len(runner.profiles) > 0 {
		t.Fatalf("err = %v, ran %d: want gatedexec's own failure and nothing run", err, len(runner.profiles))
	}
}

// A managed layer that is not root's alone, or that a lower layer tries
// to be, is bad configuration (exit 78).
func TestManagedLayerMisconfigured(t *testing.T) {
	tests := []struct {
		name, want string
		setup      func(*managedHost, *testing.T, *Config)
	}{
		{"writable by others", "writable by its group or others", func(h *managedHost, t *testing.T, _ *Config) {
			if err := os.Chmod(h.system, 0o757); err != nil {
				t.Fatal(err)
			}
		}},
		{"config.toml owned by a user", "not root", func(h *managedHost, t *testing.T, _ *Config) {
			if err := os.Chown(filepath.Join(h.system, "config.toml"), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
		{"a rules file writable by its group", "writable by its group", func(h *managedHost, t *testing.T, _ *Config) {
			if err := os.Chmod(filepath.Join(h.system, "rules", "managed.rules"), 0o664); err != nil {
				t.Fatal(err)
			}
		}},
		{"no audit_log", "needs audit_log", func(h *managedHost, t *testing.T, _ *Config) {
			h.write(t, filepath.Join(h.system, "config.toml"), "managed = true\n")
		}},
		{"a bad approval_policy ceiling", `approval_policy "sometimes"`, func(h *managedHost, t *testing.T, _ *Config) {
			h.write(t, filepath.Join(h.system, "config.toml"), strings.NewReplacer("on-request", "sometimes", "LOG", h.log).Replace(managedConfig))
		}},
		{"managed keys in the user layer", "only the system layer", func(h *managedHost, t *testing.T, _ *Config) {
			h.write(t, filepath.Join(h.user, "config.toml"), "managed = true\naudit_log = \"/x\"\nallow_full_access = true\n")
		}},
		{"a managed key alone in the user layer", "only read with managed = true", func(h *managedHost, t *testing.T, _ *Config) {
			h.write(t, filepath.Join(h.user, "config.toml"), "allow_full_access = true\n")
		}},
		{"managed keys in --config", "only the system layer", func(h *managedHost, t *testing.T, c *Config) {
			c.Flags.ConfigFile = filepath.Join(h.env["HOME"], "c.toml")
			h.write(t, c.Flags.ConfigFile, "managed = false\n")
		}},
		{"managed keys without managed = true", "only read with managed = true", func(h *managedHost, t *testing.T, _ *Config) {
			h.write(t, filepath.Join(h.system, "config.toml"), "allowed_profiles = [\"read-only\"]\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newManagedHost(t, "")
			cfg := Config{Workspace: h.workspace, Getenv: h.getenv, Runner: &profileRunner{}}
			tt.setup(h, t, &cfg)
			g, err := New(cfg)
			if err == nil {
				g.Close()
				t.Fatal("New succeeded")
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrConfig saying %q", err, tt.want)
			}
		})
	}
}

// Check reports the action under the managed ceiling, as Run takes it.
func TestManagedCheckAgreesWithRun(t *testing.T) {
	h := newManagedHost(t, "")
	h.write(t, filepath.Join(h.user, "rules", "u.rules"), `prefix_rule(pattern=["git", "push"], decision="allow")`)
	g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Flags: Flags{ApprovalPolicy: "never"}, Runner: &profileRunner{}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, argv := range [][]string{{"git", "push"}, {"ls > out.txt"}} {
		c, err := g.Check(context.Background(), Request{Argv: argv, Shell: len(argv) == 1})
		if err != nil {
			t.Fatal(err)
		}
		if c.Action != approval.Ask || c.Decision != execpolicy.Prompt {
			t.Errorf("%q: check says %s/%s, want prompt/ask under the managed on-request", argv, c.Decision, c.Action)
		}
	}
}

// Without a managed layer nothing is refused and -p full-access runs.
func TestUnmanagedSystemLayerIsNoCeiling(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.env["GATEDEXEC_SYSTEM_DIR"], "config.toml"), "approval_policy = \"on-request\"\n")
	runner := &profileRunner{}
	g, err := New(Config{Workspace: h.workspace, Getenv: h.getenv, Flags: Flags{Profile: "full-access", ApprovalPolicy: "never"}, Runner: runner})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := g.Run(context.Background(), Request{Argv: []string{"ls"}})
	if err != nil || !res.Ran || g.Refused() != "" {
		t.Fatalf("res %+v, err %v, refused %q", res, err, g.Refused())
	}
}

// An escalation widens the profile of one re-run: under allowed_profiles
// that would be a profile outside the list, so it is refused before
// anyone is asked and the refusal is recorded; without the list it is
// asked as usual.
func TestManagedCeilingRefusesEscalation(t *testing.T) {
	outside := realTempDir(t, "out")
	denied := &sandbox.Result{ExitCode: 1, Layers: []string{"landlock-v7"},
		StderrTail: []byte("touch: cannot touch '" + outside + "/f': Permission denied\n")}
	tests := []struct {
		name    string
		managed *config.Managed
		runs    int
		asked   int
	}{
		{"allowed_profiles", &config.Managed{AllowedProfiles: []string{"workspace-write"}, File: "m.toml"}, 1, 0},
		{"no allowed_profiles", &config.Managed{File: "m.toml"}, 2, 1},
		{"no managed layer", nil, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, runner, approver, ws := newOptions(t, "touch", filepath.Join(outside, "f"))
			o.Approval, approver.outcome = approval.OnFailure, approval.Approved
			o.Ceiling = ceiling{tt.managed}
			runner.results = []*sandbox.Result{denied}
			logPath := filepath.Join(ws, "audit.jsonl")
			log, err := approval.OpenLog(logPath, false)
			if err != nil {
				t.Fatal(err)
			}
			defer log.Close()
			o.Audit = log
			res, err := o.run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(runner.profiles) != tt.runs || len(approver.asked) != tt.asked {
				t.Fatalf("ran %d, asked %d; want %d, %d", len(runner.profiles), len(approver.asked), tt.runs, tt.asked)
			}
			recs := records(t, logPath)
			last := recs[len(recs)-1]
			if refused := strings.Contains(last, `"approver":"managed"`) && strings.Contains(last, `"kind":"escalation"`); refused != (tt.asked == 0) {
				t.Errorf("last record %s: refused by the managed layer %v, want %v", last, refused, tt.asked == 0)
			}
			if tt.asked == 0 && (res.Escalated || len(res.Denials) == 0) {
				t.Errorf("result %+v: want the first run's denials, not escalated", res)
			}
		})
	}
}

// TestManagedProfilesNotCached: under a managed layer, profiles are parsed
// on every run, never taken from the user's cache, whose entries the user
// can rewrite (checksummed, not signed); without one the cache is used.
func TestManagedProfilesNotCached(t *testing.T) {
	getenv := func(string) string { return "" }
	pl := Place{Workspace: t.TempDir(), Cwd: t.TempDir()}
	cfg := &config.Config{Dirs: config.Dirs{Home: t.TempDir(), Cache: filepath.Join(t.TempDir(), "gatedexec")}}
	if l := profileLoader(getenv, pl, cfg, "build"); l.CacheDir == "" {
		t.Fatal("without a managed layer, the profile cache is not used")
	}
	cfg.Managed = &config.Managed{}
	if l := profileLoader(getenv, pl, cfg, "build"); l.CacheDir != "" {
		t.Errorf("under a managed layer, profiles are cached in %s", l.CacheDir)
	}
}
