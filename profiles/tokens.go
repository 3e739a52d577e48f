package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gatedexec/gatedexec/sandbox"
)

// Vars are the host facts path tokens expand to. They are passed in, never
// read from the process environment here, so that resolution is a pure
// function of its inputs and tests can fix them.
type Vars struct {
	// Workspace, Cwd and Home are absolute directories; an empty one makes
	// the token that names it an error.
	Workspace, Cwd, Home string
	// TmpDir is $TMPDIR; ":tmp" is /tmp plus TmpDir when set and different.
	TmpDir string
	// Getenv looks up variables for "$VAR/x"; nil means none are set.
	Getenv func(string) string
}

// allToken is the token for the whole filesystem.
const allToken = ":all"

// expandList expands the path tokens of one list. allowAll says whether
// ":all" may appear; it is reported through all and not added to the
// returned paths. Duplicates are dropped, keeping the first.
func (v *Vars) expandList(list []string, allowAll bool, real realPaths) (paths []string, all bool, err error) {
	seen := map[string]bool{}
	for _, entry := range list {
		if entry == gitToken || entry == agentConfigToken {
			return nil, false, fmt.Errorf("%q is only allowed in protect", entry)
		}
		if entry == allToken {
			if !allowAll {
				return nil, false, fmt.Errorf("%q is only allowed in read and write", allToken)
			}
			all = true
			continue
		}
		ps, err := v.expand(entry, real)
		if err != nil {
			return nil, false, err
		}
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				paths = append(paths, p)
			}
		}
	}
	return paths, all, nil
}

// gitdirToken stands for what git writes outside the workspace for a
// commit made in it (sandbox.GitWritable): a linked worktree's git dir and
// its common dir's objects, refs and logs.
const gitdirToken = ":gitdir"

// gitToken is the protect entry for the workspace's git control files
// (sandbox.GitControl).
const gitToken = ":git"

// agentConfigToken is the protect entry for the agent, editor and shell
// settings in the workspace (sandbox.AgentConfig).
const agentConfigToken = ":agent-config"

// expandProtect is expandList for the protect list, where gitToken may
// stand for the workspace's git control files and agentConfigToken for
// its agent and editor settings. watch holds what the run's scan reports
// made or changed besides the git control files: every path of
// agentConfigToken, as named and resolved, while only those that exist
// are protected.
func (v *Vars) expandProtect(list []string, real realPaths) (paths, watch []string, err error) {
	var out []string
	rest := make([]string, 0, len(list))
	// The home resolved like the workspace, once: GitControl and
	// AgentConfigReach tell by it whether the workspace holds the home.
	var home string
	var homeErr error
	if filepath.IsAbs(v.Home) {
		home, homeErr = real.resolve(v.Home)
	}
	for _, entry := range list {
		if entry != gitToken && entry != agentConfigToken {
			rest = append(rest, entry)
			continue
		}
		if homeErr != nil {
			return nil, nil, fmt.Errorf("path %q: %w", entry, homeErr)
		}
		if !filepath.IsAbs(v.Workspace) {
			return nil, nil, fmt.Errorf("path %q: workspace is not known (or not absolute)", entry)
		}
		ws, err := real.resolve(v.Workspace)
		if err != nil {
			return nil, nil, fmt.Errorf("path %q: %w", entry, err)
		}
		if entry == agentConfigToken {
			prot, w, err := v.agentConfig(ws, home, real)
			if err != nil {
				return nil, nil, fmt.Errorf("path %q: %w", entry, err)
			}
			out, watch = append(out, prot...), append(watch, w...)
			continue
		}
		paths, err := sandbox.GitControl(ws, home)
		if err != nil {
			return nil, nil, fmt.Errorf("path %q: %w", entry, err)
		}
		for _, p := range paths {
			e, err := real.entry(p)
			if err != nil {
				return nil, nil, fmt.Errorf("path %q: %w", entry, err)
			}
			link := e.link
			if link {
				// Watched, so that the sandbox pins it where a write
				// root holds it, and the scan reports it replaced.
				watch = append(watch, p)
			}
			if !linkIntoWorkspace(link, e.real, ws) {
				out = append(out, e.real)
			}
		}
	}
	more, _, err := v.expandList(rest, false, real)
	if err != nil {
		return nil, nil, err
	}
	return dedup(append(out, more...)), dedup(watch), nil
}

// agentConfig expands agentConfigToken for the resolved workspace ws and
// home ("" when unknown): the
// paths of sandbox.AgentConfig that exist, resolved, to protect, and all
// of them, as named and resolved, to watch. A missing one is not held: a
// directory of ours named .vscode or .bashrc would be debris in the
// user's tree, and the scan reports one made.
func (v *Vars) agentConfig(ws, home string, real realPaths) (protect, watch []string, err error) {
	var configHome string
	if c := v.getenv("XDG_CONFIG_HOME"); filepath.IsAbs(c) {
		if configHome, err = real.resolve(c); err != nil {
			return nil, nil, err
		}
	}
	for _, p := range sandbox.AgentConfigReach(ws, home, configHome) {
		e, err := real.entry(p)
		if err != nil {
			return nil, nil, err
		}
		// A link (a dotfile manager's ~/.bashrc) is protected at its
		// target; the link itself is watched, and so pinned.
		watch = append(watch, p)
		if linkIntoWorkspace(e.link, e.real, ws) {
			continue
		}
		if e.real != p {
			watch = append(watch, e.real)
		}
		if e.exists {
			protect = append(protect, e.real)
		}
	}
	return protect, watch, nil
}

// linkIntoWorkspace reports whether a path of sandbox.GitControl or
// sandbox.AgentConfigReach is a link leading, as real, into the workspace
// ws: where it leads is listed on its own, and protecting it again through
// the link would make read-only the whole directory a link on the way
// names (scripts -> tools/scripts). One leading elsewhere is protected at
// its target, as any protect path.
func linkIntoWorkspace(link bool, real, ws string) bool {
	return link && sandbox.Under(real, []string{ws})
}

// dedup returns list without its repeated entries, keeping the first.
func dedup(list []string) []string {
	seen := map[string]bool{}
	out := list[:0:0]
	for _, p := range list {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// expand expands one path entry to one or more absolute, cleaned paths
// with the symlinks of their existing part resolved.
func (v *Vars) expand(entry string, real realPaths) ([]string, error) {
	bases, rest, err := v.base(entry)
	if err != nil {
		return nil, err
	}
	// ".." is refused everywhere: cleaned lexically it could name another
	// path than the kernel would reach through a symlink, and after a token
	// it would climb out of it.
	for _, part := range strings.Split(filepath.ToSlash(rest), "/") {
		if part == ".." {
			return nil, fmt.Errorf("path %q: \"..\" is not allowed", entry)
		}
	}
	out := make([]string, 0, len(bases))
	for _, b := range bases {
		p, err := real.resolve(filepath.Join(b, rest))
		if err != nil {
			return nil, fmt.Errorf("path %q: %w", entry, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// base splits entry into the directories its leading token names and the
// relative rest.
func (v *Vars) base(entry string) (bases []string, rest string, err error) {
	switch {
	case entry == "":
		return nil, "", errors.New("empty path")
	case strings.HasPrefix(entry, ":"):
		tok, rest, _ := strings.Cut(entry, "/")
		var dir, what string
		switch tok {
		case ":workspace":
			dir, what = v.Workspace, "workspace"
		case ":cwd":
			dir, what = v.Cwd, "working directory"
		case ":home":
			dir, what = v.Home, "home directory"
		case ":tmp":
			bases = []string{"/tmp"}
			if t := v.TmpDir; t != "" {
				if !filepath.IsAbs(t) {
					return nil, "", fmt.Errorf("path %q: TMPDIR %q is not absolute", entry, t)
				}
				if filepath.Clean(t) != "/tmp" {
					bases = append(bases, filepath.Clean(t))
				}
			}
			return bases, rest, nil
		case gitdirToken:
			if !filepath.IsAbs(v.Workspace) {
				return nil, "", fmt.Errorf("path %q: workspace is not known (or not absolute)", entry)
			}
			dirs, err := sandbox.GitWritable(v.Workspace)
			if err != nil {
				return nil, "", fmt.Errorf("path %q: %w", entry, err)
			}
			return dirs, rest, nil
		case allToken:
			return nil, "", fmt.Errorf("path %q: %q stands alone", entry, allToken)
		default:
			cache, ok := cacheTokens()[tok]
			if !ok {
				return nil, "", fmt.Errorf("unknown path token %q", tok)
			}
			if !filepath.IsAbs(v.Home) {
				return nil, "", fmt.Errorf("path %q: home directory is not known", entry)
			}
			return cache(v), rest, nil
		}
		if !filepath.IsAbs(dir) {
			return nil, "", fmt.Errorf("path %q: %s is not known (or not absolute)", entry, what)
		}
		return []string{dir}, rest, nil
	case entry == "~" || strings.HasPrefix(entry, "~/"):
		if !filepath.IsAbs(v.Home) {
			return nil, "", fmt.Errorf("path %q: home directory is not known", entry)
		}
		return []string{v.Home}, strings.TrimPrefix(strings.TrimPrefix(entry, "~"), "/"), nil
	case strings.HasPrefix(entry, "~"):
		return nil, "", fmt.Errorf("path %q: only ~ and ~/ are supported, not ~user", entry)
	case strings.HasPrefix(entry, "$"):
		name, rest, err := splitVar(entry)
		if err != nil {
			return nil, "", err
		}
		val := ""
		if v.Getenv != nil {
			val = v.Getenv(name)
		}
		if val == "" {
			return nil, "", fmt.Errorf("path %q: $%s is not set", entry, name)
		}
		if !filepath.IsAbs(val) {
			return nil, "", fmt.Errorf("path %q: $%s=%q is not absolute", entry, name, val)
		}
		return []string{val}, rest, nil
	case filepath.IsAbs(entry):
		return []string{"/"}, strings.TrimLeft(entry, "/"), nil
	}
	return nil, "", fmt.Errorf("path %q: want an absolute path, ~/, $VAR/ or a :token", entry)
}

// splitVar splits "$VAR/rest" or "${VAR}/rest".
func splitVar(entry string) (name, rest string, err error) {
	s := entry[1:]
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", "", fmt.Errorf("path %q: unclosed ${", entry)
		}
		name, s = s[1:end], s[end+1:]
	} else {
		name, s, _ = strings.Cut(s, "/")
		s = "/" + s
	}
	if !validVarName(name) {
		return "", "", fmt.Errorf("path %q: bad variable name %q", entry, name)
	}
	if s != "" && s[0] != '/' {
		return "", "", fmt.Errorf("path %q: variable must be followed by / or the end", entry)
	}
	return name, strings.TrimPrefix(s, "/"), nil
}

func validVarName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// realPaths resolves paths the way the kernel will see them, one path
// component at a time, remembering every directory it has resolved: the
// entries of one profile share their prefixes (the home directory, the
// workspace), and profile resolution is on every command's start-up path.
type realPaths map[string]realEntry

type realEntry struct {
	real   string
	exists bool
	// link is whether the path itself is a symbolic link (os.Lstat of
	// it), which entry learns on the way.
	link bool
}

// resolve returns the cleaned absolute path p with the symlinks of its
// longest existing prefix resolved, so that a path that does not exist yet
// (a protect path) is still named below its real parent.
func (c realPaths) resolve(p string) (string, error) {
	e, err := c.entry(filepath.Clean(p))
	return e.real, err
}

func (c realPaths) entry(p string) (realEntry, error) {
	if e, ok := c[p]; ok {
		return e, nil
	}
	parent := filepath.Dir(p)
	if parent == p {
		return realEntry{real: p, exists: true}, nil
	}
	pe, err := c.entry(parent)
	if err != nil {
		return realEntry{}, err
	}
	e := realEntry{real: filepath.Join(pe.real, filepath.Base(p))}
	if pe.exists {
		fi, err := os.Lstat(e.real)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return realEntry{}, err
		case fi.Mode()&fs.ModeSymlink != 0:
			e.link = true
			// Follow the link (relative targets, chains) the stdlib's way;
			// a dangling link keeps its own name, like a missing path.
			real, err := filepath.EvalSymlinks(e.real)
			if err == nil {
				e.real, e.exists = real, true
			} else if !errors.Is(err, fs.ErrNotExist) {
				return realEntry{}, err
			}
		default:
			e.exists = true
		}
	}
	c[p] = e
	return e, nil
}

// Socket presets of network.unix_sockets: the daemons a user may let a
// command reach on purpose, knowing it can then act through them. Built on
// first use: most starts resolve no socket preset.
var socketPresets = sync.OnceValue(func() map[string]func(v *Vars) []string {
	return map[string]func(v *Vars) []string{
		// The ssh agent signs with the user's keys: the command can log in
		// wherever they can.
		":ssh-agent": func(v *Vars) []string { return []string{v.getenv("SSH_AUTH_SOCK")} },
		// The Docker daemon runs containers as root: the command is root.
		":docker": func(v *Vars) []string {
			out := []string{"/var/run/docker.sock", "/run/docker.sock"}
			if h, ok := strings.CutPrefix(v.getenv("DOCKER_HOST"), "unix://"); ok {
				out = append(out, h)
			}
			return out
		},
	}
})

func (v *Vars) getenv(name string) string {
	if v.Getenv == nil {
		return ""
	}
	return v.Getenv(name)
}

// expandSockets expands the socket list of network.unix_sockets: presets
// and path entries. A preset whose socket is not known adds nothing.
func (v *Vars) expandSockets(list []string, real realPaths) (paths []string, sshAgent bool, err error) {
	for _, entry := range list {
		if preset, ok := socketPresets()[entry]; ok {
			sshAgent = sshAgent || entry == ":ssh-agent"
			for _, p := range preset(v) {
				if filepath.IsAbs(p) {
					r, err := real.resolve(p)
					if err != nil {
						return nil, false, fmt.Errorf("socket %q: %w", entry, err)
					}
					paths = append(paths, r)
				}
			}
			continue
		}
		if strings.HasPrefix(entry, ":") && !strings.Contains(entry, "/") {
			return nil, false, fmt.Errorf("unknown socket preset %q (want :ssh-agent, :docker or a path)", entry)
		}
		ps, err := v.expand(entry, real)
		if err != nil {
			return nil, false, err
		}
		paths = append(paths, ps...)
	}
	return paths, sshAgent, nil
}

// privateTmp returns the directories a restricted command gets empty ones
// of its own for: /tmp, and $TMPDIR when it lies elsewhere.
func (v *Vars) privateTmp(real realPaths) ([]string, error) {
	dirs := []string{"/tmp"}
	if t := v.TmpDir; t != "" && filepath.IsAbs(t) {
		r, err := real.resolve(t)
		if err != nil {
			return nil, fmt.Errorf("TMPDIR %s: %w", t, err)
		}
		if r != "/tmp" && !strings.HasPrefix(r, "/tmp/") && r != "/" {
			dirs = append(dirs, r)
		}
	}
	return dirs, nil
}
