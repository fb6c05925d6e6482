package main

import (
	"io"
	"os"
	"testing"

	"github.com/frontiersets/frontiersets/internal/refdoc"
)

// TestReferencePages: docs/commands holds the reference page of every
// pvsbake command as the command definitions give it (UPDATE_DOCS=1
// rewrites them: make docs).
func TestReferencePages(t *testing.T) {
	if err := refdoc.CheckReferencePages(newRoot(io.Discard, io.Discard), "../../docs/commands", os.Getenv("UPDATE_DOCS") == "1"); err != nil {
		t.Fatal(err)
	}
}
