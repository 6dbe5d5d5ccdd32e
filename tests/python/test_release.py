"""What a release pipeline builds from the output: `pip wheel` of the generated package gives a
wheel whose version and metadata name the CTK, and `twine check --strict` passes on it. (One
extension module is compiled, through the package's own CTKGEN_BUILD_MODULES switch: the
metadata is what is judged here, and the suite builds every module elsewhere.) The Rust crate's
`cargo package` is checked in xtask/tests/output.rs."""
import email
import glob
import os
import shutil
import struct
import sys
import zipfile

from conftest import emit, run


def test_wheel_names_the_ctk_and_passes_twine_check(ctk13, tmp_path):
    src = emit(ctk13, str(tmp_path / "gen"))
    wheels = tmp_path / "wheels"
    env = dict(os.environ, CTKGEN_BUILD_MODULES="cydriver")
    env.pop("CUDA_HOME", None)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), src], env=env)
    (wheel,) = glob.glob(str(wheels / "*.whl"))
    run([sys.executable, "-m", "twine", "check", "--strict", wheel])
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.message_from_bytes(archive.read(name))
    version = metadata["Version"]
    assert version.startswith(ctk13 + "."), f"the version names the CTK: {version}"
    assert f"CTK {version}" in metadata["Summary"], metadata["Summary"]
    assert metadata["License-Expression"] == "MIT OR Apache-2.0"
    # No source repository is established by the workspace, so none is stated.
    assert metadata.get_all("Project-URL") is None
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert f"CTK {version}" in metadata.get_payload()
    # No debug information unless asked for (the interpreter's -g would otherwise add it).
    assert not debug_sections(extension_of(wheel)), "a default build carries no debug information"
    env["CTKGEN_DEBUG_INFO"] = "1"
    shutil.rmtree(os.path.join(src, "build"))  # else the first build's objects are reused
    debug = tmp_path / "debug"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(debug), src], env=env)
    (asked,) = glob.glob(str(debug / "*.whl"))
    assert ".debug_info" in debug_sections(extension_of(asked)), "CTKGEN_DEBUG_INFO=1 keeps it"


def extension_of(wheel):
    """The bytes of the one extension module in `wheel`."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".so")]
        return archive.read(name)


def debug_sections(elf):
    """Names of the `.debug_*` sections of a 64-bit little-endian ELF file."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    entsize, count, names_index = struct.unpack_from("<HHH", elf, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * entsize) for i in range(count)]
    names_offset = headers[names_index][4]
    def name(header):
        start = names_offset + header[0]
        return elf[start:elf.index(b"\0", start)].decode()
    return [name(h) for h in headers if name(h).startswith(".debug")]
