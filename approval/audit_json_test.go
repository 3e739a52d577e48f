package approval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/netip"
	"reflect"
	"testing"
	"time"

	"github.com/gatedexec/gatedexec/sandbox"
	"github.com/gatedexec/gatedexec/sandbox/egress"
)

// reflectedRecord is what Record.MarshalJSON replaced: encoding/json over
// the field tags, with the time as RFC 3339 in UTC.
func reflectedRecord(t testing.TB, r Record, escapeHTML bool) []byte {
	type plain Record
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	err := enc.Encode(struct {
		Time string `json:"time"`
		plain
	}{r.Time.UTC().Format(time.RFC3339Nano), plain(r)})
	if err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// fill sets every exported field below v, recursively, from s and n: every
// string to s, every number to n, every bool to true, every slice to one
// element and every pointer to a value, so that a field added to Record
// or to a type in it and not written by MarshalJSON fails the test.
func fill(v reflect.Value, s string, n int64) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(n)
	case reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(n) & 0xffff)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), s, n)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s, n)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 5, 14, 3, 4, 500600700, time.FixedZone("X", 3600))))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), s, n)
			}
		}
	}
}

func filled(s string, n int64) Record {
	var r Record
	fill(reflect.ValueOf(&r).Elem(), s, n)
	return r
}

func checkRecordJSON(t *testing.T, r Record) {
	t.Helper()
	got, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := reflectedRecord(t, r, false); !bytes.Equal(got, want) {
		t.Errorf("MarshalJSON:\n got %s\nwant %s", got, want)
	}
	// What Log.Write writes: json.Marshal escapes HTML as it embeds it.
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := reflectedRecord(t, r, true); !bytes.Equal(line, want) {
		t.Errorf("json.Marshal:\n got %s\nwant %s", line, want)
	}
}

// TestRecordJSON: the hand-written audit record is byte for byte what
// encoding/json wrote from the field tags, for every field set, for none,
// and for the lists that are null when nil and absent when empty.
func TestRecordJSON(t *testing.T) {
	zero := 0
	for _, r := range []Record{
		{},
		filled("a<b>&c \"q\" \\ \n\t\x01 é \u2028 \xff", 7),
		filled("", 0),
		{Time: time.Unix(0, 0), Argv: Argv{}, Rules: []MatchedRule{}, Layers: []string{}, Denials: []Denial{}, Tampered: []string{}, Exit: &zero},
		{Argv: Argv{"touch", "h\xff"}, Cwd: "/w\xfe", Rules: []MatchedRule{{Decision: "allow"}}, Denials: []Denial{{Kind: "fs-write"}}},
		{Connection: &egress.Record{Host: "example.com", Port: 443, Decision: "deny", Start: time.Now()}},
	} {
		checkRecordJSON(t, r)
	}
}

func FuzzRecordJSON(f *testing.F) {
	f.Add("git status", int64(1))
	f.Add("<&>\u2028\xff\x00", int64(-5))
	f.Fuzz(func(t *testing.T, s string, n int64) {
		// s lands in some forty fields, each encoded twice: a long one
		// makes every run, and the minimising of every new input, slow
		// without reaching anything a short one does not.
		if len(s) > 256 {
			return
		}
		checkRecordJSON(t, filled(s, n))
	})
}

// TestProfileJSON: the profile ProfileDigest hashes is byte for byte what
// json.Marshal wrote for it, so digests, and the approvals bound to
// them, stay what they were: for a profile whose every field, nested ones
// included, is set by reflection (a field added later and not written
// fails it), for an empty one, and with host rules and pins.
func TestProfileJSON(t *testing.T) {
	full := &sandbox.Profile{}
	fill(reflect.ValueOf(full).Elem(), "a<b>&c \"q\" \\ \n é \u2028 \xff", 9)
	pinned := &sandbox.Profile{Name: "p", Read: []string{}, Hosts: egress.Policy{
		Rules: []egress.Rule{{Pattern: "*.example.com", Decision: egress.Allow, Source: "x:1:1"}},
		Pins:  []egress.Pin{{Host: "a.example", Port: 443, To: netip.MustParseAddrPort("[::1]:8443")}},
	}, Limits: sandbox.Limits{Timeout: 3 * time.Second}}
	for _, p := range []*sandbox.Profile{full, {}, pinned} {
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		json.HTMLEscape(&got, appendProfile(nil, p))
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("profile JSON:\n got %s\nwant %s", got.Bytes(), want)
		}
		sum := sha256.Sum256(want)
		if d := ProfileDigest(p); d != hex.EncodeToString(sum[:]) {
			t.Errorf("ProfileDigest = %s, want the SHA-256 of json.Marshal's %s", d, want)
		}
	}
}
