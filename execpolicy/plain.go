package execpolicy

import "strings"

// PlainCommand returns the words of script when bash -c would run it by
// executing one program with exactly those words: one line of words
// separated by blanks (space, tab), each made of ASCII letters, digits
// and _ . / + - , : @ % =, the first of letters, digits and _ . / + -
// only and not a bash builtin or reserved word. Nothing in such a script
// is quoted, expanded, split, globbed, redirected or interpreted by bash,
// and none of its words can be an assignment, a job spec or a keyword, so
// its words are bash's argv. Whether bash's start-up would still change
// what runs (its environment) is the runner's question
// (sandbox.Command.Plain).
func PlainCommand(script string) ([]string, bool) {
	var argv []string
	for w := range strings.FieldsFuncSeq(script, isBlank) {
		for i := 0; i < len(w); i++ {
			if !plainByte(w[i], len(argv) == 0) {
				return nil, false
			}
		}
		argv = append(argv, w)
	}
	if len(argv) == 0 {
		return nil, false
	}
	if _, special := bashNames.lookup(argv[0]); special {
		return nil, false
	}
	return argv, true
}

// isBlank reports bash's blanks, the bytes that separate words on a line.
func isBlank(r rune) bool { return r == ' ' || r == '\t' }

// plainByte reports whether c may appear in a plain word, first saying
// whether the word is the command's name: = there would make it an
// assignment, % a job spec, and , : @ are kept out of names for good
// measure (no program needs them and bash has words made of them).
func plainByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	case c == '_', c == '.', c == '/', c == '+', c == '-':
		return true
	case c == ',', c == ':', c == '@', c == '%', c == '=':
		return !first
	}
	return false
}

// bashNames are the names bash does not run as a program even when PATH
// holds one: its builtins (bash 5.2, compgen -b) and reserved words.
var bashNames = nameTable[struct{}]{
	{"!", struct{}{}}, {".", struct{}{}}, {":", struct{}{}}, {"[", struct{}{}}, {"[[", struct{}{}}, {"]]", struct{}{}},
	{"alias", struct{}{}}, {"bg", struct{}{}}, {"bind", struct{}{}}, {"break", struct{}{}}, {"builtin", struct{}{}},
	{"caller", struct{}{}}, {"case", struct{}{}}, {"cd", struct{}{}}, {"command", struct{}{}}, {"compgen", struct{}{}},
	{"complete", struct{}{}}, {"compopt", struct{}{}}, {"continue", struct{}{}}, {"coproc", struct{}{}},
	{"declare", struct{}{}}, {"dirs", struct{}{}}, {"disown", struct{}{}}, {"do", struct{}{}}, {"done", struct{}{}},
	{"echo", struct{}{}}, {"elif", struct{}{}}, {"else", struct{}{}}, {"enable", struct{}{}}, {"esac", struct{}{}},
	{"eval", struct{}{}}, {"exec", struct{}{}}, {"exit", struct{}{}}, {"export", struct{}{}}, {"false", struct{}{}},
	{"fc", struct{}{}}, {"fg", struct{}{}}, {"fi", struct{}{}}, {"for", struct{}{}}, {"function", struct{}{}},
	{"getopts", struct{}{}}, {"hash", struct{}{}}, {"help", struct{}{}}, {"history", struct{}{}}, {"if", struct{}{}},
	{"in", struct{}{}}, {"jobs", struct{}{}}, {"kill", struct{}{}}, {"let", struct{}{}}, {"local", struct{}{}},
	{"logout", struct{}{}}, {"mapfile", struct{}{}}, {"popd", struct{}{}}, {"printf", struct{}{}}, {"pushd", struct{}{}},
	{"pwd", struct{}{}}, {"read", struct{}{}}, {"readarray", struct{}{}}, {"readonly", struct{}{}}, {"return", struct{}{}},
	{"select", struct{}{}}, {"set", struct{}{}}, {"shift", struct{}{}}, {"shopt", struct{}{}}, {"source", struct{}{}},
	{"suspend", struct{}{}}, {"test", struct{}{}}, {"then", struct{}{}}, {"time", struct{}{}}, {"times", struct{}{}},
	{"trap", struct{}{}}, {"true", struct{}{}}, {"type", struct{}{}}, {"typeset", struct{}{}}, {"ulimit", struct{}{}},
	{"umask", struct{}{}}, {"unalias", struct{}{}}, {"unset", struct{}{}}, {"until", struct{}{}}, {"wait", struct{}{}},
	{"while", struct{}{}}, {"{", struct{}{}}, {"}", struct{}{}},
}
