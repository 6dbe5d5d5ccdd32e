"""Arrays shared between wrappers, run under AddressSanitizer by test_asan_stress.py against the
fake driver (its $CTKGEN_LIBCUDA):

- a record made over another's storage (`_ptr=`) that is given a list member owns that array;
  when the wrapper goes, the member of the shared struct is set back to NULL, so reading the
  other record's member afterwards touches no freed memory;
- lists of records returned by a call (graph edge data, dependency edge data) own their storage:
  they stay readable after the call and after later allocations.

    python asan_shared_arrays.py PACKAGE MODULE [MODULE ...]

Imports only the named modules of PACKAGE (a partial sanitizer build) and prints `shared arrays
clean` when every check held."""
import ctypes
import gc
import importlib
import sys


def names(package, modules):
    found = {}
    for module in modules:
        loaded = importlib.import_module(f"{package}.{module}")
        found.update({n: getattr(loaded, n) for n in dir(loaded) if not n.startswith("__")})
    return type("Namespace", (), found)


def wrapper_over_shared_storage(d):
    for _ in range(200):
        outer = d.CUlaunchConfig()
        inner = d.CUlaunchConfig(_ptr=outer.getPtr())
        inner.attrs = [d.CUlaunchAttribute() for _ in range(4)]
        assert outer.numAttrs == 4
        slot = ctypes.c_void_p.from_address(outer.getPtr() + 40)
        assert slot.value == inner.attrs[0].getPtr(), "attrs is not at offset 40"
        del inner
        gc.collect()
        churn = [bytearray(96) for _ in range(64)]
        assert slot.value is None, f"attrs still points at {slot.value:#x}, freed with the wrapper"
        # Reading through the other record must not reach the freed array.
        assert all(a.id == 0 for a in outer.attrs)
        del churn


def returned_records(d):
    for _ in range(200):
        err, edges_from, edges_to, data, count = d.cuGraphGetEdges(d.CUgraph(0x1234), 3)
        err2, deps, deps_data, deps_count = d.cuGraphNodeGetDependencies(d.CUgraphNode(0x55), 2)
        assert int(err) == 0 and int(err2) == 0 and count == 3 and deps_count == 2
        churn = [bytearray(64) for _ in range(256)]
        gc.collect()
        assert [(e.from_port, e.to_port) for e in data] == [(i + 1, i + 2) for i in range(3)]
        assert [(e.from_port, e.to_port) for e in deps_data] == [(i + 5, i + 6) for i in range(2)]
        del churn


def main(package, modules):
    d = names(package, modules)
    assert int(d.cuInit(0)[0]) == 0
    wrapper_over_shared_storage(d)
    returned_records(d)
    print("shared arrays clean")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
