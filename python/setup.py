"""Build the frontiersets Python package: compiles the C library
(libfrontiersets.so, `go build -buildmode=c-shared` of cmd/libfrontiersets in
the repository this folder belongs to) into the package, then installs the
ctypes wrapper. Needs Go (and a C compiler for cgo), not GDAL; install with

    /usr/bin/python3 -m venv --system-site-packages venv
    venv/bin/pip install --no-build-isolation ./python
"""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("FRONTIERSETS_ROOT", os.path.dirname(HERE))


class BuildWithLibrary(build_py):
    """build_py that first compiles libfrontiersets.so into the package."""

    def run(self):
        super().run()
        out = os.path.abspath(os.path.join(self.build_lib, "frontiersets", "libfrontiersets.so"))
        go = shutil.which("go") or "/usr/local/go/bin/go"
        env = dict(os.environ)
        env.setdefault("GOEXPERIMENT", "simd")
        if not os.path.exists(os.path.join(ROOT, "cmd", "libfrontiersets")):
            raise SystemExit(
                f"frontiersets: {ROOT} is not the repository's root: set FRONTIERSETS_ROOT"
            )
        subprocess.run(
            [go, "build", "-buildmode=c-shared", "-o", out, "./cmd/libfrontiersets"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        header = os.path.join(os.path.dirname(out), "libfrontiersets.h")
        if os.path.exists(header):
            os.remove(header)


setup(
    name="frontiersets",
    version="0.1.0",
    description="Read PVS stores: frontier sets, potentially visible sets, cumulative viewsheds",
    packages=["frontiersets"],
    package_data={"frontiersets": ["libfrontiersets.so"]},
    install_requires=["numpy"],
    python_requires=">=3.9",
    cmdclass={"build_py": BuildWithLibrary},
    zip_safe=False,
)
