# The demo's client, headless: connects to the server, walks its
# players (the server says how many: one in the demo) on the terrain and sends their positions every tick (20 Hz),
# and counts the players' updates the server sends it. On the server's
# goodbye it writes DIR/client-N.json and quits.
#
#   godot3-server --path bindings/godot -s res://demo/client.gd --port=PORT --out=DIR
extends SceneTree

var opt := {"port": "24680", "out": ".", "hz": "20"}
var peer := NetworkedMultiplayerENet.new()
var index := -1
var per := 0
var bounds := Rect2()
var pos := []
var heading := []
var rng := RandomNumberGenerator.new()
var next_us := 0
var packets := 0
var updates := 0
var bytes := 0


func _init() -> void:
	for a in OS.get_cmdline_args():
		if a.begins_with("--") and "=" in a:
			var kv = a.substr(2).split("=", true, 1)
			opt[kv[0]] = kv[1]
	if peer.create_client("127.0.0.1", int(opt.port)) != OK:
		push_error("client: cannot connect to port " + opt.port)
		quit(1)


func _idle(_delta: float) -> bool:
	peer.poll()
	while peer.get_available_packet_count() > 0:
		var data := peer.get_packet()
		var b := StreamPeerBuffer.new()
		b.data_array = data
		match b.get_u8():
			1:
				index = b.get_u16()
				per = b.get_u16()
				var x0 := b.get_float()
				var z0 := b.get_float()
				bounds = Rect2(x0, z0, b.get_float() - x0, b.get_float() - z0)
				rng.seed = 100 + index
				for k in per:
					pos.append(Vector2(rng.randf_range(bounds.position.x + 200, bounds.end.x - 200), rng.randf_range(bounds.position.y + 200, bounds.end.y - 200)))
					var a := rng.randf() * TAU
					heading.append(Vector2(cos(a), sin(a)))
			3:
				b.get_u32()
				updates += b.get_u16()
				packets += 1
				bytes += data.size()
			4:
				var f := File.new()
				f.open("%s/client-%d.json" % [opt.out, index], File.WRITE)
				f.store_string(JSON.print({"client": index, "packets": packets, "updates": updates, "bytes": bytes}))
				f.close()
				peer.close_connection()
				quit(0)
				return true
	if index < 0:
		OS.delay_msec(2)
		return false
	var now := OS.get_ticks_usec()
	if next_us == 0:
		next_us = now
	if now >= next_us:
		next_us += 1000000 / int(opt.hz)
		var b := StreamPeerBuffer.new()
		b.put_u8(2)
		b.put_u16(index)
		for k in per:
			if rng.randi() % 40 == 0:
				var a := rng.randf() * TAU
				heading[k] = Vector2(cos(a), sin(a))
			var p: Vector2 = pos[k] + heading[k] * (8.0 / int(opt.hz))
			if not bounds.has_point(p):
				heading[k] = -heading[k]
				p = pos[k]
			pos[k] = p
			b.put_float(p.x)
			b.put_float(p.y)
		peer.set_transfer_mode(NetworkedMultiplayerPeer.TRANSFER_MODE_UNRELIABLE)
		peer.set_target_peer(NetworkedMultiplayerPeer.TARGET_PEER_SERVER)
		peer.put_packet(b.data_array)
	else:
		# Sleep until the next tick (at most 5 ms, to hear the server):
		# nine Godot processes share the machine with the server's tick.
		OS.delay_usec(min(5000, next_us - now))
	return false
