package cli

import (
	"errors"
	"flag"
	"io"
	"testing"
)

func TestParseAndExitCodes(t *testing.T) {
	fs := NewFlagSet("x", "x ARG", io.Discard)
	var d DEMFlags
	d.Register(fs)
	pos, err := Parse(fs, []string{"dem.tif", "--window", "1,2,3,4", "--cell-size", "2", "--raw-size", "8x4"})
	if err != nil || len(pos) != 1 || pos[0] != "dem.tif" {
		t.Fatalf("%v %v", pos, err)
	}
	o, err := d.Options()
	if err != nil || o.Window.Width != 3 || o.CellSize != 2 || o.RawWidth != 8 || o.RawHeight != 4 {
		t.Errorf("options %+v %v", o, err)
	}
	if _, err := Parse(NewFlagSet("y", "y", io.Discard), []string{"--nope"}); ExitCode(err) != 2 {
		t.Errorf("unknown flag: %v", err)
	}
	if ExitCode(nil) != 0 || ExitCode(errors.New("x")) != 1 || ExitCode(flag.ErrHelp) != 2 || ExitCode(Usagef("u")) != 2 {
		t.Error("exit codes")
	}
	if c, r, err := ParseCell("at", "5,7"); err != nil || c != 5 || r != 7 {
		t.Errorf("ParseCell: %d %d %v", c, r, err)
	}
	for _, bad := range []string{"5", "5,7,9", "a,b", ""} {
		if _, _, err := ParseCell("at", bad); ExitCode(err) != 2 {
			t.Errorf("ParseCell(%q): %v", bad, err)
		}
	}
}
