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
// instead. Its state lives in the engine's own library, so engines share
// nothing; the blocks are released when the engine is unloaded.
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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Block *freeBlocks[kClasses];

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
  pthread_mutex_lock(&lock);
  Block *block = freeBlocks[c];
  if (block)
    freeBlocks[c] = block->next;
  pthread_mutex_unlock(&lock);
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
  pthread_mutex_lock(&lock);
  block->next = freeBlocks[block->sizeClass];
  freeBlocks[block->sizeClass] = block;
  pthread_mutex_unlock(&lock);
}

__attribute__((destructor)) static void releaseBlocks(void) {
  for (int c = 0; c < kClasses; ++c)
    while (freeBlocks[c]) {
      Block *next = freeBlocks[c]->next;
      free(freeBlocks[c]->raw);
      freeBlocks[c] = next;
    }
}
