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
//	magic "gxrules2" | key (32 bytes) | body | SHA-256 of all before it
//
// (cachefile.Header, Seal, Open).
//
// The body holds, with every count and string length a uvarint:
//
//	examples, rules, rest positions, alternatives (totals, for allocating)
//	programs { program, rules { rest { alts { string } }, decision byte,
//	           justification, profile, source } }
//	host executables { name, paths { string } }
//	network rules { host, protocol, decision byte, justification, source }
//
// where a rule's source is a position in one of the files or a string
// (cache_source.go). The files themselves are not stored: the loader has
// just hashed them for the key and puts their names and hashes back. The
// trailing hash catches truncation and bit flips, which a structurally
// valid body could otherwise turn into a different decision.
const cacheMagic = "gxrules2"

// cacheKeySize is the size of the key an entry records.
const cacheKeySize = cachefile.KeySize

// errCacheEntry reports an entry that does not decode; the loader then
// loads the files itself.
var errCacheEntry error = &sentinel{"malformed rules cache entry"}

// encodePolicy returns the cache entry for p, loaded from files, under
// key.
func encodePolicy(key [cacheKeySize]byte, p *Policy, files []string) []byte {
	buf := cachefile.Header(cacheMagic, key)
	buf = binary.AppendUvarint(buf, uint64(p.nexamples))
	var nrules, nrest, nalts int
	for _, b := range p.byProgram {
		rules := b.all()
		nrules += len(rules)
		for _, r := range rules {
			nrest += len(r.Rest)
			for _, alts := range r.Rest {
				nalts += len(alts)
			}
		}
	}
	buf = binary.AppendUvarint(buf, uint64(nrules))
	buf = binary.AppendUvarint(buf, uint64(nrest))
	buf = binary.AppendUvarint(buf, uint64(nalts))
	progs := slices.Sorted(maps.Keys(p.byProgram))
	buf = binary.AppendUvarint(buf, uint64(len(progs)))
	for _, prog := range progs {
		rules := p.byProgram[prog].all()
		buf = cachefile.AppendString(buf, prog)
		buf = binary.AppendUvarint(buf, uint64(len(rules)))
		for _, r := range rules {
			buf = binary.AppendUvarint(buf, uint64(len(r.Rest)))
			for _, alts := range r.Rest {
				buf = appendStrings(buf, alts)
			}
			buf = append(buf, byte(r.Decision))
			buf = cachefile.AppendString(buf, r.Justification)
			buf = cachefile.AppendString(buf, r.Profile)
			buf = appendSource(buf, r.Source, files)
		}
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
	return cachefile.Seal(buf)
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
// for it, so a hostile or damaged entry costs at most its own size and
// yields an error, never a panic or a policy that differs from what was
// encoded. The returned policy has no sources; the caller adds them. Its
// strings share entry's bytes, so the caller gives entry up: nothing may
// write to it afterwards.
func decodePolicy(key [cacheKeySize]byte, entry []byte, files []string) (*Policy, error) {
	body, err := cachefile.Open(cacheMagic, key, entry)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errCacheEntry, err)
	}
	// One string for the whole body lets every decoded string share it
	// instead of costing an allocation each; it is entry's own bytes, not
	// a copy, which for 1000 rules was ten more fresh pages per start.
	d := decoder{cachefile.NewDecoder(unsafe.String(unsafe.SliceData(body), len(body)), errCacheEntry)}
	p := NewPolicy()
	// A number, not a count of what follows: examples leave nothing in
	// the entry, so count's bound (no more than the bytes left) would
	// refuse the entry of a file with many examples and few rules.
	if n := d.Uvarint(); n <= math.MaxInt32 {
		p.nexamples = int(n)
	} else {
		d.Fail("%d examples", n)
	}
	// The whole body is checked here, but each program's rules are only
	// decoded when it is looked up (bucket): their totals, checked against
	// the header's, size the arrays they are carved from then.
	nrules, nrest, nalts := d.count(), d.count(), d.count()
	nprogs := d.count()
	if nprogs > nrules {
		d.Fail("%d programs for %d rules", nprogs, nrules)
	}
	var sumRest, sumAlts int
	// One array each for the buckets, their pieces and their blocks: a
	// policy of many programs costs a few allocations, not three each.
	buckets := make([]bucket, nprogs)
	pieces := make([]piece, nprogs)
	blocks := make([]encodedRules, nprogs)
	for i := range nprogs {
		prog := d.Str()
		n := d.count()
		if n == 0 || n > nrules-p.nrules {
			d.Fail("program %q has %d rules", prog, n)
		}
		if _, dup := p.byProgram[prog]; dup {
			d.Fail("program %q listed twice", prog)
		}
		if d.Err() != nil {
			break
		}
		start := d.Off()
		blk := &blocks[i]
		blk.prog, blk.n, blk.files = prog, n, &files
		blk.nrest, blk.nalts, blk.refs = d.skimRules(n, files)
		blk.body = d.Since(start)
		sumRest += blk.nrest
		sumAlts += blk.nalts
		pieces[i].block = blk
		buckets[i].pending = pieces[i : i+1 : i+1]
		p.byProgram[prog] = &buckets[i]
		p.nrules += n
	}
	if d.Err() == nil && (p.nrules != nrules || sumRest != nrest || sumAlts != nalts) {
		d.Fail("totals do not match the rules")
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

// encodedRules is one program's rules in a cache entry, checked by
// skimRules and decoded on first use.
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

// skimRules checks the n rules that follow, read as encodedRules.decode
// reads them, without keeping any: it returns the totals of their
// positions and alternatives and the profiles they name.
func (d decoder) skimRules(n int, files []string) (nrest, nalts int, refs []ProfileRef) {
	var first map[string]sourceRef
	for range n {
		k := d.count()
		nrest += k
		for range k {
			m := d.count()
			if m == 0 {
				d.Fail("empty list of alternatives")
			}
			nalts += m
			for range m {
				d.Str()
			}
		}
		d.decision()
		d.Str() // justification
		profile, source := d.Str(), d.sourceRef(len(files))
		if profile != "" && d.Err() == nil {
			if first == nil {
				first = map[string]sourceRef{}
			}
			if f, ok := first[profile]; !ok || source.less(f, files) {
				first[profile] = source
			}
		}
	}
	for name, src := range first {
		refs = append(refs, ProfileRef{Name: name, Source: src.string(files)})
	}
	return nrest, nalts, refs
}

// decode returns the rules of e. The body was checked when the entry was
// read (skimRules), so that decoding cannot fail; were it to fail anyway,
// the program's commands are forbidden rather than judged by part of its
// rules.
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
		return []*PrefixRule{{Program: e.prog, Decision: Forbidden, Justification: "gatedexec: damaged rules cache entry"}}
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
