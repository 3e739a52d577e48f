package main

import (
	"bytes"
	"testing"
)

// A command line naming a subcommand builds only that one (newRootCmdFor);
// it must behave as the whole tree does: same help, same usage errors.
func TestSubcommandTreeMatchesWholeTree(t *testing.T) {
	var lines [][]string
	for _, c := range subcommands {
		lines = append(lines,
			[]string{c.name, "--help"},
			[]string{c.name, "--no-such-flag"},
		)
	}
	lines = append(lines,
		[]string{"profiles", "show", "--help"},
		[]string{"rules", "nosuch"},
		[]string{"version"},
		[]string{"version", "extra"},
	)
	execute := func(args []string, whole bool) (string, error) {
		root := newRootCmdFor(args, nil)
		if whole {
			root = newRootCmd()
		}
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		root.SetArgs(args)
		err := root.Execute()
		return out.String(), err
	}
	for _, args := range lines {
		want, wantErr := execute(args, true)
		got, gotErr := execute(args, false)
		if got != want {
			t.Errorf("%q: built alone, prints\n%s\nwhole tree prints\n%s", args, got, want)
		}
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%q: built alone, error %v; whole tree, %v", args, gotErr, wantErr)
		}
		if wc, _ := exitCodeOf(wantErr); wantErr != nil {
			if gc, _ := exitCodeOf(gotErr); gc != wc {
				t.Errorf("%q: exit %d built alone, %d whole", args, gc, wc)
			}
		}
	}
}

// Only a command line that names a subcommand gets a partial tree; help,
// completion and a misspelt name need every command.
func TestWholeTreeUnlessSubcommandNamed(t *testing.T) {
	all := len(newRootCmd().Commands())
	for _, tt := range []struct {
		args []string
		want int
	}{
		{nil, all},
		{[]string{"help", "run"}, all},
		{[]string{"completion", "bash"}, all},
		{[]string{"__complete", "ru"}, all},
		{[]string{"rnu"}, all},
		{[]string{"--version"}, all},
		{[]string{"run", "--", "true"}, 1},
		{[]string{"sandbox", "--", "true"}, 1},
	} {
		root := newRootCmdFor(tt.args, nil)
		if got := len(root.Commands()); got != tt.want {
			var names []string
			for _, c := range root.Commands() {
				names = append(names, c.Name())
			}
			t.Errorf("%q: %d commands %v, want %d", tt.args, got, names, tt.want)
		}
		if tt.want == 1 && root.Commands()[0].Name() != tt.args[0] {
			t.Errorf("%q: built %s", tt.args, root.Commands()[0].Name())
		}
	}
}
