// Package config finds gatedexec's configuration layers and reads their
// config.toml files.
//
// The layers, lowest first, are the system directory (/etc/gatedexec), the
// user directory ($XDG_CONFIG_HOME/gatedexec) and the workspace's own
// .gatedexec directory. Each may hold config.toml, rules/*.rules and
// profiles/*.toml. The workspace layer arrives with the repository, so it
// is untrusted until the user trusts it (see TrustStore): untrusted, only
// its prompt and forbidden rules count.
//
// Environment variables and flags sit above these layers; the command line
// applies them, since only it knows which flags were given.
package config
