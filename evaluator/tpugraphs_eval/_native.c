/*
 * The two hot loops of tpugraphs_eval, in C because numpy cannot vectorise them:
 *
 *   scan_indices(field: bytes-like, n_configs: int) -> (bytes, int, int)
 *       Parses a TopConfigs field "3;0;17" into packed native int32 values and reports, as a bit
 *       mask, whether the field is clean: every token one or more ASCII digits (at most 9),
 *       every value < n_configs, no value twice. A field with any flag set is re-read by the
 *       Python diagnostics in tpugraphs_eval.indices, which say exactly what is wrong; the values
 *       returned for such a field are not to be used.
 *
 *   inversions_and_ties(values: int64 buffer) -> (int, int)
 *       Number of pairs i < j with values[i] > values[j] (discordant pairs of a ranking whose
 *       predicted order is the array order) and number of pairs with values[i] == values[j], by a
 *       bottom-up merge sort: O(n log n), the same counting scipy.stats.kendalltau does.
 *
 * Both release the GIL while they work. Neither defines a metric: tpugraphs_eval.metrics does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FLAG_BAD_TOKEN 1    /* empty token, non-digit, or more than 9 digits */
#define FLAG_OUT_OF_RANGE 2 /* value >= n_configs */
#define FLAG_DUPLICATE 4    /* a value listed twice */
#define MAX_DIGITS 9        /* 999,999,999 < 2**31: fits int32 */

static PyObject *scan_indices(PyObject *self, PyObject *args) {
    Py_buffer field;
    Py_ssize_t n_configs;
    if (!PyArg_ParseTuple(args, "y*n", &field, &n_configs)) return NULL;
    const unsigned char *s = (const unsigned char *)field.buf;
    Py_ssize_t len = field.len;

    Py_ssize_t n_tokens = 1;
    for (Py_ssize_t i = 0; i < len; i++) n_tokens += (s[i] == ';');

    PyObject *out = PyBytes_FromStringAndSize(NULL, n_tokens * (Py_ssize_t)sizeof(int32_t));
    if (out == NULL) {
        PyBuffer_Release(&field);
        return NULL;
    }
    int32_t *values = (int32_t *)PyBytes_AS_STRING(out);
    unsigned char *seen = NULL;
    if (n_configs > 0) {
        seen = (unsigned char *)calloc((size_t)n_configs / 8 + 1, 1);
        if (seen == NULL) {
            Py_DECREF(out);
            PyBuffer_Release(&field);
            return PyErr_NoMemory();
        }
    }
    int flags = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t k = 0, i = 0;
    while (k < n_tokens) {
        int64_t v = 0;
        int digits = 0, bad = 0;
        while (i < len && s[i] != ';') {
            unsigned d = (unsigned)s[i] - '0';
            if (d > 9 || digits >= MAX_DIGITS) bad = 1;
            else v = v * 10 + d;
            digits++;
            i++;
        }
        i++; /* skip ';' (or step past the end) */
        if (bad || digits == 0) {
            flags |= FLAG_BAD_TOKEN;
            v = -1;
        } else if (n_configs >= 0 && v >= n_configs) {
            flags |= FLAG_OUT_OF_RANGE;
        } else if (seen != NULL) {
            unsigned char bit = (unsigned char)(1u << (v & 7));
            if (seen[v >> 3] & bit) flags |= FLAG_DUPLICATE;
            seen[v >> 3] |= bit;
        }
        values[k++] = (int32_t)v;
    }
    Py_END_ALLOW_THREADS
    free(seen);
    PyBuffer_Release(&field);
    return Py_BuildValue("(Nni)", out, n_tokens, flags);
}

#define RUN 16 /* blocks this short are sorted by insertion, counting the shifts */

/* Merge sort of a[0:n] (using tmp), returning the number of strict inversions (i < j, a[i] > a[j]). */
static long long merge_count(int64_t *a, int64_t *tmp, Py_ssize_t n) {
    long long inversions = 0;
    for (Py_ssize_t lo = 0; lo < n; lo += RUN) {
        Py_ssize_t hi = lo + RUN < n ? lo + RUN : n;
        for (Py_ssize_t i = lo + 1; i < hi; i++) {
            int64_t v = a[i];
            Py_ssize_t j = i;
            while (j > lo && a[j - 1] > v) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
            inversions += i - j;
        }
    }
    for (Py_ssize_t width = RUN; width < n; width *= 2) {
        for (Py_ssize_t lo = 0; lo < n - width; lo += 2 * width) {
            Py_ssize_t mid = lo + width;
            Py_ssize_t hi = mid + width < n ? mid + width : n;
            if (a[mid - 1] <= a[mid]) continue; /* already in order */
            Py_ssize_t i = lo, j = mid, k = 0;
            while (i < mid && j < hi) {
                int64_t left = a[i], right = a[j];
                int take_right = right < left; /* branch-free: a[j] jumps over mid - i larger values */
                tmp[k++] = take_right ? right : left;
                inversions += take_right ? (long long)(mid - i) : 0;
                i += !take_right;
                j += take_right;
            }
            while (i < mid) tmp[k++] = a[i++];
            while (j < hi) tmp[k++] = a[j++];
            memcpy(a + lo, tmp, (size_t)k * sizeof(int64_t));
        }
    }
    return inversions;
}

static PyObject *inversions_and_ties(PyObject *self, PyObject *args) {
    Py_buffer buf;
    if (!PyArg_ParseTuple(args, "y*", &buf)) return NULL;
    if (buf.len % (Py_ssize_t)sizeof(int64_t) != 0) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "inversions_and_ties needs a buffer of int64 values");
        return NULL;
    }
    Py_ssize_t n = buf.len / (Py_ssize_t)sizeof(int64_t);
    int64_t *a = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    int64_t *tmp = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (a == NULL || tmp == NULL) {
        free(a);
        free(tmp);
        PyBuffer_Release(&buf);
        return PyErr_NoMemory();
    }
    long long inversions = 0, ties = 0;
    Py_BEGIN_ALLOW_THREADS
    memcpy(a, buf.buf, (size_t)n * sizeof(int64_t));
    inversions = merge_count(a, tmp, n);
    Py_ssize_t run = 1;
    for (Py_ssize_t i = 1; i <= n; i++) {
        if (i < n && a[i] == a[i - 1]) {
            run++;
        } else {
            ties += (long long)run * (run - 1) / 2;
            run = 1;
        }
    }
    Py_END_ALLOW_THREADS
    free(a);
    free(tmp);
    PyBuffer_Release(&buf);
    return Py_BuildValue("(LL)", inversions, ties);
}

static PyMethodDef methods[] = {
    {"scan_indices", scan_indices, METH_VARARGS,
     "scan_indices(field, n_configs) -> (int32 values as bytes, token count, flags)"},
    {"inversions_and_ties", inversions_and_ties, METH_VARARGS,
     "inversions_and_ties(int64 buffer) -> (strict inversions, tied pairs)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
