package execpolicy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shellLang returns the dialect in which the shell prog (by basename)
// reads its scripts. sh, dash, ash, posh, yash and ksh93 are judged as
// POSIX: above all, none of them reads "&>" as a redirect.
func shellLang(prog string) syntax.LangVariant {
	switch path.Base(prog) {
	case "bash":
		return syntax.LangBash
	case "zsh":
		return syntax.LangZsh
	case "mksh":
		return syntax.LangMirBSDKorn
	}
	return syntax.LangPOSIX
}

// scriptLang returns the dialect of the scripts the wrapper spec at prog
// runs, where cur is the dialect of the script it is in: a shell's own,
// sh's for watch (sh -c) and su (a login shell, judged as sh as the
// stricter), cur for eval and trap, which run in the current shell.
func scriptLang(spec *wrapper, prog string, cur syntax.LangVariant) syntax.LangVariant {
	switch {
	case spec.kind == runsShell:
		return shellLang(prog)
	case path.Base(prog) == "watch", path.Base(prog) == "su":
		return syntax.LangPOSIX
	}
	return cur
}

// inDialect judges src, a script for a shell other than bash, as that
// shell parses it, aside, and records what it finds above allow: the
// script allows only when both readings of it do. mvdan.cc/sh rejects
// "&>" in POSIX mode where dash reads "&" then ">" ("ls &>/dev/null curl
// x" runs curl in the background), so that reading is also searched for
// forbidden commands.
func (a *analysis) inDialect(src string, depth int) Decision {
	lang := a.lang
	d := a.aside(Prompt, func(sub *analysis) Decision {
		sub.lang, sub.dialectOnly = lang, true
		return sub.script(src, depth)
	})
	if lang == syntax.LangPOSIX && strings.Contains(src, "&>") {
		d = Max(d, a.forbiddenIn(strings.ReplaceAll(src, "&>", "& >"), depth))
	}
	return d
}
