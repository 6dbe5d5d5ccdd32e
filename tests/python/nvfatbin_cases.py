"""nvFatbin calls run on the generated `nvfatbin` module and on the official
`cuda.bindings.nvfatbin` of the same CTK major.minor, in one process, against the real
libnvfatbin of that CTK (its wheel on sys.path; packing PTX into a fatbinary needs no GPU). Run by
test_jit_libraries.py through both_modules.py, which prints `{case: {"ours": ..., "official": ...}}`."""
import hashlib

from raise_cases import PTX, failure

MODULE = "nvfatbin"

# The first bytes of a fatbinary (its header's magic, little-endian 0xba55ed50).
FATBIN_MAGIC = "50ed55ba"


def raised(n, call, *args):
    try:
        call(*args)
        return "no error"
    except n.nvFatbinError as error:
        return failure(error, n)


def with_ptx(n, options=()):
    handle = n.create(list(options), len(options))
    n.add_ptx(handle, PTX, len(PTX), "90", "add_one", "")
    return handle


def fatbin(n, handle, buffer_type=bytearray):
    size = n.size(handle)
    buffer = bytearray(size)
    n.get(handle, buffer if buffer_type is bytearray else buffer_type(buffer))
    return bytes(buffer)


def case_version(n):
    return list(n.version())


def case_enums(n):
    return [[member.name, int(member)] for member in n.Result]


def case_handle_is_an_int(n):
    handle = n.create([], 0)
    try:
        return [type(handle).__name__, handle != 0]
    finally:
        n.destroy(handle)


def case_ptx_to_fatbin(n):
    handle = with_ptx(n)
    data = fatbin(n, handle)
    n.destroy(handle)
    # The same input packed by the same library: the same bytes on both sides.
    return [len(data), data[:4].hex(), hashlib.sha256(data).hexdigest()]


def case_fatbin_into_a_memoryview(n):
    handle = with_ptx(n)
    data = fatbin(n, handle, memoryview)
    n.destroy(handle)
    return [len(data), data[:4].hex()]


def case_options_as_a_tuple_and_code_as_a_bytearray(n):
    handle = n.create(("-compress=false",), 1)
    n.add_ptx(handle, bytearray(PTX), len(PTX), "90", "add_one", "-O3")
    data = fatbin(n, handle)
    n.destroy(handle)
    return [len(data), hashlib.sha256(data).hexdigest()]


def case_two_entries_with_one_identifier(n):
    handle = with_ptx(n)
    try:
        return raised(n, n.add_ptx, handle, PTX, len(PTX), "90", "add_one", "")
    finally:
        n.destroy(handle)


def case_unknown_option_raises(n):
    return raised(n, n.create, ["-no-such-option"], 1)


def case_junk_cubin_raises(n):
    handle = n.create([], 0)
    try:
        junk = b"\x7fELF" + bytes(60)
        return raised(n, n.add_cubin, handle, junk, len(junk), "90", "junk")
    finally:
        n.destroy(handle)


def case_get_before_size_raises(n):
    handle = with_ptx(n)
    try:
        return raised(n, n.get, handle, bytearray(4096))
    finally:
        n.destroy(handle)


def case_error_strings(n):
    return [n.get_error_string(member) for member in n.Result] + [n.get_error_string(12345)]


def case_error_of_a_status_by_hand(n):
    return failure(n.nvFatbinError(int(n.Result.ERROR_INVALID_ARCH)), n)


def case_a_read_only_output_buffer_is_refused(n):
    handle = with_ptx(n)
    try:
        n.get(handle, bytes(n.size(handle)))
        return "no error"
    finally:
        n.destroy(handle)


def case_ptx_as_text_is_refused(n):
    handle = n.create([], 0)
    try:
        n.add_ptx(handle, PTX.decode(), len(PTX), "90", "add_one", "")
        return "no error"
    finally:
        n.destroy(handle)


def case_a_size_beyond_the_code_is_refused(n):
    handle = n.create([], 0)
    try:
        n.add_ptx(handle, PTX, len(PTX) + 100, "90", "add_one", "")
        return "no error"
    finally:
        n.destroy(handle)


def assert_real(ours):
    """The calls reached the library and did their work: the results are real."""
    size, magic, _ = ours["ptx_to_fatbin"]["value"]
    assert size > len(PTX) // 2 and magic == FATBIN_MAGIC, ours["ptx_to_fatbin"]
    assert ours["fatbin_into_a_memoryview"]["value"] == [size, magic]
    kind, status, message, name, _ = ours["unknown_option_raises"]["value"]
    assert kind == "nvFatbinError" and name == "ERROR_UNRECOGNIZED_OPTION" and message == f"{name} ({status})"
    assert ours["junk_cubin_raises"]["value"][0] == "nvFatbinError"
    for case in ("a_read_only_output_buffer_is_refused", "ptx_as_text_is_refused", "a_size_beyond_the_code_is_refused"):
        assert ours[case].get("error") in ("ValueError", "TypeError"), (case, ours[case])
