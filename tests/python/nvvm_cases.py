"""NVVM calls run on the generated `nvvm` module and on the official `cuda.bindings.nvvm` of the
same CTK major.minor, in one process, against the real libnvvm of that CTK (its wheel on
sys.path; compiling NVVM IR needs no GPU). Run by test_jit_libraries.py through
both_modules.py, which prints `{case: {"ours": ..., "official": ...}}`."""
from raise_cases import failure

MODULE = "nvvm"

# A kernel that adds one to a float, as NVVM IR text (the 64-bit layout NVVM asks for).
IR = b"""target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-unknown-cuda"

define void @add_one(float* %data) {
entry:
  %value = load float, float* %data
  %sum = fadd float %value, 1.0
  store float %sum, float* %data
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float*)* @add_one, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
"""
OPTIONS = ["-arch=compute_90"]


def program_log(n, prog):
    size = n.get_program_log_size(prog)
    buffer = bytearray(size)
    n.get_program_log(prog, buffer)
    return size, bytes(buffer)


def program(n, ir=IR):
    prog = n.create_program()
    n.add_module_to_program(prog, ir, len(ir), "add_one.ll")
    return prog


def case_version(n):
    return list(n.version())


def case_ir_version(n):
    return list(n.ir_version())


def case_result_members(n):
    return [[name, int(member)] for name, member in n.Result.__members__.items()]


def case_error_strings(n):
    return [[int(member), n.get_error_string(member)] for member in n.Result]


def case_program_is_an_int(n):
    prog = n.create_program()
    try:
        return [type(prog).__name__, prog != 0]
    finally:
        n.destroy_program(prog)


def case_verify_and_compile(n):
    prog = program(n)
    n.verify_program(prog, 0, [])
    n.compile_program(prog, len(OPTIONS), OPTIONS)
    size = n.get_compiled_result_size(prog)
    ptx = bytearray(size)
    n.get_compiled_result(prog, ptx)
    log = program_log(n, prog)
    n.destroy_program(prog)
    # The same IR compiled by the same library: the same PTX on both sides.
    return [size, bytes(ptx).decode(), log[0], log[1].hex()]


def case_compile_with_options_as_a_tuple(n):
    prog = program(n)
    options = ("-arch=compute_90", "-opt=0")
    n.compile_program(prog, len(options), options)
    size = n.get_compiled_result_size(prog)
    n.destroy_program(prog)
    return size > 1


def case_result_into_a_memoryview(n):
    prog = program(n)
    n.compile_program(prog, 1, OPTIONS)
    ptx = bytearray(n.get_compiled_result_size(prog))
    n.get_compiled_result(prog, memoryview(ptx))
    n.destroy_program(prog)
    return b".entry add_one" in ptx


def case_lazy_text_module(n):
    # A lazily added module must be bitcode: the text form is refused when compiling.
    prog = program(n)
    unused = IR.split(b"define")[0] + b"define void @unused() {\nentry:\n  ret void\n}\n"
    n.lazy_add_module_to_program(prog, unused, len(unused), "unused.ll")
    try:
        n.compile_program(prog, 1, OPTIONS)
        return "no error"
    except n.nvvmError as error:
        size, text = program_log(n, prog)
        return [failure(error, n), size, text.hex()]
    finally:
        n.destroy_program(prog)


def case_invalid_ir_raises_with_the_log(n):
    prog = program(n, ir=b"this is not NVVM IR")
    try:
        n.compile_program(prog, 1, OPTIONS)
        return "no error"
    except n.nvvmError as error:
        return [failure(error, n), program_log(n, prog)[1].decode(errors="replace")]
    finally:
        n.destroy_program(prog)


def case_verify_reports_invalid_ir(n):
    prog = program(n, ir=IR.replace(b"ret void", b"ret float 1.0"))
    try:
        n.verify_program(prog, 0, [])
        return "no error"
    except n.nvvmError as error:
        return [failure(error, n), program_log(n, prog)[1].decode(errors="replace")]
    finally:
        n.destroy_program(prog)


def case_invalid_option_raises(n):
    prog = program(n)
    try:
        n.compile_program(prog, 1, ["-no-such-option"])
        return "no error"
    except n.nvvmError as error:
        return failure(error, n)
    finally:
        n.destroy_program(prog)


def case_no_module_raises(n):
    prog = n.create_program()
    try:
        n.compile_program(prog, 0, [])
        return "no error"
    except n.nvvmError as error:
        return failure(error, n)
    finally:
        n.destroy_program(prog)


def case_null_program_raises(n):
    try:
        n.get_compiled_result_size(0)
        return "no error"
    except n.nvvmError as error:
        return failure(error, n)


def case_error_of_a_status_by_hand(n):
    return failure(n.nvvmError(int(n.Result.ERROR_COMPILATION)), n)


def case_a_buffer_shorter_than_its_size_is_refused(n):
    prog = n.create_program()
    try:
        n.add_module_to_program(prog, IR[:10], len(IR), "short.ll")
        return "no error"
    finally:
        n.destroy_program(prog)


def assert_real(ours):
    """The calls reached the library and did their work: the results are real."""
    size, ptx, log_size, _ = ours["verify_and_compile"]["value"]
    assert size == len(ptx) and ".entry add_one" in ptx and log_size == 1
    assert ours["invalid_option_raises"]["value"][:3] == ["nvvmError", 7, "ERROR_INVALID_OPTION (7)"]
    assert ours["a_buffer_shorter_than_its_size_is_refused"]["error"] == "ValueError"
    assert ours["result_into_a_memoryview"]["value"] is True
