package cachefile

import (
	"crypto/sha256"
	"errors"
)

// KeySize is the size of the key an entry is written under.
const KeySize = sha256.Size

// The ways an entry fails Open.
var (
	errTruncated = errors.New("truncated")
	errMagic     = errors.New("bad magic")
	errKey       = errors.New("written under another key (another build or input)")
	errChecksum  = errors.New("checksum mismatch")
)

// Header starts an entry: magic, which names its format, and key, what
// it was made from. The caller appends the body, then Seal.
func Header(magic string, key [KeySize]byte) []byte {
	return append([]byte(magic), key[:]...)
}

// Seal ends an entry begun with Header: a SHA-256 of all of it, which
// Open checks, so that a damaged entry is refused rather than decoded
// into something else.
func Seal(entry []byte) []byte {
	sum := sha256.Sum256(entry)
	return append(entry, sum[:]...)
}

// Open returns the body of an entry made with Header(magic, key) and
// Seal, or why it is not one.
func Open(magic string, key [KeySize]byte, entry []byte) ([]byte, error) {
	head := len(magic) + KeySize
	if len(entry) < head+sha256.Size {
		return nil, errTruncated
	}
	if string(entry[:len(magic)]) != magic {
		return nil, errMagic
	}
	if [KeySize]byte(entry[len(magic):head]) != key {
		return nil, errKey
	}
	end := len(entry) - sha256.Size
	if sha256.Sum256(entry[:end]) != [sha256.Size]byte(entry[end:]) {
		return nil, errChecksum
	}
	return entry[head:end], nil
}
