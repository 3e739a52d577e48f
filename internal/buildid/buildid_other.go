//go:build !linux

package buildid

// Running returns "": only on Linux does the kernel say where the
// executable's headers are mapped.
func Running() string { return "" }
