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
	_, body, err := open(magic, entry, &key)
	return body, err
}

// OpenKeyed returns the key and body of an entry made with Header(magic,
// key) and Seal, or why it is not one: for a caller that learns from the
// body which key to expect (and then compares).
func OpenKeyed(magic string, entry []byte) (key [KeySize]byte, body []byte, err error) {
	return open(magic, entry, nil)
}

// open opens entry as Open does; a nil want accepts any key.
func open(magic string, entry []byte, want *[KeySize]byte) (key [KeySize]byte, body []byte, err error) {
	head := len(magic) + KeySize
	if len(entry) < head+sha256.Size {
		return key, nil, errTruncated
	}
	if string(entry[:len(magic)]) != magic {
		return key, nil, errMagic
	}
	// The key before the checksum: an entry for other input is refused
	// without hashing it.
	if key = [KeySize]byte(entry[len(magic):head]); want != nil && key != *want {
		return key, nil, errKey
	}
	end := len(entry) - sha256.Size
	if sha256.Sum256(entry[:end]) != [sha256.Size]byte(entry[end:]) {
		return key, nil, errChecksum
	}
	return key, entry[head:end], nil
}
