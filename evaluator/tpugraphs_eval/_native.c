/*
 * The two hot loops of tpugraphs_eval, scan_indices and inversions: their contract (arguments, results,
 * errors) is that of their numpy twins in kernels_numpy.py, which give the same bytes. Both release the
 * GIL while they work. Neither defines a metric: tpugraphs_eval.scoring.metrics does.
 *
 * SOURCE_ID (the module's attribute of that name) is the sha256 of this file with the digits of its own
 * definition line zeroed (tpugraphs_eval.kernels.source_id); tests/scoring/test_kernel_source_id.py checks
 * it is current, so that a module built from another version of this file can be told apart and is not used.
 */
#define SOURCE_ID "bb4036af3441e6059d6a83b02efd68859300c59e9312aa5908345f209d50cfe2"
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FLAG_BAD_TOKEN 1    /* empty token, non-digit, or more than 9 digits */
#define FLAG_OUT_OF_RANGE 2 /* value >= n_configs */
#define FLAG_DUPLICATE 4    /* a value listed twice */
#define MAX_DIGITS 9        /* 999,999,999 < 2**31: fits int32 */
#define SMALL_SEEN_BYTES 1024        /* up to 8191 configs: the seen-bitmap lives on the stack */
#define RELEASE_GIL_BYTES (64 << 10) /* shorter fields are parsed faster than the GIL changes hands */

static PyObject *scan_indices(PyObject *self, PyObject *args) {
    Py_buffer field;
    Py_ssize_t n_configs;
    if (!PyArg_ParseTuple(args, "y*n", &field, &n_configs)) return NULL;
    const unsigned char *s = (const unsigned char *)field.buf;
    const unsigned char *end = s + field.len;

    Py_ssize_t n_tokens = 1;
    for (Py_ssize_t i = 0; i < field.len; i++) n_tokens += (s[i] == ';');

    PyObject *out = PyBytes_FromStringAndSize(NULL, n_tokens * (Py_ssize_t)sizeof(int32_t));
    if (out == NULL) {
        PyBuffer_Release(&field);
        return NULL;
    }
    int32_t *values = (int32_t *)PyBytes_AS_STRING(out);
    unsigned char small_seen[SMALL_SEEN_BYTES];
    unsigned char *seen = NULL;
    if (n_configs > 0 && (size_t)n_configs / 8 + 1 <= SMALL_SEEN_BYTES) {
        seen = small_seen;
        memset(seen, 0, (size_t)n_configs / 8 + 1);
    } else if (n_configs > 0) {
        seen = (unsigned char *)calloc((size_t)n_configs / 8 + 1, 1);
        if (seen == NULL) {
            Py_DECREF(out);
            PyBuffer_Release(&field);
            return PyErr_NoMemory();
        }
    }
    int flags = 0;
    PyThreadState *released = field.len >= RELEASE_GIL_BYTES ? PyEval_SaveThread() : NULL;
    const unsigned char *p = s;
    for (Py_ssize_t k = 0; k < n_tokens; k++) {
        const unsigned char *start = p;
        uint64_t v = 0; /* unsigned: long digit runs wrap instead of overflowing; they are flagged anyway */
        while (p < end && (unsigned)(*p - '0') <= 9) v = v * 10 + (uint64_t)(*p++ - '0');
        Py_ssize_t digits = p - start;
        if (digits == 0 || digits > MAX_DIGITS || (p < end && *p != ';')) {
            flags |= FLAG_BAD_TOKEN;
            while (p < end && *p != ';') p++;
            values[k] = -1;
        } else {
            if (n_configs >= 0 && (Py_ssize_t)v >= n_configs) {
                flags |= FLAG_OUT_OF_RANGE;
            } else if (seen != NULL) {
                unsigned char bit = (unsigned char)(1u << (v & 7));
                if (seen[v >> 3] & bit) flags |= FLAG_DUPLICATE;
                seen[v >> 3] |= bit;
            }
            values[k] = (int32_t)v;
        }
        p++; /* past the ';' (or the end) */
    }
    if (released != NULL) PyEval_RestoreThread(released);
    if (seen != small_seen) free(seen);
    PyBuffer_Release(&field);
    return Py_BuildValue("(Nni)", out, n_tokens, flags);
}

static inline int popcount_portable(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

#define SMALL_WORDS 32 /* up to 2048 values: word counts summed directly, without a tree */

/* Strict inversions (i < j, r[i] > r[j]) of r[0:n], values in [0, m).
 *
 * Ties are first broken by position (a counting sort turns r into a permutation `order` of 0..n-1 in
 * which equal values keep their order, so ties never count); then the permutation's inversions are
 * counted with a bitset of the values seen so far, whose 64-bit words' counts are summed directly
 * (up to SMALL_WORDS words) or by a Fenwick tree: O(n log(n / 64)), on arrays that stay in cache.
 * Scratch: counts (m + 1 int32), order (n int32), bits (n / 64 + 1 words), tree (n / 64 + 2 int32).
 * Defined twice below: with the CPU's popcnt instruction where the compiler can target it, and portable.
 */
#define DEFINE_PERMUTATION_INVERSIONS(NAME, ATTRIBUTES, POPCOUNT)                                       \
    ATTRIBUTES static long long NAME(const int32_t *r, Py_ssize_t n, Py_ssize_t m, int32_t *counts,        \
                                     int32_t *order, uint64_t *bits, int32_t *tree) {                  \
        memset(counts, 0, (size_t)(m + 1) * sizeof(int32_t));                                          \
        for (Py_ssize_t j = 0; j < n; j++) counts[r[j] + 1]++;                                         \
        for (Py_ssize_t v = 0; v < m; v++) counts[v + 1] += counts[v];                                 \
        for (Py_ssize_t j = 0; j < n; j++) order[j] = counts[r[j]]++;                                  \
        const uint32_t words = (uint32_t)(n >> 6) + 1;                                                 \
        memset(bits, 0, (size_t)words * sizeof(uint64_t));                                             \
        memset(tree, 0, (size_t)(words + 1) * sizeof(int32_t));                                        \
        long long inversions = 0;                                                                      \
        if (words <= SMALL_WORDS) {                                                                    \
            int32_t in_word[SMALL_WORDS] = {0};                                                        \
            for (Py_ssize_t j = 0; j < n; j++) {                                                       \
                const uint32_t v = (uint32_t)order[j], word = v >> 6;                                  \
                int32_t smaller = POPCOUNT(bits[word] & ((~0ULL) >> (63 - (v & 63))));                 \
                for (uint32_t k = 0; k < SMALL_WORDS; k++) smaller += k < word ? in_word[k] : 0;       \
                inversions += j - smaller;                                                             \
                bits[word] |= 1ULL << (v & 63);                                                        \
                in_word[word]++;                                                                       \
            }                                                                                          \
            return inversions;                                                                         \
        }                                                                                              \
        for (Py_ssize_t j = 0; j < n; j++) {                                                           \
            const uint32_t v = (uint32_t)order[j], word = v >> 6;                                      \
            int32_t smaller = POPCOUNT(bits[word] & ((~0ULL) >> (63 - (v & 63))));                     \
            for (uint32_t i = word; i > 0; i &= i - 1) smaller += tree[i];                             \
            inversions += j - smaller;                                                                 \
            bits[word] |= 1ULL << (v & 63);                                                            \
            for (uint32_t i = word + 1; i <= words; i += i & (0u - i)) tree[i]++;                      \
        }                                                                                              \
        return inversions;                                                                             \
    }

DEFINE_PERMUTATION_INVERSIONS(inversions_portable, , popcount_portable)
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HAVE_POPCNT_TARGET 1
DEFINE_PERMUTATION_INVERSIONS(inversions_popcnt, __attribute__((target("popcnt"))), __builtin_popcountll)
#endif
static long long (*permutation_inversions)(const int32_t *, Py_ssize_t, Py_ssize_t, int32_t *, int32_t *,
                                           uint64_t *, int32_t *) = inversions_portable;

static PyObject *inversions(PyObject *self, PyObject *args) {
    Py_buffer ranks, lengths, n_values;
    if (!PyArg_ParseTuple(args, "y*y*y*", &ranks, &lengths, &n_values)) return NULL;
    PyObject *out = NULL;
    int32_t *counts = NULL, *order = NULL, *tree = NULL;
    uint64_t *bits = NULL;
    Py_ssize_t n_segments = lengths.len / (Py_ssize_t)sizeof(int64_t);
    const int32_t *r = (const int32_t *)ranks.buf;
    const int64_t *len = (const int64_t *)lengths.buf;
    const int64_t *m = (const int64_t *)n_values.buf;
    Py_ssize_t total = 0, biggest = 0, longest = 0;
    for (Py_ssize_t s = 0; s < n_segments && n_values.len == lengths.len; s++) {  /* m[s] is read only if it is there */
        total += (Py_ssize_t)len[s];
        if (m[s] > biggest) biggest = (Py_ssize_t)m[s];
        if (len[s] > longest) longest = (Py_ssize_t)len[s];
    }
    if (n_values.len != lengths.len || total * (Py_ssize_t)sizeof(int32_t) != ranks.len) {
        PyErr_SetString(PyExc_ValueError, "inversions: lengths, n_values and ranks do not match");
        goto done;
    }
    for (Py_ssize_t i = 0; i < total; i++) {
        if (r[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "inversions: negative rank");
            goto done;
        }
    }
    out = PyBytes_FromStringAndSize(NULL, n_segments * (Py_ssize_t)sizeof(int64_t));
    counts = (int32_t *)malloc((size_t)(biggest + 1) * sizeof(int32_t));
    order = (int32_t *)malloc((size_t)(longest + 1) * sizeof(int32_t));
    bits = (uint64_t *)malloc((size_t)((longest >> 6) + 1) * sizeof(uint64_t));
    tree = (int32_t *)malloc((size_t)((longest >> 6) + 2) * sizeof(int32_t));
    if (out == NULL || counts == NULL || order == NULL || bits == NULL || tree == NULL) {
        Py_CLEAR(out);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    int64_t *result = (int64_t *)PyBytes_AS_STRING(out);
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t start = 0;
    for (Py_ssize_t s = 0; s < n_segments && !bad; s++) {
        for (Py_ssize_t i = start; i < start + (Py_ssize_t)len[s]; i++) bad |= r[i] >= m[s];
        if (!bad) {
            result[s] = permutation_inversions(r + start, (Py_ssize_t)len[s], (Py_ssize_t)m[s], counts, order,
                                               bits, tree);
        }
        start += (Py_ssize_t)len[s];
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        Py_CLEAR(out);
        PyErr_SetString(PyExc_ValueError, "inversions: a rank is not below its segment's n_values");
    }
done:
    free(counts);
    free(order);
    free(bits);
    free(tree);
    PyBuffer_Release(&ranks);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&n_values);
    return out;
}

static PyObject *use_portable_popcount(PyObject *self, PyObject *flag) {
    int portable = PyObject_IsTrue(flag);
    if (portable < 0) return NULL;
#ifdef HAVE_POPCNT_TARGET
    permutation_inversions = (portable || !__builtin_cpu_supports("popcnt")) ? inversions_portable : inversions_popcnt;
#endif
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"scan_indices", scan_indices, METH_VARARGS,
     "scan_indices(field, n_configs) -> (int32 values as bytes, token count, flags)"},
    {"inversions", inversions, METH_VARARGS,
     "inversions(int32 ranks, int64 lengths, int64 n_values) -> int64 counts per segment, as bytes"},
    {"use_portable_popcount", use_portable_popcount, METH_O,
     "use_portable_popcount(flag): count bits without the popcnt instruction (for tests)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native(void) {
#ifdef HAVE_POPCNT_TARGET
    __builtin_cpu_init();
    if (__builtin_cpu_supports("popcnt")) permutation_inversions = inversions_popcnt;
#endif
    PyObject *m = PyModule_Create(&module);
    if (m != NULL && PyModule_AddStringConstant(m, "SOURCE_ID", SOURCE_ID) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
