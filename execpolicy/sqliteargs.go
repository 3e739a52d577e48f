package execpolicy

import (
	"slices"
	"strings"
)

// sqlite3's command-line shell runs programs for some of its
// dot-commands (.shell and .system, .once and .output with "|CMD",
// .import and .read with "|CMD", .load loads code), for its SQL functions
// edit() and load_extension(), and reads such commands from its stdin when
// no SQL is given in its arguments. An allow rule for sqlite3 says nothing
// of them: "sqlite3 db '.shell rm x'" runs rm.

// sqliteValued are the sqlite3 options whose value is the next word (or,
// for -lookaside, -pagecache and -heap, the next words); they are read
// with one dash or two.
var sqliteValued = nameTable[int]{
	{"cmd", 1}, {"escape", 1}, {"heap", 2}, {"init", 1}, {"lookaside", 2},
	{"maxsize", 1}, {"mmap", 1}, {"newline", 1}, {"nonce", 1},
	{"nullvalue", 1}, {"pagecache", 2}, {"separator", 1}, {"vfs", 1},
}

// sqliteQuiet are the dot-commands that only show or set how the shell
// prints, or read and write database files, which the sandbox governs.
// They are named in full: any other, an abbreviation included (".sh" is
// .shell), is unanalysable.
var sqliteQuiet = []string{
	"backup", "bail", "changes", "databases", "dbinfo", "dump", "echo",
	"eqp", "exit", "explain", "fullschema", "headers", "help", "indexes",
	"indices", "limit", "lint", "mode", "nullvalue", "print", "quit",
	"restore", "save", "schema", "separator", "sha3sum", "show", "stats",
	"tables", "timeout", "timer", "width",
}

// sqliteArgs judges sqlite3's arguments (execOptions.script): its
// operands after the database, and -cmd, are commands of its own; -init
// reads them from a file; with no command operand it reads them from
// stdin.
func sqliteArgs(a *analysis, ws []word, depth int) Decision {
	d := Decision(0)
	prog := ws[0].value
	operands, stdin := 0, true
	command := func(w *word) {
		if w != nil && w.static {
			d = Max(d, sqliteCommand(a, prog, w.value, depth))
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		if !w.static {
			// Not plain already; an operand all the same.
			operands++
			continue
		}
		if v == "--" {
			// Newer shells take what follows as operands; older ones refuse it.
			for _, w := range ws[i+1:] {
				if operands++; operands > 1 {
					command(&w)
				}
			}
			break
		}
		if !strings.HasPrefix(v, "-") || v == "-" {
			if operands++; operands > 1 {
				command(&w)
			}
			continue
		}
		name := strings.TrimPrefix(v[1:], "-")
		switch name {
		case "A":
			// The rest is an .archive command; stdin is not read.
			stdin = false
			i = len(ws)
			continue
		case "version", "help":
			stdin = false
		case "cmd":
			command(nextWord(ws, &i))
			continue
		case "init":
			nextWord(ws, &i)
			d = Max(d, a.unanalysable(prog+" "+v+": reads commands of its own"))
			continue
		}
		if n, ok := sqliteValued.lookup(name); ok {
			i = min(i+n, len(ws)-1)
		}
	}
	if stdin && operands < 2 {
		d = Max(d, a.unanalysable(prog+": reads its commands from stdin"))
	}
	return d
}

// sqliteCommand judges text, a command operand of sqlite3: each of its
// lines that is a dot-command not of sqliteQuiet is unanalysable, and what
// it would run searched for forbidden commands; SQL that calls edit() or
// load_extension() (or names them) is unanalysable.
func sqliteCommand(a *analysis, prog, text string, depth int) Decision {
	d := Decision(0)
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, ".") {
			continue
		}
		name, rest, _ := strings.Cut(t[1:], " ")
		if slices.Contains(sqliteQuiet, name) {
			continue
		}
		d = Max(d, a.unanalysable(prog+" ."+name+": may run a command"))
		cmd := strings.Trim(strings.TrimSpace(rest), `'"`)
		if cmd = strings.TrimPrefix(cmd, "|"); cmd != "" {
			d = Max(d, a.forbiddenIn(cmd, depth))
		}
	}
	for _, fn := range []string{"edit", "load_extension"} {
		if hasSQLWord(text, fn) {
			d = Max(d, a.unanalysable(prog+": SQL calls "+fn+"()"))
		}
	}
	return d
}

// hasSQLWord says whether sql holds kw (lower case), in any case, as a
// whole word. A function name counts whether or not a "(" follows it: a
// comment may stand between them.
func hasSQLWord(sql, kw string) bool {
	lower := strings.ToLower(sql)
	for i := 0; ; {
		j := strings.Index(lower[i:], kw)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(kw)
		i = end
		if (start == 0 || !isSQLIdent(lower[start-1])) && (end == len(lower) || !isSQLIdent(lower[end])) {
			return true
		}
	}
}

// isSQLIdent says whether c may be part of an SQL identifier.
func isSQLIdent(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 0x80
}
