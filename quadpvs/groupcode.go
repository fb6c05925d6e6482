package quadpvs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/klauspost/compress/huff0"
)

// GroupCoder entropy-codes the 2-bit codes of §3.2's predictive quadtrees
// by sibling groups (issue "more hidden cells per byte", item 3). The four
// children of an Unknown node are consecutive in breadth-first order
// (codes 4r+1 … 4r+4), so after the root a tree's codes are whole groups,
// one byte each (code k of the group in bits 2k), and the byte carries its
// siblings' context. One Huffman table (klauspost/compress/huff0), built
// from the groups of every tree of a store, codes them all: on the
// benchmark's urban 0.1 GiB store 1.403 bits per code, block headers
// included (pvsbake stat --codes), against 2 in a store file and 2.5 in
// memory; Decode takes 1–2 ns per code (BenchmarkGroupDecode).
//
// A block (Append) is a header byte — the root's code in bits 0–1, the
// mode in bits 2–3 — then, unless the tree is its root alone (mode 0), the
// number of groups as a uvarint and the groups: Huffman-coded with the
// shared table (mode 1) or as they are (mode 3: a single group, or Huffman
// would not be smaller). Mode 2 is not used: a tree's groups are never all
// equal, since the first holds an Unknown code and the last cannot.
// Append is not safe for concurrent use; Decode is.
type GroupCoder struct {
	table []byte
	enc   huff0.Scratch
	dec   *huff0.Decoder
	buf   []byte
}

// Block modes.
const (
	groupRoot    = 0
	groupHuffman = 1
	groupRaw     = 3
)

// maxGroups bounds a block's groups: a tree of 2^28 codes, far beyond any
// store's cap.
const maxGroups = 1 << 26

// GroupHistogram adds the sibling groups of t (not shared) to hist.
func GroupHistogram(hist *[256]uint32, t *Tree) {
	for k := range (t.n - 1) / 4 {
		hist[t.group(k)]++
	}
}

// group returns sibling group k: codes 4k+1 … 4k+4.
func (t *Tree) group(k int) byte { return byte(t.codes4(4*k + 1)) }

// NewGroupCoder returns a coder whose table is built from hist (every
// byte value is made codable). Errors are huff0's.
func NewGroupCoder(hist [256]uint32) (*GroupCoder, error) {
	for i := range hist {
		hist[i] = max(hist[i], 1)
	}
	c := &GroupCoder{}
	if err := c.enc.BuildCTable(&hist); err != nil {
		return nil, fmt.Errorf("quadpvs: group table: %w", err)
	}
	table, err := c.enc.AppendTable(nil)
	if err != nil {
		return nil, fmt.Errorf("quadpvs: group table: %w", err)
	}
	c.enc.Reuse = huff0.ReusePolicyMust
	d, err := ReadGroupTable(table)
	if err != nil {
		return nil, err
	}
	c.table, c.dec = table, d.dec
	return c, nil
}

// ReadGroupTable returns a coder that decodes blocks made with table (as
// Table returns it); its Append must not be used. Errors are
// *FormatError (offset 0).
func ReadGroupTable(table []byte) (*GroupCoder, error) {
	s, rest, err := huff0.ReadTable(table, nil)
	if err != nil || len(rest) != 0 {
		return nil, &FormatError{0, fmt.Sprintf("group table of %d bytes: %v, %d bytes left", len(table), err, len(rest))}
	}
	return &GroupCoder{table: table, dec: s.Decoder()}, nil
}

// Table returns the coder's Huffman table, to keep beside its blocks.
func (c *GroupCoder) Table() []byte { return c.table }

// Append appends t's block to dst (t must not be shared).
func (c *GroupCoder) Append(dst []byte, t *Tree) ([]byte, error) {
	if t.n == 0 || len(t.refs) > 0 {
		return dst, errors.New("quadpvs: group coding needs a tree that is neither empty nor shared")
	}
	root := byte(t.code(0))
	groups := (t.n - 1) / 4
	if groups == 0 {
		return append(dst, root|groupRoot<<2), nil
	}
	c.buf = c.buf[:0]
	for k := range groups {
		c.buf = append(c.buf, t.group(k))
	}
	out, _, err := huff0.Compress1X(c.buf, &c.enc)
	mode := byte(groupHuffman)
	if err != nil { // incompressible (a single group, or no gain)
		mode, out = groupRaw, c.buf
	}
	dst = append(dst, root|mode<<2)
	dst = binary.AppendUvarint(dst, uint64(groups))
	return append(dst, out...), nil
}

// Decode rebuilds the tree of block src into dst (reusing its memory) for a
// terrain of geometry g and checks its shape (CheckShape: every Unknown
// node has its four children and nothing follows). scratch is reused for
// the groups and returned. Errors are *FormatError, Offset the byte of src
// where the problem was found.
func (c *GroupCoder) Decode(g Geometry, dst *Tree, src, scratch []byte) ([]byte, error) {
	if len(src) == 0 {
		return scratch, &FormatError{0, "empty group block"}
	}
	root, mode := src[0]&3, src[0]>>2
	if src[0]>>4 != 0 {
		return scratch, &FormatError{0, fmt.Sprintf("group block header %#x", src[0])}
	}
	groups, n, err := groupCount(src, mode != groupRoot)
	if err != nil {
		return scratch, err
	}
	body := src[n:]
	switch mode {
	case groupRoot:
		if len(body) != 0 {
			return scratch, &FormatError{1, fmt.Sprintf("%d bytes after a lone root", len(body))}
		}
	case groupHuffman:
		if uint64(cap(scratch)) < groups {
			scratch = make([]byte, 0, groups)
		}
		// (the capacity bounds what the decoder writes)
		if scratch, err = c.dec.Decompress1X(scratch[:0:groups], body); err != nil || uint64(len(scratch)) != groups {
			return scratch, &FormatError{n, fmt.Sprintf("Huffman groups: %d of %d decoded (%v)", len(scratch), groups, err)}
		}
	case groupRaw:
		if uint64(len(body)) != groups {
			return scratch, &FormatError{n, fmt.Sprintf("%d raw bytes for %d groups", len(body), groups)}
		}
		scratch = append(scratch[:0], body...)
	default:
		return scratch, &FormatError{0, fmt.Sprintf("group block mode %d", mode)}
	}
	// The codes: the root, then the groups from bit 2 on.
	startGroups(dst, Status(root), groups)
	for k, b := range scratch[:groups] {
		setGroup(dst.codes, k, b)
	}
	if err := finishGroups(g, dst); err != nil {
		return scratch, &FormatError{0, "group block: " + err.Error()}
	}
	return scratch, nil
}

// startGroups makes dst a tree of root and groups sibling groups, all
// Hidden, reusing its memory.
func startGroups(dst *Tree, root Status, groups uint64) {
	codes := int(1 + 4*groups)
	words := (codes + 31) / 32
	if cap(dst.codes) < words {
		dst.codes = make([]uint64, words)
	}
	dst.codes = dst.codes[:words]
	clear(dst.codes)
	dst.codes[0] = uint64(root)
	dst.n, dst.refs, dst.refBits, dst.h = codes, nil, 0, nil
}

// setGroup sets sibling group k (codes 4k+1 … 4k+4, from bit 2+8k) of
// zeroed code words.
func setGroup(codes []uint64, k int, b byte) {
	bit := 2 + 8*k
	codes[bit>>6] |= uint64(b) << (bit & 63)
	if bit&63 > 56 {
		codes[bit>>6+1] |= uint64(b) >> (64 - bit&63)
	}
}

// finishGroups builds dst's rank samples, checks its shape (CheckShape)
// and counts its nodes.
func finishGroups(g Geometry, dst *Tree) error {
	dst.buildRank()
	if err := CheckShape(g, dst); err != nil {
		return err
	}
	outside := 0
	for _, w := range dst.codes {
		outside += bits.OnesCount64(w & (w >> 1) & lowBits)
	}
	dst.nodes = dst.n - outside
	return nil
}

// groupCount reads a block's group count after its header byte, when it
// has groups (it must then have 1 to maxGroups), and returns it with the
// offset of what follows. Errors are *FormatError.
func groupCount(src []byte, has bool) (groups uint64, n int, err error) {
	if !has {
		return 0, 1, nil
	}
	groups, k := binary.Uvarint(src[1:])
	if k <= 0 || groups == 0 || groups > maxGroups {
		return 0, 0, &FormatError{1, fmt.Sprintf("group count %d (%d bytes)", groups, k)}
	}
	return groups, 1 + k, nil
}
