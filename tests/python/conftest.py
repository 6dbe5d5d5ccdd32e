"""Builds generated packages for the tests: the Cython package from `cargo xtask generate
--lang cython` (or the xtask binary named by $CTKGEN_XTASK), extensions with the flags each test
asks for. Builds are cached under $CTKGEN_CACHE/cython-builds by content, so a second run reuses
them."""
import fcntl
import glob
import json
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import tomllib
import zipfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE = os.environ.get("CTKGEN_CACHE", os.path.join(REPO, ".ctkgen-cache"))
CTKS = os.environ.get("CTKGEN_TEST_CTKS", "12.9,13.1").split(",")
JOBS = os.environ.get("CTKGEN_BUILD_JOBS", str(os.cpu_count() or 1))
# -Og: these builds are also the ones test_build_warnings reads, and some of gcc's warnings
# (-Wmaybe-uninitialized) need the optimiser; -Og runs the analyses they need and compiles the
# sanitized modules in half the time -O1 takes (10.8 s of CPU against 20.5 s for the largest).
UBSAN = "-Og -Wall -Wextra -fsanitize=alignment,undefined -fno-sanitize-recover=all"


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-8000:]}")
    return result


def xtask(*args):
    """Runs the command line: $CTKGEN_XTASK when `cargo xtask test` names itself, else cargo."""
    program = os.environ.get("CTKGEN_XTASK")
    command = [program] if program else ["cargo", "xtask"]
    return run([*command, *args], cwd=REPO)


def include_dir(ctk):
    found = sorted(glob.glob(os.path.join(CACHE, "ctk", f"{ctk}.*", "include")))
    if not found:
        raise RuntimeError(f"no cached headers for CTK {ctk} under {CACHE}/ctk")
    return found[-1]


def emit(ctk, out, legacy=False, strict_integers=False):
    """Generates the Cython package of `ctk` (with its headers) into `out`; returns its folder."""
    args = ["generate", "--ctk", ctk, "--lang", "cython", "--out", out]
    if legacy:
        args.append("--legacy-inline-layout")
    if strict_integers:
        args.append("--strict-integers")
    xtask(*args)
    return os.path.join(out, "python")


def ir_json(ctk, library=None):
    """Path of the IR (JSON) of `ctk` (of `library`, else the first described one): the file
    `cargo xtask test` wrote under $CTKGEN_IR_DIR when it has that CTK, else one written now with
    `xtask ir`."""
    ir_dir = os.environ.get("CTKGEN_IR_DIR")
    if ir_dir and library is None:
        found = sorted(glob.glob(os.path.join(ir_dir, f"{ctk}.*.json")))
        if found:
            return found[-1]
    path = os.path.join(CACHE, "ir", f"{ctk}{'-' + library if library else ''}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    xtask("ir", "--ctk", ctk, "-o", path, *(["--library", library] if library else []))
    return path


def catalogue_newest():
    """{major.minor: newest CTK of that minor in headers/ctk.toml}."""
    with open(os.path.join(REPO, "headers", "ctk.toml"), "rb") as f:
        releases = tomllib.load(f)["release"]
    newest = {}
    for ctk in sorted((r["ctk"] for r in releases), key=lambda v: tuple(int(p) for p in v.split("."))):
        newest[".".join(ctk.split(".")[:2])] = ctk
    return newest


def fake_library(folder, ir_path, soname):
    """A stand-in for any library of the package: the fake driver's recording entry point
    exported under every function name of the IR at `ir_path`, built as `folder/soname`."""
    with open(ir_path) as f:
        names = sorted({fn["symbol"] for fn in json.load(f)["functions"]})
    source = os.path.join(folder, "fake_library.c")
    driver = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_driver", "fake_libcuda.c")
    with open(source, "w") as f:
        f.write(f'#include "{driver}"\n')
        for name in names:
            f.write(f"fake_u64 {name}(fake_u64 a0, fake_u64 a1, fake_u64 a2, fake_u64 a3, fake_u64 a4, fake_u64 a5) "
                    "{ return (fake_u64)fake_success(a0, a1, a2, a3, a4, a5); }\n")
    target = os.path.join(folder, soname)
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-w", "-o", target, source], check=True)
    return target


def tree_digest(root):
    # The stubs too: test_parity reads the built package's own stubs against its modules.
    digest = hashlib.sha256()
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith((".py", ".pyi", ".pyx", ".pxd", ".h", ".toml", ".a")):
                path = os.path.join(dirpath, name)
                digest.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()[:16]


def build(ctk, cflags=UBSAN, legacy=False, modules=None, cuda_home=None, strict_integers=False, static_libraries=True):
    """Generates and builds; returns the directory to put on sys.path. Each extension module is
    compiled once per content (its .pyx, the .pxi it includes, every .pxd and header, the flags):
    a variant that changes one module (strict integers change `_base` alone) or a subset build
    (ASan by module) compiles only what no earlier build compiled. `static_libraries=False`
    builds as CTKGEN_STATIC_LIBRARIES=0 does: no loader module links its library's archive."""
    # One staging folder per process: sessions sharing the cache never emit into each other's.
    variant = f"{'legacy' if legacy else 'aligned'}{'-strict' if strict_integers else ''}"
    label = (f"{ctk} {variant} {cflags}{' ' + ','.join(modules) if modules else ''}{' CUDA_HOME' if cuda_home else ''}"
             f"{'' if static_libraries else ' unlinked'}")
    staging = os.path.join(CACHE, "cython-tests", f"src-{ctk}-{variant}-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        src = emit(ctk, staging, legacy, strict_integers)
        key = hashlib.sha256(
            f"{tree_digest(src)}|{cflags}|{modules}|{cuda_home}|{static_libraries}".encode()).hexdigest()[:16]
        target = os.path.join(CACHE, "cython-builds", key)
        if os.path.exists(os.path.join(target, ".built")):
            return target
        # Sessions sharing the cache build one key at a time: a second waits and reuses the first's.
        os.makedirs(os.path.join(CACHE, "locks"), exist_ok=True)
        with open(os.path.join(CACHE, "locks", f"cython-build-{key}.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            started = time.monotonic()
            compiled, reused = _build_locked(src, target, cflags, modules, cuda_home, static_libraries)
            phase(f"build {label}: {compiled} modules compiled, {reused} reused", time.monotonic() - started)
            return target
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def phase(what, seconds):
    """Reports a phase of the suite on the terminal (past pytest's capture) and, under `cargo
    xtask test`, in the file of phases it tabulates at the end ($CTKGEN_PHASES: a line per phase,
    its seconds and its name, tab-separated)."""
    sys.__stderr__.write(f"\n[{seconds:6.1f} s] {what}\n")
    sys.__stderr__.flush()
    path = os.environ.get("CTKGEN_PHASES")
    if path:
        with open(path, "a") as f:
            f.write(f"{seconds:.1f}\tpython: {what}\n")


def pytest_runtest_logreport(report):
    """A test's own time, and its fixtures' where they took long (a build inside them is a phase
    of its own too), among the phases."""
    if report.when in ("setup", "call") and report.duration >= 2 and os.environ.get("CTKGEN_PHASES"):
        what = report.nodeid if report.when == "call" else f"fixtures of {report.nodeid}"
        with open(os.environ["CTKGEN_PHASES"], "a") as f:
            f.write(f"{report.duration:.1f}\tpython: {what}\n")


def package_folder(root):
    """The folder of a generated package's modules (where `_base.pyx` is)."""
    found = glob.glob(os.path.join(root, "**", "_base.pyx"), recursive=True)
    assert len(found) == 1, found
    return os.path.dirname(found[0])


def static_links(root):
    """{loader module: archive path} of the static archives setup.py links (its STATIC_LIBRARIES)."""
    with open(os.path.join(root, "setup.py")) as f:
        text = f.read()
    return {m: os.path.join(root, a) for m, a in re.findall(r'^    "(\w+)": \("([^"]+)"', text, re.M)}


def module_keys(root, cflags, cuda_home, static_libraries=True):
    """{module: content key} for every extension module of the generated package at `root`; a
    module that links a static archive is keyed by the archive and whether it is linked too, so
    an unlinked build recompiles that module alone."""
    return _module_keys(root, f"{cflags}|{cuda_home}", static_libraries)


def cython_keys(root):
    """{module: key of the C that Cython makes of it}: its sources and Cython's version only, so
    every variant of one content (sanitizers, flags, linked or not) cythonizes it once."""
    return _module_keys(root, "cython output", None)


def _module_keys(root, variant, static_libraries):
    folder = package_folder(root)
    shared = hashlib.sha256(f"{variant}|{sys.version}|{_cython_version()}".encode())
    shared_files = sorted(glob.glob(os.path.join(folder, "*.pxd")) + glob.glob(os.path.join(folder, "*.h"))
                          + glob.glob(os.path.join(root, "include", "**", "*"), recursive=True)
                          + [os.path.join(root, "setup.py")])
    for path in shared_files:
        if os.path.isfile(path):
            shared.update(os.path.relpath(path, root).encode())
            shared.update(compiled_content(path))
    keys = {}
    linked = static_links(root)
    for pyx in sorted(glob.glob(os.path.join(folder, "*.pyx"))):
        digest = shared.copy()
        text = compiled_content(pyx)
        digest.update(text)
        for included in re.findall(rb'^include "([^"]+)"', text, re.M):
            digest.update(compiled_content(os.path.join(folder, included.decode())))
        module = os.path.basename(pyx)[:-len(".pyx")]
        archive = linked.get(module) if static_libraries is not None else None
        if archive:
            digest.update(f"linked={static_libraries}".encode())
            with open(archive, "rb") as f:
                digest.update(f.read())
        keys[module] = digest.hexdigest()[:20]
    return keys


# The header comment every generated file opens with names the generate command (its options
# too): it changes no compiled code, so it is not part of a module's content.
HEADER_LINE = re.compile(rb"\A(# |/\* )Generated by `[^\n]*\n")


def compiled_content(path):
    with open(path, "rb") as f:
        return HEADER_LINE.sub(b"", f.read(), count=1)


def _cython_version():
    import Cython
    return Cython.__version__


def _build_locked(src, target, cflags, modules, cuda_home, static_libraries):
    """Builds into `target` what the module cache lacks; returns (compiled, reused) counts."""
    if os.path.exists(os.path.join(target, ".built")):
        return 0, 0
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(src, target)
    folder = package_folder(target)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    keys = {m: k for m, k in module_keys(target, cflags, cuda_home, static_libraries).items()
            if not modules or m in modules}
    store = os.path.join(CACHE, "cython-modules")
    c_keys = cython_keys(target)
    c_store = os.path.join(CACHE, "cython-c")
    missing, logs = [], []
    for module, key in keys.items():
        cached = os.path.join(store, key)
        if os.path.exists(os.path.join(cached, module + suffix)):
            shutil.copy2(os.path.join(cached, module + suffix), os.path.join(folder, module + suffix))
            with open(os.path.join(cached, "build.log")) as log:
                logs.append(log.read())
        else:
            missing.append(module)
    if missing:
        _reuse_cythonized(target, folder, missing, c_keys, c_store)
        env = dict(os.environ, CFLAGS=cflags, LDFLAGS=cflags if "sanitize" in cflags else "", CTKGEN_BUILD_JOBS=JOBS,
                   CTKGEN_BUILD_MODULES=",".join(missing))
        env["CTKGEN_STATIC_LIBRARIES"] = "1" if static_libraries else "0"
        if cuda_home:
            env["CUDA_HOME"] = cuda_home
        else:
            env.pop("CUDA_HOME", None)
        result = subprocess.run(["nice", sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                                cwd=target, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise BuildFailed(result.stdout + result.stderr)
        logs.append(result.stdout + result.stderr)
        _store_cythonized(target, folder, missing, c_keys, c_store)
        for module in missing:
            # Stored whole or not at all: a half-copied module is never taken for a built one.
            cached = os.path.join(store, keys[module])
            partial = f"{cached}.{os.getpid()}"
            shutil.rmtree(partial, ignore_errors=True)
            os.makedirs(partial)
            shutil.copy2(os.path.join(folder, module + suffix), partial)
            with open(os.path.join(partial, "build.log"), "w") as log:
                log.write(result.stdout + result.stderr)
            try:
                os.rename(partial, cached)
            except OSError:
                shutil.rmtree(partial, ignore_errors=True)  # another session stored it first
    with open(os.path.join(target, "build.log"), "w") as log:
        log.write("".join(dict.fromkeys(logs)))
    open(os.path.join(target, ".built"), "w").close()
    return len(missing), len(keys) - len(missing)


def _cythonized_path(target, folder, module):
    """Where setup.py's cythonize writes module's C (its build_dir mirrors the sources' paths)."""
    return os.path.join(target, "build", "cython", os.path.relpath(folder, target), module + ".c")


def _reuse_cythonized(target, folder, modules, c_keys, c_store):
    """Puts the C of each module cythonized before where cythonize looks, newer than its sources,
    so that cythonize keeps it."""
    for module in modules:
        cached = os.path.join(c_store, c_keys[module] + ".c")
        if os.path.exists(cached):
            path = _cythonized_path(target, folder, module)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copyfile(cached, path)


def _store_cythonized(target, folder, modules, c_keys, c_store):
    os.makedirs(c_store, exist_ok=True)
    for module in modules:
        cached = os.path.join(c_store, c_keys[module] + ".c")
        path = _cythonized_path(target, folder, module)
        if not os.path.exists(cached) and os.path.exists(path):
            partial = f"{cached}.{os.getpid()}"
            shutil.copyfile(path, partial)
            os.replace(partial, cached)


class BuildFailed(RuntimeError):
    pass


def python(path, code, env=None):
    """Runs `code` with the built package on sys.path, in a fresh interpreter."""
    full_env = dict(os.environ, PYTHONPATH=path)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", code], env=full_env, capture_output=True, text=True, timeout=1800)


def probe(path, code, env=None):
    """Runs a probe script (see `python`) that prints its findings as JSON on its last line;
    returns them, failing the test with the script's error output when it fails."""
    result = python(path, code, env)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "runtime error" not in result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session", params=CTKS)
def package(request):
    """The whole package for one CTK, built with UBSan (alignment and undefined behaviour)."""
    return request.param, build(request.param)


@pytest.fixture(scope="session")
def ctk13():
    return [c for c in CTKS if c.startswith("13")][-1]


@pytest.fixture(scope="session")
def ctk12():
    return [c for c in CTKS if c.startswith("12")][-1]


@pytest.fixture(scope="session")
def fake_libcuda(tmp_path_factory):
    """The fake driver library (fake_driver/fake_libcuda.c), loaded through $CTKGEN_LIBCUDA."""
    target = str(tmp_path_factory.mktemp("fake-driver") / "libcuda.so.1")
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", target,
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_driver", "fake_libcuda.c")],
                   check=True)
    return target


def wheel_library(name, version, stem):
    """A folder laid out as site-packages with wheel `name==version` unpacked in it (its libraries
    only, downloaded once into the cache), and the file of library `stem` (`libnvrtc`) in it."""
    site = os.path.join(CACHE, "wheel-libraries", f"{name}-{version}")
    if not glob.glob(os.path.join(site, "nvidia", "*", "lib", f"{stem}.so.*")):
        download = site + ".download"
        os.makedirs(download, exist_ok=True)
        run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--dest", download,
             "--platform", "manylinux2014_x86_64", f"{name}=={version}"])
        wheel = glob.glob(os.path.join(download, "*.whl"))[0]
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site, [m for m in archive.namelist() if "/lib/" in m])
    library = [p for p in glob.glob(os.path.join(site, "nvidia", "*", "lib", f"{stem}.so.*[0-9]"))
               if os.path.basename(p).count(".") == 2]
    assert len(library) == 1, library
    return site, library[0]


def wheel_shared_libraries(name, version):
    """A folder laid out as site-packages with the shared libraries of wheel `name==version`
    unpacked in it, where the wheel puts them (downloaded once into the cache)."""
    site = os.path.join(CACHE, "wheel-libraries", f"{name}-{version}")
    done = os.path.join(site, ".shared-libraries")
    if not os.path.exists(done):
        download = site + ".download"
        os.makedirs(download, exist_ok=True)
        if not glob.glob(os.path.join(download, "*.whl")):
            run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--dest", download,
                 "--platform", "manylinux2014_x86_64", f"{name}=={version}"])
        wheel = glob.glob(os.path.join(download, "*.whl"))[0]
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(site, [m for m in archive.namelist() if re.search(r"/lib[^/]*\.so(\.[0-9]+)*$", m)])
        open(done, "w").close()
    return site


def catalogued_library_wheel(ctk, header):
    """(package, version) of the wheel that carries `header` in the newest release of `ctk` (a
    major.minor), as the catalogue pins it (the release's own wheel or a companion); None when
    the release does not ship it."""
    with open(os.path.join(REPO, "headers", "ctk.toml"), "rb") as f:
        releases = tomllib.load(f)["release"]
    minor = [r for r in releases if r["ctk"].startswith(ctk + ".")]
    assert minor, f"no release {ctk} in the catalogue"
    newest = max(minor, key=lambda r: [int(p) for p in r["ctk"].split(".")])
    if header in newest["headers"]:
        return newest["package"], newest["wheel_version"]
    for companion in newest.get("companion", []):
        if header in companion["headers"]:
            return companion["package"], companion["wheel_version"]
    return None


def described_libraries():
    """{description name: its conventions (the TOML as read)} of every library."""
    out = {}
    for path in sorted(glob.glob(os.path.join(REPO, "headers", "libraries", "*.toml"))):
        stem = os.path.basename(path)[: -len(".toml")]
        if "." not in stem:
            with open(path, "rb") as f:
                out[stem] = tomllib.load(f)
    return out


def package_description():
    """The package as a whole (headers/package.toml, as read), or {} without one."""
    path = os.path.join(REPO, "headers", "package.toml")
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        return tomllib.load(f)


def compatible_modules(with_package_modules=True):
    """The generated modules that follow an official cuda.bindings module of the same name:
    every described library's (headers/libraries/<name>.toml), by its Python module, and the
    package-wide helper module (headers/package.toml)."""
    modules = [description["python"]["module"] for description in described_libraries().values()]
    utils = package_description().get("utils") if with_package_modules else None
    if utils:
        modules.append(utils["module"])
    return tuple(modules)
