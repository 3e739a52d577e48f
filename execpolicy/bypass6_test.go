package execpolicy

import "testing"

// execArgsPolicy is bypassPolicy with the programs of the sixth red-team
// round allowed: each runs a command given in its arguments, which an
// allow rule for the program says nothing about.
func execArgsPolicy() *Policy {
	p := bypassPolicy()
	for _, prog := range []string{"fd", "fdfind"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass6"})
	}
	return p
}

// TestFdExec holds fd's -x/--exec and -X/--exec-batch, which run the
// words after them, up to a ";", as a command, as find's -exec does. Each
// forbidden case ran its command under fd 8.6.0 (fdfind).
func TestFdExec(t *testing.T) {
	checkBypass3(t, execArgsPolicy(), []bypass3Case{
		{"-x", "fd -x rm", Forbidden, 0},
		{"-X", "fd -X rm", Forbidden, 0},
		{"--exec", "fd --exec rm -f", Forbidden, 0},
		{"--exec-batch", "fd --exec-batch curl x", Forbidden, 0},
		{"--exec=", "fd --exec=rm a", Forbidden, 0},
		{"-x attached", "fd -xrm a", Forbidden, 0},
		{"-x in a cluster", "fd -HIx rm", Forbidden, 0},
		{"fdfind", "fdfind pat -x rm {}", Forbidden, 0},
		{"by path", "/usr/bin/fdfind -X rm", Forbidden, 0},
		{"after ;", "fd -x ls ';' -X rm", Forbidden, 0},
		{"attached, continued", "fd --exec=git push", Prompt, 0},
		{"unknown command", "fd -x whoami", Prompt, 0},
		// Controls: an allowed command, a value that holds an x.
		{"-x ls", "fd -x ls", Allow, 0},
		{"-e x", "fd -ex rm", Allow, 0},
		{"-t x", "fd -tx pat", Allow, 0},
		{"pattern", "fd -H rm", Allow, 0},
		{"after --", "fd -- -x", Allow, 0},
	})
}
