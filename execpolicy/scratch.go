package execpolicy

import (
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// scratch is what an evaluation uses and hands back empty: the shell
// parser and the stack of words. A parser alone is a few kilobytes, which
// every script would otherwise allocate and the collector reclaim; kept in
// a pool per Policy, they are reused by the evaluations that follow.
type scratch struct {
	parser *syntax.Parser
	// dialects are the parsers for shells other than bash, made on first
	// use.
	dialects map[syntax.LangVariant]*syntax.Parser
	words    []word
}

// scratchPool holds the scratch of finished evaluations.
type scratchPool struct {
	pool sync.Pool
}

// maxPooledWords bounds the word stack a scratch keeps, so that one huge
// script does not pin its words' memory for good.
const maxPooledWords = 1024

// get returns a scratch, fresh when none is pooled or when q is nil (a
// Policy not made by NewPolicy).
func (q *scratchPool) get() *scratch {
	if q != nil {
		if s, ok := q.pool.Get().(*scratch); ok {
			return s
		}
	}
	return &scratch{}
}

// put returns s to q once its evaluation is done; nothing of that
// evaluation stays reachable through it.
func (q *scratchPool) put(s *scratch) {
	if q == nil {
		return
	}
	if cap(s.words) > maxPooledWords {
		s.words = nil
	}
	clear(s.words[:cap(s.words)])
	s.words = s.words[:0]
	q.pool.Put(s)
}

// shellParser returns the scratch's parser for the dialect lang (0 for
// bash), made on first use: a plain argv needs none.
func (s *scratch) shellParser(lang syntax.LangVariant) *syntax.Parser {
	if lang != 0 && lang != syntax.LangBash {
		p := s.dialects[lang]
		if p == nil {
			if s.dialects == nil {
				s.dialects = map[syntax.LangVariant]*syntax.Parser{}
			}
			p = syntax.NewParser(syntax.Variant(lang))
			s.dialects[lang] = p
		}
		return p
	}
	if s.parser == nil {
		s.parser = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	return s.parser
}
