# The project's commands: `make test`, `make check` and `make demo`.
# Both first install what a fresh Debian machine lacks (libgdal-dev, gdal-bin, pkg-config).

GO ?= go
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The bake's block engine has AVX-512 kernels through Go's simd experiment
# (horizon/lanes_simd.go): every build here turns it on. Without it (a plain
# `go install`) the portable kernels run and the stores are the same bytes.
GOEXPERIMENT ?= simd
export GOEXPERIMENT

.PHONY: lib lib-windows unity-package windows-deps cross-deps bindings test check demo deps browser data bench bench-quick serve portable viewer-picture test-slurm docs release release-check godot-check godot-addon

deps:
	@{ pkg-config --exists gdal && command -v ogrinfo; } >/dev/null 2>&1 || { \
		echo "installing libgdal-dev, gdal-bin and pkg-config"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libgdal-dev gdal-bin pkg-config >/dev/null; }

# Chromium drives the viewer's browser test (frontierq serve); without it
# that test skips (and a failed install says so rather than stopping).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing chromium"; \
		{ $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; } || \
		echo "warning: chromium could not be installed; the viewer's browser test will skip"; }

# make test: vet and every package's tests in -short mode (the long cases
# trimmed: fewer real crops, the default golden hashes, no bakes as child
# processes), under three minutes on two cores.
test: deps
	$(GO) vet ./...
	$(GO) test -short ./...

# make lib: the C library, build/libfrontiersets.so, and its header,
# build/frontiersets.h (cmd/libfrontiersets; examples in examples/c and
# examples/csharp).
# The C library reads stores only: it needs no GDAL (it links libc alone).
lib:
	$(GO) build -buildmode=c-shared -o build/libfrontiersets.so ./cmd/libfrontiersets
	rm -f build/libfrontiersets.h
	cp cmd/libfrontiersets/frontiersets.h build/frontiersets.h

# make lib-windows: the C library for 64-bit Windows, cross-compiled with
# Debian's mingw-w64: build/windows/frontiersets.dll, its import library
# frontiersets.lib and the header. It needs Windows' own KERNEL32 and
# msvcrt only.
lib-windows: windows-deps
	mkdir -p build/windows
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc $(GO) build -buildmode=c-shared \
		-ldflags "-extldflags=-Wl,--out-implib,$(CURDIR)/build/windows/frontiersets.lib" -o build/windows/frontiersets.dll ./cmd/libfrontiersets
	rm -f build/windows/frontiersets.h
	cp cmd/libfrontiersets/frontiersets.h build/windows/frontiersets.h

# make unity-package: the native libraries in the Unity package's
# Plugins/OS/ARCH, as the release lays them out (bindings/unity; not in the
# repository; the release's zip adds their .meta import settings).
unity-package: lib lib-windows
	mkdir -p bindings/unity/Plugins/linux/x86_64 bindings/unity/Plugins/windows/x86_64
	cp build/libfrontiersets.so bindings/unity/Plugins/linux/x86_64/
	cp build/windows/frontiersets.dll bindings/unity/Plugins/windows/x86_64/

# make godot-check: the Godot addon's GDNative library loads in Debian's
# godot3-server (installed when missing) and its networked demo runs 30 s
# of game time, a headless server and 8 headless clients over ENet;
# writes build/godot/report.json (bindings/godot/README.md).
godot-check: deps
	@command -v godot3-server >/dev/null 2>&1 || { \
		echo "installing godot3-server"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq godot3-server >/dev/null; }
	FRONTIERSETS_GODOT=1 $(GO) test -count 1 -run TestGodotDemo -v ./bindings/godot

# make godot-addon: the addon's native libraries in
# bindings/godot/addons/frontiersets/bin/x11 (not in the repository), to
# copy the addon into a Godot 3 project.
godot-addon: lib
	mkdir -p bindings/godot/addons/frontiersets/bin/x11
	cp build/libfrontiersets.so bindings/godot/addons/frontiersets/bin/x11/
	cc -shared -fPIC -O2 -Ibuild bindings/godot/addons/frontiersets/src/frontiersets_gdnative.c \
		-Lbuild -lfrontiersets -Wl,-rpath,'$$ORIGIN' -o bindings/godot/addons/frontiersets/bin/x11/libfrontiersets_gdnative.so

# The Windows cross-compiler, and Wine to run the DLL's tests (make check).
windows-deps:
	@{ command -v x86_64-w64-mingw32-gcc && command -v wine; } >/dev/null 2>&1 || { \
		echo "installing gcc-mingw-w64-x86-64, wine and wine64"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq gcc-mingw-w64-x86-64 wine wine64 >/dev/null; }

# make docs: rewrite docs/commands, the commands' reference pages, from their
# definitions (a test fails while a page differs from them).
docs:
	UPDATE_DOCS=1 $(GO) test -run TestReferencePages ./cmd/pvsbake ./cmd/frontierq

# make check: everything make test skips — the long cases, the viewer in
# headless Chromium, the plain build (no SIMD experiment) and the forced
# portable and AVX-512 kernels (auto runs the AVX2 assembly), the golden
# hashes of other CPUs (GOAMD64=v3, arm64 under qemu) and the real Slurm
# cluster. CI runs make test, then make check.
check: deps browser bindings windows-deps cross-deps
	$(GO) test ./...
	GOEXPERIMENT= $(GO) test -count 1 ./horizon ./internal/quadtree ./internal/bake
	GOEXPERIMENT= FRONTIERSETS_KERNELS=scalar $(GO) test -count 1 -run 'Golden|Block|Kernel|Twin' ./horizon
	@if grep -q avx512f /proc/cpuinfo 2>/dev/null; then \
		echo "FRONTIERSETS_KERNELS=avx512 $(GO) test -count 1 -run 'Golden|Block' ./horizon"; \
		FRONTIERSETS_KERNELS=avx512 $(GO) test -count 1 -run 'Golden|Block' ./horizon; \
	else echo "no AVX-512 on this CPU: the forced avx512 kernels are not run"; fi
	$(MAKE) --no-print-directory portable
	$(MAKE) --no-print-directory godot-check
	$(MAKE) --no-print-directory release-check
	$(MAKE) --no-print-directory test-slurm

# qemu-user-static, to run linux/arm64 builds here (the golden hashes, the
# stores of every target), and the arm64 C cross-compiler for the release's
# C library; a warning, not a failure, when they cannot be installed.
cross-deps:
	@{ command -v qemu-aarch64-static && command -v aarch64-linux-gnu-gcc; } >/dev/null 2>&1 || { \
		echo "installing qemu-user-static and gcc-aarch64-linux-gnu"; \
		{ $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq qemu-user-static gcc-aarch64-linux-gnu >/dev/null; } || \
		echo "warning: qemu-user-static or gcc-aarch64-linux-gnu could not be installed"; }

# make release: build/release/frontiersets-VERSION-OS-ARCH.{tar.gz,zip} for
# the six desktop targets — pvsbake and frontierq built without cgo (RAW,
# PNG and ENVI heightmaps, every query; GeoTIFF and HGT need a GDAL
# build), README, LICENSE and docs/commands; the C library and its header
# for linux/amd64, linux/arm64 and windows/amd64 — the Unity package with
# those libraries, and SHA256SUMS. VERSION defaults to git describe; the
# archives are the same bytes for the same sources and toolchain.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
RELEASE_TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
COMMIT ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
RELEASE_LDFLAGS := -s -w -buildid= -X github.com/frontiersets/frontiersets/internal/cli.release=$(VERSION) -X github.com/frontiersets/frontiersets/internal/cli.commit=$(COMMIT)
release: windows-deps cross-deps
	rm -rf build/release
	@set -e; for t in $(RELEASE_TARGETS); do os=$${t%/*}; arch=$${t#*/}; \
		echo "building pvsbake and frontierq for $$os/$$arch"; \
		GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 GOEXPERIMENT= $(GO) build -trimpath -ldflags "$(RELEASE_LDFLAGS)" \
			-o build/release/stage/$$os-$$arch/ ./cmd/pvsbake ./cmd/frontierq; done
	@echo "building the C library for linux/amd64, linux/arm64 and windows/amd64"
	GOEXPERIMENT= CGO_ENABLED=1 PKG_CONFIG=/bin/false $(GO) build -trimpath -buildmode=c-shared -ldflags "-s -w -buildid=" \
		-o build/release/stage/linux-amd64/libfrontiersets.so ./cmd/libfrontiersets
	GOEXPERIMENT= GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc PKG_CONFIG=/bin/false $(GO) build -trimpath -buildmode=c-shared -ldflags "-s -w -buildid=" \
		-o build/release/stage/linux-arm64/libfrontiersets.so ./cmd/libfrontiersets
	GOEXPERIMENT= GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc $(GO) build -trimpath -buildmode=c-shared -ldflags "-s -w -buildid=" \
		-o build/release/stage/windows-amd64/frontiersets.dll ./cmd/libfrontiersets
	rm -f build/release/stage/*/*.h
	for d in linux-amd64 linux-arm64 windows-amd64; do cp cmd/libfrontiersets/frontiersets.h build/release/stage/$$d/; done
	$(GO) run ./deploy/release -version $(VERSION) -stage build/release/stage -out build/release
	rm -rf build/release/stage
	@ls -l build/release

# make release-check: make release, then every archive against SHA256SUMS
# and each pvsbake's --version: natively, under qemu (linux/arm64) and
# under Wine (windows/amd64).
release-check: release
	RELEASE_DIR=$(CURDIR)/build/release $(GO) test -count 1 -run TestReleaseArchives -v ./deploy/release

# The C library's other callers: Python (python/, a venv over Debian's numpy,
# setuptools and pytest; GDAL's bindings for the example) and C# (mono).
bindings:
	@{ /usr/bin/python3 -c 'import numpy, setuptools, pytest, venv; from osgeo import gdal' && command -v mcs && command -v mono; } >/dev/null 2>&1 || { \
		echo "installing python3-numpy, python3-setuptools, python3-pytest, python3-venv, python3-gdal, mono-mcs"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-numpy python3-setuptools python3-pytest python3-venv python3-pip python3-gdal mono-mcs mono-runtime >/dev/null; }

# The Slurm recipe on a real one-node cluster (munged, slurmctld, slurmd
# started by the test under a temporary folder): a 4-shard array and the
# join, stores equal to a single bake's. Installs Debian's slurm-wlm when
# missing; the test skips, saying why, where the daemons cannot start.
test-slurm: deps
	@command -v slurmctld >/dev/null 2>&1 || { \
		echo "installing slurm-wlm"; \
		{ $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq slurm-wlm >/dev/null; } || \
		echo "warning: slurm-wlm could not be installed; the real Slurm test will skip"; }
	PVS_SLURM=1 $(GO) test -count 1 -run TestRealSlurm -v ./deploy

# Same bytes on every CPU: the golden hashes of horizon's tables, profiles,
# bitmaps and pyramids, of compress's stores and of the lon/lat lattices
# stores record (heightmap/gdal, with cgo: not on arm64), for the builds whose
# floating point could differ: GOAMD64=v3 (where the compiler may fuse
# multiply-adds) and arm64 without cgo under qemu-user-static (installed
# when missing; a warning, not a failure, when it cannot be).
portable:
	GOAMD64=v3 $(GO) test -count 1 -run 'Golden|BlockMatches|BlockKernelTwins' ./horizon ./compress ./heightmap/gdal
	@command -v qemu-aarch64-static >/dev/null 2>&1 || { \
		echo "installing qemu-user-static"; \
		{ $(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq qemu-user-static >/dev/null; } || \
		echo "warning: qemu-user-static could not be installed; the arm64 golden test will not run"; }
	@if command -v qemu-aarch64-static >/dev/null 2>&1; then \
		echo "GOARCH=arm64 CGO_ENABLED=0 $(GO) test -exec qemu-aarch64-static -run Golden ./horizon ./compress"; \
		GOARCH=arm64 CGO_ENABLED=0 $(GO) test -count 1 -exec qemu-aarch64-static -run Golden ./horizon ./compress; fi

# Bake the demo terrain (a 256² NASADEM crop around Mount Washington, see
# data/README.md), query two players' frontier set across the Presidential
# Range, draw it at metric aspect with a legend.
demo: deps
	$(GO) build -o pvsbake ./cmd/pvsbake
	$(GO) build -o frontierq ./cmd/frontierq
	./pvsbake info data/mount-washington.tif
	./pvsbake bake data/mount-washington.tif -o demo.pvs --budget 10MB
	./frontierq demo.pvs --a 40,128 --b 215,128 --png demo-frontier.png
	@echo "wrote demo-frontier.png"

# The viewer on the demo store (after make demo): http://127.0.0.1:8080/
# The viewer on the demo store, baked once (delete demo.pvs to bake again):
# make serve ADDR=127.0.0.1:9000.
ADDR ?= 127.0.0.1:8080
demo.pvs:
	$(MAKE) --no-print-directory demo
serve: deps demo.pvs
	$(GO) build -o frontierq ./cmd/frontierq
	./frontierq serve demo.pvs --addr $(ADDR)

# The README's picture of the viewer: the browser test on the demo store.
viewer-picture: deps browser demo.pvs
	FRONTIERQ_STORE=$(CURDIR)/demo.pvs FRONTIERQ_PAIR=40,128,215,128 FRONTIERQ_SCREENSHOT=$(CURDIR)/docs/images/viewer.png \
		$(GO) test -count 1 -run TestServeInBrowser ./cmd/frontierq

# Regenerate the demo terrains in data/ (heightmap tests check they match).
data: deps
	$(GO) run ./cmd/pvsbake synth --kind hills --size 256 --cell-size 10 --relief 300 --seed 1 -o data/demo-hills.tif
	$(GO) run ./cmd/pvsbake synth --kind urban --size 256 --cell-size 2 --relief 60 --seed 1 -o data/demo-urban.tif

# The benchmark across memory limits (thesis chapter 4) on the two real
# terrains in ../shared/data; results go to bench/results/<date>/. Not part
# of `make test`. BENCHFLAGS passes options, e.g. BENCHFLAGS="--reuse
# --slow-pairs 1000" (see `go run ./bench --help`).
bench: deps
	$(GO) run ./bench $(BENCHFLAGS)

# A reduced run (60 pairs per case) for checking the harness end to end;
# its results go to $TMPDIR/bench-quick, not to bench/results.
bench-quick: deps
	$(GO) run ./bench --pairs 60 --audit 20 --warmup 10 --out $${TMPDIR:-/tmp}/bench-quick $(BENCHFLAGS)
