package execpolicy

import "github.com/gatedexec/gatedexec/internal/cachefile"

// matching appends to out the rules of e that argv matches
// (PrefixRule.matches), in order, decoding those alone: a command matches
// few of its program's rules, and decoding all of them (the 100 of one
// program in the benchmark's 1000) was most of what judging it cost a
// short-lived process. The block is read as decode reads it and fails
// where decode fails, and then out gets decode's forbidding rule instead
// of any of e's.
func (e *encodedRules) matching(argv []string, out []*PrefixRule) []*PrefixRule {
	d := decoder{cachefile.NewDecoder(e.body, errCacheEntry)}
	nfiles := len(*e.files)
	start := len(out)
	var nrest, nalts int
	for range e.n {
		at := d.Off()
		k := d.count()
		nrest += k
		hit := len(argv) > k
		for j := range k {
			m := d.count()
			if m == 0 {
				d.Fail("empty list of alternatives")
			}
			nalts += m
			found := false
			for range m {
				if s := d.Str(); hit && s == argv[1+j] {
					found = true
				}
			}
			hit = hit && found
		}
		d.decision()
		d.Str() // justification
		d.Str() // profile
		d.sourceRef(nfiles)
		if hit && d.Err() == nil {
			out = append(out, e.rule(at))
		}
	}
	if d.End() != nil || nrest != e.nrest || nalts != e.nalts {
		return append(out[:start], damagedBlock(e.prog))
	}
	return out
}

// rule decodes the rule of e at byte at, which matching has read
// without error.
func (e *encodedRules) rule(at int) *PrefixRule {
	d := decoder{cachefile.NewDecoder(e.body[at:], errCacheEntry)}
	r := &PrefixRule{Program: e.prog}
	if k := d.count(); k > 0 {
		r.Rest = make([][]string, k)
		for j := range r.Rest {
			r.Rest[j] = d.strings()
		}
	}
	r.Decision = d.decision()
	r.Justification = d.Str()
	r.Profile = d.Str()
	r.Source = d.sourceRef(len(*e.files)).string(*e.files)
	return r
}

// damagedBlock is the one rule of a program whose block does not decode:
// its commands are forbidden rather than judged by part of its rules.
func damagedBlock(prog string) *PrefixRule {
	return &PrefixRule{Program: prog, Decision: Forbidden, Justification: "gatedexec: damaged rules cache entry"}
}
