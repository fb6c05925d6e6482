package interest

// pairTick counts the packets (Steed & Angus §5.1: one message from one
// host to another) that players i and j of a pair exchanging peer to peer
// (a Manager's visible pair, a Joint's open pair) send in a tick in which mi or mj (i, j changed cell) and the pair's directions go
// from old to d (0: hidden both ways by the store's per-point PVSs, a
// Joint's open pair that only announces moves). It returns the position
// updates (UpdateB each) and the cell messages (announcements and tells,
// CellB each) each member sends: upd[0] and cell[0] are i's.
//
// The protocol, without delay (the messages of a tick may answer one
// another within it) and nothing lost: every message carries its sender's
// cell. A member knows d when it knows both cells: it heard from the
// other this tick, or the other did not move and it knew the other's cell
// (it received the other's updates, or the pair was hidden both ways,
// when both announce their moves). A member that knows d sends its update
// if it sends in d and announces its move if d is 0; one that does not
// acts on old: it sends its update if it did, or announces its move if
// old was 0. A member that knows d tells the other, who does not, when the
// other would act wrongly on old: it must start or stop sending, or d is 0
// and it must learn the teller's cell. So a member that stops sending
// because the other moved sends one stale update first, and a pair turned
// hidden both ways by its sender's move costs its receiver a tell; a new
// direction costs nothing beyond its first update. A member sends its
// update whenever it sends in d, so upd[x] ≥ 1 where d has x's direction.
func pairTick(old, d Dir, mi, mj bool) (upd, cell [2]int) {
	moved := [2]bool{mi, mj}
	sends := func(dir Dir, x int) bool { return dir&(IToJ<<x) != 0 } // x 0: i sends to j
	var knows, heard [2]bool
	for x := range 2 {
		y := 1 - x
		knows[x] = !moved[y] && (sends(old, y) || old == 0)
	}
	msg := func(x int, update bool) {
		if update {
			upd[x]++
		} else {
			cell[x]++
		}
		heard[1-x] = true
	}
	for x := range 2 {
		switch {
		case knows[x] && sends(d, x), !knows[x] && sends(old, x):
			msg(x, true)
		case knows[x] && d == 0 && moved[x], !knows[x] && old == 0 && moved[x]:
			msg(x, false)
		}
	}
	// Answers, until no member has anything to add (a tell and the update
	// it prompts at most).
	for changed := true; changed; {
		changed = false
		for x := range 2 {
			y := 1 - x
			if !knows[x] && !heard[x] {
				continue
			}
			switch {
			case sends(d, x) && upd[x] == 0:
				msg(x, true) // (after an announcement: the update it now owes)
				changed = true
			case !knows[y] && !heard[y] && (sends(old, y) != sends(d, y) || d == 0):
				msg(x, false)
				changed = true
			}
		}
	}
	return upd, cell
}
