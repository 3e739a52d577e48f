package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatedexec/gatedexec/internal/plainfile"
	"golang.org/x/sys/unix"
)

// Bounds on what GitControl reads of a repository it did not write.
const (
	gitMaxModules    = 4096    // submodule and worktree git dirs, and directories read to find them
	gitMaxDepth      = 8       // nesting of modules/ inside modules/
	gitMaxConfigSize = 1 << 20 // bytes of one config file
)

// GitControl returns the files through which the repository of the work
// tree workspace makes the host's next git run a program: hooks, config
// (core.fsmonitor, aliases, filters), the files that redirect git to
// another config or hooks directory (commondir, config.worktree, a `.git`
// file), attributes with filter drivers (info/), the same for every
// submodule (its git dir at any depth of modules/) and worktree, the
// targets of core.hooksPath and include.path, and what a linked hook or
// config file leads to in the workspace (links).
//
// A path that does not exist is listed only where a missing one is held by
// an empty directory that git accepts (hooks, and config in a workspace
// without .git, held by an empty .git as before): a directory named
// commondir or config.worktree would break git, and a file of ours would be
// debris in the user's repository. GitTamper finds those created in a run.
//
// home, when the workspace holds it, expands a "~/" path a config names
// (core.hooksPath = ~/.githooks): what lies there is then the command's to
// write. "" leaves such paths to the home's own protection.
func GitControl(workspace, home string) ([]string, error) {
	if home != "" && !Under(home, []string{workspace}) {
		home = ""
	}
	return gitControl(workspace, workspace, home)
}

// gitControl is GitControl for the work tree worktree, which lies in the
// workspace (a nested repository's, in a scan).
func gitControl(worktree, workspace, home string) ([]string, error) {
	g := &gitPaths{home: home}
	if err := g.worktree(worktree, workspace); err != nil {
		return nil, err
	}
	return g.list, nil
}

// worktree adds the control files of the work tree worktree (gitControl).
func (g *gitPaths) worktree(worktree, workspace string) error {
	dotgit := filepath.Join(worktree, ".git")
	fi, err := g.lstat(dotgit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		g.add(filepath.Join(dotgit, "hooks"), filepath.Join(dotgit, "config"))
		return nil
	case err != nil:
		return err
	}
	gitdir := dotgit
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		g.opaque = true // resolved past what lstat recorded
		if gitdir, err = filepath.EvalSymlinks(dotgit); err != nil {
			return fmt.Errorf("%s: %w", dotgit, err)
		}
	case fi.Mode().IsRegular():
		// A worktree or submodule checkout: "gitdir: PATH".
		g.add(dotgit)
		if gitdir, err = readGitdirFile(dotgit); err != nil {
			return err
		}
	}
	if err := g.repo(gitdir, worktree, 0); err != nil {
		return err
	}
	g.links(workspace)
	return nil
}

// gitDir adds the control files of a git directory in the workspace that
// is not a work tree's `.git` (a bare repository): its control files, its
// submodules' and worktrees'. Git runs a bare repository's hooks in it, so
// a relative core.hooksPath is taken from there.
func (g *gitPaths) gitDir(gitdir, workspace string) error {
	if err := g.repo(gitdir, gitdir, 0); err != nil {
		return err
	}
	g.links(workspace)
	return nil
}

type gitPaths struct {
	pathSet
	// opaque is set once a result was read through a link that the
	// lstats (pathSet.lstats) do not vouch for: what was found then
	// cannot be reused on their word (controlMemo).
	opaque  bool
	repos   int
	configs int // config files read, against gitMaxModules
	// home expands a "~/" path of a config, when it is known and its
	// files are ours to list (the workspace holds it); "" skips those.
	home string
	// missing lists a named hooks directory or include file that does
	// not exist: for settings, which are watched, not held.
	missing bool
}

// links adds what the listed paths lead to in workspace (pathSet.follow).
func (g *gitPaths) links(workspace string) {
	ws, ok := g.resolvedPlain(workspace)
	if !ok {
		g.opaque = true
		var err error
		if ws, err = filepath.EvalSymlinks(workspace); err != nil {
			return
		}
	}
	g.follow(ws, g.missing)
}

// resolvedPlain returns the absolute path p resolved, when no component
// of it is a link, from the lstat of each component (which g keeps): it
// is then p itself, as filepath.EvalSymlinks would return it. False for
// a relative path, a missing component or a link, which EvalSymlinks
// resolves.
func (g *gitPaths) resolvedPlain(p string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	p = filepath.Clean(p)
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != filepath.Separator {
			continue
		}
		fi, err := g.lstat(p[:i])
		if err != nil || !fi.IsDir() {
			return "", false
		}
	}
	return p, true
}

// errGitBounds marks a repository with more submodule and worktree git
// dirs than GitControl looks through: the files of the ones left out
// would stay writable and unwatched, so it fails instead (a stale or
// planted pile of directories under .git/modules must be cleared). Its
// text is made when it is read: a variable set by fmt.Errorf is made by
// code every start runs, fmt's first use included.
var errGitBounds error = gitBoundsError{}

type gitBoundsError struct{}

func (gitBoundsError) Error() string {
	return fmt.Sprintf("more git dirs under modules/ and worktrees/ than the %d gatedexec protects", gitMaxModules)
}

// count counts one more directory looked through for git dirs.
func (g *gitPaths) count(path string) error {
	if g.repos++; g.repos > gitMaxModules {
		return fmt.Errorf("%s: %w", path, errGitBounds)
	}
	return nil
}

// repo adds the control files of the git dir gitdir, whose work tree is
// worktree ("" when unknown), of its common dir, submodules and worktrees.
func (g *gitPaths) repo(gitdir, worktree string, depth int) error {
	if depth > gitMaxDepth {
		return fmt.Errorf("%s: submodules nested deeper than %d: %w", gitdir, gitMaxDepth, errGitBounds)
	}
	if err := g.count(gitdir); err != nil {
		return err
	}
	common := gitdir
	if c, ok := g.commonDir(gitdir); ok {
		g.add(filepath.Join(gitdir, "commondir"))
		common = c
	}
	dirs := []string{gitdir}
	if common != gitdir {
		dirs = append(dirs, common)
	}
	for _, d := range dirs {
		g.add(filepath.Join(d, "hooks"), filepath.Join(d, "config"))
		g.addExisting(filepath.Join(d, "config.worktree"), filepath.Join(d, "info"), filepath.Join(d, "commondir"))
		for _, cfg := range []string{filepath.Join(d, "config"), filepath.Join(d, "config.worktree")} {
			g.configTargets(cfg, worktree, 0)
		}
	}
	if err := g.modules(filepath.Join(common, "modules"), depth+1, true); err != nil {
		return err
	}
	var wts []string
	if wt := filepath.Join(common, "worktrees"); g.readable(wt) {
		if strings.ContainsAny(common, `*?[\`) {
			g.opaque = true // Glob reads the parents of a pattern too
		}
		g.noteListing(wt, nil)
		wts, _ = filepath.Glob(filepath.Join(wt, "*"))
	}
	for _, w := range wts {
		if err := g.count(w); err != nil {
			return err
		}
		g.addExisting(filepath.Join(w, "commondir"), filepath.Join(w, "config.worktree"), filepath.Join(w, "gitdir"))
	}
	return nil
}

// modules adds the control files of the submodule git dirs below dir
// (top: dir is a modules/ directory itself). A submodule's name may hold
// slashes (git's default for `git submodule add URL vendor/lib`), so its
// git dir may be modules/vendor/lib: a directory that is a git directory
// is one, and any other is searched further. One that holds a config is
// taken for one too, as when only modules/* was looked at: protecting a
// half-made git dir costs nothing. Each directory read counts against
// gitMaxModules.
func (g *gitPaths) modules(dir string, depth int, top bool) error {
	if err := g.count(dir); err != nil {
		return err
	}
	if !g.readable(dir) {
		return nil
	}
	// Whether it can be read is its listing's too.
	g.noteListing(dir, nil)
	d, err := plainfile.Open(dir, unix.O_DIRECTORY)
	if err != nil {
		return nil // none, or unreadable: git finds no submodule there either
	}
	ents, _ := d.ReadDir(gitMaxModules - g.repos + 1)
	d.Close()
	if len(ents) > gitMaxModules-g.repos {
		return fmt.Errorf("%s: %w", dir, errGitBounds)
	}
	if !top {
		var m gitMarks
		config := false
		for _, e := range ents {
			m.see(e.Name())
			config = config || e.Name() == "config"
		}
		if m.gitDir() || config {
			if err := g.repo(dir, "", depth); err != nil {
				return err
			}
		}
		if m.gitDir() {
			return nil
		}
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := g.modules(filepath.Join(dir, e.Name()), depth, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// gitMaxIncludeDepth is git's own bound on nested includes
// (MAX_INCLUDE_DEPTH): a hooks path set deeper is one git never reads.
const gitMaxIncludeDepth = 10

// configTargets adds the files a git config file names that git would
// run or read as more config: core.hooksPath, include.path and
// includeIf.*.path, and, read in turn, what the included files name.
// Relative hooks paths are taken from the work tree, as git runs hooks
// there; relative include paths from the including file's directory; "~/"
// from g.home. A missing or unreadable file names nothing: git reads
// nothing from it either.
func (g *gitPaths) configTargets(cfg, worktree string, depth int) {
	if depth > gitMaxIncludeDepth {
		return
	}
	if g.configs++; g.configs > gitMaxModules {
		return
	}
	if !g.readable(cfg) {
		return
	}
	// What was read before a read failed still names what it names.
	b, _ := readSmall(cfg)
	for _, kv := range parseGitConfig(b) {
		var base string
		include := false
		switch {
		case kv.key == "core.hookspath":
			base = worktree
		case kv.key == "include.path" || strings.HasPrefix(kv.key, "includeif.") && strings.HasSuffix(kv.key, ".path"):
			base, include = filepath.Dir(cfg), true
		default:
			continue
		}
		p := kv.value
		switch {
		case p == "":
			continue
		case strings.HasPrefix(p, "~/"):
			if g.home == "" {
				continue // the home's own protection applies
			}
			p = filepath.Join(g.home, p[2:])
		case !filepath.IsAbs(p):
			if base == "" {
				continue
			}
			p = filepath.Join(base, p)
		}
		p = filepath.Clean(p)
		// A missing include target held by an empty directory breaks
		// git, and a hooks directory made for it would be debris:
		// GitTamper sees either created. Settings list it to watch.
		if g.missing {
			g.add(p)
		} else {
			g.addExisting(p)
		}
		if include {
			g.configTargets(p, worktree, depth+1)
		}
	}
}

// readGitdirFile reads a `.git` file's "gitdir: PATH" line; a relative
// PATH is relative to the file's directory.
func readGitdirFile(path string) (string, error) {
	b, err := readSmall(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	dir = strings.TrimSpace(dir)
	if !ok || dir == "" {
		return "", fmt.Errorf("%s: not a gitdir file", path)
	}
	return joinFrom(filepath.Dir(path), dir), nil
}

// readable reports whether path is there to be read, by its lstat (read
// first: what is read after it is what the lstat vouches for); a link,
// which the read follows to a file the lstats do not record, makes g
// opaque. False for a path that is not there, which no open or read
// would find either.
func (g *gitPaths) readable(path string) bool {
	fi, err := g.lstat(path)
	if err != nil {
		return false
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		g.opaque = true
	}
	return true
}

// commonDir is commonDir, read after the commondir file's lstat.
func (g *gitPaths) commonDir(gitdir string) (string, bool) {
	if !g.readable(filepath.Join(gitdir, "commondir")) {
		return "", false
	}
	return commonDir(gitdir)
}

// commonDir returns the common dir that gitdir's commondir file names
// (gitdir itself for an empty one), and whether gitdir has one.
func commonDir(gitdir string) (string, bool) {
	b, err := readSmall(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return "", false
	}
	return joinFrom(gitdir, strings.TrimSpace(string(b))), true
}

// gitKV is one "section.subsection.key = value" of a git config file, the
// section and key lower-cased as git compares them.
type gitKV struct{ key, value string }

// parseGitConfig reads the key-value pairs of a git config file, enough to
// find the paths it names: sections, subsections, quoted values and
// comments. It never fails; what it cannot read it skips, and the
// protection it derives is only ever added to.
func parseGitConfig(src []byte) []gitKV {
	var out []gitKV
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 4096), len(src)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			head := line[1:end]
			name, sub, hasSub := strings.Cut(head, " ")
			section = strings.ToLower(strings.TrimSpace(name))
			if hasSub {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, value, hasValue := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !hasValue || key == "" || section == "" {
			continue
		}
		out = append(out, gitKV{key: section + "." + key, value: gitValue(strings.TrimSpace(value))})
	}
	return out
}

// gitValue removes the quotes and a trailing comment of a config value.
func gitValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// GitWritable returns what git must write, outside the work tree
// workspace, for commits made in it: when .git is a file (a linked
// worktree, a submodule checkout) or a link, the git dir it names and,
// when that has a commondir, the common dir's objects, refs and logs.
// Their control files stay read-only (GitControl); the common dir itself,
// with its config and hooks, is not writable.
//
// Only a git dir that names this work tree back is made writable
// (namesWorkTree): a command may write a .git file into any directory of
// its workspace, and the next run started below it would otherwise take
// whatever that file names, "/" included, as writable.
func GitWritable(workspace string) ([]string, error) {
	dotgit := filepath.Join(workspace, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil || fi.IsDir() {
		return nil, nil
	}
	var gitdir string
	if fi.Mode()&fs.ModeSymlink != 0 {
		if gitdir, err = filepath.EvalSymlinks(dotgit); err != nil {
			return nil, nil // dangling: git finds no repository either
		}
	} else if gitdir, err = readGitdirFile(dotgit); err != nil {
		return nil, err
	}
	if !namesWorkTree(gitdir, workspace) {
		return nil, nil
	}
	out := []string{gitdir}
	if common, ok := commonDir(gitdir); ok {
		// A linked worktree's git dir is COMMON/worktrees/ID, where git
		// made it. One elsewhere — made by a command in its workspace,
		// with a back-pointer of its own — names a commondir of its
		// choosing: another repository's objects and refs.
		if !samePath(filepath.Dir(gitdir), filepath.Join(common, "worktrees")) {
			return nil, nil
		}
		for _, d := range []string{"objects", "refs", "logs"} {
			out = append(out, filepath.Join(common, d))
		}
	}
	return out, nil
}
