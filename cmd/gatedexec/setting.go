package main

import (
	"fmt"
	"os"

	"github.com/gatedexec/gatedexec/config"
)

// setting is one value of run's configuration with where it came from, so
// that an error about it names that place and exits as DESIGN §2 says: a
// bad flag is a usage error (64), a bad environment variable or
// config.toml key is bad configuration (78).
type setting struct {
	value string
	from  string // "--flag", "GATEDEXEC_X" or "file:line: key"
	code  int
}

// flagOrEnv returns the flag when set, else the environment variable,
// else the zero setting (value ""): for what config.toml cannot set.
func flagOrEnv(flag, flagValue, env string) setting {
	if flagValue != "" {
		return setting{flagValue, flag, exitUsage}
	}
	if v := os.Getenv(env); v != "" {
		return setting{v, env, exitConfig}
	}
	return setting{}
}

// pickSetting returns the first of the flag, the environment variable and
// the config.toml key that is set, else def. The layers' settings s say
// where their key was set.
func pickSetting(flag, flagValue, env string, s config.Settings, key, value, def string) setting {
	if st := flagOrEnv(flag, flagValue, env); st.value != "" {
		return st
	}
	if value != "" {
		return setting{value, s.Origin[key] + ": " + key, exitConfig}
	}
	return setting{def, "default " + key, exitInternal}
}

// errorf wraps err, about the setting's value, with where it came from.
func (st setting) errorf(err error) error {
	return withCode(st.code, fmt.Errorf("%s: %w", st.from, err))
}
