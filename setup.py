"""`pip install .`: builds the Python module (python/) with CMake and installs the package `strata`.

setuptools drives the build (Debian 12 has python3-setuptools, not scikit-build-core): the
extension strata._strata is the CMake target _strata, configured and built in STRATA_BUILD_DIR
(default build/pip, Release, without the tests) and copied into the wheel. An existing build
configured with -DSTRATA_PYTHON=ON can be reused: STRATA_BUILD_DIR=build pip install ...
docs/python.md says what it installs.
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(os.environ.get("STRATA_BUILD_DIR", ROOT / "build" / "pip"))
        if not build_dir.is_absolute():
            build_dir = ROOT / build_dir
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DSTRATA_PYTHON=ON"]
        if not (build_dir / "CMakeCache.txt").exists():  # a new build: Release, no tests
            configure += ["-DCMAKE_BUILD_TYPE=Release", "-DSTRATA_TESTS=OFF",
                          f"-DPython3_EXECUTABLE={sys.executable}"]
            if shutil.which("ccache"):
                configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_strata", "-j", jobs],
                       check=True)
        built = build_dir / "python" / "strata" / self.get_ext_filename("_strata")
        if not built.exists():  # an existing build made for another Python
            raise RuntimeError(f"CMake built no {built.name} in {built.parent}: is "
                               f"{build_dir} configured for {sys.executable}?")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    packages=["strata"],
    package_dir={"": "python"},
    ext_modules=[Extension("strata._strata", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build/setuptools"}},  # apart from CMake's files
)
