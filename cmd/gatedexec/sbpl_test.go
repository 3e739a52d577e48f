package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestProfilesShowSBPL(t *testing.T) {
	ws := t.TempDir()
	for _, tt := range []struct {
		profile string
		want    []string
		absent  []string
	}{
		{"workspace-write", []string{"(deny default)", `(subpath (param "WRITE_0"))`, "(deny file-write-unlink", "; -DPROTECT_0="}, []string{"(allow network*)"}},
		{"read-only", []string{"(deny default)", "; network: off"}, []string{"WRITE_0"}},
		{"full-access", []string{"(allow default)"}, []string{"(deny default)"}},
	} {
		root := newRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs([]string{"profiles", "show", tt.profile, "--sbpl", "-w", ws, "-C", ws})
		if err := root.Execute(); err != nil {
			t.Fatalf("%s: %v\n%s", tt.profile, err, out.String())
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.profile, w, out.String())
			}
		}
		for _, a := range tt.absent {
			if strings.Contains(out.String(), a) {
				t.Errorf("%s: output has %q", tt.profile, a)
			}
		}
		if strings.Contains(out.String(), "(subpath \""+ws) {
			t.Errorf("%s: workspace path spliced into the policy", tt.profile)
		}
	}

	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"profiles", "show", "workspace-write", "--sbpl", "--json", "-w", ws, "-C", ws})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var v struct {
		SBPL   string            `json:"sbpl"`
		Params map[string]string `json:"params"`
		Args   []string          `json:"args"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.HasPrefix(v.SBPL, "(version 1)") || len(v.Params) == 0 || len(v.Args) != len(v.Params) {
		t.Errorf("json: %+v", v)
	}
}
