package quadtree

import (
	"errors"
	"slices"
	"testing"
)

// damaged returns block cut, lengthened and emptied: what every decoder
// must refuse.
func damaged(block []byte) [][]byte {
	return [][]byte{nil, {0xF1}, block[:1], block[:len(block)-1], append(slices.Clone(block), 0)}
}

// refused checks that decode refuses each block with a *FormatError.
func refused(t *testing.T, decode func([]byte) error, blocks ...[]byte) {
	t.Helper()
	var fe *FormatError
	for _, bad := range blocks {
		if err := decode(bad); !errors.As(err, &fe) {
			t.Errorf("block % x…: %v, want a *FormatError", bad[:min(len(bad), 8)], err)
		}
	}
}
