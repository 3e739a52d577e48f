package execpolicy

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gatedexec/gatedexec/internal/cachefile"
)

// A rule's source is where it was defined: "name:line:col" in one of the
// files an entry was loaded from, as the loader writes it. Written out,
// the file's name was most of an entry (for 1000 rules in one file, 22 of
// its 38 kB, all of which every cached start reads and hashes), so the
// encoder writes the file's number (1 for the first) and the line and
// column, and anything else as a 0 and the string. The key an entry is
// found by covers the file names, in order, so the decoder has the very
// names the encoder had.

// appendSource appends src, a source of a rule loaded from files.
func appendSource(buf []byte, src string, files []string) []byte {
	for i, f := range files {
		rest, ok := strings.CutPrefix(src, f)
		if !ok || len(rest) < 4 || rest[0] != ':' {
			continue
		}
		if line, col, ok := parseLineCol(rest[1:]); ok {
			buf = binary.AppendUvarint(buf, uint64(i+1))
			buf = binary.AppendUvarint(buf, line)
			return binary.AppendUvarint(buf, col)
		}
	}
	return cachefile.AppendString(append(buf, 0), src)
}

// parseLineCol parses "line:col" written as the loader writes it, so
// that the decoder writes it back byte for byte.
func parseLineCol(s string) (line, col uint64, ok bool) {
	l, c, found := strings.Cut(s, ":")
	if !found {
		return 0, 0, false
	}
	line, err1 := strconv.ParseUint(l, 10, 32)
	col, err2 := strconv.ParseUint(c, 10, 32)
	if err1 != nil || err2 != nil || strconv.FormatUint(line, 10) != l || strconv.FormatUint(col, 10) != c {
		return 0, 0, false
	}
	return line, col, true
}

// sourceRef is a source as the entry holds it: a file's number (1 for
// the first) with a line and column, or, numbered 0, the string itself.
type sourceRef struct {
	file      int
	line, col uint64
	text      string
}

// sourceRef reads a source appendSource wrote for a load of nfiles files.
func (d decoder) sourceRef(nfiles int) sourceRef {
	n := d.Uvarint()
	if n == 0 {
		return sourceRef{text: d.Str()}
	}
	if n > uint64(nfiles) {
		d.Fail("source in file %d of %d", n, nfiles)
		return sourceRef{}
	}
	r := sourceRef{file: int(n), line: d.Uvarint(), col: d.Uvarint()}
	if r.line > math.MaxUint32 || r.col > math.MaxUint32 {
		d.Fail("source at line %d, column %d", r.line, r.col)
	}
	return r
}

// maxSourceLen is the most appendTo adds for a source in one of files.
func maxSourceLen(files []string) int {
	n := 0
	for _, f := range files {
		n = max(n, len(f))
	}
	return n + 2 + 2*len("4294967295")
}

// appendTo appends the source r names to buf.
func (r sourceRef) appendTo(buf []byte, files []string) []byte {
	if r.file == 0 {
		return append(buf, r.text...)
	}
	buf = append(buf, files[r.file-1]...)
	buf = append(buf, ':')
	buf = strconv.AppendUint(buf, r.line, 10)
	buf = append(buf, ':')
	return strconv.AppendUint(buf, r.col, 10)
}

// string returns the source r names.
func (r sourceRef) string(files []string) string {
	if r.file == 0 {
		return r.text
	}
	return string(r.appendTo(nil, files))
}

// sourceText writes the sources of a program's rules into one array, made
// large enough for all of them at once, so that each is a string of it
// rather than an allocation of its own.
type sourceText struct {
	files []string
	most  int // maxSourceLen(files)
	buf   []byte
}

// newSourceText returns a sourceText for n sources in files.
func newSourceText(files []string, n int) *sourceText {
	most := maxSourceLen(files)
	return &sourceText{files: files, most: most, buf: make([]byte, 0, n*most)}
}

// string returns r's source, a string of the array. The array is never
// grown, so what it has given out never changes.
func (t *sourceText) string(r sourceRef) string {
	if r.file == 0 {
		return r.text
	}
	start := len(t.buf)
	if cap(t.buf)-start < t.most {
		return r.string(t.files)
	}
	t.buf = r.appendTo(t.buf, t.files)
	return unsafe.String(unsafe.SliceData(t.buf[start:]), len(t.buf)-start)
}
