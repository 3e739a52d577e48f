// Package filestamp tells from stat alone that a file still holds the
// bytes it held when they were hashed, so that a cache keyed by a file's
// content need not read and hash the file again on every use.
//
// A Stamp is what stat says of a file that the kernel changes whenever
// the file's bytes can change: device and inode (another file put in its
// place), size, and the modification and change times. The change time
// is the one that matters: every write, truncation, rename over it,
// chmod or link count change sets it to the current time, and no call
// sets it to anything else, so a file whose change time is what it was
// has not been written since. Two writes within one tick of the file
// system's clock (coarse: a jiffy, or a whole second on file systems that
// keep seconds) leave the same change time, which is why a stamp vouches
// for a file only once its change time lies Settle before the moment its
// bytes were read: any write after that moment gets a later time.
//
// A stamp is taken only on local file systems that keep change times
// (localFS): a network file system reports attributes it may have cached
// for up to a minute while another client writes the file, and its
// server's clock is not ours. One gap remains, as in git's index: a
// process that writes the file through a shared mapping changes bytes of
// a page already dirty without the kernel setting the change time again
// until the page is written back; such a process can write the file
// anyway.
package filestamp

import "time"

// Settle is how long before its bytes were read a file must have last
// changed for its stamp to vouch for them: more than one tick of any
// file system clock localFS accepts (ext4 with small inodes keeps whole
// seconds).
const Settle = 2 * time.Second

// Stamp is what stat says of a file that changes whenever its bytes can.
// The zero Stamp vouches for nothing.
type Stamp struct {
	Dev, Ino, Size uint64
	// Mtime and Ctime are the modification and change times, in
	// nanoseconds since the epoch.
	Mtime, Ctime int64
}

// IsZero reports whether s is the zero Stamp.
func (s Stamp) IsZero() bool { return s == Stamp{} }

// settled reports whether a file that last changed at ctime (ns) had
// settled by now, when its bytes were about to be read.
func settled(ctime int64, now time.Time) bool {
	return ctime > 0 && ctime < now.Add(-Settle).UnixNano()
}
