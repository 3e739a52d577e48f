package approval

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/gatedexec/gatedexec/execpolicy"
)

// SplitCommand splits cmd into words as a POSIX shell would, with quote
// removal but no expansion: a word with $, backquotes, globs, or any
// operator other than a single simple command is an error. No shell is
// involved; the words become an argv as they are.
func SplitCommand(cmd string) ([]string, error) {
	if strings.ContainsRune(cmd, 0) {
		return nil, errors.New("command contains a NUL byte")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, fmt.Errorf("cannot split command: %w", err)
	}
	if len(f.Stmts) != 1 {
		return nil, errors.New("command must be exactly one simple command")
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, errors.New("command must be one simple command without assignments, redirections or operators")
	}
	argv := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		s, err := literalWord(w)
		if err != nil {
			return nil, err
		}
		argv = append(argv, s)
	}
	return argv, nil
}

// literalWord returns w after quote removal, or an error when any part of
// w would be expanded by a shell. It is stricter than the analysis of
// execpolicy, whose quote removal it uses: an approver's words are never
// a glob, a tilde, a lone $ or bash-only quoting, even escaped.
func literalWord(w *syntax.Word) (string, error) {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			// An unquoted literal still holds backslash escapes and
			// may hold glob or tilde characters. A lone $ is literal
			// in POSIX but starts $'...' in bash: reject it too.
			if strings.ContainsAny(p.Value, "*?[~$") {
				return "", fmt.Errorf("word %q would be expanded (glob, tilde or $)", wordText(w))
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", fmt.Errorf("word %q uses $'...' quoting", wordText(w))
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", fmt.Errorf("word %q uses $\"...\" quoting", wordText(w))
			}
		}
	}
	v, static := execpolicy.QuoteRemoval(w)
	if !static {
		return "", fmt.Errorf("word %q would be expanded", wordText(w))
	}
	return v, nil
}

// wordText prints w back as shell source, for error messages.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}
