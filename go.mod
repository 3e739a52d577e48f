module github.com/gatedexec/gatedexec

go 1.26.8

require github.com/spf13/cobra v1.10.2

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	go.starlark.net v0.0.0-20260908191801-89a6a09411d5 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
