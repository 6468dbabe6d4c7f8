//===- EngineSupport.c - The C part of every CPU engine ------------------===//
//
// Linked into every CPU engine's shared object with the model's code: the
// allocator that the generated code calls for its temporaries
// (finalize-memref-to-llvm with use-generic-functions). It is compiled once,
// when int21 is built, and the compiler embeds the object (see
// EngineSupport.h), so building an engine needs no C compiler.
//
// Buffers that per-thread tiles allocate inside loops are allocated and
// freed on every run, many per run; with malloc, the large ones are mmap'd
// and munmap'd each time, and every run pays for fresh pages. This allocator
// keeps freed blocks in power-of-two size classes for the next request
// instead, in a cache of the calling thread's own: the threads of a parallel
// loop allocate at once, and with one cache behind a mutex, two threads
// spent 13% of RegNet's run waiting for each other on it. A block freed by
// another thread than the one that allocated it joins the freeing thread's
// cache. Its state lives in the engine's own library, so engines share
// nothing; the blocks of every thread's cache are released when the engine
// is unloaded.
//
//===----------------------------------------------------------------------===//

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kHeader = 64, kClasses = 48, kForeign = 255 };

typedef struct Block {
  struct Block *next;
  uint32_t sizeClass;
  void *raw; /* What to free() for a block of kForeign class. */
} Block;

/* A thread's cache, registered once in the list of all of them (under the
 * mutex) so that unloading the engine can release every thread's blocks. */
typedef struct Cache {
  struct Cache *next;
  Block *freeBlocks[kClasses];
} Cache;

/* The thread's cache is found through a key without a destructor (not a
 * __thread variable: the engine is linked without the dynamic loader that
 * provides __tls_get_addr), so that no thread calls into the engine's code
 * once it is unloaded; the key is deleted then. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t keyOnce = PTHREAD_ONCE_INIT;
static pthread_key_t cacheKey;
static int haveKey;
static Cache *caches;

static void createKey(void) { haveKey = pthread_key_create(&cacheKey, NULL) == 0; }

static Cache *cacheOfThisThread(void) {
  pthread_once(&keyOnce, createKey);
  if (!haveKey)
    return NULL;
  Cache *cache = (Cache *)pthread_getspecific(cacheKey);
  if (cache)
    return cache;
  cache = (Cache *)calloc(1, sizeof(Cache));
  if (!cache)
    return NULL;
  if (pthread_setspecific(cacheKey, cache) != 0) {
    free(cache);
    return NULL;
  }
  pthread_mutex_lock(&lock);
  cache->next = caches;
  caches = cache;
  pthread_mutex_unlock(&lock);
  return cache;
}

static uint32_t sizeClassOf(uint64_t size) {
  uint32_t c = 6; /* At least 64 bytes. */
  while (c + 1 < kClasses && ((uint64_t)1 << c) < size)
    ++c;
  return c;
}

void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  uint32_t c = sizeClassOf(size);
  if (((uint64_t)1 << c) < size)
    return NULL;
  Cache *cache = cacheOfThisThread();
  Block *block = cache ? cache->freeBlocks[c] : NULL;
  if (block)
    cache->freeBlocks[c] = block->next;
  if (!block) {
    block = (Block *)aligned_alloc(kHeader, kHeader + ((uint64_t)1 << c));
    if (!block)
      return NULL;
    block->sizeClass = c;
    block->raw = block;
  }
  return (char *)block + kHeader;
}

void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t size) {
  if (alignment <= kHeader)
    return _mlir_memref_to_llvm_alloc(size);
  /* Rare: alignments above 64 bytes get a block of their own. */
  char *raw = (char *)aligned_alloc(alignment, alignment + size);
  if (!raw)
    return NULL;
  char *data = raw + alignment;
  Block *block = (Block *)(data - kHeader);
  block->sizeClass = kForeign;
  block->raw = raw;
  return data;
}

void _mlir_memref_to_llvm_free(void *data) {
  if (!data)
    return;
  Block *block = (Block *)((char *)data - kHeader);
  if (block->sizeClass == kForeign) {
    free(block->raw);
    return;
  }
  Cache *cache = cacheOfThisThread();
  if (!cache) {
    free(block->raw);
    return;
  }
  block->next = cache->freeBlocks[block->sizeClass];
  cache->freeBlocks[block->sizeClass] = block;
}

__attribute__((destructor)) static void releaseBlocks(void) {
  while (caches) {
    Cache *cache = caches;
    for (int c = 0; c < kClasses; ++c)
      while (cache->freeBlocks[c]) {
        Block *next = cache->freeBlocks[c]->next;
        free(cache->freeBlocks[c]->raw);
        cache->freeBlocks[c] = next;
      }
    caches = cache->next;
    free(cache);
  }
  if (haveKey)
    pthread_key_delete(cacheKey);
}

/*===--- Random numbers ---------------------------------------------------===*/
/* int21.random's generator: the Mersenne Twister (MT19937) as numpy's legacy
 * RandomState runs it, so that a seed gives the numbers
 * numpy.random.seed(seed) then rand() (53-bit doubles from two draws) or
 * randn() (the polar method, two numbers a pair) gives. Each call starts
 * afresh: from the seed when there is one (every run the same numbers),
 * else from the clock and a counter (every run new ones). */

enum { kStates = 624, kShift = 397 };

typedef struct Twister {
  uint32_t state[kStates];
  int next;
  int hasSpare;
  double spare;
} Twister;

static void twisterSeed(Twister *t, uint32_t seed) {
  t->state[0] = seed;
  for (int i = 1; i < kStates; ++i)
    t->state[i] = 1812433253u * (t->state[i - 1] ^ (t->state[i - 1] >> 30)) +
                  (uint32_t)i;
  t->next = kStates;
  t->hasSpare = 0;
  t->spare = 0;
}

static uint32_t twisterDraw(Twister *t) {
  if (t->next >= kStates) {
    for (int i = 0; i < kStates; ++i) {
      uint32_t y = (t->state[i] & 0x80000000u) |
                   (t->state[(i + 1) % kStates] & 0x7fffffffu);
      t->state[i] = t->state[(i + kShift) % kStates] ^ (y >> 1) ^
                    ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    t->next = 0;
  }
  uint32_t y = t->state[t->next++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

static double twisterUniform(Twister *t) {
  uint32_t a = twisterDraw(t) >> 5, b = twisterDraw(t) >> 6;
  return (a * 67108864.0 + b) / 9007199254740992.0;
}

static double twisterNormal(Twister *t) {
  if (t->hasSpare) {
    t->hasSpare = 0;
    return t->spare;
  }
  double x1, x2, r2;
  do {
    x1 = 2.0 * twisterUniform(t) - 1.0;
    x2 = 2.0 * twisterUniform(t) - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  double f = sqrt(-2.0 * log(r2) / r2);
  t->spare = f * x1;
  t->hasSpare = 1;
  return f * x2;
}

static uint32_t freshSeed(void) {
  static uint32_t counter;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  uint32_t n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
  return (uint32_t)now.tv_nsec ^ ((uint32_t)now.tv_sec * 2654435761u) ^
         (n * 40503u);
}

void int21_random(int64_t pointer, int64_t count, int64_t seed,
                  int64_t normal) {
  double *out = (double *)(uintptr_t)pointer;
  Twister t;
  twisterSeed(&t, seed >= 0 ? (uint32_t)seed : freshSeed());
  for (int64_t i = 0; i < count; ++i)
    out[i] = normal ? twisterNormal(&t) : twisterUniform(&t);
}

/* An output whose extents the run computes (int21-dynamic-signature): its
 * `bytes` copied into a buffer of the C library's (64-byte aligned, at least
 * 64 bytes), which the runtime hands to the caller and frees with free(). */
int64_t int21_output(int64_t pointer, int64_t bytes) {
  size_t size = bytes > 0 ? ((size_t)bytes + 63) / 64 * 64 : 64;
  void *copy = aligned_alloc(64, size);
  if (!copy)
    return 0;
  if (bytes > 0)
    memcpy(copy, (const void *)(uintptr_t)pointer, (size_t)bytes);
  return (int64_t)(uintptr_t)copy;
}
