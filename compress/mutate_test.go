package compress

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/frontiersets/frontiersets/quadpvs"
)

// Mutants that keep their checksums: the checksums (CRC-32C per section
// and per section header) stop random corruption at the first check, so
// byte flips of a whole file never reach the structure validators behind
// them. These mutate one section's decompressed payload and write the file
// back with valid checksums (parseFile, assemble), so every validator sees
// them.

var atByte = regexp.MustCompile(`at byte \d+: `)

// mutate applies patch at offset off (wrapped) of section sec (wrapped)
// of the parsed file and returns the file with valid checksums.
func mutate(magic string, version uint32, secs []craftSection, sec int, off uint32, patch []byte) []byte {
	c := make([]craftSection, len(secs))
	copy(c, secs)
	i := sec % len(c)
	p := bytes.Clone(c[i].payload)
	if len(p) > 0 {
		for k, v := range patch {
			p[(int(off)+k)%len(p)] ^= v
		}
	}
	c[i].payload, c[i].raw = p, uint64(len(p))
	return assemble(magic, version, c)
}

// exercise queries and merges every quad of an accepted store: what a
// store that decodes must survive (the fuzzers' check).
func exercise(s *Store) {
	var w quadpvs.Walker
	var u quadpvs.Union
	var m quadpvs.Merger
	var acc quadpvs.Tree
	g := s.Hierarchy.G
	u.Reset(g)
	all := func(l, x, y int) bool { return true }
	var stack []uint64
	for q := range s.Hierarchy.Quads() {
		tr := s.Hierarchy.PVS(q)
		w.HiddenCells(g, &tr)
		tr.CellStatus(g, g.Width-1, g.Height-1)
		u.Add(&tr)
		_, stack = tr.AnyVisible(g, all, stack)
		m.Merge(&acc, &tr, &tr, quadpvs.Lossy)
	}
}

// TestChecksumPreservingMutations decodes thousands of mutants of a store
// (a shared one included) and of a partial file: none may panic, every
// refusal is a typed error, and an accepted store answers queries. It logs
// which checks refused them.
func TestChecksumPreservingMutations(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	plain, _ := testStore(t, 13, 9, true)
	v3, _ := testStoreVersion(t, 13, 9, true, VersionShared)
	shared, _ := sharedStore(t, 21, 14)
	part, _ := testPart(t, 9, 7, true)
	coded, _ := codedStore(t, 13, 9)
	for _, tc := range []struct {
		name string
		file []byte
	}{{"store", plain}, {"version 3 store", v3}, {"shared store", shared}, {"partial", part}, {"coded store", coded}} {
		t.Run(tc.name, func(t *testing.T) {
			magic, version, secs := parseFile(t, tc.file)
			rng := rand.New(rand.NewPCG(31, uint64(len(tc.file))))
			why := map[string]int{}
			accepted := 0
			for range n {
				patch := []byte{byte(1 << rng.IntN(8))}
				if rng.IntN(3) == 0 {
					patch = []byte{byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32())}
				}
				b := mutate(magic, version, secs, rng.IntN(len(secs)), rng.Uint32(), patch)
				var err error
				if tc.name == "partial" {
					err = readPartial(b)
				} else {
					var s *Store
					if s, err = Decode(bytes.NewReader(b)); err == nil {
						exercise(s)
						err = s.Check()
					}
				}
				var fe *FormatError
				var pe *PartError
				switch {
				case err == nil:
					accepted++
				case errors.As(err, &fe), errors.As(err, &pe):
					// The check's words: after "at byte N: ", up to a number.
					msg := err.Error()
					if m := atByte.FindStringSubmatchIndex(msg); m != nil {
						msg = msg[m[1]:]
					}
					if i := strings.IndexAny(msg, "0123456789(\"'"); i > 0 {
						msg = msg[:i]
					}
					why[strings.TrimSpace(msg)]++
				default:
					t.Fatalf("untyped error: %v", err)
				}
			}
			var kinds []string
			for k, v := range why {
				kinds = append(kinds, k+" ×"+strconv.Itoa(v))
			}
			sort.Strings(kinds)
			t.Logf("%d mutants: %d accepted; refused by %d kinds of check: %s", n, accepted, len(kinds), strings.Join(kinds, "; "))
			if len(kinds) < 4 {
				t.Errorf("only %d kinds of refusal: the mutants do not reach the validators", len(kinds))
			}
		})
	}
}

// readPartial reads a whole partial file: header, every record, the end.
func readPartial(b []byte) error {
	r, err := NewPartReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	for {
		if _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// FuzzStoreSections is coverage-guided fuzzing behind the checksums: the
// fuzzer chooses a section, an offset and a patch of a valid store's
// payload; the file is written back with valid checksums and decoded.
func FuzzStoreSections(f *testing.F) {
	good, _ := sharedStore(f, 21, 14)
	magic, version, secs := parseFile(f, good)
	f.Add(uint8(0), uint32(0), []byte{1})
	f.Add(uint8(3), uint32(40), []byte{0x80, 0, 0, 1})
	f.Fuzz(func(t *testing.T, sec uint8, off uint32, patch []byte) {
		if len(patch) > 64 {
			return
		}
		s, err := Decode(bytes.NewReader(mutate(magic, version, secs, int(sec), off, patch)))
		var fe *FormatError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("untyped error: %v", err)
		}
		if err == nil {
			exercise(s)
		}
	})
}

// FuzzPartSections is FuzzStoreSections for partial files.
func FuzzPartSections(f *testing.F) {
	good, _ := testPart(f, 9, 7, true)
	magic, version, secs := parseFile(f, good)
	f.Add(uint8(0), uint32(0), []byte{1})
	f.Fuzz(func(t *testing.T, sec uint8, off uint32, patch []byte) {
		if len(patch) > 64 {
			return
		}
		err := readPartial(mutate(magic, version, secs, int(sec), off, patch))
		var pe *PartError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("untyped error: %v", err)
		}
	})
}
