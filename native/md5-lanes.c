/*
 * MD5 (RFC 1321) of up to four messages at once, for work that hashes several chunk files side
 * by side (a redaction writes and checks one copy per chunk). One MD5 message cannot go faster
 * than the chain of dependent operations in each of its 64 steps; the CPU has integer units to
 * spare meanwhile, so the steps of up to four messages are interleaved in one function and run
 * together. Plain C: the compiler keeps each message's state in registers.
 *
 * blocks(states, lane0, lane1, lane2, lane3): `states` is a Uint32Array of 16 words (A, B, C, D
 * of lane 0, then of lane 1, ...); each lane is a Uint8Array of whole 64-byte blocks, or
 * undefined when that lane has nothing to hash. Every block of every lane is hashed into its
 * lane's state; lanes of unequal length are fine.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdint.h>
#include <string.h>

#define LANES 4
#define BLOCK_BYTES 64
#define STATE_WORDS (LANES * 4)

#define ROTATE_LEFT(x, n) (((x) << (n)) | ((x) >> (32 - (n))))
/* The round functions. G's two terms share no bit, so they are added: only (b & d) waits for b. */
#define F(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define G(b, c, d) (((c) & ~(d)) + ((b) & (d)))
#define H(b, c, d) ((b) ^ (c) ^ (d))
#define I(b, c, d) ((c) ^ ((b) | ~(d)))

static inline uint32_t word_at(const uint8_t *bytes) {
  uint32_t word;
  memcpy(&word, bytes, sizeof word);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  word = __builtin_bswap32(word);
#endif
  return word;
}

/* One step of lane `l`, when the function hashes more than `l` lanes (a constant once inlined). */
#define STEP_OF_LANE(fn, a, b, c, d, word, sine, shift, l)                   \
  if (lanes > l) {                                                           \
    a##l += word_at(block##l + 4 * (word)) + (sine) + fn(b##l, c##l, d##l); \
    a##l = b##l + ROTATE_LEFT(a##l, shift);                                  \
  }
#define STEP(fn, a, b, c, d, word, sine, shift)         \
  STEP_OF_LANE(fn, a, b, c, d, word, sine, shift, 0)    \
  STEP_OF_LANE(fn, a, b, c, d, word, sine, shift, 1)    \
  STEP_OF_LANE(fn, a, b, c, d, word, sine, shift, 2)    \
  STEP_OF_LANE(fn, a, b, c, d, word, sine, shift, 3)

#define LOAD_LANE(l) uint32_t a##l = state[l][0], b##l = state[l][1], c##l = state[l][2], d##l = state[l][3];
#define ADD_LANE(l) state[l][0] += a##l, state[l][1] += b##l, state[l][2] += c##l, state[l][3] += d##l;

/* Hashes `count` blocks from each of the first `lanes` inputs; `lanes` is a constant where it is inlined. */
static inline __attribute__((always_inline)) void hash_lanes(uint32_t *const state[LANES], const uint8_t *const input[LANES], size_t count, const int lanes) {
  for (size_t at = 0; at < count * BLOCK_BYTES; at += BLOCK_BYTES) {
    const uint8_t *block0 = input[0] + at, *block1 = input[1] + at, *block2 = input[2] + at, *block3 = input[3] + at;
    LOAD_LANE(0) LOAD_LANE(1) LOAD_LANE(2) LOAD_LANE(3)

    STEP(F, a, b, c, d, 0, 0xd76aa478, 7) STEP(F, d, a, b, c, 1, 0xe8c7b756, 12)
    STEP(F, c, d, a, b, 2, 0x242070db, 17) STEP(F, b, c, d, a, 3, 0xc1bdceee, 22)
    STEP(F, a, b, c, d, 4, 0xf57c0faf, 7) STEP(F, d, a, b, c, 5, 0x4787c62a, 12)
    STEP(F, c, d, a, b, 6, 0xa8304613, 17) STEP(F, b, c, d, a, 7, 0xfd469501, 22)
    STEP(F, a, b, c, d, 8, 0x698098d8, 7) STEP(F, d, a, b, c, 9, 0x8b44f7af, 12)
    STEP(F, c, d, a, b, 10, 0xffff5bb1, 17) STEP(F, b, c, d, a, 11, 0x895cd7be, 22)
    STEP(F, a, b, c, d, 12, 0x6b901122, 7) STEP(F, d, a, b, c, 13, 0xfd987193, 12)
    STEP(F, c, d, a, b, 14, 0xa679438e, 17) STEP(F, b, c, d, a, 15, 0x49b40821, 22)

    STEP(G, a, b, c, d, 1, 0xf61e2562, 5) STEP(G, d, a, b, c, 6, 0xc040b340, 9)
    STEP(G, c, d, a, b, 11, 0x265e5a51, 14) STEP(G, b, c, d, a, 0, 0xe9b6c7aa, 20)
    STEP(G, a, b, c, d, 5, 0xd62f105d, 5) STEP(G, d, a, b, c, 10, 0x02441453, 9)
    STEP(G, c, d, a, b, 15, 0xd8a1e681, 14) STEP(G, b, c, d, a, 4, 0xe7d3fbc8, 20)
    STEP(G, a, b, c, d, 9, 0x21e1cde6, 5) STEP(G, d, a, b, c, 14, 0xc33707d6, 9)
    STEP(G, c, d, a, b, 3, 0xf4d50d87, 14) STEP(G, b, c, d, a, 8, 0x455a14ed, 20)
    STEP(G, a, b, c, d, 13, 0xa9e3e905, 5) STEP(G, d, a, b, c, 2, 0xfcefa3f8, 9)
    STEP(G, c, d, a, b, 7, 0x676f02d9, 14) STEP(G, b, c, d, a, 12, 0x8d2a4c8a, 20)

    STEP(H, a, b, c, d, 5, 0xfffa3942, 4) STEP(H, d, a, b, c, 8, 0x8771f681, 11)
    STEP(H, c, d, a, b, 11, 0x6d9d6122, 16) STEP(H, b, c, d, a, 14, 0xfde5380c, 23)
    STEP(H, a, b, c, d, 1, 0xa4beea44, 4) STEP(H, d, a, b, c, 4, 0x4bdecfa9, 11)
    STEP(H, c, d, a, b, 7, 0xf6bb4b60, 16) STEP(H, b, c, d, a, 10, 0xbebfbc70, 23)
    STEP(H, a, b, c, d, 13, 0x289b7ec6, 4) STEP(H, d, a, b, c, 0, 0xeaa127fa, 11)
    STEP(H, c, d, a, b, 3, 0xd4ef3085, 16) STEP(H, b, c, d, a, 6, 0x04881d05, 23)
    STEP(H, a, b, c, d, 9, 0xd9d4d039, 4) STEP(H, d, a, b, c, 12, 0xe6db99e5, 11)
    STEP(H, c, d, a, b, 15, 0x1fa27cf8, 16) STEP(H, b, c, d, a, 2, 0xc4ac5665, 23)

    STEP(I, a, b, c, d, 0, 0xf4292244, 6) STEP(I, d, a, b, c, 7, 0x432aff97, 10)
    STEP(I, c, d, a, b, 14, 0xab9423a7, 15) STEP(I, b, c, d, a, 5, 0xfc93a039, 21)
    STEP(I, a, b, c, d, 12, 0x655b59c3, 6) STEP(I, d, a, b, c, 3, 0x8f0ccc92, 10)
    STEP(I, c, d, a, b, 10, 0xffeff47d, 15) STEP(I, b, c, d, a, 1, 0x85845dd1, 21)
    STEP(I, a, b, c, d, 8, 0x6fa87e4f, 6) STEP(I, d, a, b, c, 15, 0xfe2ce6e0, 10)
    STEP(I, c, d, a, b, 6, 0xa3014314, 15) STEP(I, b, c, d, a, 13, 0x4e0811a1, 21)
    STEP(I, a, b, c, d, 4, 0xf7537e82, 6) STEP(I, d, a, b, c, 11, 0xbd3af235, 10)
    STEP(I, c, d, a, b, 2, 0x2ad7d2bb, 15) STEP(I, b, c, d, a, 9, 0xeb86d391, 21)

    if (lanes > 0) ADD_LANE(0)
    if (lanes > 1) ADD_LANE(1)
    if (lanes > 2) ADD_LANE(2)
    if (lanes > 3) ADD_LANE(3)
  }
}

static void hash_one(uint32_t *const state[LANES], const uint8_t *const input[LANES], size_t count) { hash_lanes(state, input, count, 1); }
static void hash_two(uint32_t *const state[LANES], const uint8_t *const input[LANES], size_t count) { hash_lanes(state, input, count, 2); }
static void hash_three(uint32_t *const state[LANES], const uint8_t *const input[LANES], size_t count) { hash_lanes(state, input, count, 3); }
static void hash_four(uint32_t *const state[LANES], const uint8_t *const input[LANES], size_t count) { hash_lanes(state, input, count, 4); }

typedef void (*lanes_function)(uint32_t *const state[LANES], const uint8_t *const input[LANES], size_t count);
static const lanes_function hash_busy_lanes[LANES + 1] = { NULL, hash_one, hash_two, hash_three, hash_four };

/* Hashes every block of every lane: the lanes still busy run together until the shortest ends. */
static void hash_all(uint32_t states[STATE_WORDS], const uint8_t *input[LANES], size_t blocks[LANES]) {
  static uint32_t idle_state[4];
  static const uint8_t idle_block[BLOCK_BYTES];
  for (;;) {
    uint32_t *state[LANES];
    const uint8_t *from[LANES];
    int busy[LANES], count = 0;
    size_t step = SIZE_MAX;
    for (int lane = 0; lane < LANES; lane++) {
      if (blocks[lane] == 0) continue;
      busy[count++] = lane;
      if (blocks[lane] < step) step = blocks[lane];
    }
    if (count == 0) return;
    for (int i = 0; i < LANES; i++) {
      state[i] = i < count ? states + 4 * busy[i] : idle_state;
      from[i] = i < count ? input[busy[i]] : idle_block;
    }
    hash_busy_lanes[count](state, from, step);
    for (int i = 0; i < count; i++) {
      input[busy[i]] += step * BLOCK_BYTES;
      blocks[busy[i]] -= step;
    }
  }
}

static napi_value fail(napi_env env, const char *message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

static int is_absent(napi_env env, napi_value value) {
  napi_valuetype type;
  return napi_typeof(env, value, &type) == napi_ok && (type == napi_undefined || type == napi_null);
}

/* The bytes of a typed array of the given type, or NULL. */
static void *typed_bytes(napi_env env, napi_value value, napi_typedarray_type wanted, size_t *length) {
  bool is_typed;
  napi_typedarray_type type;
  void *data;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed) return NULL;
  if (napi_get_typedarray_info(env, value, &type, length, &data, NULL, NULL) != napi_ok || type != wanted) return NULL;
  return data;
}

static napi_value blocks(napi_env env, napi_callback_info info) {
  size_t argc = 1 + LANES;
  napi_value argv[1 + LANES];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return fail(env, "blocks(states, ...lanes) takes the states");
  size_t words;
  uint32_t *states = typed_bytes(env, argv[0], napi_uint32_array, &words);
  if (states == NULL || words != STATE_WORDS) return fail(env, "the states are a Uint32Array of 16 words");
  const uint8_t *input[LANES];
  size_t counts[LANES];
  for (int lane = 0; lane < LANES; lane++) {
    counts[lane] = 0;
    input[lane] = NULL;
    if ((size_t)lane + 1 >= argc || is_absent(env, argv[lane + 1])) continue;
    size_t length;
    input[lane] = typed_bytes(env, argv[lane + 1], napi_uint8_array, &length);
    if (input[lane] == NULL) return fail(env, "a lane is a Uint8Array or undefined");
    if (length % BLOCK_BYTES != 0) return fail(env, "a lane holds whole 64-byte blocks");
    counts[lane] = length / BLOCK_BYTES;
  }
  hash_all(states, input, counts);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "blocks", NAPI_AUTO_LENGTH, blocks, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "blocks", function) != napi_ok) return NULL;
  return exports;
}
