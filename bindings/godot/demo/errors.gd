# errors: bad input to the addon gives Godot errors and null or false
# results, never a crash of the engine (TestGodotDemo runs it).
#
#   godot3-server --path bindings/godot -s res://demo/errors.gd --store=STORE --corrupt=FILE
extends SceneTree

const FrontierSets = preload("res://addons/frontiersets/frontiersets.gd")


func _init() -> void:
	var opt := {}
	for a in OS.get_cmdline_args():
		if a.begins_with("--") and "=" in a:
			var kv = a.substr(2).split("=", true, 1)
			opt[kv[0]] = kv[1]
	print("missing store: ", FrontierSets.open(opt.store + ".missing") == null)
	print("corrupt store: ", FrontierSets.open(opt.corrupt) == null)
	var fs = FrontierSets.open(opt.store)
	var r: Rect2 = fs.world_bounds()
	var inside := Vector3(r.position.x + 100, 0, r.position.y + 100)
	fs.interest(2)
	print("good tick: ", fs.tick(PoolVector3Array([inside, inside + Vector3(50, 0, 50)])))
	print("off the terrain: ", not fs.tick(PoolVector3Array([inside, Vector3(r.end.x + 1000, 0, 0)])))
	print("NaN: ", not fs.tick(PoolVector3Array([inside, Vector3(NAN, 0, 0)])))
	print("wrong count: ", not fs.tick(PoolVector3Array([inside])))
	print("message: ", "outside the grid" in fs.last_error() or "positions" in fs.last_error())
	print("frontier off the terrain: ", fs.frontier(inside, Vector3(r.end.x + 1000, 0, 0)) == null)
	var native = fs._n
	print("wrong argument type: ", native.tick("not an array") != 0)
	fs.close()
	print("after close: ", not fs.tick(PoolVector3Array([inside, inside])) and fs.sends_to(0).size() == 0)
	print("native after close: ", native.tick(PoolRealArray([0, 0, 0, 0])) != 0)
	print("errors: done")
	quit(0)
