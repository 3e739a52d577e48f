package gate

import (
	"os"

	"github.com/gatedexec/gatedexec/execpolicy"
	"github.com/gatedexec/gatedexec/internal/userdirs"
	"github.com/gatedexec/gatedexec/profiles"
)

// RulesCount is what LintRules found in a rules file.
type RulesCount struct {
	// Rules counts prefix rules (one per program of a first-position
	// alternative) and network rules.
	Rules    int
	Examples int
}

// LintRules loads the rules file or directory file on its own, which
// verifies every match and not_match example, and checks that every
// profile= it names resolves with l. Errors name file:line:col.
func LintRules(file string, l *profiles.Loader) (RulesCount, error) {
	// Without a home directory "~/" paths fail to load, which is the
	// safe outcome; every other rule still works.
	home := ""
	if d, err := userdirs.Resolve(os.Getenv); err == nil {
		home = d.Home
	}
	p, err := execpolicy.Loader{HomeDir: home}.LoadFiles(file)
	if err == nil {
		err = CheckRuleProfiles(p, l)
	}
	if err != nil {
		return RulesCount{}, err
	}
	return RulesCount{Rules: p.Len() + len(p.NetworkRules()), Examples: p.Examples()}, nil
}
