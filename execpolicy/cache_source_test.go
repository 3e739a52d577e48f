package execpolicy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/gatedexec/gatedexec/internal/cachefile"
)

// TestSourceRoundTrip: every source decodes to what was encoded, a
// position in a known file in a few bytes, anything else as itself.
func TestSourceRoundTrip(t *testing.T) {
	files := []string{"a", "/etc/gatedexec/a.rules", "x:1"}
	for _, tt := range []struct {
		src     string
		compact bool
	}{
		{"/etc/gatedexec/a.rules:3:1", true},
		{"/etc/gatedexec/a.rules:4294967295:12", true},
		{"a:1:1", true},
		{"x:1:2:3", true}, // the file "x:1", line 2, column 3
		{"/etc/gatedexec/a.rules:03:1", false},
		{"/etc/gatedexec/a.rules:4294967296:1", false},
		{"/etc/gatedexec/a.rules:1", false},
		{"/etc/gatedexec/a.rules:1:2:3", false},
		{"/etc/gatedexec/a.rules:-1:2", false},
		{"/etc/gatedexec/a.rules::", false},
		{"b.rules:1:1", false},
		{"", false},
		{"gatedexec built-in", false},
	} {
		enc := appendSource(nil, tt.src, files)
		if compact := enc[0] != 0; compact != tt.compact {
			t.Errorf("%q: encoded as a position: %v, want %v", tt.src, compact, tt.compact)
		}
		d := decoder{cachefile.NewDecoder(string(enc), errCacheEntry)}
		ref := d.sourceRef(len(files))
		if err := d.End(); err != nil {
			t.Errorf("%q: %v", tt.src, err)
		}
		if got := ref.string(files); got != tt.src {
			t.Errorf("%q decodes as %q", tt.src, got)
		}
		text := newSourceText(files, 1)
		if got := text.string(ref); got != tt.src {
			t.Errorf("%q decodes into a sourceText as %q", tt.src, got)
		}
	}
}

// TestSourceDamaged: a source naming a file the entry was not loaded
// from, or a line or column no file has, is damage.
func TestSourceDamaged(t *testing.T) {
	u := binary.AppendUvarint
	for name, enc := range map[string][]byte{
		"file 3 of 2":     u(u(u(nil, 3), 1), 1),
		"line past 2^32":  u(u(u(nil, 1), math.MaxUint32+1), 1),
		"column past it":  u(u(u(nil, 1), 1), math.MaxUint32+1),
		"truncated":       u(nil, 1),
		"text cut short":  u(u(nil, 0), 10),
		"varint overflow": bytes.Repeat([]byte{0xff}, 11),
	} {
		d := decoder{cachefile.NewDecoder(string(enc), errCacheEntry)}
		d.sourceRef(2)
		if err := d.End(); !errors.Is(err, errCacheEntry) {
			t.Errorf("%s: %v, want a damaged entry", name, err)
		}
	}
}

// TestEntryHoldsNoFileName: an entry stores no file's name (the key
// covers them), yet every rule decodes with its source.
func TestEntryHoldsNoFileName(t *testing.T) {
	name := "/a/long/directory/for/rules/policy.rules"
	p, err := Loader{HomeDir: "/h"}.Load(name, []byte(benchPolicySource(300)+`
network_rule(host="example.com", protocol="https", decision="allow")
`))
	if err != nil {
		t.Fatal(err)
	}
	key := [cacheKeySize]byte{9}
	entry := encodePolicy(key, p, []string{name})
	if n := bytes.Count(entry, []byte("policy.rules")); n != 0 {
		t.Errorf("the entry holds the file's name %d times", n)
	}
	got, err := decodePolicy(key, entry, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	got.sources = p.sources
	if want := rulesOf(p); !reflect.DeepEqual(rulesOf(got), want) {
		t.Errorf("decoded %+v, want %+v", rulesOf(got), want)
	}
	if len(p.network) != 1 || got.network[0].Source != p.network[0].Source || p.network[0].Source == "" {
		t.Errorf("network rule source %q, want %q", got.network[0].Source, p.network[0].Source)
	}
}
