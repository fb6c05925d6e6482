// Package fault turns the faults of reading a mapped store file that was
// truncated or changed while open (SIGBUS, and the out-of-range reads a
// changed file can cause) into errors, in the goroutine that reads.
package fault

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
)

// ErrFault reports a read of a store's memory that faulted.
var ErrFault = errors.New("the store's memory could not be read: its file was truncated or changed while open")

// Catch makes memory faults in the calling goroutine panic instead of
// crashing the process, and returns the function to defer, which restores
// the setting and turns a runtime error into *err (wrapping ErrFault);
// other panics go on. Use: defer fault.Catch(&err)().
func Catch(err *error) func() {
	old := debug.SetPanicOnFault(true)
	return func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			re, ok := r.(runtime.Error)
			if !ok {
				panic(r)
			}
			*err = fmt.Errorf("%w (%v)", ErrFault, re)
		}
	}
}
