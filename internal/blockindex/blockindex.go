// Package blockindex packs a coded block's place into one index word, as
// coded hierarchies keep it (quadtree.Coded.Index, a coded store's index
// section): the block's offset in bytes in the high 38 bits, its length
// in bytes in the low LenBits.
package blockindex

import "fmt"

// LenBits is how many low bits of an entry give the block's length: blocks
// of up to 64 MiB, at offsets up to 256 GiB.
const LenBits = 26

// Entry packs a block's offset and length, in bytes, into an index entry.
// Errors: a block of 64 MiB or more, or an offset of 256 GiB or more.
func Entry(off, n uint64) (uint64, error) {
	if n >= 1<<LenBits || off >= 1<<(64-LenBits) {
		return 0, fmt.Errorf("blockindex: a block of %d bytes at byte %d, beyond what an index entry holds", n, off)
	}
	return off<<LenBits | n, nil
}

// At returns the offset and length, in bytes, of the block of index entry
// e.
func At(e uint64) (off, n uint64) { return e >> LenBits, e & (1<<LenBits - 1) }
