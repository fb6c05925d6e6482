# hello: the addon's API in a few lines, headless — a store, two players'
# frontier set, and one tick of interest management.
#
#   godot3-server --path bindings/godot -s res://demo/hello.gd --store=STORE
extends SceneTree

const FrontierSets = preload("res://addons/frontiersets/frontiersets.gd")


func _init() -> void:
	var store := ""
	for a in OS.get_cmdline_args():
		if a.begins_with("--store="):
			store = a.substr(8)
	var fs = FrontierSets.open(store)
	if fs == null:
		quit(1)
		return
	var a := Vector3(-7000, 0, -6000)
	var b := Vector3(6500, 0, 7400)
	print("terrain ", fs.world_bounds())
	print("frontier ", fs.frontier(a, b))
	fs.interest(2)
	fs.tick(PoolVector3Array([a, b]))
	print("player 0 sends to ", Array(fs.sends_to(0)), ", player 1 to ", Array(fs.sends_to(1)))
	fs.close()
	quit(0)
