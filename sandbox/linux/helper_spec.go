//go:build linux

package linux

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// specEncoder appends records to a spec.
type specEncoder struct {
	buf []byte
	err error
}

func (e *specEncoder) record(tag byte, payload ...[]byte) {
	n := 0
	for _, p := range payload {
		n += len(p)
	}
	e.buf = append(e.buf, tag)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(n))
	for _, p := range payload {
		e.buf = append(e.buf, p...)
	}
}

// str appends a string record. A NUL would end the string early in C and
// make the helper exec or mount something other than what was planned.
func (e *specEncoder) str(tag byte, what, s string, prefix ...byte) {
	if strings.IndexByte(s, 0) >= 0 {
		if e.err == nil {
			e.err = fmt.Errorf("sandbox: %s %q contains a NUL byte", what, s)
		}
		return
	}
	e.record(tag, prefix, []byte(s))
}

// encode returns s in the helper's wire format.
func (s *helperSpec) encode() ([]byte, error) {
	e := &specEncoder{buf: append(make([]byte, 0, 4096), specMagic...)}
	e.str(tagPath, "executable", s.Path)
	for _, a := range s.Argv {
		e.str(tagArg, "argument", a)
	}
	for _, kv := range s.Env {
		e.str(tagEnv, "environment entry", kv)
	}
	if s.FallbackPath != "" {
		e.str(tagFallbackPath, "fallback executable", s.FallbackPath)
		for _, a := range s.FallbackArgv {
			e.str(tagFallbackArg, "fallback argument", a)
		}
	}
	if s.Dir != "" {
		e.str(tagDir, "directory", s.Dir)
	}
	for _, d := range s.Tmp {
		e.str(tagTmp, "private tmp", d)
	}
	for _, k := range s.Keep {
		e.str(tagKeep, "kept path", k)
	}
	for _, m := range s.Mounts {
		e.str(tagMount, "mount path", m.Path, byte(m.Kind))
	}
	if s.Unshare != 0 {
		e.record(tagUnshare, binary.LittleEndian.AppendUint32(nil, s.Unshare))
	}
	if s.ParentMntNS != 0 {
		e.record(tagParentMntNS, binary.LittleEndian.AppendUint64(nil, s.ParentMntNS))
	}
	if s.LoopbackUp {
		e.record(tagLoopback)
	}
	if len(s.Egress) > 0 {
		var p []byte
		for _, port := range s.Egress {
			p = binary.LittleEndian.AppendUint16(p, port)
		}
		e.record(tagEgress, p)
	}
	if s.CloseFDs {
		e.record(tagCloseFDs)
	}
	if s.DropCaps {
		e.record(tagDropCaps)
	}
	for _, fd := range s.Reopen {
		e.record(tagReopen, binary.LittleEndian.AppendUint32(nil, uint32(fd)))
	}
	if s.Ctty > 0 {
		e.record(tagCtty, binary.LittleEndian.AppendUint32(nil, uint32(s.Ctty-1)))
	}
	if s.Dev {
		p := binary.LittleEndian.AppendUint64(nil, s.PtsAccess)
		e.record(tagDev, binary.LittleEndian.AppendUint64(p, s.DirAccess))
	}
	for _, r := range s.Rlimits {
		p := binary.LittleEndian.AppendUint32(nil, uint32(r.Resource))
		e.record(tagRlimit, binary.LittleEndian.AppendUint64(p, r.Value))
	}
	if s.Landlock {
		e.record(tagLandlock, binary.LittleEndian.AppendUint32(nil, s.LandlockFlags))
	}
	if len(s.BPF) > 0 {
		e.record(tagBPF, s.BPF)
	}
	if len(s.Affinity) > 0 {
		e.record(tagAffinity, s.Affinity)
	}
	if e.err != nil {
		return nil, e.err
	}
	if len(e.buf) > maxSpec {
		return nil, fmt.Errorf("sandbox: helper spec of %d bytes exceeds %d", len(e.buf), maxSpec)
	}
	return e.buf, nil
}
