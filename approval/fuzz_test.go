package approval

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// FuzzParseResponse feeds arbitrary approver replies to parseResponse. A
// reply it accepts must say the same thing to a plain JSON reading, with
// no key that another reader could take for id or outcome: an approver's
// reply is untrusted input, and the approval must not hinge on a decoder's
// leniency.
func FuzzParseResponse(f *testing.F) {
	const id = "0123456789abcdef0123456789abcdef"
	for _, seed := range []string{
		`{"id":"` + id + `","outcome":"approved","reason":"r"}`,
		`{"id":"` + id + `","outcome":"approved_for_session"}`,
		`{"id":"` + id + `","outcome":"denied","outcome":"approved"}`,
		`{"id":"` + id + `","outcome":"denied","OUTCOME":"approved"}`,
		`{"id":"` + id + `","outcome":"approved","note":{"x":[1,"\u017f"]}}`,
		`{"id":"` + id + `","outcome":"approved"} {}`,
		`["` + id + `","approved"]`,
		`null`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		resp, err := parseResponse(out, id)
		if err != nil {
			if resp != (Response{}) {
				t.Fatalf("error %v with a response %+v", err, resp)
			}
			return
		}
		if resp.ID != id || !resp.Outcome.valid() {
			t.Fatalf("accepted %q as %+v", out, resp)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatalf("accepted %q, which is not one JSON object: %v", out, err)
		}
		for k := range m {
			for _, field := range []string{"id", "outcome", "reason"} {
				if strings.EqualFold(k, field) && k != field {
					t.Fatalf("accepted %q with key %q, a spelling of %q", out, k, field)
				}
			}
		}
		var outcome Outcome
		if err := json.Unmarshal(m["outcome"], &outcome); err != nil || outcome != resp.Outcome {
			t.Fatalf("accepted %q as %q; plain JSON reads %q (%v)", out, resp.Outcome, outcome, err)
		}
	})
}

// FuzzSessionID checks the session id loop against the syntax it stands
// for, written as a regexp.
func FuzzSessionID(f *testing.F) {
	re := regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`)
	for _, s := range []string{"abc-1.2_X", "", ".", "..", "a/b", "x\n", strings.Repeat("z", 128), strings.Repeat("z", 129)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		want := re.MatchString(id) && id != "." && id != ".."
		if got := validSessionID(id); got != want {
			t.Errorf("validSessionID(%q) = %v, want %v", id, got, want)
		}
	})
}
