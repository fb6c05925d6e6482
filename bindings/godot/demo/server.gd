# The demo's server, headless: 64 players on the terrain of a store baked
# with `pvsbake bake --engine godot`, one per connected client (8), the
# other 56 walked by the server; each tick (20 Hz) the interest manager
# decides who sends to whom and every client gets, as one ENet packet,
# only the players the manager lets through to one of its players.
#
#   godot3-server --path bindings/godot -s res://demo/server.gd \
#       --store=STORE --port=PORT --out=DIR [--clients=8] [--per-client=1] [--players=64] [--seconds=30] [--hz=20]
#
# It writes DIR/server.log (each tick: every position and each player's
# send list) and DIR/server.json (what the report needs from Godot).
extends SceneTree

const FS = preload("res://addons/frontiersets/frontiersets.gd")

var opt := {"clients": "8", "per-client": "1", "players": "64", "seconds": "30", "hz": "20", "port": "24680", "out": "."}
var fs
var peer := NetworkedMultiplayerENet.new()
var clients := []
var players := 0
var per_client := 0
var ticks := 0
var hz := 20
var pos := PoolVector3Array()
var heading := []
var bounds := Rect2()
var rng := RandomNumberGenerator.new()
var tick := 0
var next_us := 0
var tick_us := []
var updates_sent := 0
var updates_to_clients := 0
var bytes_sent := 0
var log_file := File.new()
var done_at := -1


func fail(msg: String) -> void:
	push_error("server: " + msg)
	quit(1)


func _init() -> void:
	for a in OS.get_cmdline_args():
		if a.begins_with("--") and "=" in a:
			var kv = a.substr(2).split("=", true, 1)
			opt[kv[0]] = kv[1]
	players = int(opt.players)
	hz = int(opt.hz)
	ticks = int(opt.seconds) * hz
	per_client = int(opt["per-client"])
	if not opt.has("store") or per_client < 1 or players < per_client * int(opt.clients):
		fail("want --store=STORE and as many players as the clients control")
		return
	fs = FS.open(opt.store)
	if fs == null or not fs.interest(players):
		fail("cannot open the store " + opt.store)
		return
	bounds = fs.world_bounds()
	if peer.create_server(int(opt.port), int(opt.clients)) != OK:
		fail("cannot listen on port " + opt.port)
		return
	peer.connect("peer_connected", self, "_on_connected")
	if log_file.open(opt.out + "/server.log", File.WRITE) != OK:
		fail("cannot write " + opt.out + "/server.log")
		return
	rng.seed = 7
	pos.resize(players)
	for i in players:
		pos[i] = Vector3(rng.randf_range(bounds.position.x + 200, bounds.end.x - 200), 0, rng.randf_range(bounds.position.y + 200, bounds.end.y - 200))
		var a = rng.randf() * TAU
		heading.append(Vector2(cos(a), sin(a)))


func _on_connected(id: int) -> void:
	clients.append(id)
	var b := StreamPeerBuffer.new()
	b.put_u8(1)  # welcome: client index, its players, the bounds
	b.put_u16(clients.size() - 1)
	b.put_u16(per_client)
	b.put_float(bounds.position.x)
	b.put_float(bounds.position.y)
	b.put_float(bounds.end.x)
	b.put_float(bounds.end.y)
	peer.set_transfer_mode(NetworkedMultiplayerPeer.TRANSFER_MODE_RELIABLE)
	peer.set_target_peer(id)
	peer.put_packet(b.data_array)


func receive() -> void:
	while peer.get_available_packet_count() > 0:
		var from := peer.get_packet_peer()
		var b := StreamPeerBuffer.new()
		b.data_array = peer.get_packet()
		if b.get_u8() != 2:
			continue
		var c := b.get_u16()  # positions: client index, then x, z of each of its players
		if c >= clients.size() or clients[c] != from:
			continue
		for k in per_client:
			var x := b.get_float()
			var z := b.get_float()
			pos[c * per_client + k] = Vector3(x, 0, z)


func walk_bots() -> void:
	var step := 8.0 / hz  # 8 m/s
	for i in range(clients.size() * per_client, players):
		if rng.randi() % 40 == 0:
			var a = rng.randf() * TAU
			heading[i] = Vector2(cos(a), sin(a))
		var p := pos[i] + Vector3(heading[i].x, 0, heading[i].y) * step
		if not bounds.has_point(Vector2(p.x, p.z)):
			heading[i] = -heading[i]
			p = pos[i]
		pos[i] = p


func _idle(_delta: float) -> bool:
	peer.poll()
	receive()
	if done_at >= 0:
		if OS.get_ticks_msec() > done_at:
			finish()
		return false
	if clients.size() < int(opt.clients):
		OS.delay_msec(2)
		return false
	var now := OS.get_ticks_usec()
	if next_us == 0:
		next_us = now
	if now < next_us:
		OS.delay_usec(min(500, next_us - now))
		return false
	next_us += 1000000 / hz
	walk_bots()
	var t0 := OS.get_ticks_usec()
	if not fs.tick(pos):
		fail("tick %d: %s" % [tick, fs.last_error()])
		return true
	var all: PoolIntArray = fs.sends_all()  # player j's receivers: all[players+1+k], k in [all[j], all[j+1])
	tick_us.append(OS.get_ticks_usec() - t0)
	var sends := []
	for j in players:
		var to := []
		for k in range(all[j], all[j + 1]):
			to.append(all[players + 1 + k])
		sends.append(to)
	log_file.store_line("tick %d" % tick)
	for j in players:
		log_file.store_line("%d %.4f %.4f %s" % [j, pos[j].x, pos[j].z, PoolStringArray(sends[j]).join(",")])
		updates_sent += sends[j].size()
	# One packet a client: the players whose update reaches one of its own.
	peer.set_transfer_mode(NetworkedMultiplayerPeer.TRANSFER_MODE_UNRELIABLE)
	for c in clients.size():
		var b := StreamPeerBuffer.new()
		b.put_u8(3)
		b.put_u32(tick)
		var n := 0
		var body := StreamPeerBuffer.new()
		for j in players:
			if j / per_client == c and j < clients.size() * per_client:
				continue
			for r in sends[j]:
				if r / per_client == c and r < clients.size() * per_client:
					body.put_u16(j)
					body.put_float(pos[j].x)
					body.put_float(pos[j].z)
					n += 1
					break
		b.put_u16(n)
		b.put_data(body.data_array)
		peer.set_target_peer(clients[c])
		peer.put_packet(b.data_array)
		bytes_sent += b.data_array.size()
		updates_to_clients += n
	tick += 1
	if tick >= ticks:
		var bye := StreamPeerBuffer.new()
		bye.put_u8(4)
		peer.set_transfer_mode(NetworkedMultiplayerPeer.TRANSFER_MODE_RELIABLE)
		peer.set_target_peer(NetworkedMultiplayerPeer.TARGET_PEER_BROADCAST)
		peer.put_packet(bye.data_array)
		done_at = OS.get_ticks_msec() + 1500  # let the clients hear it
	return false


func finish() -> void:
	log_file.close()
	var ms := []
	for u in tick_us:
		ms.append(u / 1000.0)
	ms.sort()
	var report := {
		"engine": Engine.get_version_info().string,
		"players": players,
		"clients": clients.size(),
		"ticks": tick,
		"hz": hz,
		"updates_sent": updates_sent,
		"updates_all": players * (players - 1) * tick,
		"updates_to_clients": updates_to_clients,
		"bytes_sent": bytes_sent,
		"tick_ms_p50": ms[ms.size() / 2],
		"tick_ms_p99": ms[min(ms.size() - 1, int(ms.size() * 0.99))],
	}
	var f := File.new()
	f.open(opt.out + "/server.json", File.WRITE)
	f.store_string(JSON.print(report, "  "))
	f.close()
	fs.close()
	peer.close_connection()
	quit(0)
