package execpolicy

import (
	"iter"
	"slices"
	"strings"
)

// The readers of programs' options (execOptions, getopt, makeArgs,
// sshClientArgs, cmdLang) take values as getopt does: a short
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

// getopt says how a program reads the options that one of the readers
// looking for a few of them (less, man, apt, wget, pytest, strace) cares
// about. A short option of valued takes a value, the rest of its cluster
// or else the next word; one of attached only the rest of its cluster
// (man -H[BROWSER]); one of letter the letter after it (wget -nv); any
// other is a flag, after which the cluster goes on. A long option of long
// takes a value after its "=" or else the next word, one of longAttached
// only after "="; any other is passed over. Long names are taken by any
// prefix (longPrefixOf), in any case with fold (less; the lists are then
// lower-case), and only in full with exact (apt).
type getopt struct {
	valued, attached, letter string
	long, longAttached       []string
	fold, exact              bool
}

// options yields, up to "--", each option of ws that g lists with its
// value (nil: none given, or ws ended first), by the name a list gives it
// ("-o", "--output"), and each operand with the name "". A dynamic word
// is neither: the command is not plain already.
func (g *getopt) options(ws []word) iter.Seq2[string, *word] {
	return func(yield func(string, *word) bool) {
		for i := 1; i < len(ws); i++ {
			w := &ws[i]
			v := w.value
			switch {
			case !w.static:
			case v == "--":
				return
			case !strings.HasPrefix(v, "-") || v == "-":
				if !yield("", w) {
					return
				}
			case strings.HasPrefix(v, "--"):
				name, val, hasEq := strings.Cut(v, "=")
				if opt := g.longOf(name, g.long); opt != "" {
					if !yield(opt, longValue(ws, &i, val, hasEq)) {
						return
					}
				} else if opt := g.longOf(name, g.longAttached); opt != "" {
					var value *word
					if hasEq {
						value = &word{value: val, src: val, static: true}
					}
					if !yield(opt, value) {
						return
					}
				}
			default:
				if !g.cluster(ws, &i, yield) {
					return
				}
			}
		}
	}
}

// cluster yields the option of the cluster ws[*i] that takes a value, if
// any: it ends the cluster. It returns false when yield does.
func (g *getopt) cluster(ws []word, i *int, yield func(string, *word) bool) bool {
	v := ws[*i].value
	for j := 1; j < len(v); j++ {
		c := v[j]
		switch {
		case strings.IndexByte(g.letter, c) >= 0:
			j++
		case strings.IndexByte(g.valued, c) >= 0:
			return yield("-"+string(c), shortValue(ws, i, v, j))
		case strings.IndexByte(g.attached, c) >= 0:
			return yield("-"+string(c), attachedValue(v, j))
		}
	}
	return true
}

// longOf returns the option of longs that name stands for, or "".
func (g *getopt) longOf(name string, longs []string) string {
	if g.fold {
		name = strings.ToLower(name)
	}
	if g.exact {
		if slices.Contains(longs, name) {
			return name
		}
		return ""
	}
	return longPrefixOf(name, longs)
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
