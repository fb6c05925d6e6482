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

// Arm makes memory faults in the calling goroutine panic instead of
// crashing the process and returns the setting it replaced, for Recover.
// Use, in a function with an error result err:
//
//	defer fault.Recover(&err, fault.Arm())
//
// (a deferred call's arguments are evaluated by the defer statement, so
// Arm runs there).
func Arm() bool { return debug.SetPanicOnFault(true) }

// Recover restores the setting Arm replaced (old) and turns a runtime error
// panic into *err (wrapping ErrFault); other panics go on. It must be the
// deferred function itself, where recover works. Unlike a deferred
// closure it allocates nothing: the store's lookups defer it on every
// call.
func Recover(err *error, old bool) {
	debug.SetPanicOnFault(old)
	if r := recover(); r != nil {
		re, ok := r.(runtime.Error)
		if !ok {
			panic(r)
		}
		*err = fmt.Errorf("%w (%v)", ErrFault, re)
	}
}
