/* A stand-in for libcuda.so.1, for tests and benchmarks on machines without a GPU.
 *
 * Most entry points are one function that returns CUDA_SUCCESS (0) after recording its
 * register arguments: under the x86-64 and AArch64 calling conventions the caller owns its
 * arguments, so one body serves every signature, and timing a call times the binding alone. A few entry points behave, so tests can
 * check how outputs, counts and lists cross the binding. Declarations are written out by hand
 * (no cuda.h) and only use types whose layout every CTK shares. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long long fake_u64;

/* The entry point of every function without a behaviour of its own: it does nothing but
 * record its first six integer-class arguments (the ones passed in registers under both
 * calling conventions, read as 64-bit values; a narrower argument's upper bits are
 * unspecified), so a test can see what the binding passed. Calls are counted, so a test can
 * tell this entry point from the special ones. */
#define FAKE_RECORDED_ARGS 6
static fake_u64 fake_args[FAKE_RECORDED_ARGS];
static unsigned long fake_generic_calls;

static int fake_success(fake_u64 a0, fake_u64 a1, fake_u64 a2, fake_u64 a3, fake_u64 a4, fake_u64 a5) {
    fake_args[0] = a0, fake_args[1] = a1, fake_args[2] = a2;
    fake_args[3] = a3, fake_args[4] = a4, fake_args[5] = a5;
    fake_generic_calls++;
    return 0;
}

fake_u64 fake_recorded_arg(unsigned int i) { return i < FAKE_RECORDED_ARGS ? fake_args[i] : 0; }
unsigned long fake_recorded_generic_calls(void) { return fake_generic_calls; }

/* cuCtxGetDevice(CUdevice *device): device 7. */
static int fake_ctx_get_device(int *device) {
    *device = 7;
    return 0;
}

/* cuGetErrorString(CUresult error, const char **text). */
static int fake_get_error_string(int error, const char **text) {
    *text = error == 0 ? "no error" : "fake error";
    return 0;
}

/* cuGraphGetNodes(CUgraph graph, CUgraphNode *nodes, size_t *count): the graph has three
 * nodes, 0x10, 0x20, 0x30; a NULL array asks for the count. */
static int fake_graph_get_nodes(void *graph, void **nodes, size_t *count) {
    (void)graph;
    if (nodes == NULL) {
        *count = 3;
        return 0;
    }
    size_t n = *count < 3 ? *count : 3;
    for (size_t i = 0; i < n; i++) {
        nodes[i] = (void *)(0x10 * (i + 1));
    }
    *count = n;
    return 0;
}

/* Edge data as the graph queries write it (CUgraphEdgeData: ports, type, 5 reserved bytes). */
struct fake_edge_data {
    unsigned char from_port, to_port, type, reserved[5];
};

/* cuGraphGetEdges(graph, from, to, edgeData, size_t *count), the form with edge data: three
 * edges 0x100+i -> 0x200+i with ports (i+1, i+2); a NULL array asks for the count. */
static int fake_graph_get_edges(void *graph, void **from, void **to, struct fake_edge_data *data, size_t *count) {
    (void)graph;
    if (from == NULL && to == NULL) {
        *count = 3;
        return 0;
    }
    size_t n = *count < 3 ? *count : 3;
    for (size_t i = 0; i < n; i++) {
        from[i] = (void *)(0x100 + i);
        to[i] = (void *)(0x200 + i);
        if (data != NULL) {
            memset(&data[i], 0, sizeof data[i]);
            data[i].from_port = (unsigned char)(i + 1);
            data[i].to_port = (unsigned char)(i + 2);
        }
    }
    *count = n;
    return 0;
}

/* cuGraphNodeGetDependencies and cuGraphNodeGetDependentNodes (node, nodes, edgeData, size_t
 * *count), the forms with edge data: two nodes 0x300+i with ports (i+5, i+6). Edge data without
 * a node array is refused, as the driver refuses it (CUDA_ERROR_INVALID_VALUE). */
static int fake_graph_node_get_dependencies(void *node, void **deps, struct fake_edge_data *data, size_t *count) {
    (void)node;
    if (deps == NULL && data != NULL) {
        return 1;
    }
    if (deps == NULL) {
        *count = 2;
        return 0;
    }
    size_t n = *count < 2 ? *count : 2;
    for (size_t i = 0; i < n; i++) {
        deps[i] = (void *)(0x300 + i);
        if (data != NULL) {
            memset(&data[i], 0, sizeof data[i]);
            data[i].from_port = (unsigned char)(i + 5);
            data[i].to_port = (unsigned char)(i + 6);
        }
    }
    *count = n;
    return 0;
}

/* cuGraphAddNode(node *out, graph, deps, edgeData, n, CUgraphNodeParams *params), the form with
 * edge data. A conditional node (type 13) gets the driver's own array of `size` body graphs
 * (0xD0 + i) written into its params, as the driver does: CUgraphNodeParams holds its type, three
 * reserved ints, then CUDA_CONDITIONAL_NODE_PARAMS {handle, type, size, phGraph_out, ctx}. */
struct fake_conditional_params {
    int type, reserved0[3];
    fake_u64 handle;
    int conditional_type;
    unsigned int size;
    void **graphs_out;
    void *ctx;
};
static void *fake_body_graphs[8];
static int fake_graph_add_node(void **node, void *graph, void *const *deps, const void *data, size_t n,
                               struct fake_conditional_params *params) {
    (void)graph, (void)deps, (void)data, (void)n;
    if (params == NULL) {
        return 1; /* CUDA_ERROR_INVALID_VALUE, as the driver answers a NULL nodeParams */
    }
    *node = (void *)0x777;
    if (params->type == 13) {
        for (unsigned int i = 0; i < params->size && i < 8; i++) {
            fake_body_graphs[i] = (void *)(0xD0 + (size_t)i);
        }
        params->graphs_out = fake_body_graphs;
    }
    return 0;
}

/* cuDeviceGetPCIBusId(char *id, int len, CUdevice dev). */
static int fake_device_get_pci_bus_id(char *id, int len, int dev) {
    (void)dev;
    const char text[] = "0000:65:00.0";
    if (len < (int)sizeof text) {
        return 1;
    }
    memcpy(id, text, sizeof text);
    return 0;
}

/* cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *list, unsigned n, unsigned flags):
 * succeeds only when entry i has gridDimX == i + 1, proving the list was copied in order.
 * CUDA_LAUNCH_PARAMS starts with a CUfunction (a pointer), then gridDimX. */
struct fake_launch_params_head {
    void *function;
    unsigned int gridDimX;
};
static int fake_launch_multi_device(const unsigned char *list, unsigned int n, unsigned int flags) {
    (void)flags;
    /* 56 bytes on every 64-bit CTK: a pointer, 7 unsigned ints (+4 padding), a stream, a pointer. */
    const size_t record_size = 56;
    for (unsigned int i = 0; i < n; i++) {
        const struct fake_launch_params_head *head = (const void *)(list + i * record_size);
        if (head->gridDimX != i + 1) {
            return 1;
        }
    }
    return 0;
}

/* What the binding passed, read back by tests through the exported fake_recorded_* helpers
 * (the test opens this same library with ctypes, so it sees the same globals). */
static void *fake_last_address;

/* The integer arrays of the last cuTensorMapEncodeTiled, one after the other: globalDim (rank
 * entries), globalStrides (rank - 1), boxDim (rank), elementStrides (rank). */
static uint64_t fake_encode_values[4 * 5];
static int fake_encode_count;

/* cuTensorMapEncodeTiled(CUtensorMap *map, dataType, rank, void *globalAddress, globalDim,
 * globalStrides, boxDim, elementStrides, ...): the address is written into the map's first 8
 * bytes, the output the test reads; the arrays are recorded (ranks 1 to 5, no NULL array). */
static int fake_tensor_map_encode(void *map, int data_type, unsigned int rank, void *global_address,
                                  const uint64_t *global_dim, const uint64_t *global_strides,
                                  const uint32_t *box_dim, const uint32_t *element_strides) {
    (void)data_type;
    memcpy(map, &global_address, sizeof global_address);
    fake_last_address = global_address;
    fake_encode_count = 0;
    if (rank >= 1 && rank <= 5 && global_dim && (rank == 1 || global_strides) && box_dim && element_strides) {
        for (unsigned int i = 0; i < rank; i++) fake_encode_values[fake_encode_count++] = global_dim[i];
        for (unsigned int i = 0; i + 1 < rank; i++) fake_encode_values[fake_encode_count++] = global_strides[i];
        for (unsigned int i = 0; i < rank; i++) fake_encode_values[fake_encode_count++] = box_dim[i];
        for (unsigned int i = 0; i < rank; i++) fake_encode_values[fake_encode_count++] = element_strides[i];
    }
    return 0;
}

int fake_recorded_encode_count(void) { return fake_encode_count; }
uint64_t fake_recorded_encode_value(int i) { return fake_encode_values[i]; }

/* cuTensorMapReplaceAddress(CUtensorMap *map, void *globalAddress): the same. */
static int fake_tensor_map_replace_address(void *map, void *global_address) {
    if (map == NULL) {
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    }
    memcpy(map, &global_address, sizeof global_address);
    fake_last_address = global_address;
    return 0;
}

/* cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n): records src. */
static int fake_memcpy_htod(fake_u64 dst, const void *src, size_t n) {
    (void)dst;
    (void)n;
    fake_last_address = (void *)src;
    return 0;
}

void *fake_recorded_address(void) { return fake_last_address; }

/* cuLaunchKernel: gridDimX is the number of kernel parameters (a test convention); for each,
 * the pointer passed and the first 8 bytes it points to are recorded. */
#define FAKE_MAX_PARAMS 16
static void *fake_param_pointer[FAKE_MAX_PARAMS];
static fake_u64 fake_param_bytes[FAKE_MAX_PARAMS];
static unsigned int fake_param_count;
static void *fake_params_array;

static int fake_launch_kernel(void *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                              unsigned int by, unsigned int bz, unsigned int shared, void *stream, void **params,
                              void **extra) {
    (void)f, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)stream, (void)extra;
    fake_params_array = params;
    fake_param_count = 0;
    for (unsigned int i = 0; params != NULL && i < gx && i < FAKE_MAX_PARAMS; i++) {
        fake_param_pointer[i] = params[i];
        fake_param_bytes[i] = 0;
        if (params[i] != NULL) {
            memcpy(&fake_param_bytes[i], params[i], sizeof(fake_u64));
        }
        fake_param_count = i + 1;
    }
    return 0;
}

void *fake_recorded_params_array(void) { return fake_params_array; }
unsigned int fake_recorded_param_count(void) { return fake_param_count; }
void *fake_recorded_param_pointer(unsigned int i) { return fake_param_pointer[i]; }
fake_u64 fake_recorded_param_bytes(unsigned int i) { return fake_param_bytes[i]; }

/* cuGetErrorName(CUresult error, const char **name). */
static int fake_get_error_name(int error, const char **name) {
    *name = error == 0 ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
    return 0;
}

/* cuDeviceGetLuid(char *luid, unsigned int *mask, CUdevice dev): 8 bytes with NULs inside. */
static int fake_device_get_luid(char *luid, unsigned int *mask, int dev) {
    (void)dev;
    memcpy(luid, "\x01\x00\x02\x00\x03\x00\x04\x05", 8);
    *mask = 3;
    return 0;
}

/* cuStreamGetCaptureInfo: capturing (status 1), id 9, graph 0x77, two dependencies 0x100 and
 * 0x200 in an array the driver owns, with edges whose from_port is 1 and 2. CUgraphEdgeData is
 * 8 bytes: from_port, to_port, type, 5 reserved. */
static void *const fake_capture_nodes[2] = {(void *)0x100, (void *)0x200};
static const unsigned char fake_capture_edges[2][8] = {{1, 0, 0}, {2, 0, 0}};

int cuStreamGetCaptureInfo_v3(void *stream, int *status, fake_u64 *id, void **graph, void *const **deps,
                              const void **edges, size_t *count) {
    (void)stream;
    *status = 1;
    *id = 9;
    *graph = (void *)0x77;
    *deps = fake_capture_nodes;
    if (edges != NULL) {
        *edges = fake_capture_edges;
    }
    *count = 2;
    return 0;
}

/* The older signature, without edge data (CTKs before 13 map cuStreamGetCaptureInfo to it). */
static int fake_stream_get_capture_info_v2(void *stream, int *status, fake_u64 *id, void **graph,
                                           void *const **deps, size_t *count) {
    return cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, NULL, count);
}

/* Values typed by an enum argument. Getters write the bytes a test set with fake_set_value
 * (never more than the size the call names, where it names one); entry i of the list getters
 * gets its first byte increased by i. Setters and imports record the selector, the size and the
 * bytes (as many as fake_set_value set) or the pointer they received. */
#define FAKE_VALUE_MAX 1024
static unsigned char fake_value[FAKE_VALUE_MAX];
static size_t fake_value_len;
static unsigned char fake_got[FAKE_VALUE_MAX];
static size_t fake_got_len;
static fake_u64 fake_got_selector, fake_got_size, fake_got_pointer;

void fake_set_value(const void *bytes, size_t n) {
    fake_value_len = n < FAKE_VALUE_MAX ? n : FAKE_VALUE_MAX;
    memcpy(fake_value, bytes, fake_value_len);
}
size_t fake_recorded_value(void *out, size_t cap) {
    size_t n = fake_got_len < cap ? fake_got_len : cap;
    memcpy(out, fake_got, n);
    return n;
}
fake_u64 fake_recorded_selector(void) { return fake_got_selector; }
fake_u64 fake_recorded_size(void) { return fake_got_size; }
fake_u64 fake_recorded_pointer(void) { return fake_got_pointer; }

static void fake_write(void *data, size_t cap, unsigned int bump) {
    size_t n = fake_value_len < cap ? fake_value_len : cap;
    memcpy(data, fake_value, n);
    if (n > 0) {
        ((unsigned char *)data)[0] += (unsigned char)bump;
    }
}
static void fake_read(fake_u64 selector, const void *value, size_t n) {
    fake_got_selector = selector;
    fake_got_pointer = (fake_u64)(size_t)value;
    fake_got_len = n < FAKE_VALUE_MAX ? n : FAKE_VALUE_MAX;
    if (value != NULL) {
        memcpy(fake_got, value, fake_got_len);
    }
}

/* cuPointerGetAttribute(void *data, CUpointer_attribute, CUdeviceptr) */
static int fake_pointer_get(void *data, int attribute, fake_u64 ptr) {
    (void)ptr;
    fake_got_selector = (fake_u64)attribute;
    fake_write(data, FAKE_VALUE_MAX, 0);
    return 0;
}
/* cuPointerSetAttribute(const void *value, CUpointer_attribute, CUdeviceptr) */
static int fake_pointer_set(const void *value, int attribute, fake_u64 ptr) {
    (void)ptr;
    fake_read((fake_u64)attribute, value, fake_value_len);
    return 0;
}
/* cuPointerGetAttributes(unsigned n, CUpointer_attribute *attrs, void **data, CUdeviceptr) */
static int fake_pointer_get_many(unsigned int n, const int *attrs, void **data, fake_u64 ptr) {
    (void)ptr;
    fake_got_size = n;
    for (unsigned int i = 0; i < n; i++) {
        fake_got_selector = (fake_u64)attrs[i];
        fake_write(data[i], FAKE_VALUE_MAX, i);
    }
    return 0;
}
/* cuMemPoolGetAttribute(pool, attr, void *value), cuDeviceGetGraphMemAttribute(dev, attr, value) */
static int fake_attr_get(fake_u64 object, int attr, void *value) {
    (void)object;
    fake_got_selector = (fake_u64)attr;
    fake_write(value, FAKE_VALUE_MAX, 0);
    return 0;
}
/* cuMemPoolSetAttribute(pool, attr, void *value), cuDeviceSetGraphMemAttribute(dev, attr, value) */
static int fake_attr_set(fake_u64 object, int attr, const void *value) {
    (void)object;
    fake_read((fake_u64)attr, value, fake_value_len);
    return 0;
}
/* cuMemRangeGetAttribute(void *data, size_t dataSize, attribute, devPtr, count) */
static int fake_range_get(void *data, size_t size, int attribute, fake_u64 ptr, size_t count) {
    (void)ptr, (void)count;
    fake_got_selector = (fake_u64)attribute;
    fake_got_size = size;
    fake_write(data, size, 0);
    return 0;
}
/* cuMemRangeGetAttributes(void **data, size_t *dataSizes, attrs, size_t n, devPtr, count) */
static int fake_range_get_many(void **data, const size_t *sizes, const int *attrs, size_t n, fake_u64 ptr,
                               size_t count) {
    (void)ptr, (void)count;
    fake_got_size = n;
    for (size_t i = 0; i < n; i++) {
        fake_got_selector = (fake_u64)attrs[i];
        fake_write(data[i], sizes[i], (unsigned int)i);
    }
    return 0;
}
/* cuCoredumpGetAttribute(attrib, void *value, size_t *size) and the Global variant */
static int fake_coredump_get(int attrib, void *value, size_t *size) {
    fake_got_selector = (fake_u64)attrib;
    fake_got_size = *size;
    fake_write(value, *size, 0);
    return 0;
}
/* cuCoredumpSetAttribute(attrib, void *value, size_t *size) and the Global variant */
static int fake_coredump_set(int attrib, const void *value, size_t *size) {
    fake_got_size = *size;
    fake_read((fake_u64)attrib, value, *size);
    return 0;
}
/* cuMemExportToShareableHandle(void *out, handle, type, flags), cuMemPoolExportToShareableHandle,
 * cuMemGetHandleForAddressRange(void *out, dptr, size, type, flags) */
static int fake_export(void *out, fake_u64 object, int type, fake_u64 flags) {
    (void)object, (void)flags;
    fake_got_selector = (fake_u64)type;
    fake_write(out, FAKE_VALUE_MAX, 0);
    return 0;
}
static int fake_range_handle(void *out, fake_u64 dptr, size_t size, int type, fake_u64 flags) {
    (void)dptr, (void)size, (void)flags;
    fake_got_selector = (fake_u64)type;
    fake_write(out, FAKE_VALUE_MAX, 0);
    return 0;
}
/* cuMemImportFromShareableHandle(handle *out, void *osHandle, type): the handle is the pointer. */
static int fake_import(fake_u64 *out, void *os_handle, int type) {
    fake_got_selector = (fake_u64)type;
    fake_got_pointer = (fake_u64)(size_t)os_handle;
    *out = 0x99;
    return 0;
}
/* cuMemPoolImportFromShareableHandle(pool *out, void *handle, type, flags) */
static int fake_pool_import(void **out, void *handle, int type, fake_u64 flags) {
    (void)flags;
    fake_got_selector = (fake_u64)type;
    fake_got_pointer = (fake_u64)(size_t)handle;
    *out = (void *)0x98;
    return 0;
}

/* JIT options: the options and raw slots of the last call, the first string of a list of names
 * (options 17, 25, 27), the first address of a list (18); a log buffer (3, 5) gets "log <option>"
 * within the size its size option (4, 6) gives. */
#define FAKE_MAX_OPTIONS 16
static unsigned int fake_option_count;
static int fake_options[FAKE_MAX_OPTIONS];
static fake_u64 fake_slots[FAKE_MAX_OPTIONS];
static char fake_first_name[FAKE_MAX_OPTIONS][32];
static fake_u64 fake_first_address[FAKE_MAX_OPTIONS];

static void fake_jit(unsigned int n, const int *options, void **values) {
    fake_option_count = n;
    for (unsigned int i = 0; i < n && i < FAKE_MAX_OPTIONS; i++) {
        fake_options[i] = options[i];
        memcpy(&fake_slots[i], &values[i], sizeof(fake_u64));
        fake_first_name[i][0] = 0;
        fake_first_address[i] = 0;
        if ((options[i] == 17 || options[i] == 25 || options[i] == 27) && values[i] != NULL) {
            const char *const *names = values[i];
            if (names[0] != NULL) {
                strncpy(fake_first_name[i], names[0], sizeof fake_first_name[i] - 1);
            }
        }
        if (options[i] == 18 && values[i] != NULL) {
            fake_first_address[i] = (fake_u64)(size_t)((void **)values[i])[0];
        }
    }
    for (unsigned int i = 0; i < n; i++) {
        if (options[i] != 3 && options[i] != 5) {
            continue;
        }
        for (unsigned int j = 0; j < n; j++) {
            unsigned int size = (unsigned int)(size_t)values[j];
            if (options[j] == options[i] + 1 && size > 0) {
                char text[32];
                size_t len = (size_t)snprintf(text, sizeof text, "log %d", options[i]);
                memcpy(values[i], text, len + 1 < size ? len + 1 : size);
            }
        }
    }
}
unsigned int fake_recorded_option_count(void) { return fake_option_count; }
int fake_recorded_option(unsigned int i) { return fake_options[i]; }
fake_u64 fake_recorded_slot(unsigned int i) { return fake_slots[i]; }
const char *fake_recorded_first_name(unsigned int i) { return fake_first_name[i]; }
fake_u64 fake_recorded_first_address(unsigned int i) { return fake_first_address[i]; }

/* cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *opts, void **values) */
static int fake_module_load_data_ex(void **module, const void *image, unsigned int n, const int *options,
                                    void **values) {
    (void)image;
    fake_jit(n, options, values);
    *module = (void *)0x55;
    return 0;
}
/* cuLinkCreate(unsigned n, CUjit_option *opts, void **values, CUlinkState *state) */
static int fake_link_create(unsigned int n, const int *options, void **values, void **state) {
    fake_jit(n, options, values);
    *state = (void *)0x56;
    return 0;
}

/* The latest lookup, so a test can see the name and version a function was resolved with. */
static char fake_symbol[128];
static int fake_version;
const char *fake_recorded_symbol(void) { return fake_symbol; }
int fake_recorded_version(void) { return fake_version; }

int cuGetProcAddress_v2(const char *symbol, void **pfn, int version, fake_u64 flags, int *status) {
    (void)flags;
    strncpy(fake_symbol, symbol, sizeof fake_symbol - 1);
    fake_version = version;
    if (strcmp(symbol, "cuCtxGetDevice") == 0) {
        *pfn = (void *)fake_ctx_get_device;
    } else if (strcmp(symbol, "cuGetErrorString") == 0) {
        *pfn = (void *)fake_get_error_string;
    } else if (strcmp(symbol, "cuGraphGetNodes") == 0) {
        *pfn = (void *)fake_graph_get_nodes;
    } else if (strcmp(symbol, "cuGraphGetEdges") == 0 && version >= 12030) {
        *pfn = (void *)fake_graph_get_edges;
    } else if ((strcmp(symbol, "cuGraphNodeGetDependencies") == 0 || strcmp(symbol, "cuGraphNodeGetDependentNodes") == 0)
               && version >= 12030) {
        *pfn = (void *)fake_graph_node_get_dependencies;
    } else if (strcmp(symbol, "cuGraphAddNode") == 0 && version >= 12030) {
        *pfn = (void *)fake_graph_add_node;
    } else if (strcmp(symbol, "cuDeviceGetPCIBusId") == 0) {
        *pfn = (void *)fake_device_get_pci_bus_id;
    } else if (strcmp(symbol, "cuLaunchCooperativeKernelMultiDevice") == 0) {
        *pfn = (void *)fake_launch_multi_device;
    } else if (strcmp(symbol, "cuTensorMapEncodeTiled") == 0) {
        *pfn = (void *)fake_tensor_map_encode;
    } else if (strcmp(symbol, "cuTensorMapReplaceAddress") == 0) {
        *pfn = (void *)fake_tensor_map_replace_address;
    } else if (strcmp(symbol, "cuMemcpyHtoD") == 0) {
        *pfn = (void *)fake_memcpy_htod;
    } else if (strcmp(symbol, "cuLaunchKernel") == 0) {
        *pfn = (void *)fake_launch_kernel;
    } else if (strcmp(symbol, "cuGetErrorName") == 0) {
        *pfn = (void *)fake_get_error_name;
    } else if (strcmp(symbol, "cuDeviceGetLuid") == 0) {
        *pfn = (void *)fake_device_get_luid;
    } else if (strcmp(symbol, "cuStreamGetCaptureInfo") == 0) {
        *pfn = version >= 12030 ? (void *)cuStreamGetCaptureInfo_v3 : (void *)fake_stream_get_capture_info_v2;
    } else if (strcmp(symbol, "cuPointerGetAttribute") == 0) {
        *pfn = (void *)fake_pointer_get;
    } else if (strcmp(symbol, "cuPointerSetAttribute") == 0) {
        *pfn = (void *)fake_pointer_set;
    } else if (strcmp(symbol, "cuPointerGetAttributes") == 0) {
        *pfn = (void *)fake_pointer_get_many;
    } else if (strcmp(symbol, "cuMemPoolGetAttribute") == 0 || strcmp(symbol, "cuDeviceGetGraphMemAttribute") == 0) {
        *pfn = (void *)fake_attr_get;
    } else if (strcmp(symbol, "cuMemPoolSetAttribute") == 0 || strcmp(symbol, "cuDeviceSetGraphMemAttribute") == 0) {
        *pfn = (void *)fake_attr_set;
    } else if (strcmp(symbol, "cuMemRangeGetAttribute") == 0) {
        *pfn = (void *)fake_range_get;
    } else if (strcmp(symbol, "cuMemRangeGetAttributes") == 0) {
        *pfn = (void *)fake_range_get_many;
    } else if (strcmp(symbol, "cuCoredumpGetAttribute") == 0 || strcmp(symbol, "cuCoredumpGetAttributeGlobal") == 0) {
        *pfn = (void *)fake_coredump_get;
    } else if (strcmp(symbol, "cuCoredumpSetAttribute") == 0 || strcmp(symbol, "cuCoredumpSetAttributeGlobal") == 0) {
        *pfn = (void *)fake_coredump_set;
    } else if (strcmp(symbol, "cuMemExportToShareableHandle") == 0 ||
               strcmp(symbol, "cuMemPoolExportToShareableHandle") == 0) {
        *pfn = (void *)fake_export;
    } else if (strcmp(symbol, "cuMemGetHandleForAddressRange") == 0) {
        *pfn = (void *)fake_range_handle;
    } else if (strcmp(symbol, "cuMemImportFromShareableHandle") == 0) {
        *pfn = (void *)fake_import;
    } else if (strcmp(symbol, "cuMemPoolImportFromShareableHandle") == 0) {
        *pfn = (void *)fake_pool_import;
    } else if (strcmp(symbol, "cuModuleLoadDataEx") == 0) {
        *pfn = (void *)fake_module_load_data_ex;
    } else if (strcmp(symbol, "cuLinkCreate") == 0) {
        *pfn = (void *)fake_link_create;
    } else {
        *pfn = (void *)fake_success;
    }
    if (status != NULL) {
        *status = 0;
    }
    return 0;
}
