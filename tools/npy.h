/* numpy's files for irm run (npy.c): .npy arrays (format 1.0 to 3.0,
 * little-endian, C order) and .npz archives as numpy.savez writes them, a
 * zip of .npy files stored without compression. Reading takes stored
 * entries only (numpy.savez_compressed's deflated ones are refused with a
 * message naming numpy.savez); writing makes stored entries. No state:
 * any thread. */
#ifndef IRM_TOOLS_NPY_H
#define IRM_TOOLS_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "irm/irm.h"

/* One array of a .npy image: its data points into the image. */
typedef struct npy_array {
  const char *dtype; /* irm's name: float32, float16, float64, int8, int32, int64, uint8, bool */
  int32_t ndim;
  int64_t shape[16];
  const void *data;
  size_t nbytes;
} npy_array;

/* Parses the .npy image data (size bytes) into *out. 0, or -1 with what is
 * wrong in err (cap bytes): not .npy, a dtype irm has not, Fortran order,
 * big-endian, a size that disagrees with the shape. */
int npy_parse(const void *data, size_t size, npy_array *out, char *err, size_t cap);

/* The .npy image of a C-contiguous CPU tensor (format 1.0) in *out
 * (malloc'd; free it) of *len bytes. 0, or -1 (out of memory, a dtype
 * numpy has not). */
int npy_format(const DLTensor *t, unsigned char **out, size_t *len);

/* One entry of a zip image: name (NUL-terminated, malloc'd with the
 * array) and its bytes, pointing into the image. */
typedef struct zip_entry {
  char *name;
  const unsigned char *data;
  size_t size;
} zip_entry;

/* The entries of the zip image data (size bytes), read through its
 * central directory (zip64 too), in *entries (malloc'd; free with
 * zip_entries_free) and *n. 0, or -1 with what is wrong in err: not a
 * zip, an entry compressed (numpy.savez_compressed) or encrypted, an
 * entry outside the image. */
int zip_read(const void *data, size_t size, zip_entry **entries, size_t *n, char *err, size_t cap);
void zip_entries_free(zip_entry *entries, size_t n);

/* Writes a zip of n stored entries (names[i] with datas[i], sizes[i]
 * bytes; each under 4 GiB) to f. 0, or -1 (an entry too large; the
 * caller checks f for write errors). */
int zip_write(FILE *f, const char *const *names, const unsigned char *const *datas, const size_t *sizes, size_t n);

#endif
