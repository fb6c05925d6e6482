package main

/*
#define FS_NO_PROTOTYPES
#include "frontiersets.h"
*/
import "C"

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/frontiersets/frontiersets/interest"
	"github.com/frontiersets/frontiersets/internal/fault"
)

// manager is one interest manager (fs_interest_new): a joint frontier over
// an open store handle, which it keeps open (handle.managers).
type manager struct {
	mu      sync.Mutex
	h       *handle
	jt      *interest.Joint
	players []interest.Player
}

var (
	mgrMu   sync.Mutex
	mgrs    = map[int64]*manager{}
	lastMgr int64
)

//export fs_interest_new
func fs_interest_new(store C.fs_store, players C.int32_t, im *C.fs_interest, cerr *C.fs_error) C.int {
	return finish(useHandle(store, func(h *handle) error {
		if im == nil {
			return null("im")
		}
		jt, err := newJoint(h, int(players))
		if err != nil {
			return err
		}
		h.managers.Add(1)
		mgrMu.Lock()
		defer mgrMu.Unlock()
		lastMgr++
		mgrs[lastMgr] = &manager{h: h, jt: jt, players: make([]interest.Player, players)}
		*im = C.fs_interest(lastMgr)
		return nil
	}), cerr)
}

// newJoint returns the joint frontier of n players over h's store
// (FS_EINVAL for n outside 2 to interest.MaxJointPlayers).
func newJoint(h *handle, n int) (*interest.Joint, error) {
	if n < 2 || n > interest.MaxJointPlayers {
		return nil, fail(C.FS_EINVAL, "%d players: want 2 to %d", n, interest.MaxJointPlayers)
	}
	return interest.NewJoint(h.s.Grower(), n, interest.JointOptions{})
}

//export fs_interest_free
func fs_interest_free(im C.fs_interest, cerr *C.fs_error) C.int {
	var err error
	func() {
		defer guard(&err)
		mgrMu.Lock()
		m := mgrs[int64(im)]
		delete(mgrs, int64(im))
		mgrMu.Unlock()
		if m == nil {
			err = fail(C.FS_EHANDLE, "interest manager %d is not open", int64(im))
			return
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		m.h.managers.Add(-1)
		m.jt = nil
	}()
	return finish(err, cerr)
}

// useManager runs fn on manager id, its store held open and its faults
// turned into FS_EIO, as use does for a store.
func useManager(id C.fs_interest, fn func(m *manager) error) (err error) {
	defer guard(&err)
	defer fault.Recover(&err, fault.Arm())
	mgrMu.Lock()
	m := mgrs[int64(id)]
	mgrMu.Unlock()
	if m == nil {
		return fail(C.FS_EHANDLE, "interest manager %d is not open", int64(id))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.jt == nil {
		return fail(C.FS_EHANDLE, "interest manager %d is freed", int64(id))
	}
	m.h.mu.RLock()
	defer m.h.mu.RUnlock()
	return fn(m)
}

//export fs_interest_add
func fs_interest_add(im C.fs_interest, player *C.int32_t, cerr *C.fs_error) C.int {
	return finish(useManager(im, func(m *manager) error {
		if player == nil {
			return null("player")
		}
		if err := m.resize(len(m.players) + 1); err != nil {
			return err
		}
		*player = C.int32_t(len(m.players) - 1)
		return nil
	}), cerr)
}

//export fs_interest_remove
func fs_interest_remove(im C.fs_interest, player C.int32_t, cerr *C.fs_error) C.int {
	return finish(useManager(im, func(m *manager) error {
		n := len(m.players)
		if player < 0 || int(player) >= n {
			return fail(C.FS_ERANGE, "player %d of %d", player, n)
		}
		return m.resize(n - 1)
	}), cerr)
}

// resize makes m a manager of n players, starting over (the joint
// frontier of the new count: its next tick decides every player afresh).
func (m *manager) resize(n int) error {
	jt, err := newJoint(m.h, n)
	if err != nil {
		return err
	}
	m.jt, m.players = jt, make([]interest.Player, n)
	return nil
}

//export fs_interest_tick
func fs_interest_tick(im C.fs_interest, positions *C.double, players C.int32_t, res *C.fs_tick_result, cerr *C.fs_error) C.int {
	return finish(useManager(im, func(m *manager) error { return m.tick(positions, players, res, false) }), cerr)
}

//export fs_interest_tick_world
func fs_interest_tick_world(im C.fs_interest, world *C.double, players C.int32_t, res *C.fs_tick_result, cerr *C.fs_error) C.int {
	return finish(useManager(im, func(m *manager) error { return m.tick(world, players, res, true) }), cerr)
}

// tick places the players at positions (fractional cells, or world
// positions when world) and ticks the joint frontier into res.
func (m *manager) tick(positions *C.double, players C.int32_t, res *C.fs_tick_result, world bool) error {
	if positions == nil || res == nil {
		return null("positions or res")
	}
	if int(players) != len(m.players) {
		return fail(C.FS_EINVAL, "%d players for a manager of %d", players, len(m.players))
	}
	// SAFETY: the caller's array holds 2·players doubles (checked against
	// the manager's count above).
	xy := unsafe.Slice((*float64)(unsafe.Pointer(positions)), 2*len(m.players))
	for i := range m.players {
		x, y := xy[2*i], xy[2*i+1]
		if world {
			var err error
			if x, y, err = m.h.s.WorldToPosition(x, y); err != nil {
				return fmt.Errorf("player %d: %w", i, err)
			}
		}
		col, row, err := m.h.s.PositionCell(x, y)
		if err != nil {
			return fail(C.FS_ERANGE, "player %d: %v", i, err)
		}
		m.players[i] = interest.Player{Col: col, Row: row, FCol: x - float64(col), FRow: y - float64(row)}
		if math.IsNaN(m.players[i].FCol) || math.IsNaN(m.players[i].FRow) {
			return fail(C.FS_ERANGE, "player %d at %g,%g", i, x, y)
		}
	}
	r, err := m.jt.Tick(m.players)
	if err != nil {
		return err
	}
	*res = C.fs_tick_result{exits: C.int32_t(r.Exits), open: C.int32_t(r.Open), packets: C.int64_t(r.Packets())}
	return nil
}

//export fs_interest_sends_to
func fs_interest_sends_to(im C.fs_interest, i C.int32_t, to *C.int32_t, cap_ C.int32_t, n *C.int32_t, cerr *C.fs_error) C.int {
	return finish(useManager(im, func(m *manager) error {
		if n == nil || (to == nil && cap_ > 0) || cap_ < 0 {
			return null("to or n")
		}
		if i < 0 || int(i) >= len(m.players) {
			return fail(C.FS_ERANGE, "player %d of %d", i, len(m.players))
		}
		var dst []C.int32_t
		if cap_ > 0 {
			// SAFETY: the caller's buffer holds cap_ int32s.
			dst = unsafe.Slice(to, int(cap_))
		}
		k := 0
		for j := range m.players {
			if j != int(i) && m.jt.Sends(int(i), j) {
				if k < len(dst) {
					dst[k] = C.int32_t(j)
				}
				k++
			}
		}
		*n = C.int32_t(k)
		if k > len(dst) {
			return fail(C.FS_ESPACE, "player %d sends to %d players, the buffer holds %d", i, k, len(dst))
		}
		return nil
	}), cerr)
}
