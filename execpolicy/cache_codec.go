package execpolicy

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"slices"
	"unsafe"

	"github.com/gatedexec/gatedexec/internal/cachefile"
)

// The compiled-policy cache stores a Policy in this encoding:
//
//	magic "gxrules3" | key (32 bytes) | body | SHA-256 of all before it
//
// (cachefile.Header, Seal, Open).
//
// The body holds, with every count and string length a uvarint:
//
//	stamps { dev, ino, size, mtime, ctime, SHA-256 }  (none, or one per file)
//	examples
//	programs { program, rules, rest positions, alternatives,
//	           profiles { name, source },
//	           length, rules { rest { alts { string } }, decision byte,
//	                           justification, profile, source } }
//	host executables { name, paths { string } }
//	network rules { host, protocol, decision byte, justification, source }
//
// where a rule's source is a position in one of the files or a string
// (cache_source.go), and the stamps say the files need not be hashed to
// find the entry's key (cache_stamp.go). A program's block carries its
// totals (for allocating), the profiles its rules name (each with its
// first rule) and its length, so that a load reads a block only when a
// command names the program: checking every rule up front was a fifth of
// what a cached load of 1000 rules cost. The files themselves are not
// stored: the loader has hashed them for the key and puts their names
// and hashes back. The trailing hash catches truncation and bit flips,
// which a structurally valid body could otherwise turn into a different
// decision; a block that still does not decode forbids its program
// (encodedRules.decode).
const cacheMagic = "gxrules3"

// cacheKeySize is the size of the key an entry records.
const cacheKeySize = cachefile.KeySize

// minRuleBytes is the least a rule takes in a block: its count of
// positions, decision, justification, profile and a source of two bytes.
// It bounds what a block's rule count can make the decoder allocate.
const minRuleBytes = 6

// errCacheEntry reports an entry that does not decode; the loader then
// loads the files itself.
var errCacheEntry error = &sentinel{"malformed rules cache entry"}

// encodePolicy returns the cache entry for p, loaded from files, under
// key, without stamps.
func encodePolicy(key [cacheKeySize]byte, p *Policy, files []string) []byte {
	return cachefile.Seal(appendPolicy(appendStamps(cachefile.Header(cacheMagic, key), nil), p, files))
}

// appendPolicy appends the body of p's entry after its stamps.
func appendPolicy(buf []byte, p *Policy, files []string) []byte {
	buf = binary.AppendUvarint(buf, uint64(p.nexamples))
	progs := slices.Sorted(maps.Keys(p.byProgram))
	buf = binary.AppendUvarint(buf, uint64(len(progs)))
	var block []byte
	for _, prog := range progs {
		rules := p.byProgram[prog].all()
		var nrest, nalts int
		first := map[string]string{}
		block = block[:0]
		for _, r := range rules {
			nrest += len(r.Rest)
			block = binary.AppendUvarint(block, uint64(len(r.Rest)))
			for _, alts := range r.Rest {
				nalts += len(alts)
				block = appendStrings(block, alts)
			}
			block = append(block, byte(r.Decision))
			block = cachefile.AppendString(block, r.Justification)
			block = cachefile.AppendString(block, r.Profile)
			block = appendSource(block, r.Source, files)
			if r.Profile != "" {
				keepFirst(first, r.Profile, r.Source)
			}
		}
		buf = cachefile.AppendString(buf, prog)
		buf = binary.AppendUvarint(buf, uint64(len(rules)))
		buf = binary.AppendUvarint(buf, uint64(nrest))
		buf = binary.AppendUvarint(buf, uint64(nalts))
		buf = binary.AppendUvarint(buf, uint64(len(first)))
		for _, name := range slices.Sorted(maps.Keys(first)) {
			buf = cachefile.AppendString(buf, name)
			buf = appendSource(buf, first[name], files)
		}
		buf = binary.AppendUvarint(buf, uint64(len(block)))
		buf = append(buf, block...)
	}
	names := slices.Sorted(maps.Keys(p.hostExecutables))
	buf = binary.AppendUvarint(buf, uint64(len(names)))
	for _, name := range names {
		buf = cachefile.AppendString(buf, name)
		buf = appendStrings(buf, p.hostExecutables[name])
	}
	buf = binary.AppendUvarint(buf, uint64(len(p.network)))
	for _, n := range p.network {
		buf = cachefile.AppendString(buf, n.Host)
		buf = cachefile.AppendString(buf, n.Protocol)
		buf = append(buf, byte(n.Decision))
		buf = cachefile.AppendString(buf, n.Justification)
		buf = appendSource(buf, n.Source, files)
	}
	return buf
}

func appendStrings(buf []byte, ss []string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(ss)))
	for _, s := range ss {
		buf = cachefile.AppendString(buf, s)
	}
	return buf
}

// decodePolicy decodes a cache entry written under key for files. Every
// count is checked against the bytes left before anything is allocated
// for it, so a hostile or damaged entry costs at most a bounded multiple
// of its own size and yields an error or a policy that forbids what it
// cannot decode, never a panic. The returned policy has no sources; the
// caller adds them. Its strings share entry's bytes, so the caller gives
// entry up: nothing may write to it afterwards.
func decodePolicy(key [cacheKeySize]byte, entry []byte, files []string) (*Policy, error) {
	body, err := cachefile.Open(cacheMagic, key, entry)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCacheEntry, err)
	}
	d := newDecoder(body)
	d.stamps(len(files))
	return d.policy(files)
}

// newDecoder reads body. One string for the whole body lets every decoded
// string share it instead of costing an allocation each; it is the
// entry's own bytes, not a copy, which for 1000 rules was ten more fresh
// pages per start.
func newDecoder(body []byte) decoder {
	return decoder{cachefile.NewDecoder(unsafe.String(unsafe.SliceData(body), len(body)), errCacheEntry)}
}

// policy reads the rest of a body, after its stamps, as a policy loaded
// from files.
func (d decoder) policy(files []string) (*Policy, error) {
	p := NewPolicy()
	// A number, not a count of what follows: examples leave nothing in
	// the entry, so count's bound (no more than the bytes left) would
	// refuse the entry of a file with many examples and few rules.
	if n := d.Uvarint(); n <= math.MaxInt32 {
		p.nexamples = int(n)
	} else {
		d.Fail("%d examples", n)
	}
	nprogs := d.count()
	// One array each for the buckets, their pieces and their blocks: a
	// policy of many programs costs a few allocations, not three each.
	buckets := make([]bucket, nprogs)
	pieces := make([]piece, nprogs)
	blocks := make([]encodedRules, nprogs)
	for i := range nprogs {
		blk := &blocks[i]
		blk.prog, blk.files = d.Str(), &files
		n, nrest, nalts := d.Uvarint(), d.Uvarint(), d.Uvarint()
		blk.refs = d.refs(files)
		blk.body = d.Str()
		// Each count is bounded by the block's length, so that what
		// decode allocates for it is too.
		size := uint64(len(blk.body))
		switch {
		case n == 0 || n > size/minRuleBytes:
			d.Fail("program %q has %d rules in %d bytes", blk.prog, n, size)
		case nrest > size || nalts > size:
			d.Fail("program %q has %d positions and %d alternatives in %d bytes", blk.prog, nrest, nalts, size)
		}
		if _, dup := p.byProgram[blk.prog]; dup {
			d.Fail("program %q listed twice", blk.prog)
		}
		if d.Err() != nil {
			break
		}
		blk.n, blk.nrest, blk.nalts = int(n), int(nrest), int(nalts)
		pieces[i].block = blk
		buckets[i].pending = pieces[i : i+1 : i+1]
		p.byProgram[blk.prog] = &buckets[i]
		p.nrules += blk.n
	}
	nhosts := d.count()
	p.hostExecutables = make(map[string][]string, nhosts)
	for range nhosts {
		name := d.Str()
		paths := d.strings()
		if _, dup := p.hostExecutables[name]; dup {
			d.Fail("host executable %q listed twice", name)
		}
		p.hostExecutables[name] = paths
	}
	if n := d.count(); n > 0 {
		p.network = make([]NetworkRule, n)
		for i := range p.network {
			p.network[i] = NetworkRule{Host: d.Str(), Protocol: d.Str(), Decision: d.decision(), Justification: d.Str()}
			p.network[i].Source = d.sourceRef(len(files)).string(files)
		}
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return p, nil
}

// refs reads the profiles a block's rules name, each with its first rule.
func (d decoder) refs(files []string) []ProfileRef {
	n := d.count()
	if n == 0 {
		return nil
	}
	refs := make([]ProfileRef, n)
	for i := range refs {
		if refs[i].Name = d.Str(); refs[i].Name == "" && d.Err() == nil {
			d.Fail("a profile without a name")
		}
		refs[i].Source = d.sourceRef(len(files)).string(files)
	}
	return refs
}

// encodedRules is one program's block in a cache entry, decoded on first
// use.
type encodedRules struct {
	prog string
	// n, nrest and nalts are the rules' count and the totals of their
	// positions and alternatives.
	n, nrest, nalts int
	body            string
	// files are the files the entry was loaded from, which sources name:
	// one slice for all of an entry's blocks.
	files *[]string
	// refs are the profiles the rules name, each with its first rule.
	refs []ProfileRef
}

// decode returns the rules of e. An entry that decodes at all was sealed
// by this build's encoder, so a block that does not is damage that the
// seal missed or a forgery by the cache's owner: the program's commands
// are then forbidden rather than judged by part of its rules.
func (e *encodedRules) decode() []*PrefixRule {
	d := decoder{cachefile.NewDecoder(e.body, errCacheEntry)}
	rules := make([]PrefixRule, e.n)
	ptrs := make([]*PrefixRule, e.n)
	rests := make([][]string, e.nrest)
	alts := make([]string, e.nalts)
	files := *e.files
	sources := newSourceText(files, e.n)
	for i := range rules {
		r := &rules[i]
		r.Program = e.prog
		if nrest := d.count(); nrest > len(rests) {
			d.Fail("rule uses %d positions of %d left", nrest, len(rests))
		} else if nrest > 0 {
			r.Rest, rests = rests[:nrest:nrest], rests[nrest:]
			for j := range r.Rest {
				r.Rest[j], alts = d.carve(alts)
			}
		}
		r.Decision = d.decision()
		r.Justification = d.Str()
		r.Profile = d.Str()
		r.Source = sources.string(d.sourceRef(len(files)))
		ptrs[i] = r
	}
	if d.End() != nil || len(rests) != 0 || len(alts) != 0 {
		return []*PrefixRule{damagedBlock(e.prog)}
	}
	return ptrs
}

// decoder reads the body of a cache entry: cachefile.Decoder with the
// shapes the encoder writes.
type decoder struct{ *cachefile.Decoder }

// count reads a count of items, each of which takes at least one byte, so
// a count larger than what is left is damage.
func (d decoder) count() int { return d.Count(1) }

// strings reads a list of strings; an empty list decodes as nil, as the
// loader builds it.
func (d decoder) strings() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.Str()
	}
	return ss
}

// carve reads a non-empty list of strings into the front of pool and
// returns it and the rest of pool.
func (d decoder) carve(pool []string) (list, rest []string) {
	n := d.count()
	if n == 0 || n > len(pool) {
		d.Fail("list of %d strings with %d left", n, len(pool))
		return nil, pool
	}
	list, rest = pool[:n:n], pool[n:]
	for i := range list {
		list[i] = d.Str()
	}
	return list, rest
}

func (d decoder) decision() Decision {
	v := Decision(d.Byte())
	if d.Err() != nil {
		return 0
	}
	if v != Allow && v != Prompt && v != Forbidden {
		d.Fail("invalid decision %d", int(v))
		return 0
	}
	return v
}
