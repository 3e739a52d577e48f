// Package profiles loads sandbox profiles written in TOML and resolves them
// into sandbox.Profile values for one host and workspace.
//
// A profile file has the keys of DESIGN §5: description, extends,
// enforcement, [filesystem] read/write/protect/hide, [network] mode and
// unix_sockets, [process] env_deny, setsid, pid_namespace and pty, and [limits] nofile, nproc,
// fsize, cpu, as and timeout. A key set in a profile replaces its parent's
// value whole; lists are never merged. Unknown keys, wrong types, unknown
// path tokens and bad enum values are errors naming file:line, because a
// misspelt restriction that is silently ignored is a hole.
//
// Path tokens: ":all" (read and write only: the whole filesystem),
// ":workspace", ":tmp" (/tmp and $TMPDIR), ":home", ":cwd", each optionally
// followed by "/sub/path"; absolute paths; "~" and "~/x"; "$VAR/x" and
// "${VAR}/x" where VAR must be set to an absolute path. In protect only,
// ":git" stands for the workspace's git control files (sandbox.GitControl)
// and ":agent-config" for the settings the host's agents, editors and
// shells run commands from (sandbox.AgentConfig): those that exist are
// protected, and all of them are reported when a run makes or changes
// them (Profile.Watch). Anything else is an
// error. Existing paths have their symlinks resolved so that Landlock and
// bind mounts see the real path; a path that does not exist yet keeps its
// cleaned form below its nearest existing, resolved ancestor.
//
// Limits: nofile, nproc and cpu (seconds) are integers; fsize and as are
// bytes, given as an integer or a string with a K, M, G or T suffix
// (powers of 1024, "512M"); timeout is a Go duration ("10m"); memory is a
// size or a percentage of the host's memory ("75%"), enforced for the
// whole run by a cgroup where gatedexec runs as root and the host has the
// controller.
//
// A profile with read = [":all"], write = [":all"], network "on", unix
// sockets allowed and no protect or hide paths is unrestricted (the
// built-in full-access): backends then apply only the process layers.
// full-access also has an empty env_deny, since a command allowed full
// access gets the caller's environment.
package profiles
