"""Rewrites a wheel (.whl) or an sdist (.tar.gz) in place so that its bytes depend on its
contents alone: members in name order (a wheel's .dist-info last, its RECORD at the very end),
every time SOURCE_DATE_EPOCH, owners root with no names, modes 0644 (0755 where any execute bit
was set, and for folders), a gzip header with no file name. With --forbid TEXT, fails naming the
member if any member's bytes hold TEXT (a build folder's path).
Usage: normalize.py ARCHIVE EPOCH [--forbid TEXT]..."""
import gzip
import io
import os
import sys
import tarfile
import time
import zipfile


def mode_of(mode, is_dir=False):
    return 0o755 if is_dir or mode & 0o111 else 0o644


def check(name, data, forbidden):
    for text in forbidden:
        if text in data:
            raise SystemExit(f"{name} holds the build path {text.decode()}")


def wheel(path, epoch, forbidden):
    with zipfile.ZipFile(path) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist() if not info.is_dir()]
    for info, data in members:
        check(info.filename, data, forbidden)

    def order(item):
        name = item[0].filename
        top = name.split("/", 1)[0]
        return (top.endswith(".dist-info"), name.endswith(".dist-info/RECORD"), name)

    # Zip stores local time at two-second resolution, from 1980 on.
    stamp = time.gmtime(max(epoch, 315532800))[:6]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for info, data in sorted(members, key=order):
            entry = zipfile.ZipInfo(info.filename, date_time=stamp)
            entry.create_system = 3
            entry.external_attr = (0o100000 | mode_of(info.external_attr >> 16)) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, data, compresslevel=6)
    with open(path, "wb") as f:
        f.write(out.getvalue())


def sdist(path, epoch, forbidden):
    with tarfile.open(path, "r:gz") as archive:
        members = []
        for info in archive.getmembers():
            data = archive.extractfile(info).read() if info.isfile() else None
            if data is not None:
                check(info.name, data, forbidden)
            members.append((info, data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=epoch, compresslevel=9) as packed:
        with tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as archive:
            for info, data in sorted(members, key=lambda m: m[0].name):
                info.mtime = epoch
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mode = mode_of(info.mode, info.isdir())
                info.pax_headers = {}
                archive.addfile(info, io.BytesIO(data) if data is not None else None)
    with open(path, "wb") as f:
        f.write(out.getvalue())


def main():
    path, epoch = sys.argv[1], int(sys.argv[2])
    rest = sys.argv[3:]
    forbidden = [rest[i + 1].encode() for i in range(len(rest)) if rest[i] == "--forbid"]
    if path.endswith(".whl"):
        wheel(path, epoch, forbidden)
    elif path.endswith(".tar.gz"):
        sdist(path, epoch, forbidden)
    else:
        raise SystemExit(f"{os.path.basename(path)} is neither a wheel nor an sdist")


main()
