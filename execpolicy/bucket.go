package execpolicy

import "sync"

// bucket holds one program's prefix rules in load order. Rules arrive
// decoded (from a rules file) or as an encoded block of a compiled-rules
// cache entry, decoded the first time the program is looked up: a command
// names a few programs, and decoding every rule of a large policy was most
// of what a cached load cost a short-lived process, in fresh heap pages.
//
// A bucket is built by one goroutine (add, appendAll) and then read by
// many (all, eachProfile), which the mutex keeps safe while a block is
// decoded.
type bucket struct {
	mu sync.Mutex
	// rules are the decoded rules, all of which come before pending.
	rules []*PrefixRule
	// pending are the later rules, in order, some of them still encoded.
	pending []piece
}

// piece is a run of rules in a bucket: decoded, or an encoded block.
type piece struct {
	decoded []*PrefixRule
	block   *encodedRules
}

// add appends r.
func (b *bucket) add(r *PrefixRule) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) == 0 {
		b.rules = append(b.rules, r)
		return
	}
	b.pending = append(b.pending, piece{decoded: []*PrefixRule{r}})
}

// appendAll appends every rule of other, leaving encoded blocks encoded.
func (b *bucket) appendAll(other *bucket) {
	other.mu.Lock()
	rules, pending := other.rules, other.pending
	other.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case len(rules) == 0:
	case len(b.pending) == 0:
		b.rules = append(b.rules, rules...)
	default:
		b.pending = append(b.pending, piece{decoded: rules})
	}
	b.pending = append(b.pending, pending...)
}

// all returns the rules in load order, decoding what is still encoded.
func (b *bucket) all() []*PrefixRule {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) > 0 {
		// A fresh array, so that no reader's earlier slice sees it grow.
		rules := make([]*PrefixRule, len(b.rules), len(b.rules)+b.pendingLen())
		copy(rules, b.rules)
		for _, pc := range b.pending {
			if pc.block != nil {
				rules = append(rules, pc.block.decode()...)
			} else {
				rules = append(rules, pc.decoded...)
			}
		}
		b.rules, b.pending = rules, nil
	}
	return b.rules
}

// matching returns the rules that argv matches (PrefixRule.matches), in
// load order, leaving encoded blocks encoded (encodedRules.matching).
func (b *bucket) matching(argv []string) []*PrefixRule {
	// Both slices are replaced whole, never written to, once the bucket
	// is built (all), so they can be read after the lock.
	b.mu.Lock()
	rules, pending := b.rules, b.pending
	b.mu.Unlock()
	var out []*PrefixRule
	appendMatching := func(rules []*PrefixRule) {
		for _, r := range rules {
			if r.matches(argv) {
				out = append(out, r)
			}
		}
	}
	appendMatching(rules)
	for _, pc := range pending {
		if pc.block != nil {
			out = pc.block.matching(argv, out)
		} else {
			appendMatching(pc.decoded)
		}
	}
	return out
}

func (b *bucket) pendingLen() int {
	n := 0
	for _, pc := range b.pending {
		if pc.block != nil {
			n += pc.block.n
		} else {
			n += len(pc.decoded)
		}
	}
	return n
}

// eachProfile calls f with the profile and source of every rule naming a
// profile, in no particular order, without decoding anything: an encoded
// block lists the first rule naming each of its profiles, which is all
// that ProfileRefs keeps.
func (b *bucket) eachProfile(f func(profile, source string)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	decoded := func(rules []*PrefixRule) {
		for _, r := range rules {
			if r.Profile != "" {
				f(r.Profile, r.Source)
			}
		}
	}
	decoded(b.rules)
	for _, pc := range b.pending {
		if pc.block == nil {
			decoded(pc.decoded)
			continue
		}
		for _, ref := range pc.block.refs {
			f(ref.Name, ref.Source)
		}
	}
}
