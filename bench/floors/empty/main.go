// Command empty is the floor of `gatedexec version` in make bench, built
// as gatedexec is: a program that does nothing but start as gatedexec
// starts (internal/oneproc, and its entry point where the build links it).
package main

import _ "github.com/gatedexec/gatedexec/internal/oneproc"

func main() {}
