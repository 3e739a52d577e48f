package gate

import (
	"fmt"
	"strings"

	"github.com/gatedexec/gatedexec/config"
)

// setting is one value of the configuration with where it came from, so
// that an error about it names that place and has the kind DESIGN §2
// asks: a bad flag is the caller's (ErrUsage, 64), a bad environment
// variable or config.toml key is bad configuration (ErrConfig, 78), and a
// bad default is gatedexec's own failure (no kind, 125).
type setting struct {
	value string
	from  string // "--flag", "GATEDEXEC_X" or "file:line: key"
	kind  error
}

// flagOrEnv returns the flag when set, else the environment variable,
// else the zero setting (value ""): for what config.toml cannot set.
func flagOrEnv(getenv func(string) string, flag, flagValue, env string) setting {
	if flagValue != "" {
		return setting{flagValue, flag, ErrUsage}
	}
	if v := getenv(env); v != "" {
		return setting{v, env, ErrConfig}
	}
	return setting{}
}

// pick returns the first that is set of the flag (flagValue, named
// --KEY with dashes), the environment variable GATEDEXEC_KEY and the
// config.toml key in the layers' settings s, else def: one key names all
// three, as DESIGN §2 has them.
func pick(getenv func(string) string, flagValue string, s config.Settings, key, def string) setting {
	flag := "--" + strings.ReplaceAll(key, "_", "-")
	if st := flagOrEnv(getenv, flag, flagValue, "GATEDEXEC_"+strings.ToUpper(key)); st.value != "" {
		return st
	}
	if value := s.Get(key); value != "" {
		return setting{value, s.Origin[key] + ": " + key, ErrConfig}
	}
	return setting{def, "default " + key, nil}
}

// errorf wraps err, about the setting's value, with where it came from.
func (st setting) errorf(err error) error {
	return withKind(st.kind, fmt.Errorf("%s: %w", st.from, err))
}
