//go:build linux && cgo

package linux

// The helper's own decoder, compiled into the test binary so that tests
// and fuzz targets exercise it in-process. gatedexec itself is built
// without cgo and runs the helper as a program of its own (helperbin.go).

// #cgo CFLAGS: -Wall -Wextra -Werror -Wno-unused-function -DGX_NO_MAIN
// #include "helper/helper_linux.c"
// #include "helper/helper_egress_linux.c"
import "C"

import (
	"errors"
	"sync"
	"unsafe"
)

// checkMu serialises checkSpec: the C decoder's error path is not
// reentrant.
var checkMu sync.Mutex

// checkSpec runs the helper's own decoder on spec without applying
// anything. It returns the decoded argument count, or the error the
// helper would report.
func checkSpec(spec []byte) (int, error) {
	checkMu.Lock()
	defer checkMu.Unlock()
	var p *C.uchar
	if len(spec) > 0 {
		p = (*C.uchar)(unsafe.Pointer(&spec[0]))
	}
	var argc C.size_t
	if msg := C.gx_spec_check(p, C.size_t(len(spec)), &argc); msg != nil {
		return 0, errors.New(C.GoString(msg))
	}
	return int(argc), nil
}
