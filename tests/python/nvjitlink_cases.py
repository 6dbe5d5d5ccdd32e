"""nvJitLink calls run on the generated `nvjitlink` module and on the official
`cuda.bindings.nvjitlink` of the same CTK major.minor, in one process, against the real
libnvJitLink of that CTK (its wheel on sys.path; linking PTX needs no GPU). Run by
test_jit_libraries.py through both_modules.py, which prints `{case: {"ours": ..., "official": ...}}`."""
import hashlib
import os
import tempfile

from raise_cases import PTX, failure

MODULE = "nvjitlink"

ARCH = "-arch=sm_90"


def log(n, handle, which):
    size = getattr(n, f"get_{which}_log_size")(handle)
    buffer = bytearray(size)
    getattr(n, f"get_{which}_log")(handle, buffer)
    return size, bytes(buffer)


def linked(n, options=(ARCH,), data=PTX, kind=None):
    handle = n.create(len(options), list(options))
    n.add_data(handle, n.InputType.PTX if kind is None else kind, data, len(data), "add_one.ptx")
    n.complete(handle)
    return handle


def case_version(n):
    return list(n.version())


def case_enums(n):
    return {cls: [[name, int(member)] for name, member in getattr(n, cls).__members__.items()]
            for cls in ("Result", "InputType")}


def case_handle_is_an_int(n):
    handle = n.create(1, [ARCH])
    try:
        return [type(handle).__name__, handle != 0]
    finally:
        n.destroy(handle)


def case_link_ptx_to_cubin(n):
    handle = linked(n)
    size = n.get_linked_cubin_size(handle)
    cubin = bytearray(size)
    n.get_linked_cubin(handle, cubin)
    n.destroy(handle)
    # The same input linked by the same library: the same cubin on both sides.
    return [size, bytes(cubin[:4]).hex(), hashlib.sha256(cubin).hexdigest()]


def case_cubin_into_a_memoryview(n):
    handle = linked(n)
    cubin = bytearray(n.get_linked_cubin_size(handle))
    n.get_linked_cubin(handle, memoryview(cubin))
    n.destroy(handle)
    return bytes(cubin[:4]).hex()


def case_options_as_a_tuple_and_data_as_a_bytearray(n):
    handle = n.create(2, (ARCH, "-O3"))
    n.add_data(handle, int(n.InputType.PTX), bytearray(PTX), len(PTX), "add_one.ptx")
    n.complete(handle)
    size = n.get_linked_cubin_size(handle)
    n.destroy(handle)
    return size > 0


def case_add_file(n):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "add_one.ptx")
        with open(path, "wb") as f:
            f.write(PTX)
        handle = n.create(1, [ARCH])
        n.add_file(handle, n.InputType.PTX, path)
        n.complete(handle)
        size = n.get_linked_cubin_size(handle)
        n.destroy(handle)
    return size > 0


def case_info_log(n):
    handle = linked(n, options=(ARCH, "-verbose"))
    size, text = log(n, handle, "info")
    n.destroy(handle)
    # The verbose log names the kernel; it also times the link, which differs between runs.
    return [size == len(text), text.endswith(b"\0"), b"add_one" in text]


def case_empty_error_log(n):
    handle = linked(n)
    result = log(n, handle, "error")
    n.destroy(handle)
    return [result[0], result[1].hex()]


def case_bad_input_raises_with_the_error_log(n):
    handle = n.create(1, [ARCH])
    try:
        n.add_data(handle, n.InputType.PTX, b"not ptx", 7, "bad.ptx")
        n.complete(handle)
        return "no error"
    except n.nvJitLinkError as error:
        return [failure(error, n), log(n, handle, "error")[1].decode(errors="replace")]
    finally:
        n.destroy(handle)


def case_unknown_option_raises(n):
    try:
        n.create(1, ["-no-such-option"])
        return "no error"
    except n.nvJitLinkError as error:
        return failure(error, n)


def case_no_options_raises(n):
    # No options at all: an empty list is passed as NULL.
    try:
        n.create(0, [])
        return "no error"
    except n.nvJitLinkError as error:
        return failure(error, n)


def case_null_handle_raises(n):
    try:
        n.complete(0)
        return "no error"
    except n.nvJitLinkError as error:
        return failure(error, n)


def case_error_of_a_status_by_hand(n):
    return failure(n.nvJitLinkError(int(n.Result.ERROR_INTERNAL)), n)


def case_a_read_only_output_buffer_is_refused(n):
    handle = linked(n)
    try:
        n.get_linked_cubin(handle, bytes(n.get_linked_cubin_size(handle)))
        return "no error"
    finally:
        n.destroy(handle)


def assert_real(ours):
    """The calls reached the library and did their work: the results are real."""
    size, magic, _ = ours["link_ptx_to_cubin"]["value"]
    assert size > 0 and magic == "7f454c46"
    (kind, status, message, name, _), error_log = ours["bad_input_raises_with_the_error_log"]["value"]
    assert kind == "nvJitLinkError" and status != 0 and message == f"{name} ({status})" and "ERROR" in error_log
    assert ours["a_read_only_output_buffer_is_refused"]["error"] == "ValueError"
