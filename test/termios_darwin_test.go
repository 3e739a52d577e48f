package test

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
