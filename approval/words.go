package approval

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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
// w would be expanded by a shell.
func literalWord(w *syntax.Word) (string, error) {
	var b strings.Builder
	var walk func(parts []syntax.WordPart) error
	walk = func(parts []syntax.WordPart) error {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				// An unquoted literal still holds backslash escapes and
				// may hold glob or tilde characters. A lone $ is literal
				// in POSIX but starts $'...' in bash: reject it too.
				if strings.ContainsAny(p.Value, "*?[~$") {
					return fmt.Errorf("word %q would be expanded (glob, tilde or $)", wordText(w))
				}
				b.WriteString(unescapeUnquoted(p.Value))
			case *syntax.SglQuoted:
				if p.Dollar {
					return fmt.Errorf("word %q uses $'...' quoting", wordText(w))
				}
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				if p.Dollar {
					return fmt.Errorf("word %q uses $\"...\" quoting", wordText(w))
				}
				for _, q := range p.Parts {
					lit, ok := q.(*syntax.Lit)
					if !ok {
						return fmt.Errorf("word %q would be expanded", wordText(w))
					}
					b.WriteString(unescapeDouble(lit.Value))
				}
			default:
				return fmt.Errorf("word %q would be expanded", wordText(w))
			}
		}
		return nil
	}
	if err := walk(w.Parts); err != nil {
		return "", err
	}
	return b.String(), nil
}

// wordText prints w back as shell source, for error messages.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// unescapeUnquoted removes backslashes as an unquoted shell word does:
// "\x" is "x" and a backslash-newline disappears.
func unescapeUnquoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes backslashes as double quotes do: only before
// $, `, ", \ and newline.
func unescapeDouble(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
