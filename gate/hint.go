package gate

import (
	"os"

	"github.com/gatedexec/gatedexec/profiles"
	"github.com/gatedexec/gatedexec/sandbox"
)

// AllowHint says how the access a denial stopped could be allowed, in
// the words of the command line (escalated: the run was escalated once
// already).
func AllowHint(d sandbox.Denial, escalated bool) string {
	escalate := "run with --approval-policy on-failure to be asked to grant it for this command, or "
	if escalated {
		escalate = ""
	}
	switch d.Kind {
	case sandbox.KindFSHidden:
		return "the profile hides it (hide); no escalation is offered for a hidden path: use a profile that does not hide it"
	case sandbox.KindFSWrite:
		cache := &profiles.Vars{Home: os.Getenv("HOME"), Getenv: os.Getenv}
		if tok := profiles.CacheTokenFor(d.Path, cache); tok != "" {
			return "to allow it, add " + tok + " to the profile's filesystem.write or use -p workspace-dev"
		}
		return "to allow it, " + escalate + "use a profile whose write list covers it (-p PROFILE, e.g. full-access)"
	case sandbox.KindFSRead:
		return "to allow it, " + escalate + "use a profile whose read list covers it (-p PROFILE)"
	case sandbox.KindNetConnect, sandbox.KindNetBind:
		return "to allow it, " + escalate + "use a profile with [network] mode = \"on\" (-p PROFILE), or name one for this command with prefix_rule(..., profile=\"NAME\")"
	case sandbox.KindSyscall:
		return "the sandbox always denies this system call; only -p full-access runs without the filter"
	}
	return "no profile setting grants it"
}
