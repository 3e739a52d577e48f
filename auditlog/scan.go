package auditlog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxLine bounds one record: a longer line is reported and skipped, not
// held in memory. No record gatedexec writes comes near it.
const MaxLine = 16 << 20

// Entry is one record of a log with where it is.
type Entry struct {
	File string
	Line int
	// Raw is the line as the log holds it, without its newline; it is
	// only valid during the callback.
	Raw    []byte
	Record Record
}

// Problem is a line that was skipped: torn (no line end: a write cut
// short), too long, or not a record.
type Problem struct {
	File string
	Line int
	Err  error
}

func (p Problem) Error() string { return fmt.Sprintf("%s:%d: %v", p.File, p.Line, p.Err) }

// ErrTorn is a last line with no line end: a record cut short.
var ErrTorn = errors.New("torn record (no line end)")

// ScanFile streams the log at path through Scan; "-" is stdin. The file
// is opened read-only.
func ScanFile(path string, stdin io.Reader, fn func(*Entry) error, bad func(Problem)) error {
	if path == "-" {
		return Scan(stdin, "-", fn, bad)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Scan(f, path, fn, bad)
}

// ScanFiles streams the logs at paths in order through Scan ("-" is
// stdin). Every file is opened before the first is read, so that a log
// that is missing fails the whole scan before anything was reported of
// the others: a caller printing as it goes prints all or nothing.
func ScanFiles(paths []string, stdin io.Reader, fn func(*Entry) error, bad func(Problem)) error {
	files := make([]io.Reader, len(paths))
	for i, p := range paths {
		if p == "-" {
			files[i] = stdin
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		files[i] = f
	}
	for i, r := range files {
		if err := Scan(r, paths[i], fn, bad); err != nil {
			return err
		}
	}
	return nil
}

// Scan reads the JSON-lines log r (named name in problems), calling fn
// for each record in order and bad for each line it skips. A blank line
// is skipped silently. fn's error stops the scan and is returned. One
// buffer is reused for every line: memory does not grow with the log.
func Scan(r io.Reader, name string, fn func(*Entry) error, bad func(Problem)) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var (
		long []byte // a line longer than the reader's buffer
		e    Entry
		dec  = newDecoder()
	)
	e.File = name
	for line := 1; ; line++ {
		chunk, err := br.ReadSlice('\n')
		raw, tooLong := chunk, false
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) <= MaxLine {
				long = append(long, chunk...)
			} else {
				tooLong = true
			}
			chunk, err = br.ReadSlice('\n')
			raw = nil
		}
		if raw == nil {
			if len(long)+len(chunk) <= MaxLine && !tooLong {
				long = append(long, chunk...)
			} else {
				tooLong = true
			}
			raw = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		eof := err != nil
		if eof && len(raw) == 0 && !tooLong {
			return nil
		}
		switch {
		case tooLong:
			bad(Problem{name, line, fmt.Errorf("line longer than %d bytes", MaxLine)})
		case eof:
			bad(Problem{name, line, ErrTorn})
		default:
			raw = bytes.TrimSuffix(raw, []byte("\n"))
			if len(bytes.TrimSpace(raw)) == 0 {
				break
			}
			e.Line, e.Raw = line, raw
			if err := dec.decode(raw, &e.Record); err != nil {
				bad(Problem{name, line, fmt.Errorf("not a record: %w", err)})
				break
			}
			if err := fn(&e); err != nil {
				return err
			}
		}
		long = long[:0]
		if cap(long) > 4<<20 {
			long = nil // one huge line must not keep its buffer
		}
		if eof {
			return nil
		}
	}
}
