"""The Python releases an sdist's metadata admits: prints its Requires-Python (or `any`) on the
first line, then each VERSION (`3.11.7`) that the specifier admits, a line each.
Usage: supported.py SDIST VERSION..."""
import email.parser
import sys
import tarfile

from packaging.specifiers import SpecifierSet

with tarfile.open(sys.argv[1], "r:gz") as archive:
    (member,) = [m for m in archive.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")]
    metadata = email.parser.BytesParser().parsebytes(archive.extractfile(member).read(), headersonly=True)
spec = metadata.get("Requires-Python") or ""
print(spec or "any")
for version in sys.argv[2:]:
    if SpecifierSet(spec).contains(version, prereleases=True):
        print(version)
