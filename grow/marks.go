package grow

// marks is one player's per-query state of the quads a query touches —
// member of the frontier, queued, frontier cells inside — kept in an
// open-addressing hash table keyed by quad index, so that a query's memory
// follows the quads it touches, not the hierarchy's size (22.4 million
// quads on a 4097² map, 16 bytes each per player in arrays). Entries of an
// earlier query (another generation) count as empty: starting a query
// clears nothing. Not safe for concurrent use.
type marks struct {
	slots []mark
	shift uint   // 64 − log2(len(slots))
	n     int    // entries of this generation
	gen   uint32 // the current query's generation (from 1)
}

// mark is one quad's entry.
type mark struct {
	gen   uint32
	quad  uint32
	cells int32 // frontier cells inside the quad
	flags uint8
}

const (
	markMember = 1 << iota // the quad is one of the frontier's quads
	markQueued             // the quad has been queued
)

// reset starts a query: every entry becomes stale.
func (m *marks) reset() {
	if m.slots == nil {
		m.slots, m.shift = make([]mark, 256), 64-8
	}
	m.gen++
	m.n = 0
	if m.gen == 0 { // wrapped: clear the stamps
		clear(m.slots)
		m.gen = 1
	}
}

// slot returns the index where quad q's entry is or would go.
func (m *marks) slot(q uint32) uint32 {
	mask := uint32(len(m.slots) - 1)
	for i := uint32(uint64(q)*0x9e3779b97f4a7c15>>m.shift) & mask; ; i = (i + 1) & mask {
		if s := &m.slots[i]; s.gen != m.gen || s.quad == q {
			return i
		}
	}
}

// get returns quad q's entry, nil when the query has none.
func (m *marks) get(q int) *mark {
	s := &m.slots[m.slot(uint32(q))]
	if s.gen != m.gen {
		return nil
	}
	return s
}

// put returns quad q's entry, made (zero) when the query had none.
func (m *marks) put(q int) *mark {
	i := m.slot(uint32(q))
	s := &m.slots[i]
	if s.gen == m.gen {
		return s
	}
	if 2*(m.n+1) > len(m.slots) {
		m.grow()
		i = m.slot(uint32(q))
		s = &m.slots[i]
	}
	*s = mark{gen: m.gen, quad: uint32(q)}
	m.n++
	return s
}

// grow doubles the table, keeping this query's entries.
func (m *marks) grow() {
	old := m.slots
	m.slots = make([]mark, 2*len(old))
	m.shift--
	for _, e := range old {
		if e.gen == m.gen {
			m.slots[m.slot(e.quad)] = e
		}
	}
}
