"""What the cases modules of the raise-convention libraries (nvjitlink_cases.py, nvvm_cases.py,
nvfatbin_cases.py) share: the kernel they compile, link or pack, and how they record an error."""
import pickle

# A kernel that adds one to an int, as PTX: what a compiler hands the linker or the packer.
PTX = b""".version 7.8
.target sm_90
.address_size 64

.visible .entry add_one(.param .u64 data)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [data];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2];
    add.s32 %r2, %r1, 1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""


def failure(error, n):
    """What a library's error says: its class, status, message and what pickling keeps."""
    again = pickle.loads(pickle.dumps(error))
    return [type(error).__name__, int(error.status), str(error), n.Result(error.status).name,
            [type(again).__name__, int(again.status), str(again)]]
