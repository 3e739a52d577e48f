package execpolicy

import (
	"cmp"
	"slices"
)

// ProfileRef is one sandbox profile named by a prefix rule's profile=
// extension, with the rule that names it first.
type ProfileRef struct {
	Name   string
	Source string // "file.rules:3:1"
}

// ProfileRefs lists the profiles p's rules name, each once, with the
// source of the first rule naming it, sorted by source. execpolicy knows
// nothing of profiles: callers check that each exists, so that a rules
// file naming an unknown one fails where it is loaded (rules test, run)
// with its file:line:col, not only when the rule happens to match.
func (p *Policy) ProfileRefs() []ProfileRef {
	first := map[string]string{}
	for _, b := range p.byProgram {
		b.eachProfile(func(profile, source string) { keepFirst(first, profile, source) })
	}
	out := make([]ProfileRef, 0, len(first))
	for name, src := range first {
		out = append(out, ProfileRef{Name: name, Source: src})
	}
	slices.SortFunc(out, func(a, b ProfileRef) int {
		if sourceLess(a.Source, b.Source) {
			return -1
		}
		if sourceLess(b.Source, a.Source) {
			return 1
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return out
}

// keepFirst records source for profile in first unless first holds an
// earlier one.
func keepFirst(first map[string]string, profile, source string) {
	if f, ok := first[profile]; !ok || sourceLess(source, f) {
		first[profile] = source
	}
}

// sourceLess orders "file:line:col" sources by file, then line and column
// as numbers.
func sourceLess(a, b string) bool {
	fa, la, ca := splitSource(a)
	fb, lb, cb := splitSource(b)
	if fa != fb {
		return fa < fb
	}
	if la != lb {
		return la < lb
	}
	return ca < cb
}

func splitSource(s string) (file string, line, col int) {
	// The file name may hold colons; line and column are the last two.
	num := func() int {
		n, mul, i := 0, 1, len(s)-1
		for ; i >= 0 && s[i] >= '0' && s[i] <= '9'; i-- {
			n += int(s[i]-'0') * mul
			mul *= 10
		}
		if i >= 0 && s[i] == ':' {
			s = s[:i]
		} else {
			s = s[:i+1]
		}
		return n
	}
	col = num()
	line = num()
	return s, line, col
}
