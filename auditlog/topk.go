package auditlog

import (
	"cmp"
	"slices"
)

// topK counts keys in bounded memory, in the manner of the Space-Saving
// algorithm: it tracks at most 2·cap keys; when that many are tracked it
// keeps the cap most counted, and a key that arrives later starts from
// the largest count dropped (floor), as a possible overcount. Counts are
// exact as long as fewer than 2·cap distinct keys were seen, and
// overcount by at most Over otherwise.
type topK struct {
	cap    int
	floor  int
	counts map[string]kcount
}

type kcount struct {
	n, over int
}

func newTopK(cap int) *topK { return &topK{cap: cap, counts: map[string]kcount{}} }

func (t *topK) add(key string) {
	if c, ok := t.counts[key]; ok {
		c.n++
		t.counts[key] = c
		return
	}
	if len(t.counts) >= 2*t.cap {
		t.prune()
	}
	t.counts[key] = kcount{n: t.floor + 1, over: t.floor}
}

// addBytes is add of string(key), which it allocates only for a key not
// yet tracked.
func (t *topK) addBytes(key []byte) {
	if c, ok := t.counts[string(key)]; ok {
		c.n++
		t.counts[string(key)] = c
		return
	}
	t.add(string(key))
}

// prune keeps the cap most counted keys.
func (t *topK) prune() {
	all := t.top(len(t.counts))
	for _, c := range all[t.cap:] {
		delete(t.counts, c.Key)
		t.floor = max(t.floor, c.N)
	}
}

// Count is a key and how often it was seen; Over is how much of N may be
// an overcount (0 when exact).
type Count struct {
	Key  string `json:"key"`
	N    int    `json:"count"`
	Over int    `json:"overcount,omitempty"`
}

// top returns the n most counted keys, most first, ties by key.
func (t *topK) top(n int) []Count {
	out := make([]Count, 0, len(t.counts))
	for k, c := range t.counts {
		out = append(out, Count{k, c.n, c.over})
	}
	slices.SortFunc(out, func(a, b Count) int {
		if c := cmp.Compare(b.N, a.N); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}
