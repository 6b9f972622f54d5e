/*
 * Reads that never wait for the disk, for an event loop that must not stall on a cold page.
 *
 * readCached(fd, buffer, offset, length, position) reads like pread, with RWF_NOWAIT: it answers
 * the bytes read (fewer than asked only at the end of the file), -1 when part of the range is not
 * in the page cache (the caller warms it elsewhere and asks again), or -2 when the kernel or the
 * file system cannot read without waiting (the caller reads as it always did). Other errors are
 * thrown with the errno name as their code.
 *
 * dropCached(fd) asks the kernel to drop the file's pages from the page cache (POSIX_FADV_DONTNEED),
 * so that tests and benchmarks can make a file cold without root.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#define COLD -1
#define UNSUPPORTED -2

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

static napi_value fail_errno(napi_env env, int error) {
  const char *name = strerrorname_np(error);
  napi_throw_error(env, name ? name : "EIO", strerror(error));
  return NULL;
}

static int int_at(napi_env env, napi_value value, int64_t *out) {
  return napi_get_value_int64(env, value, out) == napi_ok;
}

static napi_value number(napi_env env, int64_t value) {
  napi_value result;
  napi_create_int64(env, value, &result);
  return result;
}

/* Reads until done, the end of the file, or the first byte not cached. */
static int64_t read_without_waiting(int fd, uint8_t *bytes, size_t length, int64_t position, int *error) {
  size_t done = 0;
  while (done < length) {
    struct iovec part = { bytes + done, length - done };
    ssize_t read = preadv2(fd, &part, 1, position + (int64_t)done, RWF_NOWAIT);
    if (read > 0) { done += (size_t)read; continue; }
    if (read == 0) break;
    if (errno == EINTR) continue;
    if (errno == EAGAIN) return COLD;
    if (errno == EOPNOTSUPP || errno == ENOSYS || errno == EINVAL) return UNSUPPORTED;
    *error = errno;
    return 0;
  }
  return (int64_t)done;
}

static napi_value read_cached(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) return fail(env, "readCached(fd, buffer, offset, length, position)");
  int64_t fd, offset, length, position;
  void *data;
  size_t size;
  napi_typedarray_type type;
  bool is_typed;
  if (!int_at(env, argv[0], &fd) || !int_at(env, argv[2], &offset) || !int_at(env, argv[3], &length) || !int_at(env, argv[4], &position)) return fail(env, "fd, offset, length and position are integers");
  if (napi_is_typedarray(env, argv[1], &is_typed) != napi_ok || !is_typed) return fail(env, "the buffer is a Uint8Array");
  if (napi_get_typedarray_info(env, argv[1], &type, &size, &data, NULL, NULL) != napi_ok || type != napi_uint8_array) return fail(env, "the buffer is a Uint8Array");
  if (offset < 0 || length < 0 || position < 0 || (uint64_t)(offset + length) > size) return fail(env, "the range is outside the buffer");
  int error = 0;
  int64_t read = read_without_waiting((int)fd, (uint8_t *)data + offset, (size_t)length, position, &error);
  return error ? fail_errno(env, error) : number(env, read);
}

static napi_value drop_cached(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int64_t fd;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || !int_at(env, argv[0], &fd)) return fail(env, "dropCached(fd)");
  int error = posix_fadvise((int)fd, 0, 0, POSIX_FADV_DONTNEED);
  return error ? fail_errno(env, error) : NULL;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "readCached", NAPI_AUTO_LENGTH, read_cached, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "readCached", function) != napi_ok) return NULL;
  if (napi_create_function(env, "dropCached", NAPI_AUTO_LENGTH, drop_cached, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "dropCached", function) != napi_ok) return NULL;
  return exports;
}
