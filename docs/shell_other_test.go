//go:build !unix

package docs

import (
	"os/exec"
	"testing"
)

// shell returns a bash running script (process groups are Unix's: here a
// recipe cut short may leave its commands running).
func shell(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	return exec.Command("bash", "-e", "-o", "pipefail", "-c", script)
}
