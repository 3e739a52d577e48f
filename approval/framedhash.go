package approval

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// framedHash is a SHA-256 of a sequence of strings and counts, each
// length-prefixed, so that no two different sequences hash alike
// (["a b"] and ["a", "b"] differ).
type framedHash struct {
	h hash.Hash
	n [8]byte
}

// newFramedHash starts a framedHash with tag, which names what is hashed
// and its version.
func newFramedHash(tag string) *framedHash {
	f := &framedHash{h: sha256.New()}
	f.str(tag)
	return f
}

// count adds k, the length of a list that follows.
func (f *framedHash) count(k int) {
	binary.BigEndian.PutUint64(f.n[:], uint64(k))
	f.h.Write(f.n[:])
}

// str adds s, after its length.
func (f *framedHash) str(s string) {
	f.count(len(s))
	f.h.Write([]byte(s))
}

// hex returns the digest in hex.
func (f *framedHash) hex() string { return hex.EncodeToString(f.h.Sum(nil)) }
