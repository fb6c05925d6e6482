package compress

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/frontiersets/frontiersets/quadpvs"
)

// WriteCoded writes a coded store (format version 4, FORMAT.md) to f: the
// header hd (its encoding and cache set from h), the grid (elevations in
// metres, row-major Width×Height; nodata nil when none), the coded
// hierarchy h's coder table (CTAB), block starts (CIDX) and blocks (CBLK),
// and the statistics st. h must be coded (quadpvs.Hierarchy.Code) and hd
// without shared subtrees. Writing to a temporary file and renaming it is
// the caller's.
func WriteCoded(f File, hd Header, h *quadpvs.Hierarchy, elev []float32, nodata []bool, st Stats) error {
	c := h.Coding()
	if c == nil {
		return errors.New("compress: WriteCoded needs a coded hierarchy (quadpvs.Hierarchy.Code)")
	}
	if hd.Shared != 0 || len(elev) != hd.Width*hd.Height || (nodata != nil && len(nodata) != len(elev)) {
		return fmt.Errorf("compress: a coded store of %d shared subtrees, %d elevations for a %d×%d grid", hd.Shared, len(elev), hd.Width, hd.Height)
	}
	hd.Encoding, hd.CacheTrees = EncodingCoded, c.CacheTrees
	w := newSectionWriter(f)
	if err := w.begin(Version, hd, elev, nodata); err != nil {
		return err
	}
	if err := w.section(tagCtab, c.Coder.Table()); err != nil {
		return err
	}
	idx := make([]byte, 0, 8*len(c.Start))
	for _, s := range c.Start {
		idx = binary.LittleEndian.AppendUint64(idx, s)
	}
	if err := w.sectionAs(tagCidx, idx, false); err != nil {
		return err
	}
	if err := w.sectionAs(tagCblk, c.Blocks, false); err != nil {
		return err
	}
	return w.end(st)
}

// codedSections are a coded store's sections as read, and where they are
// in the file.
type codedSections struct {
	ctab, cidx, cblk []byte
	ctabAt           int64 // CTAB's section header (it may be zstd)
	cidxAt, cblkAt   int64 // CIDX's and CBLK's payloads (always raw)
}

// finishCoded builds a coded store's hierarchy (quadpvs.NewCoded, which
// decodes every tree once to check it). Errors name the section and the
// file offset.
func (s *Store) finishCoded(seen map[string]bool, cs codedSections, end int64) error {
	for _, tag := range []string{tagElev, tagCtab, tagCidx, tagCblk, tagStat} {
		if !seen[tag] {
			return &FormatError{end, fmt.Sprintf("missing %s section", tag)}
		}
	}
	for _, tag := range []string{tagCode, tagQidx, tagRefs} {
		if seen[tag] {
			return &FormatError{end, fmt.Sprintf("%s section in a coded store", tag)}
		}
	}
	g, err := quadpvs.NewGeometry(s.Width, s.Height)
	if err != nil {
		return &FormatError{end, err.Error()}
	}
	coder, err := quadpvs.ReadCondTable(cs.ctab)
	if err != nil {
		msg := err.Error()
		if fe := (*quadpvs.FormatError)(nil); errors.As(err, &fe) {
			msg = fmt.Sprintf("byte %d of the table: %s", fe.Offset, fe.Msg)
		}
		return &FormatError{cs.ctabAt, "CTAB section: " + msg}
	}
	c := quadpvs.Coded{Coder: coder, Blocks: cs.cblk, Start: make([]uint64, len(cs.cidx)/8), CacheTrees: s.CacheTrees, Ceiling: s.Cap.Codes}
	// Each start lies from the previous one to the end of CBLK; the first
	// is 0, the last that end.
	for i := range c.Start {
		c.Start[i] = binary.LittleEndian.Uint64(cs.cidx[8*i:])
		lo, hi := uint64(0), uint64(len(cs.cblk))
		switch {
		case i == 0:
			hi = 0
		case i == len(c.Start)-1:
			lo = hi
		default:
			lo = c.Start[i-1]
		}
		if c.Start[i] < lo || c.Start[i] > hi {
			return &FormatError{cs.cidxAt + int64(8*i), fmt.Sprintf("CIDX section: block start %d of quad %d, want %d to %d", c.Start[i], i, lo, hi)}
		}
	}
	h, err := quadpvs.NewCoded(g, c)
	if err != nil {
		var fe *quadpvs.FormatError
		if errors.As(err, &fe) {
			return &FormatError{cs.cblkAt + int64(fe.Offset), "CBLK section: " + fe.Msg}
		}
		return &FormatError{cs.cblkAt, "CBLK section: " + err.Error()}
	}
	s.Hierarchy = h
	return nil
}
