# FrontierSets: a store baked with `pvsbake bake --engine godot` in
# GDScript — frontier queries and interest management with Vector3 world
# positions (x and z in metres; y, the height, is the terrain's). Every
# failure is a Godot error (push_error, with the library's message) and a
# null or false result; nothing crashes the engine.
#
#   var fs = FrontierSets.open("res://terrain.pvs")   # null on failure
#   fs.interest(64)                                  # a manager for 64 players
#   fs.tick(positions)                               # PoolVector3Array, every network tick
#   for i in 64: send(update[i], fs.sends_to(i))     # who player i's update goes to
#                                                    # (or all at once: sends_all)
#   fs.close()
extends Reference
class_name FrontierSets

const Native = preload("res://addons/frontiersets/frontiersets.gdns")

var _n = null
var _players := 0
var _xz := PoolRealArray()


# open returns the store at path (a res:// or file path), or null after a
# Godot error naming it.
static func open(path: String):
	var fs = load("res://addons/frontiersets/frontiersets.gd").new()
	fs._n = Native.new()
	var p := ProjectSettings.globalize_path(path) if path.begins_with("res://") or path.begins_with("user://") else path
	if fs._n.open(p) != 0:
		return null
	return fs


# world_bounds returns the terrain's world rectangle on x and z, metres.
func world_bounds() -> Rect2:
	if _n == null:
		push_error("FrontierSets: closed")
		return Rect2()
	var x0 = _n.world_bounds(0)
	var z0 = _n.world_bounds(1)
	var x1 = _n.world_bounds(2)
	var z1 = _n.world_bounds(3)
	if x0 == null or z0 == null or x1 == null or z1 == null:
		return Rect2()
	return Rect2(x0, z0, x1 - x0, z1 - z0)


# frontier returns the frontier set of players at a and b: a Dictionary
# with mutually_visible, a_points, b_points, a_quads, b_quads; null after
# an error (a position off the terrain).
func frontier(a: Vector3, b: Vector3):
	if _n == null:
		push_error("FrontierSets: closed")
		return null
	var r = _n.frontier(a.x, a.z, b.x, b.z)
	if typeof(r) != TYPE_INT_ARRAY:
		return null
	return {"mutually_visible": r[0] == 1, "a_points": r[1], "b_points": r[2], "a_quads": r[3], "b_quads": r[4]}


# interest makes a manager of players players; false after an error.
func interest(players: int) -> bool:
	if _n == null:
		push_error("FrontierSets: closed")
		return false
	if _n.interest_new(players) != 0:
		return false
	_players = players
	_xz.resize(2 * players)
	return true


# tick places every player (positions[i], its x and z) and decides the
# tick; false after an error (a player off the terrain or at NaN).
func tick(positions: PoolVector3Array) -> bool:
	if _n == null:
		push_error("FrontierSets: closed")
		return false
	if positions.size() != _players:
		push_error("FrontierSets.tick: %d positions for %d players" % [positions.size(), _players])
		return false
	for i in _players:
		_xz[2 * i] = positions[i].x
		_xz[2 * i + 1] = positions[i].z
	return _n.tick(_xz) == 0


# sends_to returns the players player i sends its update to this tick.
func sends_to(i: int) -> PoolIntArray:
	if _n == null:
		push_error("FrontierSets: closed")
		return PoolIntArray()
	var r = _n.sends_to(i)
	return r if typeof(r) == TYPE_INT_ARRAY else PoolIntArray()


# sends_all returns every player's send list this tick in one array, as
# compressed rows: players+1 offsets, then the receivers — player j's
# are a[players+1+k] for k in range(a[j], a[j+1]). One call a tick instead
# of one a player.
func sends_all() -> PoolIntArray:
	if _n == null:
		push_error("FrontierSets: closed")
		return PoolIntArray()
	var r = _n.sends_all()
	return r if typeof(r) == TYPE_INT_ARRAY else PoolIntArray()


# last_tick returns the last tick's exits, open pairs and packets.
func last_tick() -> Dictionary:
	return {"exits": _n.last_tick(0), "open": _n.last_tick(1), "packets": _n.last_tick(2)}


# last_error returns the last failure's message.
func last_error() -> String:
	return _n.last_error() if _n != null else "FrontierSets: closed"


# close closes the store; calls after it push an error.
func close() -> void:
	if _n != null:
		_n.close()
	_n = null
