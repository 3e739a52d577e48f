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

// TestLessPattern: less's -p PATTERN (--pattern) is the initial command
// +/PATTERN, and a newline in it ends the search and starts the next
// command: "less -p $'x\n!touch f\n' f", -pVAL, "-ip", --pattern=,
// "--pattern VAL", --PATTERN= and --pat= ran touch (less 590) while judged
// allow.
func TestLessPattern(t *testing.T) {
	p := round11Policy("less")
	checkBypass3(t, p, []bypass3Case{
		{"-p", "less -p $'x\\n!rm x\\n' f", Forbidden, 0},
		{"-pVAL", "less -p$'x\\n!rm x\\n' f", Forbidden, 0},
		{"-ip", "less -ip$'x\\n!rm x\\n' f", Forbidden, 0},
		{"--pattern=", "less --pattern=$'x\\n!rm x\\n' f", Forbidden, 0},
		{"--pattern next", "less --pattern $'x\\n!rm x\\n' f", Forbidden, 0},
		{"--PATTERN=", "less --PATTERN=$'x\\n!rm x\\n' f", Forbidden, 0},
		{"--pat=", "less --pat=$'x\\n!rm x\\n' f", Forbidden, 0},
		{"-p pipe", "less -p $'x\\n|$rm x\\n' f", Forbidden, 0},
		{"-p unmatched", "less -p $'x\\n!whoami\\n' f", Prompt, 0},
		{"-p control", "less -p $'x\\x1b' f", Prompt, 0},
		// Controls.
		{"-p plain", "less -p foo f", Allow, 0},
		{"-p spaces", "less -p 'a b' f", Allow, 0},
		{"--pattern plain", "less --pattern=foo f", Allow, 0},
		{"-P prompt", "less -P 'x' f", Allow, 0},
	})
}

// TestAptLongOptionCase: apt compares its long options case-insensitively
// (stringcasecmp in cmndline.cc): "apt-get --OPTION
// 'APT::Update::Pre-Invoke::=touch f' update", "apt --OpTiOn=...",
// "apt-get --Config-File ./c update" and --CONFIG-FILE= (c setting
// Pre-Invoke) ran touch (apt 2.6.1) while judged allow.
func TestAptLongOptionCase(t *testing.T) {
	p := round11Policy("apt", "apt-get")
	checkBypass3(t, p, []bypass3Case{
		{"--OPTION", "apt-get --OPTION 'APT::Update::Pre-Invoke::=rm x' update", Forbidden, 0},
		{"--OpTiOn=", "apt --OpTiOn='APT::Update::Pre-Invoke::=rm x' update", Forbidden, 0},
		{"--OPTION unmatched", "apt-get --OPTION APT::Update::Pre-Invoke::=./x update", Prompt, 0},
		{"--Config-File", "apt-get --Config-File ./c update", Prompt, 0},
		{"--CONFIG-FILE=", "apt-get --CONFIG-FILE=./c update", Prompt, 0},
		// Controls.
		{"--OPTION safe", "apt-get --OPTION APT::Install-Recommends=false install p", Allow, 0},
		{"update", "apt-get update", Allow, 0},
	})
}

// TestGhostscriptHash: Ghostscript takes "#" for "=" in -d and -s (when
// the word has no "="): "gs -dNOSAFER#true f.ps" (f.ps opening a pipe),
// "-sOutputFile#|touch f" and "-SOutputFile#%pipe%touch f" ran touch
// (Ghostscript 10.00.0) while judged allow.
func TestGhostscriptHash(t *testing.T) {
	p := round11Policy("gs", "ps2pdf")
	checkBypass3(t, p, []bypass3Case{
		{"-dNOSAFER#", "gs -dNOSAFER#true f.ps", Prompt, 0},
		{"-dDELAYSAFER#", "gs -dDELAYSAFER#1 f.ps", Prompt, 0},
		{"-sOutputFile#|", "gs -sDEVICE=pdfwrite '-sOutputFile#|rm x' f.ps", Forbidden, 0},
		{"-SOutputFile#%pipe%", "gs '-SOutputFile#%pipe%rm x' f.ps", Forbidden, 0},
		{"ps2pdf", "ps2pdf '-sOutputFile#|rm x' f.ps", Forbidden, 0},
		// Controls.
		{"-sOutputFile#file", "gs -sOutputFile#out.pdf -dSAFER#true f.ps", Allow, 0},
		{"-dBATCH", "gs -dBATCH f.ps", Allow, 0},
	})
}

// TestPytestArgFiles: pytest 8.2 reads arguments from @FILE (argparse's
// fromfile_prefix_chars, which reads them after "--" too), from the
// documentation; and its plugin pre-scan takes -p NAME and -pNAME from
// every argument, "--" or not: "pytest -- -p evilplug" and "pytest -k x
// -- -pevilplug" imported evilplug (pytest 7.2.1) while judged allow.
func TestPytestArgFiles(t *testing.T) {
	p := round11Policy("pytest", "py.test")
	checkBypass3(t, p, []bypass3Case{
		{"@file", "pytest @args.txt", Prompt, 0},
		{"@file later", "pytest -q @args.txt tests/", Prompt, 0},
		{"@file value", "pytest -k @args.txt", Prompt, 0},
		{"@file after --", "pytest -- @args.txt", Prompt, 0},
		{"py.test @file", "py.test @args.txt", Prompt, 0},
		{"-p after --", "pytest -- -p evilplug", Prompt, 0},
		{"-pNAME after --", "pytest -k x -- -pevilplug", Prompt, 0},
		// Controls.
		{"plain", "pytest -q tests/", Allow, 0},
		{"-- path", "pytest -- tests/", Allow, 0},
		{"-p no:", "pytest -p no:cacheprovider -- tests/", Allow, 0},
		{"-p no: after --", "pytest -- -p no:cacheprovider", Allow, 0},
	})
}

// TestLLDPassPlugin: lld's --load-pass-plugin loads a shared object into
// its LTO pipeline: "ld.lld --load-pass-plugin=./p.so m.o", "ld.lld
// --load-pass-plugin ./p.so m.o" (m.o bitcode) and "gcc -fuse-ld=lld
// -Wl,--load-pass-plugin=./p.so m.o" ran p.so's constructor (LLD 16.0.6;
// 14 has no such option) while judged allow.
func TestLLDPassPlugin(t *testing.T) {
	p := round11Policy("ld.lld", "ld.lld-16", "gcc", "clang")
	checkBypass3(t, p, []bypass3Case{
		{"=", "ld.lld --load-pass-plugin=./p.so m.o", Prompt, 0},
		{"next", "ld.lld --load-pass-plugin ./p.so m.o", Prompt, 0},
		{"versioned", "ld.lld-16 --load-pass-plugin=./p.so m.o", Prompt, 0},
		{"gcc -Wl", "gcc -fuse-ld=lld -flto -Wl,--load-pass-plugin=./p.so m.o", Prompt, 0},
		{"gcc -Wl comma", "gcc -Wl,--load-pass-plugin,./p.so m.o", Prompt, 0},
		{"gcc -Xlinker", "gcc -Xlinker --load-pass-plugin=./p.so m.o", Prompt, 0},
		{"clang -Wl", "clang -fuse-ld=lld -flto -Wl,--load-pass-plugin=./p.so m.c", Prompt, 0},
		// Controls.
		{"ld.lld", "ld.lld -o a m.o", Allow, 0},
		{"gcc -Wl", "gcc -Wl,--as-needed m.c", Allow, 0},
	})
}

// TestEntrShellFlag: entr's -s is a flag that makes the one operand a
// script run by $SHELL: "entr -nzs 'touch f'", "entr -nz -s 'touch f'",
// "entr -nzs -r 'touch f'" and "entr -nz -sr 'touch f'" ran touch (entr
// 5.3), where the reading of -s as taking a value judged r or -r the
// script and the command an argv.
func TestEntrShellFlag(t *testing.T) {
	p := round11Policy("entr")
	checkBypass3(t, p, []bypass3Case{
		{"-sr", "ls | entr -sr 'rm x'", Forbidden, 0},
		{"-s -r", "ls | entr -s -r 'rm x'", Forbidden, 0},
		{"-nzs -r", "ls | entr -nzs -r 'rm x'", Forbidden, 0},
		{"-sr script", "ls | entr -sr 'make; rm x'", Forbidden, 0},
		{"-s", "ls | entr -s 'rm x'", Forbidden, 0},
		{"-rs", "ls | entr -rs 'rm x'", Forbidden, 0},
		{"-s unmatched", "ls | entr -s -r whoami", Prompt, 0},
		// Controls.
		{"-s allowed", "ls | entr -s 'ls -l'", Allow, 0},
		{"argv", "ls | entr -r ls -l", Allow, 0},
		{"argv rm", "ls | entr -r rm x", Forbidden, 0},
	})
}

// TestSvnConfigOption: --config-option FILE:SECTION:OPTION=VALUE, where
// a tunnel's VALUE ([$VAR] CMD) and the helpers' editor-cmd, diff-cmd,
// diff3-cmd and merge-tool-cmd are commands: "svn --config-option
// 'config:tunnels:ssh=./x A' ls svn+ssh://h/r", the "$NOPE ./x" and
// "config:Tunnels:" spellings ran x (svn 1.14.2), judged prompt where the
// command is forbidden: the whole value was read as the command.
func TestSvnConfigOption(t *testing.T) {
	p := round11Policy("svn")
	checkBypass3(t, p, []bypass3Case{
		{"tunnels", "svn --config-option 'config:tunnels:ssh=rm x' ls svn+ssh://h/r", Forbidden, 0},
		{"tunnels =", "svn --config-option='config:tunnels:ssh=rm x' ls svn+ssh://h/r", Forbidden, 0},
		{"tunnels $VAR", "svn --config-option 'config:tunnels:foo=$SVN_SSH rm x' ls svn+foo://h/r", Forbidden, 0},
		{"Tunnels", "svn --config-option 'config:Tunnels:ssh=rm x' ls svn+ssh://h/r", Forbidden, 0},
		{"editor-cmd", "svn --config-option 'config:helpers:editor-cmd=rm x' propedit p .", Forbidden, 0},
		{"diff-cmd", "svn --config-option config:helpers:diff-cmd=rm diff", Forbidden, 0},
		{"tunnels unmatched", "svn --config-option 'config:tunnels:ssh=./x' ls svn+ssh://h/r", Prompt, 0},
		{"other item", "svn --config-option config:miscellany:enable-auto-props=yes add f", Prompt, 0},
		{"unreadable", "svn --config-option garbage ls", Prompt, 0},
		// Controls.
		{"ls", "svn ls", Allow, 0},
		{"--version", "svn --version", Allow, 0},
	})
}

// TestFtpClients: ftp (tnftp 20210827) and lftp (4.9.2) run "!CMD" in a
// shell, and read their commands from stdin: "printf '!touch f\n' | ftp",
// "... | lftp", "lftp -c '!touch f'", "lftp -e '!touch f'", "lftp -dc
// '!touch f'", "lftp -c 'echo; !touch f'", "lftp -f script" and "lftp
// --version --rc script" ran touch while judged allow.
func TestFtpClients(t *testing.T) {
	p := round11Policy("ftp", "tnftp", "lftp")
	checkBypass3(t, p, []bypass3Case{
		{"ftp stdin", "printf '!rm x\\n' | ftp", Prompt, 0},
		{"ftp host", "ftp -n host", Prompt, 0},
		{"ftp heredoc", "ftp host <<EOF\n!rm x\nEOF", Prompt, 0},
		{"tnftp", "printf '!rm x\\n' | tnftp", Prompt, 0},
		{"lftp stdin", "printf '!rm x\\n' | lftp", Prompt, 0},
		{"lftp -c", "lftp -c '!rm x'", Forbidden, 0},
		{"lftp -c later", "lftp -c 'open h; !rm x'", Forbidden, 0},
		{"lftp -c pipe", "lftp -c 'cat f | rm x'", Forbidden, 0},
		{"lftp -e", "lftp -e '!rm x' h", Forbidden, 0},
		{"lftp -dc", "lftp -dc '!rm x'", Forbidden, 0},
		{"lftp -c unmatched", "lftp -c '!whoami'", Prompt, 0},
		{"lftp -c plain", "lftp -c 'open h; ls'", Prompt, 0},
		{"lftp -f", "lftp -f script", Prompt, 0},
		{"lftp --rcfile", "lftp --version --rcfile script", Prompt, 0},
		{"lftp --rc", "lftp --version --rc script", Prompt, 0},
		{"lftp host", "lftp h", Prompt, 0},
		// Controls.
		{"lftp --version", "lftp --version", Allow, 0},
		{"lftp -v", "lftp -v", Allow, 0},
		{"lftp --help", "lftp --help", Allow, 0},
	})
}
