package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/gatedexec/gatedexec/execpolicy"
)

// reflected is CheckResult without its MarshalJSON: what encoding/json
// writes from the field tags.
type reflected CheckResult

func reflectedJSON(t testing.TB, r *CheckResult) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode((*reflected)(r)); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestCheckResultJSON: the hand-written JSON of a check is byte for byte
// what encoding/json writes from the field tags, for results of every
// shape: matches with and without justification and resolved program,
// scripts of many commands, reasons, arguments that need escaping or are
// not UTF-8, and the nil lists a caller may build.
func TestCheckResultJSON(t *testing.T) {
	h := newTestHost(t)
	h.write(t, filepath.Join(h.user, "rules", "user.rules"), `
prefix_rule(pattern=["git", ["status", "log"]], decision="allow")
prefix_rule(pattern=["git", "push"], decision="prompt", justification="pushes <to> \"origin\" & more\u2028")
prefix_rule(pattern=["rm", "-rf"], decision="forbidden", justification="no")
host_executable(name="git", paths=["/usr/bin/git"])
`)
	g := h.gate(t, Flags{}, nil)
	for _, req := range []Request{
		{Argv: []string{"git", "status"}},
		{Argv: []string{"/usr/bin/git", "log"}, ResolveHostExecutables: true},
		{Argv: []string{"git", "push", "a\"b\\c\n\t<&>"}},
		{Argv: []string{"rm", "-rf", "\xff\xfe", "\u2029"}},
		{Argv: []string{"git status; rm -rf / && echo \"$(id)\" | tee x\x01"}, Shell: true},
		{Argv: []string{"for f in *; do git push \"$f\"; done"}, Shell: true},
		{Argv: []string{"unknown-program"}},
	} {
		res, err := g.Check(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := reflectedJSON(t, res); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", req.Argv, got, want)
		}
	}
	for _, res := range []*CheckResult{
		{},
		{Decision: execpolicy.Prompt, Commands: []CheckedCommand{{}}, Reasons: []execpolicy.Reason{{Kind: "x\x7f", Detail: "é\xc3"}}},
	} {
		got, err := res.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if want := reflectedJSON(t, res); !bytes.Equal(got, want) {
			t.Errorf("%+v:\n got %s\nwant %s", res, got, want)
		}
	}
}
