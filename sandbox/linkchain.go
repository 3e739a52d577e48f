package sandbox

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gatedexec/gatedexec/internal/plainfile"
	"golang.org/x/sys/unix"
)

// Bounds on the links followed from one list of paths (pathSet.follow),
// and on the links of one chain (the kernel's own bound on a path's).
const (
	maxLinks     = 1024
	maxLinkChain = 40
)

// pathSet is an ordered list of paths without repeats: the files through
// which the host runs a program, for git (GitControl) and for agents and
// editors (AgentConfigReach).
type pathSet struct {
	list  []string
	seen  map[string]bool
	links int // links resolved by follow, against maxLinks
	// met are the links follow added: the resolution that met one has
	// added where it leads already, and resolving it again would list
	// the directory a link on the way names (tools/scripts, for
	// scripts), which is not what the host reads.
	met map[string]bool
	// lstats keeps what lstat said of each path while the set is built:
	// the paths share their directories, and each is looked up again on
	// the way to where it leads (a start looked up the same few paths
	// three or four times over).
	lstats map[string]lstatResult
	// listed are the directories whose entries were read, with the
	// names read when the read got them all (up to gitHooksMax), nil
	// when not: the scan's stamps take them (stamps.noteFrom), and a
	// directory's listing is what its change time vouches for
	// (controlMemo).
	listed map[string][]string
}

type lstatResult struct {
	fi  fs.FileInfo
	err error
}

// lstat is os.Lstat, asked once per path for the set.
func (s *pathSet) lstat(p string) (fs.FileInfo, error) {
	if r, ok := s.lstats[p]; ok {
		return r.fi, r.err
	}
	fi, err := os.Lstat(p)
	if s.lstats == nil {
		s.lstats = map[string]lstatResult{}
	}
	s.lstats[p] = lstatResult{fi, err}
	return fi, err
}

// noteListing notes that the entries of the directory p were read, and
// their names when all were (nil when not).
func (s *pathSet) noteListing(p string, names []string) {
	if s.listed == nil {
		s.listed = map[string][]string{}
	}
	s.listed[p] = names
}

// entryNames returns the names of ents, none (not nil) for none.
func entryNames(ents []fs.DirEntry) []string {
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names
}

func (s *pathSet) add(paths ...string) {
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, p := range paths {
		if !s.seen[p] {
			s.seen[p] = true
			s.list = append(s.list, p)
		}
	}
}

// addExisting adds the paths that exist (as anything, links included).
func (s *pathSet) addExisting(paths ...string) {
	for _, p := range paths {
		if _, err := s.lstat(p); err == nil {
			s.add(p)
		}
	}
}

// follow adds what the listed paths lead to in the workspace ws: a hook
// that is a link to scripts/pre-commit.sh (a common way to keep hooks
// under version control) runs that file, a .claude that is a link is read
// where it leads, and a linked config or include file is read from its
// target. For every listed path, and every entry of a listed directory (a
// hooks or settings directory) that is a link, each link its resolution
// goes through (a link at any component: scripts -> tools/scripts on the
// way to scripts/pre-commit.sh) and its final target are added, where
// they lie in ws: a command that replaced one of those links would have
// the host read a file of its own. The links are named with their
// directory resolved, as a mount names them. A final target that does not
// exist is added only when missing is set: for settings, which are
// watched, not held; git's are listed only when they exist (a directory of
// ours held there would be debris, and GitTamper sees the file made). A
// target that is a directory (a linked hooks directory) is looked into too,
// as it comes up in the list. ws must be resolved: targets come resolved.
func (s *pathSet) follow(ws string, missing bool) {
	in := func(p string) bool { return Under(p, []string{ws}) }
	for i := 0; i < len(s.list) && s.links < maxLinks; i++ {
		p := s.list[i]
		if s.met[p] {
			continue
		}
		todo := []string{p}
		if fi, err := s.lstat(p); err == nil && fi.IsDir() {
			s.noteListing(p, nil) // whether it can be read is its listing's too
			if d, err := plainfile.Open(p, unix.O_DIRECTORY); err == nil {
				ents, err := d.ReadDir(gitHooksMax)
				d.Close()
				var names []string
				if err == nil || err == io.EOF {
					names = entryNames(ents)
				}
				s.noteListing(p, names)
				for _, e := range ents {
					if e.Type()&fs.ModeSymlink != 0 {
						todo = append(todo, filepath.Join(p, e.Name()))
					}
				}
			}
		}
		for _, t := range todo {
			links, final, exists := s.resolveLinks(t, ws)
			if len(links) == 0 {
				continue // nothing on the way: the path is its own
			}
			if s.links += len(links); s.links > maxLinks {
				return
			}
			for _, l := range links {
				if in(l) && !s.seen[l] {
					if s.met == nil {
						s.met = map[string]bool{}
					}
					s.met[l] = true
					s.add(l)
				}
			}
			if (exists || missing) && in(final) {
				s.add(final)
			}
		}
	}
}

// resolveLinks resolves the absolute path as the kernel would, one
// component at a time, and returns the links it goes through, named with
// their directory resolved, and where it ends: the resolved path, or,
// when a component is missing (a dangling link), the resolved part joined
// with the rest, which is where a file made there would appear. exists is
// false then, and after maxLinkChain links (a loop). from, a resolved
// directory, is trusted as resolved where path lies below it: the part
// above the workspace is looked up at every start otherwise.
func (s *pathSet) resolveLinks(path, from string) (links []string, final string, exists bool) {
	cur, rest := "/", path
	if from != "" && Under(path, []string{from}) {
		cur, rest = from, strings.TrimPrefix(path, from)
	}
	parts := splitPath(rest)
	for len(parts) > 0 {
		c := parts[0]
		parts = parts[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := s.lstat(next)
		if err != nil {
			return links, filepath.Join(append([]string{next}, parts...)...), false
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if len(links) >= maxLinkChain {
				return links, filepath.Join(append([]string{next}, parts...)...), false
			}
			links = append(links, next)
			t, err := os.Readlink(next)
			if err != nil {
				return links, filepath.Join(append([]string{next}, parts...)...), false
			}
			if filepath.IsAbs(t) {
				cur = "/"
			}
			parts = append(splitPath(t), parts...)
			continue
		}
		if !fi.IsDir() && len(parts) > 0 {
			return links, filepath.Join(append([]string{next}, parts...)...), false
		}
		cur = next
	}
	return links, cur, true
}

func splitPath(p string) []string {
	return strings.Split(filepath.ToSlash(p), "/")
}

// stamp is pathStamp of p, taken from the lstat the set took of it when
// it has one; a nil set takes it now.
func (s *pathSet) stamp(p string) (ino uint64, ctime time.Time, dir bool, err error) {
	if s != nil {
		if r, ok := s.lstats[p]; ok {
			if r.err != nil {
				return 0, time.Time{}, false, r.err
			}
			return inodeOf(r.fi), ctimeOf(r.fi), r.fi.IsDir(), nil
		}
	}
	return pathStamp(p)
}

// listing returns the names follow read in the directory p, and whether
// it listed p; none for a nil set.
func (s *pathSet) listing(p string) ([]string, bool) {
	if s == nil {
		return nil, false
	}
	names := s.listed[p]
	return names, names != nil
}
