package main

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/frontiersets/frontiersets/internal/cli"
	"github.com/frontiersets/frontiersets/internal/sim"
)

// TestSimFlagsCheck: sim's flags are validated before a store is opened,
// each bad value a usage error naming its flag; good values give the
// ticks, schemes and hot spot the run uses.
func TestSimFlagsCheck(t *testing.T) {
	parse := func(t *testing.T, args ...string) (simChecked, error) {
		t.Helper()
		var f simFlags
		fs := pflag.NewFlagSet("sim", pflag.ContinueOnError)
		f.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f.check()
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bots", "1"}, "--bots 1: want 2 to 1024"},
		{[]string{"--bots", "1025"}, "--bots 1025"},
		{[]string{"--hz", "0.5"}, "--hz 0.5"},
		{[]string{"--hz", "NaN"}, "--hz NaN"},
		{[]string{"--minutes", "0"}, "--minutes 0"},
		{[]string{"--minutes", "2000", "--hz", "10"}, "at most 10⁶ ticks"},
		{[]string{"--speed", "-1"}, "--speed -1"},
		{[]string{"--respawn", "601"}, "--respawn 601"},
		{[]string{"--region-level", "0"}, "--region-level 0"},
		{[]string{"--delay-ms", "1001"}, "--delay-ms 1001"},
		{[]string{"--joint-ring", "-2"}, "--joint-ring -2"},
		{[]string{"--predict", "0"}, "--predict 0"},
		{[]string{"--aoi-radius", "-1"}, "--aoi-radius -1"},
		{[]string{"--exact-every", "-1"}, "--exact-every -1"},
		{[]string{"--budget-ms", "Inf"}, "--budget-ms +Inf"},
		{[]string{"--hotspot", "1,2"}, "--hotspot \"1,2\""},
		{[]string{"--hotspot", "1,2,0"}, "--hotspot \"1,2,0\""},
		{[]string{"--schemes", "CS,XX"}, "no scheme \"XX\""},
		{[]string{"--bots", "1024", "--minutes", "600", "--hz", "20"}, "GiB of visibility"},
	} {
		_, err := parse(t, tc.args...)
		var ue *cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error saying %q", tc.args, err, tc.want)
		}
	}
	sc, err := parse(t, "--minutes", "0.5", "--hz", "20", "--schemes", "cs, gq", "--hotspot", "3,4,50")
	if err != nil {
		t.Fatal(err)
	}
	if sc.ticks != 600 || !slices.Equal(sc.schemes, []sim.Scheme{sim.CS, sim.GQ}) || sc.hotSpot.Col != 3 || sc.hotSpot.Row != 4 || sc.hotSpot.RadiusM != 50 || sc.hotSpot.Share != 1 ||
		sc.grow.Merge.String() != "lossy" {
		t.Errorf("checked %+v", sc)
	}
}
