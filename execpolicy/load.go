package execpolicy

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/gatedexec/gatedexec/internal/snapshot"
)

// Limits that keep a hostile rules file from hanging or exhausting the
// loader. A rules file is configuration, and the workspace layer comes with
// an untrusted repository, so loading must end in bounded time.
const (
	// DefaultMaxFileSize is the largest rules file loaded (16 MiB).
	DefaultMaxFileSize = 16 << 20
	// DefaultMaxSteps bounds the Starlark execution steps of one file;
	// a prefix_rule call costs a handful, so real files use a tiny part.
	DefaultMaxSteps = 20_000_000
	// DefaultMaxEntries bounds the rules, examples and host paths one file
	// declares. Builtin calls cost few steps but keep what they declare,
	// so a loop calling prefix_rule would otherwise fill memory long
	// before the step limit. A file at the size limit holds fewer.
	DefaultMaxEntries = 1_000_000
	// MaxRestrictedBytes bounds what a Restricted load reads in all
	// files together (256 KiB). Parsing costs memory in proportion to
	// the source, about a hundred times its size for a list of small
	// numbers (a 16 MiB one took 1.7 GB and 20 s), and rules that come
	// with a repository need a few kilobytes.
	MaxRestrictedBytes = 256 << 10
	// MaxRestrictedFiles bounds how many files a Restricted load reads.
	MaxRestrictedFiles = 256
)

// Loader loads rules files. The zero Loader is ready to use: it has no home
// directory (host_executable paths starting with "~/" are then load
// errors) and the default limits.
//
// Starlark offers no allocation limit, so the step limit and the file size
// bound time, not memory: a file can still build large strings in few
// steps. Restricted closes that for files the user did not write.
type Loader struct {
	// HomeDir expands "~/" in host_executable paths.
	HomeDir string
	// MaxFileSize is the largest file loaded; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// MaxSteps bounds the Starlark steps per file; 0 means DefaultMaxSteps.
	MaxSteps uint64
	// MaxEntries bounds what one file declares; 0 means DefaultMaxEntries.
	MaxEntries int
	// CacheDir, when set, is where LoadFiles keeps compiled policies so
	// that loading unchanged files again skips Starlark. Empty means no
	// cache. The directory must belong to the effective user and not be
	// writable by others, or the cache is not used.
	CacheDir string
	// Restricted accepts only the literal subset of the language
	// (checkRestricted), in which memory stays proportional to the file's
	// size. It is meant for files that arrive with a repository, which
	// could otherwise exhaust memory in a few Starlark steps.
	Restricted bool
	// CacheBuild identifies the build of the program, so that an entry
	// compiled by another build is never used; see BuildIdentity. Empty
	// means no cache.
	CacheBuild string
	// Files reads the rules files and directories; nil reads the disk.
	// A trusted layer is loaded from the snapshot its trust was checked
	// on (see package config).
	Files snapshot.FS

	// clock, when set, replaces time.Now for the cache's stamps (tests).
	clock func() time.Time
}

// LoadFiles loads paths with the zero Loader; see Loader.LoadFiles.
func LoadFiles(paths ...string) (*Policy, error) { return Loader{}.LoadFiles(paths...) }

// Load loads one rules file from memory with the zero Loader; see Loader.Load.
func Load(filename string, src []byte) (*Policy, error) { return Loader{}.Load(filename, src) }

// LoadFiles loads every rules file named by paths into one policy, in
// order. A path that is a directory stands for its "*.rules" files in
// sorted order. Any error, in any file, means no policy at all: rules are
// security configuration and a partly loaded set could allow what a
// forbidden rule in the broken file was meant to stop.
func (l Loader) LoadFiles(paths ...string) (*Policy, error) {
	files, err := expandRulePaths(l.files(), paths)
	if err != nil {
		return nil, err
	}
	if l.Restricted && len(files) > MaxRestrictedFiles {
		return nil, &LoadError{File: files[MaxRestrictedFiles], Line: 1, Col: 1,
			Msg: fmt.Sprintf("more than %d rules files in an untrusted layer", MaxRestrictedFiles)}
	}
	sums := make([][sha256.Size]byte, len(files))
	p, looked := l.loadCachedBySum(files, sums)
	if p != nil {
		return p, nil
	}
	var lookedSums [][sha256.Size]byte
	if looked {
		lookedSums = slices.Clone(sums)
	}
	srcs := make([][]byte, len(files))
	total := 0
	for i, name := range files {
		if srcs[i], err = l.readFile(name); err != nil {
			return nil, err
		}
		if total += len(srcs[i]); l.Restricted && total > MaxRestrictedBytes {
			return nil, &LoadError{File: name, Line: 1, Col: 1,
				Msg: fmt.Sprintf("untrusted rules larger than %d bytes in all", MaxRestrictedBytes)}
		}
		sums[i] = sha256.Sum256(srcs[i])
	}
	cache := l.cacheEntryFor(files, sums)
	// The entry was read for these very bytes already, unless they
	// changed since they were hashed.
	if !slices.Equal(sums, lookedSums) {
		if p := cache.load(); p != nil {
			p.sources = sourcesOf(files, sums)
			return p, nil
		}
	}
	p = NewPolicy()
	for i, name := range files {
		if err := l.loadInto(p, name, srcs[i], sums[i]); err != nil {
			return nil, err
		}
	}
	cache.store(p)
	return p, nil
}

// Load loads one rules file whose contents are src; filename is used in
// error messages and in the policy's Digest.
func (l Loader) Load(filename string, src []byte) (*Policy, error) {
	if int64(len(src)) > l.maxFileSize() {
		return nil, l.tooLarge(filename)
	}
	p := NewPolicy()
	if err := l.loadInto(p, filename, src, sha256.Sum256(src)); err != nil {
		return nil, err
	}
	return p, nil
}

// ExpandRulePaths returns the rules files named by paths: a file stands for
// itself, a directory for the "*.rules" files directly inside it, sorted by
// name. A path that does not exist is an error.
func ExpandRulePaths(paths ...string) ([]string, error) {
	return expandRulePaths(snapshot.Disk{}, paths)
}

func expandRulePaths(fsys snapshot.FS, paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := fsys.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("rules %s: %w", p, err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := fsys.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("rules directory %s: %w", p, err)
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".rules") {
				names = append(names, filepath.Join(p, e.Name()))
			}
		}
		slices.Sort(names)
		files = append(files, names...)
	}
	return files, nil
}

func (l Loader) maxFileSize() int64 {
	limit := int64(DefaultMaxFileSize)
	if l.MaxFileSize > 0 {
		limit = l.MaxFileSize
	}
	if l.Restricted {
		limit = min(limit, MaxRestrictedBytes)
	}
	return limit
}

func (l Loader) maxSteps() uint64 {
	if l.MaxSteps > 0 {
		return l.MaxSteps
	}
	return DefaultMaxSteps
}

func (l Loader) maxEntries() int {
	if l.MaxEntries > 0 {
		return l.MaxEntries
	}
	return DefaultMaxEntries
}

func (l Loader) tooLarge(name string) error {
	return &LoadError{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("rules file larger than %d bytes", l.maxFileSize())}
}

// files returns what l reads rules from.
func (l Loader) files() snapshot.FS {
	if l.Files == nil {
		return snapshot.Disk{}
	}
	return l.Files
}

// readFile reads name, refusing files over the size limit without reading
// them whole, and anything but a regular file: opening a FIFO planted in a
// rules directory would block forever, and a device could be endless.
func (l Loader) readFile(name string) ([]byte, error) {
	src, err := l.files().ReadFile(name, l.maxFileSize())
	if errors.Is(err, snapshot.ErrTooLarge) {
		return nil, l.tooLarge(name)
	}
	if err != nil {
		return nil, fmt.Errorf("rules %s: %w", name, err)
	}
	return src, nil
}

// rulesFileOptions returns the Starlark dialect of rules files: like
// Codex's (Starlark "extended"), top-level if/for are allowed; while loops,
// recursion and load() are not, so that only the step limit bounds work.
func rulesFileOptions() *syntax.FileOptions {
	return &syntax.FileOptions{TopLevelControl: true, GlobalReassign: true}
}

// loadInto executes one rules file and, if it loads without error and its
// examples hold, appends its rules to p, keeping name and sum, src's
// SHA-256, for Digest. On error p is unchanged.
func (l Loader) loadInto(p *Policy, name string, src []byte, sum [sha256.Size]byte) error {
	f, err := rulesFileOptions().Parse(name, src, 0)
	if err != nil {
		return asLoadError(name, syntaxErrorAtToken(src, err), nil)
	}
	b := &fileBuilder{
		file:       name,
		home:       l.HomeDir,
		policy:     NewPolicy(),
		callStarts: callStarts(f),
		maxEntries: l.maxEntries(),
	}
	predeclared := b.builtins()
	if l.Restricted {
		if err := checkRestricted(f, predeclared.Has); err != nil {
			return asLoadError(name, err, nil)
		}
	}
	prog, err := starlark.FileProgram(f, predeclared.Has)
	if err != nil {
		return asLoadError(name, err, b.callStarts)
	}
	thread := &starlark.Thread{
		Name: name,
		// A rules file has no business writing to gatedexec's output.
		Print: func(*starlark.Thread, string) {},
	}
	thread.SetMaxExecutionSteps(l.maxSteps())
	if _, err := prog.Init(thread, predeclared); err != nil {
		return asLoadError(name, err, b.callStarts)
	}
	if err := b.validateExamples(p.hostExecutables); err != nil {
		return err
	}
	b.policy.sources = []source{{name: name, sum: sum}}
	if p.empty() {
		// The usual case, a policy of one file: no need to copy.
		*p = *b.policy
		return nil
	}
	p.Merge(b.policy)
	return nil
}

// callStarts maps the opening parenthesis of every call in f to the start
// of the call expression.
func callStarts(f *syntax.File) callStartMap {
	// Most statements of a rules file are one call each.
	m := make(callStartMap, len(f.Stmts))
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			m[lineCol(c.Lparen)] = syntax.Start(c)
		}
		return true
	})
	return m
}
