package main

import "runtime"

// defaultWorkers is GOMAXPROCS: one viewshed worker per usable core.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
