//go:build !unix

package config

import (
	"errors"
	"io/fs"
)

// rootOnly cannot tell a root-owned file here: a managed layer fails closed.
func rootOnly(path string, ancestor bool) error {
	return errors.New(path + ": ownership cannot be checked on this system")
}

// rootOnlyInfo fails closed as rootOnly does.
func rootOnlyInfo(path string, _ fs.FileInfo, ancestor bool) error { return rootOnly(path, ancestor) }

// writable is true: a managed layer cannot be verified here.
func writable(string) bool { return true }
