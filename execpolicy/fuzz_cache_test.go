package execpolicy

import (
	"crypto/sha256"
	"reflect"
	"testing"

	"github.com/gatedexec/gatedexec/internal/filestamp"
)

// fuzzFiles are the files FuzzDecodePolicy's entries were loaded from.
var fuzzFiles = []string{"f.rules"}

// FuzzDecodePolicy feeds the cache decoder bodies behind a valid header
// and checksum, so that the fuzzer reaches the body parser instead of
// stopping at the checksum. Decoding must never panic, and whatever
// decodes must encode back to the same policy once its blocks are
// decoded (a block that does not decode forbids its program, and the
// profiles a block lists are this build's encoder's word until then).
func FuzzDecodePolicy(f *testing.F) {
	key := [cacheKeySize]byte{7}
	head := len(cacheMagic) + cacheKeySize
	for _, src := range []string{
		"",
		`prefix_rule(["true"])`,
		cacheTestFiles["10-base.rules"],
		cacheTestFiles["20-more.rules"],
	} {
		p, err := Loader{HomeDir: "/h"}.Load("f.rules", []byte(src))
		if err != nil {
			f.Fatal(err)
		}
		e := encodePolicy(key, p, fuzzFiles)
		f.Add(e[head : len(e)-cacheKeySize])
		stamped := appendStamps(nil, []stampedFile{{stamp: filestamp.Stamp{Dev: 1, Ino: 2, Size: 3, Mtime: -4, Ctime: 5}, sum: [32]byte{6}}})
		f.Add(appendPolicy(stamped, p, fuzzFiles))
	}
	f.Add([]byte{0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, body []byte) {
		entry := append([]byte(cacheMagic), key[:]...)
		entry = append(entry, body...)
		sum := sha256.Sum256(entry)
		entry = append(entry, sum[:]...)
		p, err := decodePolicy(key, entry, fuzzFiles)
		if err != nil {
			if p != nil {
				t.Fatal("policy returned with an error")
			}
			return
		}
		enc, err := decodePolicy(key, entry, fuzzFiles)
		if err != nil {
			t.Fatalf("second decode: %v", err)
		}
		decodeAll(p)
		assertEncodedMatching(t, enc, p)
		again, err := decodePolicy(key, encodePolicy(key, p, fuzzFiles), fuzzFiles)
		if err != nil {
			t.Fatalf("re-encoded policy does not decode: %v", err)
		}
		decodeAll(again)
		// Len is the count the blocks' headers claim, which a damaged
		// block's forbidding rule does not change; the rules are what
		// decide.
		want, got := rulesOf(p), rulesOf(again)
		want.NRules, got.NRules = 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed the policy:\n%+v\n%+v", got, want)
		}
		// The raw bytes, checksum and all, must not panic either.
		_, _ = decodePolicy(key, body, fuzzFiles)
	})
}

// decodeAll decodes every block of p.
func decodeAll(p *Policy) {
	for _, b := range p.byProgram {
		b.all()
	}
}

// assertEncodedMatching checks that matching enc's blocks, still encoded,
// finds for commands that match some of dec's rules (and some that match
// none) what matching dec's decoded rules finds, dec being enc decoded.
func assertEncodedMatching(t *testing.T, enc, dec *Policy) {
	t.Helper()
	for prog, b := range dec.byProgram {
		rules := b.all()
		probes := [][]string{{prog}, {prog, "x"}}
		for _, r := range rules[:min(len(rules), 8)] {
			first, last := []string{prog}, []string{prog}
			for _, alts := range r.Rest {
				first, last = append(first, alts[0]), append(last, alts[len(alts)-1])
			}
			probes = append(probes, first, append(last, "more"))
		}
		for _, argv := range probes {
			var want []PrefixRule
			for _, r := range rules {
				if r.matches(argv) {
					want = append(want, *r)
				}
			}
			var got []PrefixRule
			for _, r := range enc.byProgram[prog].matching(argv) {
				got = append(got, *r)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q matches %+v encoded, %+v decoded", argv, got, want)
			}
		}
	}
}
