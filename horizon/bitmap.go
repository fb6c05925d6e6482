package horizon

import "math/bits"

// Bitmap is a per-observer visibility map: one bit per cell of a Width×Height
// grid, row-major. Cell (col,row) has index i = row*Width + col and is bit
// i&63 of Words[i>>6]; a set bit means visible. Bits past Width*Height in the
// last word are zero.
type Bitmap struct {
	Width, Height int
	Words         []uint64
}

// NewBitmap returns an all-hidden bitmap of width×height cells.
func NewBitmap(width, height int) Bitmap {
	return Bitmap{Width: width, Height: height, Words: make([]uint64, (width*height+63)/64)}
}

// Visible reports whether cell (col,row) is visible.
func (b Bitmap) Visible(col, row int) bool {
	i := row*b.Width + col
	return b.Words[i>>6]>>(uint(i)&63)&1 != 0
}

// Set marks cell (col,row) visible (v) or hidden.
func (b Bitmap) Set(col, row int, v bool) {
	i := row*b.Width + col
	if v {
		b.Words[i>>6] |= 1 << (uint(i) & 63)
	} else {
		b.Words[i>>6] &^= 1 << (uint(i) & 63)
	}
}

// CountVisible returns the number of visible cells.
func (b Bitmap) CountVisible() int {
	n := 0
	for _, w := range b.Words {
		n += bits.OnesCount64(w)
	}
	return n
}
