package auditlog

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// decodeCases are lines the fast path must decode exactly as
// json.Unmarshal does, or hand to it: records as gatedexec writes them and
// every shape it is not sure of.
var decodeCases = []string{
	`{"time":"2026-01-01T10:00:00.123456789Z","session":"s1","request_id":"ab","kind":"exec","attempt":1,"argv":["git","push"],"shell":true,"agent_terminal":true,"cwd":"/w","rules_matched":[{"matched_prefix":["git","push"],"decision":"prompt","source":"m.rules:1:1"}],"decision":"prompt","reasons":[{"kind":"rule","detail":"rule git push (m.rules:1)"}],"action":"ask","approver":"tty","outcome":"denied","reason":"no","profile":"workspace-write","layers":["landlock-v7"],"exit":null,"duration_ms":3,"denials":[{"kind":"fs-write","path":"/p"},{"kind":"net","host":"h","port":443}],"tampered":[".git/config"],"error":"e","after_run":true,"rules_digest":"r","profile_digest":"p","managed_digest":"m","version":"v"}`,
	`{"argv":["a\"b","c\\d","\u00e9\ud83d\ude00","tab\there"],"cwd":"/w/\u0000x"}`,
	`{"argv":[{"b64":"/w=="},"x"],"cwd":{"b64":"/w=="}}`,
	`{"argv":[{"b64":"!!"}]}`,
	`{"cwd":null}`,
	`{"argv":null,"rules_matched":null,"denials":null,"exit":null,"time":null,"session":null,"attempt":null,"shell":null}`,
	`{"argv":[],"rules_matched":[],"denials":[]}`,
	`{"argv":[null]}`,
	`{"rules_matched":[null]}`,
	`{"Decision":"allow"}`,
	`{"decision":"allow","decision":"forbidden"}`,
	`{"denials":[{"kind":"a","kind":"b"}]}`,
	`{"decision":"\u0061llow"}`,
	`{"deci\u0073ion":"allow"}`,
	"{\"decision\":\"a\xffb\"}",
	"{\"other\":\"a\xffb\",\"decision\":\"allow\"}",
	"{\"decision\":\"caf\xc3\xa9\"}",
	`{"exit":1.0}`, `{"exit":1e2}`, `{"exit":-0}`, `{"exit":99999999999999999999}`, `{"exit":"1"}`, `{"exit":0}`,
	`{"attempt":2,"after_run":false}`, `{"shell":"true"}`, `{"shell":1}`,
	`{"agent_terminal":null}`, `{"agent_terminal":false}`, `{"agent_terminal":"true"}`, `{"agent_terminal":true,"agent_terminal":false}`,
	`{"time":"2026-01-01"}`, `{"time":1}`, `{"time":"2026-01-01T10:00:00+02:00"}`,
	`{"x":{"y":[1,2,{"z":null}],"w":-1.5e-3},"decision":"allow"}`,
	`{"x":{"Y":1}}`,
	`{"x":[01]}`, `{"x":1.}`, `{"x":.5}`, `{"x":-}`, `{"x":tru}`, `{"x":"\x"}`, "{\"x\":\"a\x01\"}",
	`{"decision":"allow"} x`, `{"decision":"allow"}  `, `  {"decision":"allow"}`, `{"decision":"allow",}`, `{,}`,
	`null`, `[]`, `"x"`, `{}`, `{"argv":["ls"`, `{"denials":[{"kind":"a","port":80.5}]}`, `{"denials":[{"port":null}]}`,
	`{"rules_matched":[{"matched_prefix":null,"decision":null,"extra":[1]}]}`,
	`{"decision":"prompt","reasons":[{"kind":"unanalysable","detail":"write redirect to /opt/x"},{"kind":"unmatched","detail":"echo x","extra":1}]}`,
	`{"reasons":null}`, `{"reasons":[]}`, `{"reasons":[null]}`, `{"reasons":[{"kind":"a","kind":"b"}]}`, `{"reasons":[{"detail":1}]}`,
	strings.Repeat(`{"x":`, 100) + "1" + strings.Repeat("}", 100),
}

// checkDecode fails unless the decoder and json.Unmarshal agree on line.
func checkDecode(t *testing.T, line []byte) {
	t.Helper()
	var fast, slow Record
	errFast := newDecoder().decode(line, &fast)
	errSlow := json.Unmarshal(line, &slow)
	if (errFast == nil) != (errSlow == nil) {
		t.Fatalf("%q: decode error %v, json.Unmarshal error %v", line, errFast, errSlow)
	}
	if errSlow == nil && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\ndecoded   %#v\nUnmarshal %#v", line, fast, slow)
	}
}

func TestDecodeAgreesWithUnmarshal(t *testing.T) {
	for _, c := range decodeCases {
		checkDecode(t, []byte(c))
	}
	b, err := os.ReadFile("testdata/torn.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		checkDecode(t, []byte(line))
	}
}

// The fast path takes the records gatedexec writes: were they to go to
// json.Unmarshal, reading a log would be as slow as before.
func TestDecodeTakesTheFastPath(t *testing.T) {
	var r Record
	if !newDecoder().fast([]byte(decodeCases[0]), &r) || r.Profile != "workspace-write" || len(r.Denials) != 2 || r.Denials[1].Port != 443 || !r.AgentTerminal {
		t.Fatalf("fast path refused or misread a plain record: %+v", r)
	}
}

// The fast path and json.Unmarshal agree on every line: the same error or
// none, and then the same record.
func FuzzDecode(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkDecode(t, line) })
}

// A denial's key in the top list is its kind and target, trimmed.
func TestDenialKey(t *testing.T) {
	for _, d := range []Denial{{Kind: "fs-write", Path: "/p"}, {Kind: "net", Host: "h", Port: 443}, {Kind: "net", Host: "h"},
		{Kind: "net-connect"}, {Kind: ""}, {Kind: " x ", Path: "/p "}, {Port: 80}} {
		want := strings.TrimSpace(d.Kind + " " + d.Target())
		if got := string(denialKey(nil, d)); got != want {
			t.Errorf("denialKey(%+v) = %q, want %q", d, got, want)
		}
	}
}
