package execpolicy

import "testing"

// The fourteenth red-team round: option readers that read a program's
// options otherwise than the program does. Each case named after a
// program ran, with an allow rule for that program alone, a command the
// rules forbid (rm, bypassPolicy) while judged allow, or judged prompt
// where the command it runs is forbidden; whoami stands for a command no
// rule matches.

// TestEmacsclientLongOnly: emacsclient reads its options with
// getopt_long_only, where a single-dash word is a long option before it
// is a cluster of letters: "-nw" is --nw (--tty), not -n and -w TIMEOUT.
// "emacsclient -nw -e '(shell-command \"touch f\")'" ran touch in a
// running Emacs (Emacs 28.2) while judged allow: -w took -e for its value.
// "-p 5" is --parent-id 5 and "-tr P" --tramp P (-p is no short option,
// and no long one is "tr"), as emacsclient 28.2 read them.
func TestEmacsclientLongOnly(t *testing.T) {
	p := round11Policy("emacsclient")
	checkBypass3(t, p, []bypass3Case{
		{"-nw -e", `emacsclient -nw -e '(shell-command "rm x")'`, Forbidden, 0},
		{"-nw -e unmatched", `emacsclient -nw -e '(shell-command "whoami")'`, Prompt, 0},
		{"-c -nw -e", `emacsclient -c -nw -e '(shell-command "rm x")'`, Forbidden, 0},
		{"-nw -a", "emacsclient -nw -a 'rm x' f", Forbidden, 0},
		{"-nw -F", "emacsclient -nw -F '((x . (shell-command \"rm x\")))' f", Forbidden, 0},
		{"-tty -e", `emacsclient -tty -e '(shell-command "rm x")'`, Forbidden, 0},
		{"-p value", `emacsclient -p 5 -e '(shell-command "rm x")'`, Forbidden, 0},
		{"ambiguous", "emacsclient --t f", Prompt, 0},
		{"ambiguous single dash", "emacsclient -s x --n f", Prompt, 0},
		// Controls.
		{"-nw file", "emacsclient -nw f", Allow, 0},
		{"-n file", "emacsclient -n f", Allow, 0},
		{"-c file", "emacsclient -c -s sock f", Allow, 0},
		{"-tr value", "emacsclient -tr /ssh:h: f", Allow, 0},
		{"--version", "emacsclient --version", Allow, 0},
		{"-version", "emacsclient -version", Allow, 0},
	})
}
