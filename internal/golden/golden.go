// Package golden holds the tests' golden hashes: named hashes of what this
// build computes (tables, profiles, pyramids, stores), compared with a JSON
// file kept in testdata so that builds for other CPUs (GOAMD64 levels,
// arm64) must give the same bytes. It is a test helper: it does file I/O
// and reports through testing.TB.
package golden

import (
	"encoding/json"
	"os"
	"runtime"
	"testing"
)

// Check compares got (name → hash) with the JSON object in the file at
// path: every name of the file must hash the same and the two must hold as
// many names — under -short (a test computing some of the hashes), every
// name of got must be the file's and hash the same. With update it writes
// got to path instead (not under -short).
func Check(t testing.TB, path string, got map[string]string, update bool) {
	t.Helper()
	if update && testing.Short() {
		t.Fatal("golden: -update under -short would write some of the hashes only")
	}
	if update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if testing.Short() {
		for k, v := range got {
			if want[k] != v {
				t.Errorf("%s: hash %s, golden %s (%s/%s): this build computes other bytes", k, v, want[k], runtime.GOARCH, os.Getenv("GOAMD64"))
			}
		}
		return
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: hash %s, golden %s (%s/%s): this build computes other bytes", k, got[k], v, runtime.GOARCH, os.Getenv("GOAMD64"))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d hashes, golden %d in %s: run the test with -update", len(got), len(want), path)
	}
}
