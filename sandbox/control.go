package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// WithControl returns a copy of p that keeps gatedexec's own files out of
// the command's reach: paths holds the rules files and directories,
// session and trust state, the rules cache and the audit log. Each one
// that lies inside a writable path is added to Protect, so a command run
// with the workspace at $HOME cannot append an allow rule or a session
// approval for its next run; Plan proposes nothing for a denial under
// one, and Apply re-protects them under a granted directory. Paths outside
// every writable path need nothing: the backend already keeps them
// read-only, and they cost no namespace.
//
// An unrestricted profile is returned unchanged: full-access means no
// filesystem restriction at all.
func WithControl(p *Profile, paths []string) *Profile {
	if p.Unrestricted || len(paths) == 0 {
		return p
	}
	q := *p
	q.Protect = slices.Clone(p.Protect)
	q.Control = slices.Clone(p.Control)
	q.Watch = slices.Clone(p.Watch)
	for _, c := range paths {
		if c == "" || !filepath.IsAbs(c) {
			continue
		}
		c = filepath.Clean(c)
		if fi, err := os.Lstat(c); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			// A link (gatedexec started through one): what it leads to
			// is among paths, resolved; the link itself is pinned with
			// the watched ones, so it cannot be replaced.
			q.Watch = appendNew(q.Watch, c)
			continue
		}
		q.Control = appendNew(q.Control, c)
	}
	q.protectControl()
	return &q
}

// protectControl adds to Protect the Control paths that Write covers and
// the command can reach (one in the host's /tmp is not there for it).
func (p *Profile) protectControl() {
	if p.Unrestricted {
		return
	}
	for _, c := range p.Control {
		if Under(c, p.Write) && coveringRoot(c, p.Protect) == "" && !p.HiddenByPrivateTmp(c) {
			p.Protect = append(p.Protect, c)
		}
	}
}

// ControlConflict returns an error when a Control path the command can
// write, made read-only, would take a Write path with it: an exec
// approver kept in the workspace, whose directory the command could fill
// with modules the approver loads. gatedexec refuses to run then rather
// than let the command write what approves it or take its workspace away.
func (p *Profile) ControlConflict() error {
	for _, c := range p.Protect {
		if !slices.Contains(p.Control, c) {
			continue
		}
		for _, w := range p.Write {
			if Under(w, []string{c}) {
				return fmt.Errorf("%s is one of gatedexec's own files (rules, state, approver) and holds %s, which the command may write: keep gatedexec's files and the approver outside its writable paths", c, w)
			}
		}
	}
	return nil
}

// WithScanCache returns p keeping the scan of its workspace in dir
// (Profile.ScanCache), where p's scan has a workspace to watch and dir
// lies among p's control paths (WithControl): a command that could write
// there would hide its repositories from the next scans, so a dir that
// is not kept from it is not used.
func WithScanCache(p *Profile, dir string) *Profile {
	if dir == "" || !p.WatchesGit() || !Under(filepath.Clean(dir), p.Control) {
		return p
	}
	q := *p
	q.ScanCache = dir
	return &q
}
