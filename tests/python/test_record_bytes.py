"""Every named record of the driver and the runtime, filled member by member with the same values
on ours and on the official module of the same CTK, in one process on CPU (record_bytes.py run by
both_modules.py): the C bytes must be identical, through nested views, records assigned from
records built apart, members written twice, and pointer members set from lists (compared by the
elements they point at). Members a module refuses are compared as refusals: where the official
module takes a value, ours must take it too."""
import os

import pytest

from conftest import CACHE, build, ir_json

LIBRARIES = {"driver": "cuda-driver", "runtime": "cuda-runtime"}


@pytest.fixture(scope="module")
def fake(fake_libcuda):
    return fake_libcuda


def masked(side, other):
    """The record's bytes and its lists' elements, with what either side refused or lacks zeroed."""
    data = bytearray.fromhex(side["bytes"])
    lists = {where: bytearray.fromhex(hex_ or "") for where, (_, hex_) in side["lists"].items()}
    for refused in (side["refused"], other["refused"]):
        for where, (_, offset, size) in refused.items():
            target, start = data, offset
            for list_where, (list_offset, _) in side["lists"].items():
                if where.startswith(list_where + "["):
                    # Inside a list's element: offsets there count from the element array.
                    target, start = lists[list_where], offset
                    index = int(where[len(list_where) + 1:].split("]", 1)[0])
                    element = len(target) // 2 if target else 0
                    start += index * element
                    break
            for i in range(start, min(start + (size or 8), len(target))):
                target[i] = 0
    # A pointer set from a list holds an address each module chose: its elements are compared.
    for where, (offset, _) in side["lists"].items():
        data[offset:offset + 8] = bytes(8)
    return data, lists


@pytest.mark.parametrize("module", sorted(LIBRARIES))
def test_records_hold_the_official_bytes(module, ctk13, fake):
    import both_modules

    official = both_modules.official_path(CACHE, ctk13)
    if official is None:
        pytest.skip(f"no official cuda-bindings release pinned for CTK {ctk13}")
    os.environ["CTKGEN_RECORD_BYTES_MODULE"] = module
    os.environ["CTKGEN_RECORD_BYTES_IR"] = ir_json(ctk13, LIBRARIES[module])
    outcome = both_modules.run("record_bytes", build(ctk13), official, fake)["every_record"]
    ours, theirs = outcome["ours"]["value"], outcome["official"]["value"]
    differences, refused_by_ours, compared, lists = [], [], 0, 0
    for case, official_case in sorted(theirs.items()):
        our_case = ours.get(case)
        if our_case is None or "construct" in our_case:
            differences.append(f"{case}: {our_case and our_case['construct'] or 'no such class'} in ours")
            continue
        if "construct" in official_case:
            continue
        # What the official module takes, ours takes (refusing more would stop a working program).
        for where, (error, _, _) in our_case["refused"].items():
            if where not in official_case["refused"] and error != "absent":
                refused_by_ours.append(f"{case}: {where} ({error})")
        our_bytes, our_lists = masked(our_case, official_case)
        their_bytes, their_lists = masked(official_case, our_case)
        compared += 1
        if our_bytes != their_bytes:
            at = [i for i in range(len(our_bytes)) if our_bytes[i] != their_bytes[i]]
            differences.append(f"{case}: bytes {at[:6]} differ")
        for where, elements in their_lists.items():
            lists += 1
            if our_lists.get(where) != elements:
                differences.append(f"{case}: the elements of {where} differ")
    print(f"{module}: {compared} fillings compared, {lists} list members by their elements")
    assert not refused_by_ours, refused_by_ours
    assert not differences, differences
    assert compared > 100 and lists > 10
