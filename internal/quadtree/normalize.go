package quadtree

// Normalizer collapses trees into canonical form: no Unknown node whose
// terrain children are all Visible or all Hidden. Merges (§3.3) can leave
// such nodes, e.g. when two halves of a quad each become visible. It keeps
// its scratch between calls and is not safe for concurrent use.
type Normalizer struct {
	st   []Status
	q    []int32
	flat Tree // a shared tree, expanded
	cq   []cursor
}

// Normalize writes the canonical form of src into dst (reusing dst's
// memory; dst must not be src). It holds the same visible set with at most
// as many nodes. Time is linear in src.Len().
func (z *Normalizer) Normalize(dst, src *Tree) {
	src = src.flat(&z.flat, &z.cq)
	n := src.n
	if cap(z.st) < n {
		z.st = make([]Status, n)
	}
	st := z.st[:n]
	for i := range st {
		st[i] = src.code(i)
	}
	// Children follow their parent, so a reverse pass sees them settled.
	for i := n - 1; i >= 0; i-- {
		if st[i] != Unknown {
			continue
		}
		c := src.childBase(i)
		agree := Outside
		for k := range 4 {
			s := st[c+k]
			switch {
			case s == Outside:
			case s == Unknown:
				agree = Unknown
			case agree == Outside:
				agree = s
			case agree != s:
				agree = Unknown
			}
		}
		if agree != Outside {
			st[i] = agree
		}
	}
	w := newWriter(dst)
	q := append(z.q[:0], 0)
	for h := 0; h < len(q); h++ {
		i := q[h]
		s := st[i]
		w.put(s)
		if s == Unknown {
			c := int32(src.childBase(int(i)))
			q = append(q, c, c+1, c+2, c+3)
		}
	}
	z.q = q
	w.finish()
}
