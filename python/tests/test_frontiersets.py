"""Tests of the Python package on a store baked by the Go test that runs
them (cmd/libfrontiersets TestPython): FRONTIERSETS_TEST_STORE names the
store, FRONTIERSETS_TEST_HOSTILE a truncated copy, FRONTIERSETS_TEST_WANT
the Go package's answers as JSON, FRONTIERSETS_TEST_WALKERS walkers'
positions and FRONTIERSETS_TEST_WALKERS_WANT what interest.Joint decides
on them (the text testdata/interest.c prints)."""

import json
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import frontiersets

STORE = os.environ["FRONTIERSETS_TEST_STORE"]
HOSTILE = os.environ["FRONTIERSETS_TEST_HOSTILE"]
WANT = json.loads(os.environ["FRONTIERSETS_TEST_WANT"])


@pytest.fixture
def store():
    with frontiersets.open(STORE) as s:
        yield s


def test_frontier_matches_go(store):
    assert (store.width, store.height) == (WANT["width"], WANT["height"])
    res = store.frontier(WANT["a"], WANT["b"], max_steps=125)
    assert not res.mutually_visible
    dflt = store.frontier(WANT["a"], WANT["b"])  # the default bound is 125
    assert (dflt.a_points, dflt.steps, dflt.truncated) == (res.a_points, res.steps, res.truncated)
    assert (res.a_points, res.b_points) == (WANT["a_points"], WANT["b_points"])
    assert res.a_quads.tolist() == WANT["a_quads"]
    assert int(res.a_mask.sum()) == res.a_points and int(res.b_mask.sum()) == res.b_points
    assert not np.any(res.a_mask & res.b_mask)
    for col, row, size in res.a_quads:
        assert res.a_mask[row:row + size, col:col + size].all()


def test_pvs_matches_go(store):
    m = store.pvs(WANT["a"])
    assert m.shape == (store.height, store.width) and m.dtype == np.uint8
    counts = [int((m == v).sum()) for v in (255, 128, 0)]
    assert counts == WANT["pvs"]


def test_cumulative(store):
    obs = [WANT["a"], WANT["b"], WANT["a"]]
    c = store.cumulative(obs)
    assert c.dtype == np.uint32 and int(c.max()) <= 3
    assert np.array_equal(store.cumulative(obs, mode="any"), c > 0)
    assert np.array_equal(store.cumulative(obs, mode="all"), c == 3)


def test_coordinates(store):
    x, y = store.cell_to_map((5, 7))
    assert store.map_to_cell(x, y) == (5, 7)
    lon, lat = store.cell_to_lonlat((5, 7))
    assert -180 <= lon <= 180 and -90 <= lat <= 90
    assert store.lonlat_to_cell(lon, lat) == (5, 7)
    assert store.position_to_cell(12.37, 20.8) == (12, 21)
    # The test store lies in Unity's world at (1000, 2000), 10 m cells.
    assert store.cell_to_world((12, 21)) == (1120.0, 2210.0)
    x, y = store.world_to_position(1123.7, 2208)
    assert abs(x - 12.37) < 1e-9 and abs(y - 20.8) < 1e-9
    assert store.position_to_cell(x, y) == (12, 21)
    a = (WANT["a"][0] + 0.4, WANT["a"][1] - 0.3)
    assert store.frontier(a, WANT["b"]).a_points == store.frontier(WANT["a"], WANT["b"]).a_points


def test_interest(store):
    # Six walkers on the test store; the same C calls as TestCInterest.
    rng = np.random.default_rng(5)
    pos = rng.uniform(0, 1, (6, 2)) * (store.width - 1, store.height - 1)
    with store.interest(6) as im:
        first = im.tick(pos)
        assert first.exits == 6 and first.packets > 0
        for _ in range(20):
            pos = np.clip(pos + rng.uniform(-0.8, 0.8, pos.shape), 0, (store.width - 1, store.height - 1))
            t = im.tick(pos)
            assert 0 <= t.open <= 15
        sends = [im.sends_to(i) for i in range(6)]
        assert all(j != i and 0 <= j < 6 for i, s in enumerate(sends) for j in s)
        assert all(s == sorted(s) for s in sends)
        with pytest.raises(ValueError, match="positions for 6 players"):
            im.tick(pos[:5])
        with pytest.raises(ValueError, match="player 0"):
            im.tick(np.vstack([[-5, 0], pos[1:]]))
        assert im.add() == 6
        assert im.tick(np.vstack([pos, pos[:1]])).exits == 7  # starts over
        im.remove(0)
        assert im.tick(pos[1:].tolist() + [pos[0].tolist()]).exits == 6
        with pytest.raises(ValueError, match="player 9 of 6"):
            im.remove(9)
        # World positions: the test store lies in Unity's world at (1000, 2000).
        world = (1000, 2000) + 10 * pos
        assert im.tick(world, world=True).open >= 0
        with pytest.raises(ValueError, match="x 1000 to 1470"):
            im.tick(np.vstack([[0, 2100], world[1:]]), world=True)
    with pytest.raises(ValueError, match="not open"):
        im.sends_to(0)


def test_store_closes_its_managers():
    # A with block's end closes the store and the managers made on it
    # (it raised "has 2 interest managers: free them first").
    with frontiersets.open(STORE) as s:
        im, im2 = s.interest(4), s.interest(3)
        im.tick(np.ones((4, 2)))
    with pytest.raises(ValueError, match="not open"):
        im.sends_to(0)
    with pytest.raises(ValueError, match="not open"):
        im2.tick(np.ones((3, 2)))
    im.close()  # closed already: nothing to do


def test_interest_integers_in_range(store):
    # ctypes wraps what int32 cannot hold: 2**32 was player 0, 2**32+1
    # removed player 1, and 2**32+4 made a manager of 4 players that then
    # kept the store from closing.
    with store.interest(4) as im:
        im.tick(np.ones((4, 2)))
        for bad in (2**32, -(2**31) - 1, 1.0, True, "1"):
            with pytest.raises(ValueError, match="player"):
                im.sends_to(bad)
            with pytest.raises(ValueError, match="player"):
                im.remove(bad)
        assert im.players == 4
        assert im.sends_to(np.int32(1)) == im.sends_to(1)
    for bad in (2**32 + 4, 2**31, -1, 3.0):
        with pytest.raises(ValueError, match="players"):
            store.interest(bad)


def test_interest_replays_go():
    # 256 walkers over 600 ticks: tick for tick Go's exits, open pairs,
    # packets and send lists.
    with open(os.environ["FRONTIERSETS_TEST_WALKERS"]) as f:
        n, ticks = map(int, f.readline().split())
        pos = np.loadtxt(f).reshape(ticks, n, 2)
    with open(os.environ["FRONTIERSETS_TEST_WALKERS_WANT"]) as f:
        want = f.read().splitlines()
    got = []
    s = frontiersets.open(STORE)
    with s.interest(n) as im:
        for t in range(ticks):
            r = im.tick(pos[t])
            got.append(f"tick {t} exits {r.exits} open {r.open} packets {r.packets}")
            for i in range(n):
                to = im.sends_to(i)
                if to:
                    got.append(f"{i}: " + " ".join(map(str, to)))
    s.close()
    # The C program's first and last lines are its own calls' codes.
    assert got == want[1:1 + len(got)]
    assert len(got) == len(want) - 14


def test_store_cut_under_reader(tmp_path):
    # A store file cut while open: reads fault, which is OSError, not the
    # interpreter's end.
    import shutil
    cut = tmp_path / "cut.pvs"
    shutil.copy(STORE, cut)
    with frontiersets.open(str(cut)) as s:
        os.truncate(cut, 4096)
        with pytest.raises(OSError, match="truncated or changed"):
            s.pvs((s.width - 2, s.height - 2))
        with pytest.raises(OSError, match="truncated or changed"):
            s.frontier((2, 2), (s.width - 3, s.height - 3))


def test_store_rewritten_under_reader(tmp_path):
    # A store file rewritten in place while open (its own bytes shifted, as
    # `cp other.pvs s.pvs` writes other bytes): reads answer or raise
    # OSError or ValueError, never end the interpreter.
    import shutil
    over = tmp_path / "over.pvs"
    shutil.copy(STORE, over)
    good = over.read_bytes()
    with frontiersets.open(str(over)) as s:
        with open(over, "r+b") as f:
            f.write(bytes(24) + good[:-24])
        for read in (lambda: s.pvs((s.width - 2, s.height - 2)),
                     lambda: s.frontier((2, 2), (s.width - 3, s.height - 3))):
            try:
                read()
            except (OSError, ValueError):
                pass


def test_errors(store):
    with pytest.raises(OSError, match="no such file"):
        frontiersets.open("/nonexistent/x.pvs")
    with pytest.raises(ValueError):
        frontiersets.open(HOSTILE)
    with pytest.raises(ValueError, match="outside the 48×40 grid"):
        store.pvs((48, 0))
    with pytest.raises(ValueError, match="outside"):
        store.frontier((0, 0), (1 << 40, 0))
    with pytest.raises(ValueError, match="col, row"):
        store.pvs("nonsense")
    with pytest.raises(ValueError, match="longitude"):
        store.lonlat_to_cell(500, 100)
    with pytest.raises(ValueError, match="mode"):
        store.cumulative([], mode="some")
    with pytest.raises(ValueError, match="max_steps"):
        store.frontier((0, 0), (47, 39), max_steps=2**32 + 5)  # would wrap to 5
    with pytest.raises(ValueError, match="max_steps"):
        store.frontier((0, 0), (47, 39), max_steps=-2)
    with pytest.raises(ValueError, match="NUL"):
        frontiersets.open(STORE + "\0x")
    with pytest.raises(ValueError, match="col, row"):
        store.pvs((float("inf"), 0))
    with pytest.raises(ValueError, match="col, row"):
        store.pvs((float("nan"), 0))
    with pytest.raises(ValueError, match="outside"):
        store.position_to_cell(-0.6, 3)
    with pytest.raises(ValueError, match="x 1000 to 1470"):
        store.world_to_position(990, 2100)
    s = frontiersets.open(STORE)
    s.close()
    with pytest.raises(ValueError, match="not open"):
        s.pvs((1, 1))


def test_threads(store):
    def one(i):
        r = store.frontier(WANT["a"], WANT["b"], lossy=i % 2 == 1)
        return i % 2, r.a_points, r.b_points

    with ThreadPoolExecutor(8) as ex:
        got = set(ex.map(one, range(64)))
    assert len(got) == 2
