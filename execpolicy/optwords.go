package execpolicy

import (
	"iter"
	"strings"
)

// The readers of programs' options (execOptions, makeArgs, manArgs,
// straceArgs, sshClientArgs, cmdLang) take values as getopt does: a short
// option's value is the rest of its cluster or else the next word, a long
// one's what follows its "=" or else the next word, and a long option may
// be abbreviated.

// nextWord returns the word after ws[*i] as an option's value, moving *i
// to it; nil when ws ends first.
func nextWord(ws []word, i *int) *word {
	if *i+1 >= len(ws) {
		return nil
	}
	*i++
	return &ws[*i]
}

// attachedValue returns the rest of the cluster v after its option at
// v[j], or nil when the option ends it.
func attachedValue(v string, j int) *word {
	if rest := v[j+1:]; rest != "" {
		return &word{value: rest, src: rest, static: true}
	}
	return nil
}

// shortValue returns the value of the short option at v[j] of the cluster
// ws[*i] (v its value): attached, or else the next word (nextWord).
func shortValue(ws []word, i *int, v string, j int) *word {
	if w := attachedValue(v, j); w != nil {
		return w
	}
	return nextWord(ws, i)
}

// longValue returns the value of the long option of ws[*i], split at its
// "=" into val and hasEq: val, or else the next word (nextWord).
func longValue(ws []word, i *int, val string, hasEq bool) *word {
	if hasEq {
		return &word{value: val, src: val, static: true}
	}
	return nextWord(ws, i)
}

// longPrefixOf returns the option of longs that name is or abbreviates, as
// getopt_long takes any prefix, or "". An ambiguous prefix, which getopt
// refuses, is taken for the first: stricter, and no list of every option
// of the program is needed.
func longPrefixOf(name string, longs []string) string {
	if len(name) <= len("--") {
		return ""
	}
	for _, l := range longs {
		if strings.HasPrefix(l, name) {
			return l
		}
	}
	return ""
}

// longOptionOf returns the option of longs, every long option of a
// program, that name is or abbreviates as glibc's getopt_long_only reads
// it: the option name spells in full, else the only one it begins. A name
// that begins several is ambiguous, which getopt_long_only refuses
// whatever the options are; a reader with every option listed can say so
// rather than guess (longPrefixOf).
func longOptionOf(name string, longs []string) (opt string, ambiguous bool) {
	if len(name) <= len("--") {
		return "", false
	}
	for _, l := range longs {
		if l == name {
			return l, false
		}
	}
	for _, l := range longs {
		if strings.HasPrefix(l, name) {
			if opt != "" {
				return "", true
			}
			opt = l
		}
	}
	return opt, false
}

// linesAfter yields, for each mark in text, the rest of the line after
// it: what a shell escape of a program's own language (psql's \!,
// gnuplot's and dc's !) hands to a shell.
func linesAfter(text, mark string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for rest := text; ; {
			_, after, ok := strings.Cut(rest, mark)
			if !ok {
				return
			}
			line, _, _ := strings.Cut(after, "\n")
			if !yield(line) {
				return
			}
			rest = after
		}
	}
}
