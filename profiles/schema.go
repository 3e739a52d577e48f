package profiles

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gatedexec/gatedexec/internal/tomlkeys"
)

// File is one parsed profile file before extends and path tokens are
// resolved. A nil pointer or slice means the key is not set in this file,
// so that it inherits the parent's value; an empty list that is set is a
// non-nil empty slice.
type File struct {
	// Name is the file name used in errors; not a key of the file.
	Name string `toml:"-"`
	src  []byte

	Description *string `toml:"description"`
	Extends     *string `toml:"extends"`
	Enforcement *string `toml:"enforcement"`
	Filesystem  struct {
		Read    *[]string `toml:"read"`
		Write   *[]string `toml:"write"`
		Protect *[]string `toml:"protect"`
		Hide    *[]string `toml:"hide"`
		// PrivateTmp false gives a restricted command the host's /tmp
		// and $TMPDIR instead of its own (default true).
		PrivateTmp *bool `toml:"private_tmp"`
	} `toml:"filesystem"`
	Network struct {
		Mode        *string      `toml:"mode"`
		UnixSockets *unixSockets `toml:"unix_sockets"`
		// AllowHosts and DenyHosts are the hosts of mode "proxy": names,
		// "*.suffix" patterns and presets (":npm"). ConnectTo pins hosts
		// to addresses ("host[:port]=addr[:port]").
		AllowHosts *[]string `toml:"allow_hosts"`
		DenyHosts  *[]string `toml:"deny_hosts"`
		ConnectTo  *[]string `toml:"connect_to"`
	} `toml:"network"`
	Process struct {
		EnvDeny *[]string `toml:"env_deny"`
		Setsid  *bool     `toml:"setsid"`
		// PIDNamespace false keeps the command in the caller's PID
		// namespace (default true for restricted profiles).
		PIDNamespace *bool `toml:"pid_namespace"`
		// Pty false passes the caller's terminal to the command as it is
		// instead of a pty of its own (default true).
		Pty *bool `toml:"pty"`
	} `toml:"process"`
	Limits struct {
		NoFile  *count    `toml:"nofile"`
		NProc   *count    `toml:"nproc"`
		FSize   *size     `toml:"fsize"`
		CPU     *count    `toml:"cpu"`
		AS      *size     `toml:"as"`
		Memory  *memory   `toml:"memory"`
		Timeout *duration `toml:"timeout"`
	} `toml:"limits"`

	// unknown holds the keys the schema does not know, for Lint.
	unknown []tomlkeys.Entry
}

// Line returns the line on which key (dotted, "network.mode") is set, or 1
// when it cannot be found.
func (f *File) Line(key string) int { return f.Pos(key).Line }

// Pos returns where key (dotted, "network.mode") is written, or line 1
// with no column when it cannot be found.
func (f *File) Pos(key string) tomlkeys.Pos {
	if p, ok := f.keys().Find(strings.Split(key, ".")...); ok {
		return p
	}
	return tomlkeys.Pos{Line: 1}
}

// keys returns the keys of the file and where each is written. It reads
// the source again: a file from the parse cache has no other record of
// them, and only errors and a few messages need them.
func (f *File) keys() *tomlkeys.Doc {
	doc, _ := tomlkeys.Scan(f.Name, f.src) // it parsed before
	return doc
}

// Parse parses profile source. name is used in errors. The first unknown
// key is an error; ParseLax keeps them for the caller.
func Parse(name string, src []byte) (*File, error) {
	f, err := ParseLax(name, src)
	if err != nil {
		return nil, err
	}
	if len(f.unknown) > 0 {
		return nil, f.unknownError(f.unknown[0])
	}
	return f, nil
}

// ParseLax is Parse that records unknown keys instead of failing on them,
// so that Lint can report all of them at once.
func ParseLax(name string, src []byte) (*File, error) {
	if len(src) > MaxFileSize {
		return nil, errorf(name, 0, "file larger than %d bytes", MaxFileSize)
	}
	f := &File{Name: name, src: src}
	doc, err := tomlkeys.Decode(name, src, f)
	if err != nil {
		return nil, asError(name, err)
	}
	f.unknown = doc.Unknown
	return f, nil
}

// UnknownKeys returns one error per key the schema does not know.
func (f *File) UnknownKeys() []*Error {
	var errs []*Error
	for _, k := range f.unknown {
		errs = append(errs, f.unknownError(k))
	}
	return errs
}

func (f *File) unknownError(e tomlkeys.Entry) *Error {
	return tomlkeys.UnknownKey(f.Name, e)
}

// asError returns err, an error of tomlkeys.Decode about file name, as
// the *Error it is (every one of them is).
func asError(name string, err error) *Error {
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	return &Error{File: name, Err: err}
}

// The types below decode their own values (tomlkeys.Decode): their
// UnmarshalTOML gets the source of the value, which tomlkeys.Value reads,
// and set checks what it holds. An error names neither the key nor its
// place, which Decode adds.

// unixSockets is network.unix_sockets: "allow", "deny", or the list of the
// host's pathname sockets (paths and presets) the command may reach.
type unixSockets struct {
	mode string   // "allow", "deny" or "list"
	list []string // when mode is "list"
}

// UnmarshalTOML accepts a string or an array of strings.
func (u *unixSockets) UnmarshalTOML(raw []byte) error { return decodeWith(raw, u.set) }

func (u *unixSockets) set(v any) error {
	switch v := v.(type) {
	case string:
		*u = unixSockets{mode: v}
	case []any:
		u.mode, u.list = "list", make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("want strings in the list, got %T", e)
			}
			u.list = append(u.list, s)
		}
	default:
		return fmt.Errorf("want \"allow\", \"deny\" or a list of socket paths, got %T", v)
	}
	return nil
}

// decodeWith reads raw, the source of a value, and hands it to set.
func decodeWith(raw []byte, set func(any) error) error {
	v, err := tomlkeys.Value(raw)
	if err != nil {
		return err
	}
	return set(v)
}

// count is a non-negative integer limit.
type count uint64

// UnmarshalTOML accepts a non-negative integer.
func (c *count) UnmarshalTOML(raw []byte) error { return decodeWith(raw, c.set) }

func (c *count) set(v any) error {
	n, ok := v.(int64)
	if !ok {
		return fmt.Errorf("want a non-negative integer, got %T", v)
	}
	if n < 0 {
		return fmt.Errorf("want a non-negative integer, got %d", n)
	}
	*c = count(n)
	return nil
}

// memory is limits.memory: a size, or a percentage of the host's memory
// ("75%").
type memory struct {
	bytes   uint64
	percent int
}

// UnmarshalTOML accepts what size does, or "N%" with 0 < N <= 100.
func (m *memory) UnmarshalTOML(raw []byte) error { return decodeWith(raw, m.set) }

func (m *memory) set(v any) error {
	if s, ok := v.(string); ok && strings.HasSuffix(s, "%") {
		n, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
		if err != nil || n <= 0 || n > 100 {
			return fmt.Errorf("want a percentage from 1%% to 100%%, got %q", s)
		}
		*m = memory{percent: n}
		return nil
	}
	var sz size
	if err := sz.set(v); err != nil {
		return fmt.Errorf("%w, or a percentage like \"75%%\"", err)
	}
	*m = memory{bytes: uint64(sz)}
	return nil
}

// size is a byte count written as an integer or as a string with a K, M,
// G or T suffix (powers of 1024).
type size uint64

// UnmarshalTOML accepts 1048576 or "1M".
func (s *size) UnmarshalTOML(raw []byte) error { return decodeWith(raw, s.set) }

func (s *size) set(v any) error {
	switch v := v.(type) {
	case int64:
		if v < 0 {
			return fmt.Errorf("want a non-negative size, got %d", v)
		}
		*s = size(v)
		return nil
	case string:
		n, err := parseSize(v)
		if err != nil {
			return err
		}
		*s = size(n)
		return nil
	}
	return fmt.Errorf("want a size (integer or string like \"512M\"), got %T", v)
}

func parseSize(str string) (uint64, error) {
	num, shift := str, uint(0)
	if n := len(str); n > 0 {
		switch str[n-1] {
		case 'K', 'k':
			shift = 10
		case 'M', 'm':
			shift = 20
		case 'G', 'g':
			shift = 30
		case 'T', 't':
			shift = 40
		}
		if shift > 0 {
			num = str[:n-1]
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad size %q: want digits with an optional K, M, G or T suffix", str)
	}
	if n > (^uint64(0))>>shift {
		return 0, fmt.Errorf("size %q is too large", str)
	}
	return n << shift, nil
}

// duration is a positive Go duration written as a string.
type duration time.Duration

// UnmarshalTOML accepts "10m", "90s".
func (d *duration) UnmarshalTOML(raw []byte) error { return decodeWith(raw, d.set) }

func (d *duration) set(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("want a duration string like \"10m\", got %T", v)
	}
	t, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q: %w", s, err)
	}
	if t <= 0 {
		return fmt.Errorf("timeout must be positive, got %q", s)
	}
	*d = duration(t)
	return nil
}
