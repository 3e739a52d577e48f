package approval

import (
	"testing"

	"github.com/gatedexec/gatedexec/execpolicy"
)

func TestParsePolicy(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Policy
		wantErr bool
	}{
		{"", OnRequest, false},
		{"untrusted", Untrusted, false},
		{"on-request", OnRequest, false},
		{"on-failure", OnFailure, false},
		{"never", Never, false},
		{"Never", "", true},
		{"always", "", true},
	} {
		got, err := ParsePolicy(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestAction(t *testing.T) {
	reasons := func(kinds ...execpolicy.ReasonKind) []execpolicy.Reason {
		var rs []execpolicy.Reason
		for _, k := range kinds {
			rs = append(rs, execpolicy.Reason{Kind: k, Detail: string(k)})
		}
		return rs
	}
	prompt := func(kinds ...execpolicy.ReasonKind) execpolicy.Evaluation {
		return execpolicy.Evaluation{Decision: execpolicy.Prompt, Reasons: reasons(kinds...)}
	}
	safe := prompt(execpolicy.ReasonUnmatched)
	safe.KnownSafe = true
	floor := prompt(execpolicy.ReasonUnmatched)
	floor.Dangerous = true
	floorSafe := floor
	floorSafe.KnownSafe = true
	unanalysableSafe := prompt(execpolicy.ReasonUnanalysable)
	unanalysableSafe.KnownSafe = true

	// Columns: untrusted, on-request, on-failure, never.
	for _, tc := range []struct {
		name string
		ev   execpolicy.Evaluation
		want [4]Action
	}{
		{"allow", execpolicy.Evaluation{Decision: execpolicy.Allow}, [4]Action{Run, Run, Run, Run}},
		{"unmatched known-safe", safe, [4]Action{Run, Run, Run, Run}},
		{"unmatched", prompt(execpolicy.ReasonUnmatched), [4]Action{Ask, Run, Run, Run}},
		{"unanalysable", prompt(execpolicy.ReasonUnanalysable), [4]Action{Ask, Ask, Ask, Run}},
		{"unanalysable is not made safe", unanalysableSafe, [4]Action{Ask, Ask, Ask, Run}},
		{"rule", prompt(execpolicy.ReasonRule), [4]Action{Ask, Ask, Ask, Deny}},
		{"dangerous reason", prompt(execpolicy.ReasonDangerous), [4]Action{Ask, Ask, Ask, Deny}},
		{"dangerous flag", floor, [4]Action{Ask, Ask, Ask, Deny}},
		{"dangerous flag beats known-safe", floorSafe, [4]Action{Ask, Ask, Ask, Deny}},
		{"strictest reason wins", prompt(execpolicy.ReasonUnmatched, execpolicy.ReasonUnanalysable), [4]Action{Ask, Ask, Ask, Run}},
		{"rule beats unanalysable", prompt(execpolicy.ReasonUnanalysable, execpolicy.ReasonRule), [4]Action{Ask, Ask, Ask, Deny}},
		{"prompt without reason", prompt(), [4]Action{Ask, Ask, Ask, Deny}},
		{"unknown reason kind", prompt("novel"), [4]Action{Ask, Ask, Ask, Deny}},
		{"forbidden", execpolicy.Evaluation{Decision: execpolicy.Forbidden, Reasons: reasons(execpolicy.ReasonRule)}, [4]Action{Deny, Deny, Deny, Deny}},
		{"zero decision", execpolicy.Evaluation{}, [4]Action{Deny, Deny, Deny, Deny}},
	} {
		for i, p := range []Policy{Untrusted, OnRequest, OnFailure, Never} {
			if got := p.Action(tc.ev); got != tc.want[i] {
				t.Errorf("%s under %s: got %s, want %s", tc.name, p, got, tc.want[i])
			}
		}
	}
	if got := Policy("bogus").Action(execpolicy.Evaluation{Decision: execpolicy.Allow}); got != Deny {
		t.Errorf("unknown policy: got %s, want deny", got)
	}
}
