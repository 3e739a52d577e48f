package execpolicy

import (
	"crypto/sha256"
	"reflect"
	"testing"
)

// fuzzFiles are the files FuzzDecodePolicy's entries were loaded from.
var fuzzFiles = []string{"f.rules"}

// FuzzDecodePolicy feeds the cache decoder bodies behind a valid header
// and checksum, so that the fuzzer reaches the body parser instead of
// stopping at the checksum. Decoding must never panic, and whatever
// decodes must encode back to the same policy.
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
		again, err := decodePolicy(key, encodePolicy(key, p, fuzzFiles), fuzzFiles)
		if err != nil {
			t.Fatalf("re-encoded policy does not decode: %v", err)
		}
		if !reflect.DeepEqual(rulesOf(again), rulesOf(p)) {
			t.Fatalf("round trip changed the policy:\n%+v\n%+v", again, p)
		}
		// The raw bytes, checksum and all, must not panic either.
		_, _ = decodePolicy(key, body, fuzzFiles)
	})
}
