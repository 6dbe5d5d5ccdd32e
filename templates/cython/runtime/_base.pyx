# cython: language_level=3, boundscheck=False, wraparound=False
cimport cython
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_ND, PyBUF_SIMPLE, PyObject_CheckBuffer
from cpython.list cimport PyList_CheckExact
from cpython.float cimport PyFloat_Check
from cpython.long cimport PyLong_Check, PyLong_CheckExact
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.number cimport PyIndex_Check, PyNumber_Index
from cpython.sequence cimport PySequence_Fast_GET_ITEM
from cpython.tuple cimport PyTuple_CheckExact
import ctypes as _ctypes
from libc.stdlib cimport free
from libc.string cimport memcpy, memmove, memset

# What this package was generated with (strict integers, the block cache's size): the one part
# of the shared runtime that is generated.
include "_base_config.pxi"

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef extern from "<string.h>" nogil:
    size_t strnlen(const char* s, size_t maxlen)

cdef extern from *:
    """
    static PyObject *ctkgen_tp_new(PyObject *cls, PyObject *args) {
        return ((PyTypeObject *)cls)->tp_new((PyTypeObject *)cls, args, NULL);
    }
    """
    object ctkgen_tp_new(object cls, object args)

cdef tuple _NO_ARGS = ()
cdef object _C_VOID_P = _ctypes.c_void_p

# Calling a generated class with no arguments goes straight to its tp_new, through the type's
# tp_vectorcall as builtin types do; any other call takes the ordinary type call. tp_vectorcall is never inherited: Python subclasses keep the ordinary
# path.
cdef extern from *:
    """
    static PyObject *ctkgen_construct(PyObject *type, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
        PyTypeObject *cls = (PyTypeObject *)type;
        Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
        Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
        PyObject *positional, *keywords = NULL, *result = NULL, *empty;
        Py_ssize_t i;
        if (nargs == 0 && nkw == 0) {
            empty = PyTuple_New(0);
            if (empty == NULL) {
                return NULL;
            }
            /* No __init__: every generated class's __init__ does nothing without arguments (its
               defaults are the zero value and no foreign address), and only generated classes
               get this path. */
            result = cls->tp_new(cls, empty, NULL);
            Py_DECREF(empty);
            return result;
        }
        positional = PyTuple_New(nargs);
        if (positional == NULL) {
            return NULL;
        }
        for (i = 0; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(positional, i, args[i]);
        }
        if (nkw > 0) {
            keywords = PyDict_New();
            if (keywords == NULL) {
                goto done;
            }
            for (i = 0; i < nkw; i++) {
                if (PyDict_SetItem(keywords, PyTuple_GET_ITEM(kwnames, i), args[nargs + i]) < 0) {
                    goto done;
                }
            }
        }
        result = PyType_Type.tp_call(type, positional, keywords);
    done:
        Py_DECREF(positional);
        Py_XDECREF(keywords);
        return result;
    }

    static int ctkgen_fast_construct(PyObject *type) {
        ((PyTypeObject *)type)->tp_vectorcall = ctkgen_construct;
        return 0;
    }
    """
    int ctkgen_fast_construct(object type) except -1


cdef int _fast_construct(type cls) except -1:
    """Gives `cls` the direct construction path (see ctkgen_construct)."""
    return ctkgen_fast_construct(cls)

# Every record class by C name (aliases included); filled as the record modules load, so
# nested views find classes that live in other modules without import cycles.
_class_registry = {}


cdef object _registered(str name):
    return _class_registry[name]


# Freed aligned blocks kept for reuse, so constructing an over-aligned record costs no
# allocator call in the steady state. Only touched with the GIL held, so off without one
# (free-threaded builds); off under AddressSanitizer, so a use after free is still reported.
cdef extern from *:
    """
    #if defined(Py_GIL_DISABLED) || defined(__SANITIZE_ADDRESS__)
    #define CTKGEN_BLOCK_CACHE_LIMIT 0
    #elif defined(__has_feature)
    #if __has_feature(address_sanitizer)
    #define CTKGEN_BLOCK_CACHE_LIMIT 0
    #endif
    #endif
    #ifndef CTKGEN_BLOCK_CACHE_LIMIT
    #define CTKGEN_BLOCK_CACHE_LIMIT CTKGEN_BLOCK_CACHE_SLOTS
    #endif
    """
    const int CTKGEN_BLOCK_CACHE_LIMIT

cdef enum:
    _BLOCK_CACHE_SLOTS = CTKGEN_BLOCK_CACHE_SLOTS
cdef void* _cached_block[_BLOCK_CACHE_SLOTS]
cdef size_t _cached_size[_BLOCK_CACHE_SLOTS]
cdef size_t _cached_align[_BLOCK_CACHE_SLOTS]
cdef int _cached_count = 0


cdef void* _aligned_block(size_t size, size_t alignment) except NULL:
    """A zeroed block of `size` bytes aligned to `alignment`; release it with _release_block or free."""
    global _cached_count
    cdef void* block = NULL
    cdef int i
    if alignment < sizeof(void*):
        alignment = sizeof(void*)
    i = _cached_count - 1
    while i >= 0:
        if _cached_size[i] == size and _cached_align[i] == alignment:
            block = _cached_block[i]
            _cached_count -= 1
            _cached_block[i] = _cached_block[_cached_count]
            _cached_size[i] = _cached_size[_cached_count]
            _cached_align[i] = _cached_align[_cached_count]
            memset(block, 0, size)
            return block
        i -= 1
    if posix_memalign(&block, alignment, size) != 0 or block == NULL:
        raise MemoryError()
    memset(block, 0, size)
    return block


cdef void _release_block(void* block, size_t size, size_t alignment) noexcept:
    global _cached_count
    if alignment < sizeof(void*):
        alignment = sizeof(void*)
    if _cached_count < CTKGEN_BLOCK_CACHE_LIMIT and _cached_count < _BLOCK_CACHE_SLOTS:
        _cached_block[_cached_count] = block
        _cached_size[_cached_count] = size
        _cached_align[_cached_count] = alignment
        _cached_count += 1
    else:
        free(block)


cdef int _own_block(_Record self, size_t size, size_t alignment) except -1:
    self._pvt_block = _aligned_block(size, alignment)
    self._pvt_block_size = size
    self._pvt_block_align = alignment
    self._pvt_addr = self._pvt_block
    return 0


cdef inline void _drop_block(_Record self) noexcept:
    if self._pvt_block != NULL:
        _release_block(self._pvt_block, self._pvt_block_size, self._pvt_block_align)
        self._pvt_block = NULL


cdef int _record_init(_Record self, object ptr, size_t alignment, str name) except -1:
    """Points a record at foreign memory (the `_ptr=` keyword), refusing a misaligned address."""
    cdef size_t address = _foreign_address(ptr)
    if address == 0:
        return 0
    _check_aligned(address, alignment, name)
    _drop_block(self)
    self._pvt_addr = <void*>address
    self._pvt_foreign = True
    return 0


cdef int _check_aligned(size_t address, size_t alignment, str name) except -1:
    if address % alignment != 0:
        raise ValueError(f"address {address:#x} is not aligned to {alignment} bytes as {name} requires")
    return 0


# Whether the type converts with int() through __int__ (floats, Fraction, Decimal; numpy
# floats): str and bytes have no __int__, so int() parsing text never applies.
cdef extern from *:
    """
    static int ctkgen_has_int(PyObject *o) {
        PyNumberMethods *number = Py_TYPE(o)->tp_as_number;
        return number != NULL && number->nb_int != NULL;
    }
    """
    bint ctkgen_has_int(object o) noexcept


cdef object _int_of(object value, str what):
    """`value` as an int: ints (enum members included) and objects with __index__ (wrappers,
    numpy integers); str, bytes and None are not integers. A float (or other object with
    __int__) converts as int() converts it, toward zero, as cuda.bindings does; int()'s errors
    (NaN, infinity) name the path. In a package generated with strict integers it is taken only
    when its value is integral; any other is a TypeError, so no value is silently changed."""
    if PyLong_Check(value):
        return value
    if PyIndex_Check(value):
        return PyNumber_Index(value)
    if ctkgen_has_int(value) and _strict_integers:
        if PyFloat_Check(value):
            # NaN and infinity are not integral either.
            if value.is_integer():
                return int(value)
        else:
            try:
                converted = int(value)
            except (ValueError, OverflowError):
                converted = None
            if converted is not None and converted == value:
                return converted
        raise TypeError(f"{what} takes an integral value, not {value!r} (this package was generated with "
                        "--strict-integers, which refuses what truncation would change)")
    if ctkgen_has_int(value):
        try:
            return int(value)
        except (ValueError, OverflowError) as error:
            raise type(error)(f"{what}: {error}") from None
    raise TypeError(f"{what} takes an int, not {type(value).__name__}")


cdef object _out_of_range(object value, int bits, bint signed, str what):
    kind = "signed" if signed else "unsigned"
    return OverflowError(f"{what}: {value} does not fit in a {bits}-bit {kind} integer")


cdef long long _as_signed_checked(object value, int bits, str what) except? -1:
    """`value` checked against the range of a signed C integer of `bits` bits: any object (the
    inline `_as_signed` of _base.pxd takes this path for all but in-range ints)."""
    cdef long long result
    if not PyLong_Check(value) and _fits_signed(value, bits, &result):
        return result
    value = _int_of(value, what)
    try:
        result = value
    except OverflowError:
        raise _out_of_range(value, bits, True, what) from None
    if bits < <int>(sizeof(long long) * 8) and (result < -((<long long>1) << (bits - 1)) or result >= ((<long long>1) << (bits - 1))):
        raise _out_of_range(value, bits, True, what)
    return result


cdef unsigned long long _as_unsigned_checked(object value, int bits, str what) except? 0x7FFFFFFFFFFFFFFF:
    """`value` checked against the range of an unsigned C integer of `bits` bits: any object
    (the inline `_as_unsigned` of _base.pxd takes this path for all but in-range ints)."""
    cdef unsigned long long result
    if not PyLong_Check(value) and _fits_unsigned(value, bits, &result):
        return result
    value = _int_of(value, what)
    try:
        result = value
    except OverflowError:
        raise _out_of_range(value, bits, False, what) from None
    if bits < <int>(sizeof(unsigned long long) * 8) and (result >> bits) != 0:
        raise _out_of_range(value, bits, False, what)
    return result


cdef bytes _bytes_of(object value, str what, bint text):
    """The bytes a `char[]` member or a string argument takes: bytes, any buffer, or (`text`) a
    str in UTF-8. An int is not a length here."""
    if isinstance(value, bytes):
        return value
    if text and isinstance(value, str):
        return (<str>value).encode()
    if PyObject_CheckBuffer(value):
        return bytes(value)
    raise TypeError(f"{what} takes bytes{' or str' if text else ''}, not {type(value).__name__}")


cdef object _new(object cls):
    return ctkgen_tp_new(cls, _NO_ARGS)


cdef object _new_handle(object cls, void* value):
    cdef _Handle h = ctkgen_tp_new(cls, _NO_ARGS)
    h._pvt_ptr[0] = value
    return h


cdef object _new_scalar(object cls, long long value):
    cdef _Scalar s = ctkgen_tp_new(cls, _NO_ARGS)
    # Little-endian: the low bytes hold the value for every width.
    memcpy(s._pvt_ptr, &value, s._pvt_size)
    return s


cdef object _new_record_copy(object cls, const void* source, size_t size):
    cdef _Record r = ctkgen_tp_new(cls, _NO_ARGS)
    memcpy(r._pvt_addr, source, size)
    return r


cdef object _view(object cls, void* address, object owner):
    """A record over memory inside `owner` (a nested member), keeping `owner` alive."""
    cdef _Record r = ctkgen_tp_new(cls, _NO_ARGS)
    _drop_block(r)
    r._pvt_addr = address
    r._owner = owner
    return r


cdef object _member(dict members, long long value):
    """The member of `value` in an enum's table by value, or None. A table whose members are not
    made yet holds its class under None: asking the class for its table makes them."""
    member = members.get(value)
    if member is None and None in members:
        members[None].__singletons__
        member = members.get(value)
    return member


cdef object _enum_value(dict members, long long value):
    member = _member(members, value)
    return value if member is None else member


cdef object _bytes_at(const char* data, size_t size):
    # An output buffer of no elements is never allocated: NULL, which strnlen must not see.
    if data == NULL or size == 0:
        return b""
    return data[:strnlen(data, size)]


cdef void* _addr_of(object value) except? NULL:
    """An address from an int, None, a generated object, an object with getPtr() or a buffer."""
    if value is None:
        return NULL
    if isinstance(value, int):
        return <void*><size_t>value
    if isinstance(value, _Record):
        return (<_Record>value)._pvt_addr
    if isinstance(value, _Handle):
        return (<_Handle>value)._pvt_ptr
    if isinstance(value, _Scalar):
        return (<_Scalar>value)._pvt_ptr
    if hasattr(value, "getPtr"):
        return <void*><size_t>value.getPtr()
    return _buffer_data(value)


cdef void* _buffer_data(object value) except? NULL:
    """The address of a contiguous buffer's data. The caller keeps `value` alive for as long as
    the address is used."""
    cdef Py_buffer view
    PyObject_GetBuffer(value, &view, PyBUF_SIMPLE)
    cdef void* address = view.buf
    PyBuffer_Release(&view)
    return address


cdef bint _array_data(object value, void** data):
    """The data of a buffer of one dimension or more (a numpy array: it has __index__ too but
    refuses it unless 0-d), told by the buffer's own dimensions so that no exception is raised
    and caught; False for a 0-d buffer or one that gives no dimensions."""
    cdef Py_buffer view
    try:
        PyObject_GetBuffer(value, &view, PyBUF_ND)
    except BufferError:
        return False
    data[0] = view.buf
    cdef bint array = view.ndim != 0
    PyBuffer_Release(&view)
    return array


cdef void* _void_ptr_checked(object value) except? NULL:
    """The pointer a `void *` argument carries: an int is the address itself; a handle or an
    integer typedef object (a device address) carries its value, not the address of its storage; a
    record is its own storage; a buffer is its data; None is NULL."""
    cdef unsigned long long raw
    cdef void* address
    if value is None:
        return NULL
    if isinstance(value, int):
        return <void*><size_t>value
    # The usual host buffers, known by exact type: no pointer value to look for.
    if type(value) is bytearray or type(value) is bytes or type(value) is memoryview:
        return _buffer_data(value)
    if isinstance(value, _Record):
        return (<_Record>value)._pvt_addr
    if isinstance(value, _Handle):
        return (<_Handle>value)._pvt_ptr[0]
    if isinstance(value, _Scalar):
        # The stored bits, zero-extended: a pointer-sized typedef is unsigned.
        raw = 0
        memcpy(&raw, (<_Scalar>value)._pvt_ptr, (<_Scalar>value)._pvt_size)
        return <void*><size_t>raw
    if isinstance(value, _C_VOID_P):
        return <void*><size_t>(value.value or 0)
    # A buffer is its data, but for numpy integer scalars and 0-d arrays, which carry a value
    # (they have __index__) as foreign handle and integer wrappers do.
    if PyObject_CheckBuffer(value):
        if not PyIndex_Check(value):
            return _buffer_data(value)
        if _array_data(value, &address):
            return address
    if PyIndex_Check(value):
        try:
            return <void*><size_t>PyNumber_Index(value)
        except TypeError:
            pass
    if PyObject_CheckBuffer(value):
        return _buffer_data(value)
    if hasattr(value, "getPtr"):
        return <void*><size_t>value.getPtr()
    raise TypeError(f"expected an int, None, a buffer or an object with a pointer value, got {type(value).__name__}")


cdef bint _is_ctypes_type(object kind):
    return isinstance(kind, type) and issubclass(
        kind, (_ctypes._SimpleCData, _ctypes.Structure, _ctypes.Union, _ctypes.Array, _ctypes._Pointer))


cdef bint _is_binding_type(object kind):
    return isinstance(kind, type) and issubclass(kind, (_Record, _Handle, _Scalar))


# How a launch stores a value typed by a simple ctypes type itself, without building the ctypes
# object: the kind of C value and its size in bytes, by ctypes type. A type not listed here (a
# Structure, an array, bool, long double, a subclass) goes through ctypes.
cdef enum _SlotKind:
    _SLOT_SIGNED
    _SLOT_UNSIGNED
    _SLOT_FLOAT
    _SLOT_POINTER

# The base of ctypes' simple types, looked up once (the conversion loop tests every value).
cdef object _SIMPLE_CDATA = _ctypes._SimpleCData
cdef dict _ctypes_slots = {}
for _kind in (_ctypes.c_byte, _ctypes.c_ubyte, _ctypes.c_short, _ctypes.c_ushort, _ctypes.c_int, _ctypes.c_uint,
              _ctypes.c_long, _ctypes.c_ulong, _ctypes.c_longlong, _ctypes.c_ulonglong, _ctypes.c_size_t,
              _ctypes.c_ssize_t, _ctypes.c_float, _ctypes.c_double, _ctypes.c_void_p):
    _code = _kind._type_
    if _kind is _ctypes.c_void_p:
        _slot = _SLOT_POINTER
    elif _code in "fd":
        _slot = _SLOT_FLOAT
    elif _code in "bhilqn":
        _slot = _SLOT_SIGNED
    else:
        _slot = _SLOT_UNSIGNED
    if _ctypes.sizeof(_kind) <= sizeof(void*):
        _ctypes_slots[_kind] = (_slot, _ctypes.sizeof(_kind))


cdef bint _store_slot(void* slot, object item, object kind, tuple how, Py_ssize_t i) except -1:
    """Writes `item` into `slot` as the simple C value `how` describes (see _ctypes_slots), when
    it is a plain number (or None for a pointer), checked as every integer is: a value that does
    not fit is an OverflowError. False for anything else, which then goes through ctypes.

    The slot's bytes past a narrower value are zero: a kernel that declares a wider parameter than
    the type given (`c_uint` for a `size_t`, as NVIDIA's graph sample passes a count) reads the
    value, not what the slot held before."""
    cdef int slot_kind = how[0]
    cdef int size = how[1]
    cdef long long signed_value
    cdef unsigned long long unsigned_value
    cdef double double_value
    cdef float float_value
    cdef void* address
    memset(slot, 0, sizeof(void*))
    if slot_kind == _SLOT_FLOAT:
        if not PyLong_Check(item) and not PyFloat_Check(item):
            return False
        double_value = item
        if size == sizeof(float):
            float_value = <float>double_value
            memcpy(slot, &float_value, sizeof(float))
        else:
            memcpy(slot, &double_value, sizeof(double))
        return True
    if slot_kind == _SLOT_POINTER and item is None:
        return True
    if slot_kind == _SLOT_POINTER and not PyLong_Check(item):
        # An object of a binding (this package's or another's, such as a sibling module's
        # record) passes the address of its storage, its getPtr(), as cuda.bindings passes it.
        if isinstance(item, (_Record, _Handle, _Scalar)) or hasattr(item, "getPtr"):
            address = _addr_of(item)
            memcpy(slot, &address, sizeof(void*))
            return True
        return False
    if not PyLong_Check(item):
        return False
    # Out of range (or beyond a long long): the checked path raises, naming the entry.
    if slot_kind == _SLOT_SIGNED:
        if not _fits_signed(item, size * 8, &signed_value):
            signed_value = _as_signed_checked(item, size * 8, f"kernelParams: values[{i}] ({kind.__name__})")
        memcpy(slot, &signed_value, size)
    else:
        if not _fits_unsigned(item, size * 8, &unsigned_value):
            unsigned_value = _as_unsigned_checked(item, size * 8, f"kernelParams: values[{i}] ({kind.__name__})")
        memcpy(slot, &unsigned_value, size)
    return True


cdef int _store_enum_slot(void* slot, object item, Py_ssize_t i) except -1:
    """Writes an enum member typed None into `slot` as a C enum is passed: an int, signed or
    unsigned as its value needs; a value of neither 32-bit range is an OverflowError."""
    cdef long long signed_value
    cdef unsigned long long unsigned_value
    if isinstance(item, bool):
        raise TypeError(f"kernelParams: values[{i}] is a bool, which has no storage to pass; "
                        "give its type (a ctypes type or a binding class)")
    memset(slot, 0, sizeof(void*))
    if _fits_signed(item, 32, &signed_value):
        memcpy(slot, &signed_value, 4)
    elif _fits_unsigned(item, 32, &unsigned_value):
        memcpy(slot, &unsigned_value, 4)
    else:
        raise OverflowError(f"kernelParams: values[{i}] = {int(item)} ({type(item).__name__}) does not fit a C enum")
    return 0


cdef object _kernel_params(object params, void** stack, Py_ssize_t stack_len, void*** out, Py_ssize_t* count):
    """Fills the `void *[]` of a launch: each entry points at one argument's value.

    `params` takes the forms cuda.bindings documents: None (no arguments), an int (the address
    of a ready array), an object with the buffer protocol holding that array (a numpy array of
    addresses), or `(values, types)`, where a ctypes type (`c_int`, a `Structure`, ...) or a
    binding class (an integer or handle wrapper) converts its value to that C type (a value already of that
    type is used as it is; a ctypes number of another type by its value; an object of a binding
    typed `c_void_p` as the address of its storage, its getPtr()) and None takes the value's own
    storage (a binding object; an enum member is its value as a C enum, and a plain int or a bool
    is a TypeError). A list of
    objects whose storage is the argument (records, handles, ints as addresses, enum members as
    values) is accepted too. Anything else is a TypeError naming the element. Returns what the caller keeps alive
    until the call returns, or None. `count[0]` is set before anything is allocated beyond
    `stack`, so the caller can free it.

    `stack` holds `2 * stack_len` slots: the pointer array, then one value slot per entry, where
    a value of a simple ctypes type is stored directly; more entries take one allocation of the
    same shape."""
    cdef Py_ssize_t n, i
    cdef void** array
    cdef void** slots
    cdef object types = None
    cdef list keep = None
    cdef Py_buffer view
    out[0] = NULL
    count[0] = 0
    if params is None:
        return None
    if isinstance(params, int):
        out[0] = <void**><size_t>_as_unsigned(params, 8 * sizeof(void*), "kernelParams")
        return None
    if not PyList_CheckExact(params) and not PyTuple_CheckExact(params):
        if not PyObject_CheckBuffer(params):
            raise TypeError("kernelParams: expected None, an int address, a buffer holding the pointer array, "
                            f"(values, types) or a list of arguments, got {type(params).__name__}")
        # The buffer is the pointer array itself, as cuda.bindings reads it.
        PyObject_GetBuffer(params, &view, PyBUF_SIMPLE)
        out[0] = <void**>view.buf
        PyBuffer_Release(&view)
        return params
    # A list of two lists cannot be the plain form: a list is not an argument's storage.
    if (len(params) == 2 and isinstance(params[0], (tuple, list))
            and isinstance(params[1], (tuple, list))):
        params, types = params
        if len(params) != len(types):
            raise ValueError(f"kernelParams: {len(params)} values but {len(types)} types")
    n = len(params)
    if n == 0:
        return None
    if n <= stack_len:
        array = stack
        slots = stack + stack_len
    else:
        array = <void**>PyMem_Malloc(2 * n * sizeof(void*))
        if array == NULL:
            raise MemoryError()
        slots = array + n
    count[0] = n
    out[0] = array
    for i in range(n):
        # Lists and tuples (the forms the bindings document) are read in place.
        item = <object>PySequence_Fast_GET_ITEM(params, i) if PyList_CheckExact(params) or PyTuple_CheckExact(params) \
            else params[i]
        if types is None:
            kind = None
        elif PyList_CheckExact(types) or PyTuple_CheckExact(types):
            kind = <object>PySequence_Fast_GET_ITEM(types, i)
        else:
            kind = types[i]
        if kind is None:
            # Records first (tensor maps and other by-value arguments): their storage is the argument.
            if isinstance(item, _Record):
                array[i] = (<_Record>item)._pvt_addr
            elif PyLong_Check(item) and not PyLong_CheckExact(item):
                # An enum member (of any module, an int subclass) is its value, a C enum's int, as
                # cuda.bindings passes it; a bool says nothing of its C type.
                _store_enum_slot(&slots[i], item, i)
                array[i] = &slots[i]
            elif PyLong_CheckExact(item) and types is None:
                # The list form of ours alone: a plain int there is the argument's address.
                array[i] = _addr_of(item)
            elif isinstance(item, (_Handle, _Scalar)) or PyObject_CheckBuffer(item) or hasattr(item, "getPtr"):
                array[i] = _addr_of(item)
            else:
                # A plain int typed None has no C type to take: read as an address, the driver
                # would dereference it (cuda.bindings refuses it too).
                raise TypeError(f"kernelParams: values[{i}] is a {type(item).__name__}, which has no storage to pass; "
                                "give its type (a ctypes type or a binding class)")
            continue
        # A ctypes number of another type converts by its value (`c_float(x)` declared
        # `c_double` arrives as the double of x), checked as a plain value is.
        if (not PyLong_Check(item) and not PyFloat_Check(item) and isinstance(item, _SIMPLE_CDATA)
                and type(item) is not kind and isinstance(kind, type) and issubclass(kind, _SIMPLE_CDATA)):
            item = item.value
        how = _ctypes_slots.get(kind)
        if how is not None and _store_slot(&slots[i], item, kind, <tuple>how, i):
            array[i] = &slots[i]
            continue
        if not _is_ctypes_type(kind) and not _is_binding_type(kind):
            raise TypeError(f"kernelParams: types[{i}] is {kind!r}; expected None, a ctypes type or a binding class")
        if isinstance(item, kind):
            converted = item
        else:
            if _is_ctypes_type(kind) and isinstance(item, (_Handle, _Scalar)):
                item = int(item)
            try:
                converted = kind(item)
            except (TypeError, ValueError) as error:
                raise TypeError(f"kernelParams: values[{i}] ({type(item).__name__}) does not convert to "
                                f"{kind.__name__}: {error}") from None
            # ctypes wraps integers silently: a value that does not fit is refused.
            if isinstance(item, int) and issubclass(kind, _ctypes._SimpleCData) and converted.value != item:
                raise OverflowError(f"kernelParams: values[{i}] = {item} does not fit {kind.__name__}")
        if keep is None:
            keep = []
        keep.append(converted)
        # Binding objects and ctypes instances both expose their storage.
        array[i] = (<_Record>converted)._pvt_addr if isinstance(converted, _Record) else _addr_of(converted)
    return keep


cdef class _KernelArgs:
    """A record member's kernel parameters: the pointer array (owned when it was built here)
    and the converted values it points at, kept alive by the record that holds this object."""
    cdef void** array
    cdef Py_ssize_t count
    cdef object keep

    def __dealloc__(self):
        if self.count > 0:
            PyMem_Free(self.array)


cdef void** _keep_kernel_params(_RefRecord owner, void* slot, object value) except? NULL:
    """Converts `value` as a launch's `kernelParams` argument is converted, for the member at
    `slot`; the outermost record keeps the result alive for as long as the member holds it."""
    cdef _KernelArgs args = _KernelArgs.__new__(_KernelArgs)
    args.keep = _kernel_params(value, NULL, 0, &args.array, &args.count)
    _hold(<_RefRecord>_root_of(owner), slot, None if args.array == NULL else args, <void*>args.array)
    return args.array


cdef object _root_of(object record):
    """The outermost record a nested view lives in (the record itself when it is not a view)."""
    while isinstance(record, _Record) and (<_Record>record)._owner is not None:
        record = (<_Record>record)._owner
    return record


cdef void* _keep_addr(_RefRecord owner, void* slot, object value, bint void_pointer) except? NULL:
    """The address a pointer member at `slot` is set to; what it points into is kept alive by
    the outermost record, which outlives any view of a nested member."""
    # A `void *` member reads a wrapper as a `void *` argument does (its value); a typed
    # pointer member takes the address of the wrapper's storage.
    cdef void* address = _void_ptr(value) if void_pointer else _addr_of(value)
    cdef _RefRecord holder = <_RefRecord>_root_of(owner)
    # Memory of the holder itself needs no keeping (and keeping it would be a cycle).
    if value is None or isinstance(value, int) or _root_of(value) is holder:
        _hold(holder, slot, None, NULL)
    else:
        _hold(holder, slot, value, address)
    return address


cdef size_t _foreign_address(object ptr) except? 0:
    """The address given as `_ptr=`: an int in the range of a pointer (0 for none)."""
    if ptr is 0 or ptr is None:
        return 0
    return <size_t>_as_unsigned(ptr, sizeof(size_t) * 8, "_ptr")


cdef void* _record_addr(object value, object cls, bint allow_none) except? NULL:
    if value is None:
        if allow_none:
            return NULL
        raise TypeError(f"expected {cls.__name__}, got None")
    if not isinstance(value, cls):
        raise TypeError(f"expected {cls.__name__}, got {type(value).__name__}")
    return (<_Record>value)._pvt_addr


# Not a garbage-collector object: creating and freeing one does no tracking. The only Python
# reference it holds is the parent of a nested view, and a parent never refers to its views
# (see _keep_addr), so that reference alone cannot close a cycle.
@cython.no_gc
@cython.freelist(16)
cdef class _Record:
    """Base of every struct and union class."""

    def __dealloc__(self):
        _drop_block(self)

    def getPtr(self):
        return <size_t>self._pvt_addr

    def __repr__(self):
        return _record_repr(self)

    def __copy__(self):
        # No __init__: a subclass's own constructor arguments are not needed for a copy.
        cdef _Record other = _new(type(self))
        memcpy(other._pvt_addr, self._pvt_addr, type(self)._ctkgen_size)
        return other

    def __deepcopy__(self, memo):
        return self.__copy__()


cdef class _RefRecord(_Record):
    """Base of records with pointer members: it keeps what they point into alive."""

    def __dealloc__(self):
        # Over foreign memory the C value outlives this object: a member still pointing at what
        # this object kept (and is about to release) is set to NULL, never left dangling. (A
        # record freed by the garbage collector's cycle breaking has lost its tables already.)
        if self._refs_at is None:
            return
        for slot, address in self._refs_at.items():
            if (<void**><size_t>slot)[0] == <void*><size_t>address:
                (<void**><size_t>slot)[0] = NULL


cdef int _hold(_RefRecord holder, void* slot, object kept, void* address) except -1:
    """Keeps `kept` (what the pointer member at `slot`, set to `address`, points into) alive
    with `holder`; None forgets what the member held."""
    if holder._refs is None:
        holder._refs = {}
    if kept is None:
        holder._refs.pop(<size_t>slot, None)
    else:
        holder._refs[<size_t>slot] = kept
    if not holder._pvt_foreign:
        return 0
    if holder._refs_at is None:
        holder._refs_at = {}
    if kept is None:
        holder._refs_at.pop(<size_t>slot, None)
    else:
        holder._refs_at[<size_t>slot] = <size_t>address
    return 0


cdef int _handle_init(_Handle self, object init_value, object ptr) except -1:
    # Everything is converted and checked before anything is written.
    cdef str name = type(self).__name__
    cdef size_t address = _foreign_address(ptr)
    cdef void* value = NULL
    if init_value is None:
        raise TypeError(f"{name} takes an int or a handle, not None")
    if init_value is not 0:
        value = _handle_addr(init_value, name)
    if address != 0:
        _check_aligned(address, sizeof(void*), name)
        self._pvt_ptr = <void**>address
    if init_value is not 0:
        self._pvt_ptr[0] = value
    return 0


@cython.freelist(16)
cdef class _Handle:
    """Base of every handle class: an opaque pointer value."""

    # No arguments here: the binding's own constructions skip argument parsing; __init__ takes them.
    def __cinit__(self):
        self._pvt_ptr = &self._pvt_val

    # `_ptr` only by keyword: a positional argument (of a subclass, say) is never an address.
    def __init__(self, init_value=0, *, _ptr=0):
        _handle_init(self, init_value, _ptr)

    def getPtr(self):
        return <size_t>self._pvt_ptr

    def __int__(self):
        return <size_t>self._pvt_ptr[0]

    def __index__(self):
        return <size_t>self._pvt_ptr[0]

    def __eq__(self, other):
        if isinstance(other, _Handle):
            return self._pvt_ptr[0] == (<_Handle>other)._pvt_ptr[0]
        if isinstance(other, int):
            return <size_t>self._pvt_ptr[0] == other
        return NotImplemented

    def __hash__(self):
        return hash(<size_t>self._pvt_ptr[0])

    def __repr__(self):
        return f"<{type(self).__name__} {<size_t>self._pvt_ptr[0]:#x}>"


def _handle_value(_Handle handle not None):
    """The value a handle object holds, as an int: the getter every handle class registers for
    the package's native-handle function."""
    return <size_t>handle._pvt_ptr[0]


# The C compiler this module was built with, as the preprocessor names it. Clang is asked first:
# it defines the GNU macros as well.
cdef extern from *:
    """
    #define CTKGEN_TEXT_OF(x) #x
    #define CTKGEN_TEXT(x) CTKGEN_TEXT_OF(x)
    #if defined(__clang__)
    #define CTKGEN_C_COMPILER "Clang " __clang_version__
    #elif defined(__GNUC__)
    #define CTKGEN_C_COMPILER "GCC " __VERSION__
    #elif defined(_MSC_FULL_VER)
    #define CTKGEN_C_COMPILER "MSVC " CTKGEN_TEXT(_MSC_FULL_VER)
    #else
    #define CTKGEN_C_COMPILER "Unknown"
    #endif
    static const char ctkgen_c_compiler[] = CTKGEN_C_COMPILER;
    """
    const char *ctkgen_c_compiler


def _c_compiler():
    """The C compiler that built this module: `GCC <version>`, `Clang <version>`, `MSVC <version>`
    or `Unknown`."""
    return ctkgen_c_compiler.decode("utf-8", "replace")


cdef int _scalar_init(_Scalar self, object init_value, object ptr) except -1:
    # Everything is converted and checked before anything is written.
    cdef str name = type(self).__name__
    cdef size_t address = _foreign_address(ptr)
    cdef unsigned long long raw = 0
    if init_value is not 0:
        if self._pvt_signed:
            raw = <unsigned long long>_as_signed(init_value, self._pvt_size * 8, name)
        else:
            raw = _as_unsigned(init_value, self._pvt_size * 8, name)
    if address != 0:
        _check_aligned(address, self._pvt_size, name)
        self._pvt_ptr = <void*>address
    if init_value is not 0:
        # Little-endian: the low `size` bytes hold the value for every width.
        memcpy(self._pvt_ptr, &raw, self._pvt_size)
    return 0


@cython.freelist(16)
cdef class _Scalar:
    """Base of integer typedef classes (device ordinals, device addresses, fixed-width integers)."""

    cdef object _value(self):
        cdef unsigned long long raw = 0
        memcpy(&raw, self._pvt_ptr, self._pvt_size)
        if self._pvt_signed and self._pvt_size < 8 and raw >> (self._pvt_size * 8 - 1):
            return <long long>raw - (<long long>1 << (self._pvt_size * 8))
        if self._pvt_signed:
            return <long long>raw
        return raw

    def getPtr(self):
        return <size_t>self._pvt_ptr

    def __int__(self):
        return self._value()

    def __index__(self):
        return self._value()

    def __eq__(self, other):
        if isinstance(other, (_Scalar, int)):
            return self._value() == int(other)
        return NotImplemented

    def __hash__(self):
        return hash(self._value())

    def __repr__(self):
        return f"<{type(self).__name__} {self._value()}>"


cdef str _unsupported(str what, dict members, long long value):
    """The message for a selector value that has no typed value here (bookkeeping, or unknown)."""
    member = _member(members, value)
    return f"{what}: {member.name if member is not None else value} is not supported"


cdef str _record_repr(_Record self):
    """One `name : value` line per member, as the compatible module prints them: a nested
    record opens an indented block, an untyped pointer is hex, an enum member is itself. The
    pass decides each member's form (the class's `_ctkgen_repr`)."""
    cdef list lines = []
    cls = type(self)
    for name, form in zip(cls._ctkgen_members, cls._ctkgen_repr):
        try:
            value = getattr(self, name)
        except Exception as error:
            lines.append(f"{name} : <{type(error).__name__}>")
            continue
        if form == "nested":
            lines.append(f"{name} :" + "".join("\n    " + line for line in str(value).splitlines()))
        elif form == "hex":
            lines.append(f"{name} : {value:#x}")
        elif form == "hex_bytes":
            lines.append(f"{name} : {value.hex()}")
        elif form == "member":
            lines.append(f"{name} : {value!r}")
        else:
            lines.append(f"{name} : {value}")
    return "\n".join(lines)


cdef bytes _byte_values(object value, Py_ssize_t size, bint text, int low, str what):
    """What a character-array member of `size` bytes takes: bytes, a buffer, (`text`) a str in
    UTF-8, or a sequence of ints from `low` to 255 (a negative one is the byte of the same
    bits); at most `size` of them."""
    cdef bytes data
    cdef bytearray built
    if isinstance(value, bytes) or (text and isinstance(value, str)) or PyObject_CheckBuffer(value):
        data = _bytes_of(value, what, text)
    elif isinstance(value, (list, tuple)):
        built = bytearray(len(value))
        for i, item in enumerate(value):
            byte = _as_signed(item, 16, what)
            if byte < low or byte > 255:
                raise OverflowError(f"{what}: element {i} = {item} is not a byte value ({low} to 255)")
            built[i] = byte & 0xFF
        data = bytes(built)
    else:
        raise TypeError(f"{what} takes bytes{', str' if text else ''} or a list of ints, not {type(value).__name__}")
    if len(data) > size:
        raise ValueError(f"{what} holds at most {size} bytes")
    return data


cdef class _MemberArray(_RefRecord):
    """The C array a list member points at: owned here, kept alive by the record holding the
    member and by the views of its elements; pointer members of those elements keep what they
    point into alive here."""
    _ctkgen_members = ()
    _ctkgen_repr = ()
    _ctkgen_size = 0


cdef _Record _new_member_array(Py_ssize_t count, size_t size, size_t alignment):
    """A zeroed array of `count` elements of `size` bytes."""
    cdef _MemberArray block = _MemberArray.__new__(_MemberArray)
    _own_block(block, count * size, alignment)
    return block


cdef _Record _record_copies(list items, size_t size, size_t alignment, object cls):
    """A member array holding a copy of each record of `items` (of `cls` or an alias class of
    it), keeping what their pointer members keep alive."""
    cdef _Record block = _new_member_array(len(items), size, alignment)
    cdef char* dest
    cdef Py_ssize_t i
    for i in range(len(items)):
        dest = <char*>block._pvt_addr + i * size
        memmove(dest, _record_addr(items[i], cls, False), size)
        _adopt_refs(<_RefRecord>block, items[i], dest, size)
    return block


cdef int _keep_member_array(_RefRecord owner, void* slot, object block) except -1:
    """Keeps `block` (or nothing, for None) alive for the list member at `slot`."""
    _hold(<_RefRecord>_root_of(owner), slot, block, NULL if block is None else (<_Record>block)._pvt_addr)
    return 0


cdef object _member_array_owner(_RefRecord owner, void* slot, void* data, long long count, size_t size,
                                Py_ssize_t* length):
    """What the elements of the list member at `slot` live in, and (`length`) how many to read:
    the count member's value (none when it is negative), no more than an array set here holds."""
    cdef _RefRecord holder = <_RefRecord>_root_of(owner)
    cdef _Record block
    length[0] = <Py_ssize_t>count if count > 0 else 0
    found = None if holder._refs is None else holder._refs.get(<size_t>slot)
    if isinstance(found, _MemberArray) and (<_Record>found)._pvt_addr == data:
        block = <_Record>found
        if <size_t>length[0] > block._pvt_block_size // size:
            length[0] = <Py_ssize_t>(block._pvt_block_size // size)
        return block
    return owner


cdef int _adopt_refs(_RefRecord block, object source, void* dest, size_t size) except -1:
    """A record copied into a list member's array: what its pointer members keep alive is
    kept by the array too, at the copied members' new addresses."""
    if not isinstance(source, _Record):
        return 0
    root = _root_of(source)
    if not isinstance(root, _RefRecord) or (<_RefRecord>root)._refs is None:
        return 0
    cdef size_t start = <size_t>(<_Record>source)._pvt_addr
    cdef size_t target = <size_t>dest
    for key, kept in list((<_RefRecord>root)._refs.items()):
        if start <= key < start + size:
            if block._refs is None:
                block._refs = {}
            block._refs[key - start + target] = kept
    return 0
