package execpolicy

import "testing"

// TestFdBaseNames holds fd's ways of passing a file's name without the
// "./" before it, where a file named like an option is one for the
// command of -x/-X: --strip-cwd-prefix and the placeholders {/} and {/.}.
// "fdfind --strip-cwd-prefix -x find" and "fdfind -x find '{/}'" ran
// "find -delete" (fd 8.6.0) in a directory holding a file "-delete",
// deleting every file under it, while judged allow.
func TestFdBaseNames(t *testing.T) {
	p := execArgsPolicy()
	for _, prog := range []string{"find", "grep", "wc"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass10"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"--strip-cwd-prefix", "fd --strip-cwd-prefix -x find", Prompt, 0},
		{"--strip-cwd-prefix -X", "fdfind --strip-cwd-prefix -X find", Prompt, 0},
		{"--strip-cwd-prefix after", "fdfind -X find \\; --strip-cwd-prefix", Prompt, 0},
		{"--strip-cwd-prefix=always", "fd --strip-cwd-prefix=always -X find", Prompt, 0},
		{"{/}", "fd -x find '{/}'", Prompt, 0},
		{"{/.}", "fd -e txt -x find '{/.}'", Prompt, 0},
		{"second command", "fd -x ls \\; -X find '{/}'", Prompt, 0},
		// Controls: a program that takes any arguments; "./" kept.
		{"--strip-cwd-prefix grep", "fd --strip-cwd-prefix -x grep -l x", Allow, 0},
		{"{/} wc", "fd -x wc -l '{/}'", Allow, 0},
		{"--strip-cwd-prefix=never", "fd --strip-cwd-prefix=never -x find", Allow, 0},
		{"{//}", "fd -x find '{//}'", Allow, 0},
		{"find", "fd -x find", Allow, 0},
	})
}

// TestViNames holds the vi family under the names distributions install
// it as: each ran ":!touch x" from -c (vim.basic 9.0 on Debian 12) or is
// a link to the same binary, which reads its name only for its mode,
// while judged allow by an allow rule for the name.
func TestViNames(t *testing.T) {
	p := cmdLangPolicy()
	names := []string{"editor", "eview", "evim", "gview", "gvimdiff", "nex", "nvi", "nview", "rgview", "rgvim", "rview",
		"vim.athena", "vim.basic", "vim.gtk", "vim.gtk3", "vim.motif", "vim.nox", "vim.tiny", "vimx"}
	var cases []bypass3Case
	for _, n := range names {
		p.AddPrefixRule(PrefixRule{Program: n, Decision: Allow, Source: "bypass10"})
		cases = append(cases,
			bypass3Case{n + " -c", n + " -c '!rm x' f", Forbidden, 0},
			bypass3Case{n + " stdin", "echo ':!rm x' | " + n + " f", Prompt, 0},
			bypass3Case{n + " --version", n + " --version", Allow, 0})
	}
	cases = append(cases, bypass3Case{"by path", "/usr/bin/vim.basic -es '+!rm x' f", Forbidden, 0})
	checkBypass3(t, p, cases)
}

// TestMysql holds the mysql client's commands that run programs: system
// and \! (at a line's start, or \! anywhere outside a string), pager and
// \P, source and \., given in -e or read from stdin without it, and
// --pager, --defaults-file and --plugin-dir. "mysql -e 'system touch x'",
// "mysql -e 'select 1 \! touch x'", "mysql --exec='\! touch x'", "mysql
// -e 'source f'" and "echo 'system touch x' | mysql" ran touch (MariaDB
// 10.11) while judged allow.
func TestMysql(t *testing.T) {
	p := cmdLangPolicy()
	for _, prog := range []string{"mysql", "mariadb"} {
		p.AddPrefixRule(PrefixRule{Program: prog, Decision: Allow, Source: "bypass10"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"-e system", "mysql -e 'system rm x' db", Forbidden, 0},
		{"-e SYSTEM", "mysql -e '  SYSTEM rm x'", Forbidden, 0},
		{"-e system tab", "mysql -e 'system\tfoo rm x'", Forbidden, 0},
		{"-e second line", "mysql -e 'select 1;\nsystem rm x'", Forbidden, 0},
		{"-e \\!", "mariadb -e '\\! rm x'", Forbidden, 0},
		{"-e \\! mid-line", "mysql -e 'select 1 \\! rm x'", Forbidden, 0},
		{"-e pager", "mysql -e 'pager rm x'", Forbidden, 0},
		{"-e \\P", "mysql -e 'select 1 \\P rm x'", Forbidden, 0},
		{"-e source", "mysql -e 'source evil.sql'", Prompt, 0},
		{"-e \\.", "mysql -e '\\. evil.sql'", Prompt, 0},
		{"-e tee", "mysql -e 'tee out.txt'", Prompt, 0},
		{"-e \\e", "mysql -e 'select 1\\e'", Prompt, 0},
		{"-e soname", "mysql -e \"create function f returns int soname 'evil.so'\"", Prompt, 0},
		{"--execute=", "mysql --execute='\\! rm x'", Forbidden, 0},
		{"--exec abbreviated", "mysql --exec '\\! rm x'", Forbidden, 0},
		{"--loose-execute", "mysql --loose-execute='system rm x'", Forbidden, 0},
		{"-e attached", "mysql '-e\\! rm x'", Forbidden, 0},
		{"-Bse cluster", "mysql -Bse 'system rm x'", Forbidden, 0},
		{"stdin", "echo 'system rm x' | mysql", Prompt, 0},
		{"stdin db", "mysql db <<< '\\! rm x'", Prompt, 0},
		{"stdin -e as a value", "echo 'system rm x' | mysql --prompt -e x", Prompt, 0},
		{"stdin -e after unknown", "echo 'system rm x' | mysql --loose-foo -e x", Prompt, 0},
		{"stdin -u", "echo 'system rm x' | mysql -u -V", Prompt, 0},
		{"--pager=", "mysql --pager='rm x' db", Forbidden, 0},
		{"--pag=", "mysql --pag='rm x' -e 'select 1'", Forbidden, 0},
		{"--defaults-file", "mysql --defaults-file=evil.cnf -e 'select 1'", Prompt, 0},
		{"--plugin-dir", "mysql --plugin-dir . --default-auth evil -e 'select 1'", Prompt, 0},
		// Controls.
		{"-e select", "mysql -e 'select 1' db", Allow, 0},
		{"-u -h -e", "mysql -u root -h db.example -P 3306 -e 'show tables' app", Allow, 0},
		{"-Bse select", "mariadb -Bse 'select system_user()'", Allow, 0},
		{"-e string escape", "mysql -e \"select 'a\\\\'\"", Allow, 0},
		{"--init-command", "mysql --init-command='system rm x' -e 'select 1'", Allow, 0},
		{"--version", "mysql --version", Allow, 0},
		{"-V", "mariadb -V", Allow, 0},
	})
}

// TestGnuplot holds gnuplot's ways of running a command: system, "!",
// backquotes, set print and set output to "|CMD", plot "< CMD", load
// and call of a file, eval, sprintf("%c", 60) and "\074" spelling "<",
// file operands and stdin. Each of system (and sy), !, backquotes, set
// print, set output, plot "<", sprintf, "\074", load, call, eval, a file
// operand and stdin ran touch (gnuplot 5.4.4) while judged allow.
func TestGnuplot(t *testing.T) {
	p := cmdLangPolicy()
	p.AddPrefixRule(PrefixRule{Program: "gnuplot", Decision: Allow, Source: "bypass10"})
	checkBypass3(t, p, []bypass3Case{
		{"system", "gnuplot -e 'system \"rm x\"'", Forbidden, 0},
		{"sy", "gnuplot -e \"sy 'rm x'\"", Forbidden, 0},
		{"system()", "gnuplot -e 'print system(\"rm x\")'", Forbidden, 0},
		{"!", "gnuplot -e '!rm x'", Forbidden, 0},
		{"backquotes", "gnuplot -e 'x = `rm x`'", Forbidden, 0},
		{"set print", "gnuplot -e 'set print \"|rm x\"; print 1'", Forbidden, 0},
		{"set output", "gnuplot -e 'set term dumb; set output \"| rm x\"; plot sin(x)'", Forbidden, 0},
		{"plot <", "gnuplot -e 'plot \"< rm x\"'", Forbidden, 0},
		{"sprintf %c", "gnuplot -e 'plot sprintf(\"%c whoami\", 60)'", Prompt, 0},
		{"octal escape", "gnuplot -e 'plot \"\\074 whoami\"'", Prompt, 0},
		{"load", "gnuplot -e 'load \"evil.gp\"'", Prompt, 0},
		{"l", "gnuplot -e 'a=1; l f'", Prompt, 0},
		{"call", "gnuplot -e 'ca \"evil.gp\"'", Prompt, 0},
		{"eval", "gnuplot -e 'eval s'", Prompt, 0},
		{"macro", "gnuplot -e 'a=\"x\"; @a'", Prompt, 0},
		{"strcol", "gnuplot -e 'plot \"d\" using (f=strcol(1), 1)'", Prompt, 0},
		{"file operand", "gnuplot evil.gp", Prompt, 0},
		{"-c", "gnuplot -c evil.gp a b", Prompt, 0},
		{"stdin", "echo '!rm x' | gnuplot", Prompt, 0},
		{"stdin -p", "echo '!rm x' | gnuplot -p", Prompt, 0},
		{"stdin -", "gnuplot -e 'a=1' - <<< '!rm x'", Prompt, 0},
		// Controls.
		{"plot sin", "gnuplot -e 'plot sin(x)'", Allow, 0},
		{"w l", "gnuplot -e 'set term png; set output \"a.png\"; plot \"data.csv\" using 1:2 w l lw 2'", Allow, 0},
		{"--version", "gnuplot --version", Allow, 0},
	})
}

// TestEmacsclient holds emacsclient, whose -e hands its operands, Lisp,
// to a running Emacs outside the sandbox, and whose -a runs a program
// when none answers.
func TestEmacsclient(t *testing.T) {
	p := execArgsPolicy()
	p.AddPrefixRule(PrefixRule{Program: "emacsclient", Decision: Allow, Source: "bypass10"})
	checkBypass3(t, p, []bypass3Case{
		{"-e", "emacsclient -e '(shell-command \"rm x\")'", Forbidden, 0},
		{"--eval", "emacsclient --eval '(call-process \"rm\" nil nil nil \"x\")'", Forbidden, 0},
		{"-eval one dash", "emacsclient -eval '(shell-command \"rm x\")'", Forbidden, 0},
		{"--ev abbreviated", "emacsclient --ev '(shell-command \"rm x\")'", Forbidden, 0},
		{"-ne cluster", "emacsclient -ne '(shell-command \"rm x\")'", Forbidden, 0},
		{"-e later operand", "emacsclient -e t '(shell-command \"rm x\")'", Forbidden, 0},
		{"-e other Lisp", "emacsclient -e '(kill-emacs)'", Prompt, 0},
		{"-a", "emacsclient -a 'rm x' f", Forbidden, 0},
		{"--alternate-editor=", "emacsclient --alternate-editor='rm x' f", Forbidden, 0},
		{"-F", "emacsclient -c -F '((name . \"x\"))' f", Prompt, 0},
		// Controls.
		{"open a file", "emacsclient -n f.txt", Allow, 0},
		{"socket", "emacsclient -s server -n f.txt", Allow, 0},
	})
}

// TestWatchers holds the programs that run a command on every change of
// the files they watch (nodemon -x, watchexec, entr -s) and tox exec,
// which runs one in a tox environment: with an allow rule for them,
// "watchexec -- rm x" and "nodemon --exec 'rm x'" were allowed.
func TestWatchers(t *testing.T) {
	p := execArgsPolicy()
	for _, prefix := range [][]string{{"nodemon"}, {"watchexec"}, {"entr"}, {"tox"}, {"ls"}, {"go", "test"}} {
		p.AddPrefixRule(PrefixRule{Program: prefix[0], Rest: rest(prefix[1:]), Decision: Allow, Source: "bypass10"})
	}
	checkBypass3(t, p, []bypass3Case{
		{"nodemon --exec", "nodemon --exec 'rm x'", Forbidden, 0},
		{"nodemon -x", "nodemon -x 'rm x' app.js", Forbidden, 0},
		{"watchexec --", "watchexec -- rm x", Forbidden, 0},
		{"watchexec joined", "watchexec -e go 'rm x'", Forbidden, 0},
		{"watchexec --shell", "watchexec --shell=rm -- ls", Forbidden, 0},
		{"entr -s", "ls | entr -s 'rm x'", Forbidden, 0},
		{"tox exec", "tox exec -e py -- rm x", Forbidden, 0},
		// Controls.
		{"watchexec go test", "watchexec -e go -- go test ./...", Allow, 0},
		{"nodemon app", "nodemon app.js", Allow, 0},
		{"tox", "tox -e py", Allow, 0},
	})
}
