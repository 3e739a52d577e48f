package profiles

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gatedexec/gatedexec/internal/cachefile"
)

// The parse cache keeps the parsed form of the profile files a Resolve
// read, so that the next start resolving the same profile does not parse
// TOML again: parsing is most of what resolving a profile costs (the
// built-in workspace-write and the read-only it extends take ~0.17 ms
// warm, more at a cold start), and every sandboxed command resolves one.
//
// What is cached is a pure function of its key, so that no change on the
// host can make an entry stale. A parsed file depends only on the build of
// gatedexec (the schema and the TOML library), the file's name (used in
// errors) and its bytes; each is looked up by the SHA-256 of its name and
// bytes, which Resolve reads as before, from the same layers in the same
// order, so a profile added, edited or removed in any layer is seen at
// once. Everything that depends on the host — path tokens (":workspace",
// ":git", ":gitdir", ":cache:*", "~", "$VAR"), symlinks, the existence of
// paths, the git files behind ":git", .npmrc — is expanded afresh on every
// Resolve: those inputs could only be checked by the same system calls that
// expand them, so caching the expanded profile would save nothing safely.
//
// An entry is read only from a directory and file private to the
// effective user (package cachefile), must carry this build's key and a
// correct checksum, and must decode completely; anything else is ignored
// and the files are parsed. A parse that fails is never cached.

// parseCacheFormat names the entry encoding. Change it whenever the
// encoding or the meaning of a field changes.
const parseCacheFormat = "gatedexec parsed profile cache v1"

// parseCacheMagic starts every entry.
const parseCacheMagic = "gxprof01"

// maxParseCacheEntry bounds an entry read or written: the files of one
// extends chain (at most maxExtends of MaxFileSize each) parse to far less
// than their source.
const maxParseCacheEntry = 4 << 20

var errParseCacheEntry = errors.New("malformed parsed profile cache entry")

// fileID names one parsed file: its name and content.
type fileID [sha256.Size]byte

func idOf(name string, src []byte) fileID {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(name)))
	h.Write(n[:])
	h.Write([]byte(name))
	h.Write(src)
	return fileID(h.Sum(nil))
}

// parseMemo is the parse cache of one Resolve call: the entry read for it
// and the files this resolution parsed, stored again when any was not in
// the entry. It belongs to one call, so a Loader stays safe for concurrent
// use.
type parseMemo struct {
	dir, slot string
	key       [sha256.Size]byte
	cached    map[fileID]string // encoded files of the entry read
	used      []memoFile        // files this resolution parsed, in order
	missed    bool
}

type memoFile struct {
	id      fileID
	encoded string
}

// memo returns the parse cache of resolving nameOrFile, or nil when l has
// no cache.
func (l *Loader) memo(nameOrFile string) *parseMemo {
	if l.CacheDir == "" || l.CacheBuild == "" || !cachefile.Supported {
		return nil
	}
	m := &parseMemo{dir: l.CacheDir}
	// The slot names the entry file after what is resolved and where it
	// is looked for, so that two workspaces or two profiles do not
	// replace each other's entry; the files themselves are identified by
	// content inside it.
	s := newHasher("slot")
	s.string(l.CacheBuild)
	if IsFile(nameOrFile) {
		if abs, err := filepath.Abs(nameOrFile); err == nil {
			nameOrFile = abs
		}
	}
	s.string(nameOrFile)
	s.uint(uint64(len(l.Dirs)))
	for _, d := range l.Dirs {
		s.string(d)
	}
	slot := s.sum()
	m.slot = hex.EncodeToString(slot[:])
	k := newHasher("key")
	k.string(l.CacheBuild)
	m.key = k.sum()
	if entry, ok := cachefile.Read(m.dir, m.slot, maxParseCacheEntry); ok {
		m.cached, _ = decodeParseEntry(m.key, entry)
	}
	return m
}

// parse is Parse through the memo: the cached parse of (name, src) when
// the entry has it, else Parse's, recorded for the entry.
func (m *parseMemo) parse(name string, src []byte) (*File, error) {
	if m == nil {
		return Parse(name, src)
	}
	id := idOf(name, src)
	if enc, ok := m.cached[id]; ok {
		if f, err := decodeFile(enc); err == nil {
			f.Name, f.src = name, src
			m.used = append(m.used, memoFile{id, enc})
			return f, nil
		}
		// Undecodable despite its checksum: parse it, and replace it.
	}
	f, err := Parse(name, src)
	if err != nil {
		return nil, err
	}
	m.missed = true
	m.used = append(m.used, memoFile{id, encodeFile(f)})
	return f, nil
}

// store writes the entry when this resolution parsed a file the entry did
// not hold. Best effort, like every cache write.
func (m *parseMemo) store() {
	if m == nil || !m.missed {
		return
	}
	cachefile.Write(m.dir, m.slot, encodeParseEntry(m.key, m.used), maxParseCacheEntry)
}

// hasher writes length-prefixed fields into a SHA-256, so that no two
// different field lists hash the same input.
type hasher struct {
	h interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
}

func newHasher(purpose string) *hasher {
	h := &hasher{h: sha256.New()}
	h.string(parseCacheFormat)
	h.string(purpose)
	return h
}

func (h *hasher) uint(v uint64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	h.h.Write(b[:])
}

func (h *hasher) string(s string) {
	h.uint(uint64(len(s)))
	h.h.Write([]byte(s))
}

func (h *hasher) sum() (out [sha256.Size]byte) {
	copy(out[:], h.h.Sum(nil))
	return out
}

// An entry is
//
//	magic | key (32 bytes) | count | { file id (32 bytes) | length | file } | SHA-256 of all before it
//
// and a file is its keys in the order of File's fields, each a presence
// byte (0 unset, 1 set) and, when set, the value: a string as a uvarint
// length and bytes, a list as a presence byte (a list set to [] is not a
// nil one), a uvarint count and strings, a bool as a byte, a number as a
// uvarint.
func encodeParseEntry(key [sha256.Size]byte, files []memoFile) []byte {
	buf := cachefile.Header(parseCacheMagic, key)
	buf = binary.AppendUvarint(buf, uint64(len(files)))
	for _, f := range files {
		buf = append(buf, f.id[:]...)
		buf = cachefile.AppendString(buf, f.encoded)
	}
	return cachefile.Seal(buf)
}

// decodeParseEntry returns the encoded files of an entry written under
// key. Every length is checked against what is left, so a damaged entry
// yields an error, never a panic or a large allocation.
func decodeParseEntry(key [sha256.Size]byte, entry []byte) (map[fileID]string, error) {
	body, err := cachefile.Open(parseCacheMagic, key, entry)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errParseCacheEntry, err)
	}
	d := cachefile.NewDecoder(string(body), errParseCacheEntry)
	n := d.Count(sha256.Size + 1)
	out := make(map[fileID]string, n)
	for range n {
		var id fileID
		copy(id[:], d.Bytes(len(id)))
		out[id] = d.Str()
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return out, nil
}

// encodeFile encodes the keys of f (not its name or source, which the
// reader has).
func encodeFile(f *File) string {
	var b []byte
	b = appendOptStr(b, f.Description)
	b = appendOptStr(b, f.Extends)
	b = appendOptStr(b, f.Enforcement)
	fs := &f.Filesystem
	b = appendOptList(b, fs.Read)
	b = appendOptList(b, fs.Write)
	b = appendOptList(b, fs.Protect)
	b = appendOptList(b, fs.Hide)
	b = appendOptBool(b, fs.PrivateTmp)
	n := &f.Network
	b = appendOptStr(b, n.Mode)
	if u := n.UnixSockets; u == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = cachefile.AppendString(b, u.mode)
		b = appendList(b, u.list)
	}
	b = appendOptList(b, n.AllowHosts)
	b = appendOptList(b, n.DenyHosts)
	b = appendOptList(b, n.ConnectTo)
	p := &f.Process
	b = appendOptList(b, p.EnvDeny)
	b = appendOptBool(b, p.Setsid)
	b = appendOptBool(b, p.PIDNamespace)
	b = appendOptBool(b, p.Pty)
	l := &f.Limits
	b = appendOptUint(b, (*uint64)(l.NoFile))
	b = appendOptUint(b, (*uint64)(l.NProc))
	b = appendOptUint(b, (*uint64)(l.FSize))
	b = appendOptUint(b, (*uint64)(l.CPU))
	b = appendOptUint(b, (*uint64)(l.AS))
	if m := l.Memory; m == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, m.bytes)
		b = binary.AppendUvarint(b, uint64(m.percent))
	}
	if t := l.Timeout; t == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(*t))
	}
	return string(b)
}

// decodeFile decodes what encodeFile wrote.
func decodeFile(s string) (*File, error) {
	d := dec{cachefile.NewDecoder(s, errParseCacheEntry)}
	f := &File{}
	f.Description = d.optStr()
	f.Extends = d.optStr()
	f.Enforcement = d.optStr()
	fs := &f.Filesystem
	fs.Read = d.optList()
	fs.Write = d.optList()
	fs.Protect = d.optList()
	fs.Hide = d.optList()
	fs.PrivateTmp = d.optBool()
	n := &f.Network
	n.Mode = d.optStr()
	if d.present() {
		n.UnixSockets = &unixSockets{mode: d.Str(), list: d.list()}
	}
	n.AllowHosts = d.optList()
	n.DenyHosts = d.optList()
	n.ConnectTo = d.optList()
	p := &f.Process
	p.EnvDeny = d.optList()
	p.Setsid = d.optBool()
	p.PIDNamespace = d.optBool()
	p.Pty = d.optBool()
	l := &f.Limits
	l.NoFile = (*count)(d.optUint())
	l.NProc = (*count)(d.optUint())
	l.FSize = (*size)(d.optUint())
	l.CPU = (*count)(d.optUint())
	l.AS = (*size)(d.optUint())
	if d.present() {
		m := &memory{bytes: d.Uvarint()}
		pct := d.Uvarint()
		if pct > 100 {
			d.Fail("memory percentage %d", pct)
		}
		m.percent = int(pct)
		l.Memory = m
	}
	if d.present() {
		t := d.Uvarint()
		if t == 0 || t > 1<<63-1 {
			d.Fail("timeout %d", t)
		}
		td := duration(time.Duration(t))
		l.Timeout = &td
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return f, nil
}

func appendOptStr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, 0)
	}
	return cachefile.AppendString(append(b, 1), *s)
}

// appendList writes a list, telling a nil one from an empty one.
func appendList(b []byte, l []string) []byte {
	if l == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(len(l)))
	for _, s := range l {
		b = cachefile.AppendString(b, s)
	}
	return b
}

func appendOptList(b []byte, l *[]string) []byte {
	if l == nil {
		return append(b, 0)
	}
	return appendList(append(b, 1), *l)
}

func appendOptBool(b []byte, v *bool) []byte {
	switch {
	case v == nil:
		return append(b, 0)
	case *v:
		return append(b, 1, 1)
	}
	return append(b, 1, 0)
}

func appendOptUint(b []byte, v *uint64) []byte {
	if v == nil {
		return append(b, 0)
	}
	return binary.AppendUvarint(append(b, 1), *v)
}

// dec reads an entry's files: cachefile.Decoder with the shapes
// encodeFile writes.
type dec struct{ *cachefile.Decoder }

// present reads a presence byte: 0 or 1.
func (d dec) present() bool {
	switch d.Byte() {
	case 0:
		return false
	case 1:
		return true
	}
	d.Fail("bad presence byte")
	return false
}

func (d dec) optStr() *string {
	if !d.present() {
		return nil
	}
	s := d.Str()
	return &s
}

func (d dec) list() []string {
	if !d.present() {
		return nil
	}
	n := d.Count(1)
	l := make([]string, n)
	for i := range l {
		l[i] = d.Str()
	}
	return l
}

func (d dec) optList() *[]string {
	if !d.present() {
		return nil
	}
	l := d.list()
	return &l
}

func (d dec) optBool() *bool {
	if !d.present() {
		return nil
	}
	var v bool
	switch d.Byte() {
	case 0:
	case 1:
		v = true
	default:
		d.Fail("bad bool")
	}
	return &v
}

func (d dec) optUint() *uint64 {
	if !d.present() {
		return nil
	}
	v := d.Uvarint()
	return &v
}
