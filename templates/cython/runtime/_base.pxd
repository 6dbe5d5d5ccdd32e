# Base classes and conversions shared by every generated module.

cimport cython
from cpython.long cimport PyLong_Check

# Not a garbage-collector object (declared here so that subclasses in other modules know).
@cython.no_gc
cdef class _Record:
    # Address of the C value: inside the object, inside an aligned block, or foreign memory.
    cdef void* _pvt_addr
    # The aligned block this object owns (over-aligned records), released once in __dealloc__.
    cdef void* _pvt_block
    cdef size_t _pvt_block_size
    cdef size_t _pvt_block_align
    # What keeps foreign memory alive (the parent of a nested view).
    cdef object _owner
    # Made over memory given as `_ptr=`: the C value outlives this object.
    cdef bint _pvt_foreign

# Records with pointer members (here or nested): the only records that hold arbitrary Python
# objects, so the only ones the garbage collector tracks.
cdef class _RefRecord(_Record):
    # What pointer members point into, by the address of the member: kept alive with the record.
    cdef dict _refs
    # Over foreign memory only: the address each of those members was set to, so that the
    # members still holding it are set to NULL when this object (and what it kept) goes.
    cdef dict _refs_at

# Handles and scalars hold no Python references, so they are not garbage-collector objects:
# creating and freeing one does no tracking.
cdef class _Handle:
    cdef void* _pvt_val
    cdef void** _pvt_ptr

cdef class _Scalar:
    cdef unsigned long long _pvt_raw
    cdef void* _pvt_ptr
    cdef int _pvt_size
    cdef bint _pvt_signed
    cdef object _value(self)

cdef void* _aligned_block(size_t size, size_t alignment) except NULL
cdef void _release_block(void* block, size_t size, size_t alignment) noexcept
cdef int _own_block(_Record self, size_t size, size_t alignment) except -1
cdef int _check_aligned(size_t address, size_t alignment, str name) except -1
cdef void* _addr_of(object value) except? NULL
cdef void* _void_ptr_checked(object value) except? NULL
cdef object _kernel_params(object params, void** stack, Py_ssize_t stack_len, void*** out, Py_ssize_t* count)
cdef void* _keep_addr(_RefRecord owner, void* slot, object value, bint void_pointer) except? NULL
cdef void** _keep_kernel_params(_RefRecord owner, void* slot, object value) except? NULL
cdef size_t _foreign_address(object ptr) except? 0
cdef object _int_of(object value, str what)
cdef bytes _bytes_of(object value, str what, bint text)
cdef void* _record_addr(object value, object cls, bint allow_none) except? NULL
cdef object _enum_value(dict members, long long value)
cdef object _new(object cls)
cdef int _fast_construct(type cls) except -1
cdef object _new_handle(object cls, void* value)
cdef object _view(object cls, void* address, object owner)
cdef object _registered(str name)
cdef int _scalar_init(_Scalar self, object init_value, object ptr) except -1
cdef int _handle_init(_Handle self, object init_value, object ptr) except -1
cdef int _record_init(_Record self, object ptr, size_t alignment, str name) except -1
cdef object _new_scalar(object cls, long long value)
cdef object _new_record_copy(object cls, const void* source, size_t size)
cdef object _bytes_at(const char* data, size_t size)
cdef str _unsupported(str what, dict members, long long value)
cdef long long _as_signed_checked(object value, int bits, str what) except? -1
cdef unsigned long long _as_unsigned_checked(object value, int bits, str what) except? 0x7FFFFFFFFFFFFFFF

# The value of an int (of any int subclass: enum members, bool) that fits a long long, read
# without raising; anything else takes the checked path, which raises.
cdef extern from *:
    """
    static inline int ctkgen_long_value(PyObject *o, long long *out) {
        int overflow;
        long long value;
    #if PY_VERSION_HEX >= 0x030C0000 && !defined(Py_LIMITED_API) && !defined(PYPY_VERSION)
        if (PyUnstable_Long_IsCompact((PyLongObject *)o)) {
            *out = (long long)PyUnstable_Long_CompactValue((PyLongObject *)o);
            return 1;
        }
    #endif
        value = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow != 0) {
            return 0;
        }
        *out = value;
        return 1;
    }

    /* The range checks' common case: an int in range. Forced inline because a module of
       thousands of functions exhausts the compiler's inlining budget, and a call per argument
       costs more than the check itself. */
    #ifndef Py_ALWAYS_INLINE
    #define Py_ALWAYS_INLINE
    #endif
    /* Whether `value` is in the range of a signed or unsigned C integer of `bits` bits. */
    static Py_ALWAYS_INLINE inline int ctkgen_in_signed_range(long long value, int bits) {
        return bits >= (int)(sizeof(long long) * 8)
            || (value >= -(1LL << (bits - 1)) && value < (1LL << (bits - 1)));
    }

    static Py_ALWAYS_INLINE inline int ctkgen_in_unsigned_range(long long value, int bits) {
        return value >= 0
            && (bits >= (int)(sizeof(unsigned long long) * 8) || ((unsigned long long)value >> bits) == 0);
    }

    static Py_ALWAYS_INLINE inline int ctkgen_int_fits_signed(PyObject *o, int bits, long long *out) {
        long long value;
        if (!PyLong_Check(o) || !ctkgen_long_value(o, &value) || !ctkgen_in_signed_range(value, bits)) {
            return 0;
        }
        *out = value;
        return 1;
    }

    static Py_ALWAYS_INLINE inline int ctkgen_int_fits_unsigned(PyObject *o, int bits, unsigned long long *out) {
        long long value;
        if (!PyLong_Check(o) || !ctkgen_long_value(o, &value) || !ctkgen_in_unsigned_range(value, bits)) {
            return 0;
        }
        *out = (unsigned long long)value;
        return 1;
    }
    """
    bint ctkgen_long_value(object o, long long* out) noexcept
    bint ctkgen_in_signed_range(long long value, int bits) noexcept
    bint ctkgen_in_unsigned_range(long long value, int bits) noexcept
    bint ctkgen_int_fits_signed(object o, int bits, long long* out) noexcept
    bint ctkgen_int_fits_unsigned(object o, int bits, unsigned long long* out) noexcept


cdef inline bint _scalar_value(_Scalar scalar, long long* out) noexcept:
    """The value an integer wrapper holds, read from its storage (aligned to its size) without
    building an int, when it fits a long long; an unsigned value beyond it takes the int path."""
    cdef unsigned long long raw
    cdef int unused = <int>(sizeof(unsigned long long) - scalar._pvt_size) * 8
    if scalar._pvt_size == sizeof(unsigned long long):
        raw = (<unsigned long long*>scalar._pvt_ptr)[0]
    elif scalar._pvt_size == sizeof(unsigned int):
        raw = (<unsigned int*>scalar._pvt_ptr)[0]
    elif scalar._pvt_size == sizeof(unsigned short):
        raw = (<unsigned short*>scalar._pvt_ptr)[0]
    else:
        raw = (<unsigned char*>scalar._pvt_ptr)[0]
    if scalar._pvt_signed:
        # Sign-extended from the wrapper's own width.
        out[0] = (<long long>(raw << unused)) >> unused
        return True
    if (raw >> (sizeof(unsigned long long) * 8 - 1)) != 0:
        return False
    out[0] = <long long>raw
    return True


cdef inline bint _fits_signed(object value, int bits, long long* out) noexcept:
    """True, with the value in `out`, for an int or integer wrapper in the range of a signed C
    integer of `bits` bits; False for anything else, which the checked path then judges."""
    if PyLong_Check(value):
        return ctkgen_int_fits_signed(value, bits, out)
    return isinstance(value, _Scalar) and _scalar_value(<_Scalar>value, out) and ctkgen_in_signed_range(out[0], bits)


cdef inline bint _fits_unsigned(object value, int bits, unsigned long long* out) noexcept:
    """As _fits_signed, for an unsigned C integer of `bits` bits (values beyond a long long take
    the checked path)."""
    cdef long long result
    if PyLong_Check(value):
        return ctkgen_int_fits_unsigned(value, bits, out)
    if isinstance(value, _Scalar) and _scalar_value(<_Scalar>value, &result) and ctkgen_in_unsigned_range(result, bits):
        out[0] = <unsigned long long>result
        return True
    return False


# Each argument and member write: an int in range is read inline; integer wrappers and
# everything else go to the checked function (which reads wrappers without building an int).
cdef inline long long _as_signed(object value, int bits, str what) except? -1:
    """`value` checked against the range of a signed C integer of `bits` bits."""
    cdef long long result
    if ctkgen_int_fits_signed(value, bits, &result):
        return result
    return _as_signed_checked(value, bits, what)


cdef inline unsigned long long _as_unsigned(object value, int bits, str what) except? 0x7FFFFFFFFFFFFFFF:
    """`value` checked against the range of an unsigned C integer of `bits` bits."""
    cdef unsigned long long result
    if ctkgen_int_fits_unsigned(value, bits, &result):
        return result
    return _as_unsigned_checked(value, bits, what)


cdef inline void* _void_ptr(object value) except? NULL:
    """The pointer a `void *` argument carries (see _void_ptr_checked); an int in the range of a
    pointer is read inline."""
    cdef unsigned long long address
    if ctkgen_int_fits_unsigned(value, sizeof(void*) * 8, &address):
        return <void*><size_t>address
    return _void_ptr_checked(value)


cdef inline void* _handle_addr(object value, str what) except? NULL:
    """The pointer a handle member or argument takes: a handle's value, None (NULL) or an
    int in the range of a pointer."""
    if value is None:
        return NULL
    if isinstance(value, _Handle):
        return (<_Handle>value)._pvt_ptr[0]
    return <void*><size_t>_as_unsigned(value, sizeof(void*) * 8, what)


cdef inline void* _handle_ref(object value, str what) except? NULL:
    """The address of a handle the callee reads and may update: a handle's own storage, None
    (NULL), an int in the range of a pointer (the address itself), or another binding's handle
    by its `getPtr()`."""
    if value is None:
        return NULL
    if isinstance(value, _Handle):
        return <void*>(<_Handle>value)._pvt_ptr
    if not isinstance(value, int) and hasattr(value, "getPtr"):
        value = value.getPtr()
    return <void*><size_t>_as_unsigned(value, sizeof(void*) * 8, what)


cdef str _record_repr(_Record self)
cdef bytes _byte_values(object value, Py_ssize_t size, bint text, int low, str what)
cdef _Record _new_member_array(Py_ssize_t count, size_t size, size_t alignment)
cdef _Record _record_copies(list items, size_t size, size_t alignment, object cls)
cdef int _keep_member_array(_RefRecord owner, void* slot, object block) except -1
cdef object _member_array_owner(_RefRecord owner, void* slot, void* data, long long count, size_t size,
                                Py_ssize_t* length)
cdef int _adopt_refs(_RefRecord block, object source, void* dest, size_t size) except -1
