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

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

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
