// Package userdirs resolves the per-user directories gatedexec reads and
// writes: the user configuration layer, the state directory (sessions,
// trust records, deferred escalations) and the cache. It is the one place
// that decides where "home" is, so that no caller can fall back to a path
// relative to the current directory: with HOME unset, a relative
// ".config/gatedexec" would make a cloned repository's own files the
// user's trusted layer.
package userdirs

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// ErrNoHome is wrapped by Resolve's error when neither $HOME nor the
// passwd entry of the effective user gives an absolute home directory.
var ErrNoHome = errors.New("no home directory")

// Dirs are the resolved per-user directories, all absolute.
type Dirs struct {
	// Home is the user's home directory: $HOME when it is absolute, else
	// the passwd entry's.
	Home string
	// Config is $XDG_CONFIG_HOME/gatedexec, by default ~/.config/gatedexec.
	Config string
	// State is $XDG_STATE_HOME/gatedexec, by default ~/.local/state/gatedexec.
	State string
	// Cache is $XDG_CACHE_HOME/gatedexec, by default ~/.cache/gatedexec.
	Cache string
}

// Sessions is where session approvals live.
func (d Dirs) Sessions() string { return filepath.Join(d.State, "sessions") }

// Trust is where `gatedexec trust` records trusted workspaces.
func (d Dirs) Trust() string { return filepath.Join(d.State, "trust") }

// Deferred is where deferred escalation plans wait for the host's answer.
func (d Dirs) Deferred() string { return filepath.Join(d.State, "deferred") }

// RulesCache is where compiled rules are cached.
func (d Dirs) RulesCache() string { return filepath.Join(d.Cache, "rules") }

// Resolve returns the directories for the environment read through getenv
// (os.Getenv or a test's map). An XDG variable counts only when it is an
// absolute path, as the XDG base directory specification says.
func Resolve(getenv func(string) string) (Dirs, error) {
	return resolve(getenv, passwdHome)
}

// passwdHome returns the home directory of the effective user's passwd
// entry. It looks the uid up rather than calling user.Current, whose
// pure-Go form falls back to $HOME, the very variable that was missing.
func passwdHome() (string, error) {
	u, err := user.LookupId(strconv.Itoa(os.Geteuid()))
	if err != nil {
		return "", err
	}
	return u.HomeDir, nil
}

func resolve(getenv func(string) string, lookup func() (string, error)) (Dirs, error) {
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		h, err := lookup()
		switch {
		case err != nil:
			return Dirs{}, fmt.Errorf("%w: HOME is %s and the passwd entry of uid %d: %w", ErrNoHome, describe(home), os.Geteuid(), err)
		case !filepath.IsAbs(h):
			return Dirs{}, fmt.Errorf("%w: HOME is %s and the passwd entry of uid %d has home %q, not an absolute path", ErrNoHome, describe(home), os.Geteuid(), h)
		}
		home = h
	}
	home = filepath.Clean(home)
	base := func(env string, def ...string) string {
		if x := getenv(env); filepath.IsAbs(x) {
			return filepath.Join(filepath.Clean(x), "gatedexec")
		}
		return filepath.Join(append(append([]string{home}, def...), "gatedexec")...)
	}
	return Dirs{
		Home:   home,
		Config: base("XDG_CONFIG_HOME", ".config"),
		State:  base("XDG_STATE_HOME", ".local", "state"),
		Cache:  base("XDG_CACHE_HOME", ".cache"),
	}, nil
}

func describe(home string) string {
	if home == "" {
		return "unset"
	}
	return strconv.Quote(home) + " (not absolute)"
}
