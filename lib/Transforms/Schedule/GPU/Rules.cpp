//===- Rules.cpp - the GPU templates' rules: defaults, domains, limits ----===//
//
// One place per template (see CPU/Rules.cpp): default knob values for the
// work, the domain of each knob, and the hardware's limits.
//
// Block tiles divide their dimension where a divisor of a sensible size
// exists (every block then full); any other value is still correct, the
// templates giving threads by count so that partial tiles keep static
// thread loops.
//
//===----------------------------------------------------------------------===//

#include "../Common/ScheduleInternal.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace int21;
using namespace int21::schedule;
using namespace int21::schedule::gpu;
using llvm::SmallVector;

/// Threads per block the defaults aim for.
static constexpr int64_t kBlockThreads = 256;
/// Static shared memory a block may use without opting in (bytes).
static constexpr int64_t kSharedBytes = 48 * 1024;

/// The largest divisor of `dim` that is at most `limit` and, where one
/// exists above `unit`, a multiple of `unit`.
static int64_t pickDivisor(int64_t dim, int64_t limit, int64_t unit = 1) {
  if (dim <= 0)
    return 1;
  limit = std::max<int64_t>(1, std::min(limit, dim));
  for (int64_t t = limit / unit * unit; t >= unit && unit > 1; t -= unit)
    if (dim % t == 0)
      return t;
  for (int64_t t = limit; t >= 1; --t)
    if (dim % t == 0)
      return t;
  return 1;
}

Knobs schedule::gpu::matmulKnobs(int64_t m, int64_t n, int64_t k) {
  Knobs knobs;
  // 64 x 64 outputs and 256 threads (4 x 4 outputs each) where the shape
  // allows; A, B and the accumulator tile take 32 KiB of shared memory.
  int64_t blkM = pickDivisor(m, 64, 16);
  int64_t blkN = pickDivisor(n, 64, 16);
  int64_t blkK = pickDivisor(k, 32, 8);
  knobs["blk_m"] = blkM;
  knobs["blk_n"] = blkN;
  knobs["blk_k"] = blkK;
  knobs["thr_y"] = std::min<int64_t>(blkM, 16);
  knobs["thr_x"] = std::min<int64_t>(blkN, 16);
  knobs["promote"] = 1;
  // Widest copies the shapes allow: a row of A (k) and of B (n), and the
  // tiles' offsets in them, multiples of the width, so that every vector is
  // aligned.
  int64_t vec = 4;
  while (vec > 1 && (k % vec || n % vec || blkK % vec || blkN % vec))
    vec /= 2;
  knobs["vec"] = vec;
  // Four K steps per register-tile update: 4 x 4 accumulators plus 4 x 4
  // elements each of A and B stay well within the registers.
  int64_t unroll = 4;
  while (unroll > 1 && blkK % unroll)
    unroll /= 2;
  knobs["unroll"] = unroll;
  return knobs;
}

Knobs schedule::gpu::parallelKnobs(llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<unsigned> tiled) {
  Knobs knobs;
  // One output (or output row, for a reduction) per thread; the innermost
  // tiled dimension gets the threads first, so that neighbouring threads
  // touch neighbouring elements.
  int64_t remaining = kBlockThreads;
  for (unsigned d : llvm::reverse(tiled)) {
    int64_t dim = std::max<int64_t>(1, shape[d]);
    int64_t t = dim <= remaining ? dim : pickDivisor(dim, remaining, 32);
    if (t < remaining / 4 && dim > remaining)
      t = remaining; // No good divisor: a partial last block.
    t = std::max<int64_t>(1, t);
    knobs["blk_" + std::to_string(d)] = t;
    knobs["thr_" + std::to_string(d)] = t;
    remaining = std::max<int64_t>(1, remaining / t);
  }
  return knobs;
}

static void sortUnique(SmallVector<int64_t> &values) {
  llvm::sort(values);
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

/// Block tiles of a dimension: powers of two below it, its divisors among
/// halves to sixteenths, and the whole dimension.
static SmallVector<int64_t> blockOptions(int64_t dim, int64_t minimum) {
  SmallVector<int64_t> options;
  for (int64_t t = minimum; t < dim && t <= 1024; t *= 2)
    options.push_back(t);
  for (int64_t parts : {2, 4, 8, 16})
    if (dim % parts == 0 && dim / parts >= minimum)
      options.push_back(dim / parts);
  options.push_back(std::max<int64_t>(dim, 1));
  sortUnique(options);
  return options;
}

/// Thread counts along a dimension of `dim`: powers of two up to it (at
/// most 1024) and the dimension itself when smaller.
static SmallVector<int64_t> threadOptions(int64_t dim) {
  SmallVector<int64_t> options;
  for (int64_t t = 1; t <= std::min<int64_t>(dim, 1024); t *= 2)
    options.push_back(t);
  if (dim <= 1024)
    options.push_back(std::max<int64_t>(dim, 1));
  sortUnique(options);
  return options;
}

// @gpu.matmul and @gpu.batch_matmul: dims = m, n, k.
static std::optional<SmallVector<int64_t>>
matmulDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  if (knob == "blk_m")
    return blockOptions(dims[0], 8);
  if (knob == "blk_n")
    return blockOptions(dims[1], 8);
  if (knob == "blk_k") {
    SmallVector<int64_t> options;
    for (int64_t t : blockOptions(dims[2], 4))
      if (t <= 128 && dims[2] % t == 0)
        options.push_back(t);
    if (options.empty())
      options.push_back(dims[2]);
    return options;
  }
  if (knob == "thr_y")
    return threadOptions(std::min<int64_t>(dims[0], 32));
  if (knob == "thr_x")
    return threadOptions(std::min<int64_t>(dims[1], 32));
  // Widths that divide the rows of A and B: wider ones could never be
  // aligned.
  if (knob == "vec" || knob == "unroll") {
    SmallVector<int64_t> options;
    for (int64_t v : {1, 2, 4})
      if (dims[2] % v == 0 && (knob == "unroll" || dims[1] % v == 0))
        options.push_back(v);
    return options;
  }
  return std::nullopt;
}

static Knobs matmulDefaults(llvm::ArrayRef<int64_t> dims,
                            const VectorModel &) {
  if (dims.size() != 3)
    return {};
  return matmulKnobs(dims[0], dims[1], dims[2]);
}

static int64_t knobOr(const Knobs &knobs, llvm::StringRef name,
                      int64_t otherwise) {
  auto it = knobs.find(name);
  return it == knobs.end() ? otherwise : it->second;
}

/// At most 1024 threads per block, whatever the template.
static bool checkThreads(const Knobs &knobs, std::string &why) {
  int64_t threads = 1;
  for (const auto &knob : knobs)
    if (knob.getKey().starts_with("thr_"))
      threads *= std::max<int64_t>(1, knob.getValue());
  if (threads > 1024) {
    why = "more than 1024 threads per block";
    return false;
  }
  return true;
}

static bool matmulCheck(const Knobs &knobs, llvm::ArrayRef<int64_t>,
                        const VectorModel &, std::string &why) {
  if (!checkThreads(knobs, why))
    return false;
  int64_t m = knobOr(knobs, "blk_m", 1), n = knobOr(knobs, "blk_n", 1),
          k = knobOr(knobs, "blk_k", 1);
  if (knobOr(knobs, "thr_y", 1) > m || knobOr(knobs, "thr_x", 1) > n) {
    why = "more threads than outputs along a block dimension";
    return false;
  }
  int64_t vec = knobOr(knobs, "vec", 1), unroll = knobOr(knobs, "unroll", 1);
  if (vec < 1 || k % vec || n % vec) {
    why = "vec does not divide blk_k and blk_n";
    return false;
  }
  if (unroll < 1 || k % unroll) {
    why = "unroll does not divide blk_k";
    return false;
  }
  int64_t bytes = 4 * m * n + (knobOr(knobs, "promote", 0) ? 4 * k * (m + n) : 0);
  if (bytes > kSharedBytes) {
    why = "the block's tiles need more than 48 KiB of shared memory";
    return false;
  }
  return true;
}

// The @gpu.tile_fuse_<n>d based templates: dims = the root's leading
// parallel dimensions; the four-dimensional ones (NCHW) tile 1..3.
static std::optional<SmallVector<int64_t>>
parallelDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  unsigned d;
  if (knob.consume_front("blk_") && !knob.getAsInteger(10, d) &&
      d < dims.size())
    return blockOptions(dims[d], 1);
  if (knob.consume_front("thr_") && !knob.getAsInteger(10, d) &&
      d < dims.size())
    return threadOptions(dims[d]);
  return std::nullopt;
}

static Knobs parallelDefaults(llvm::ArrayRef<int64_t> dims,
                              const VectorModel &) {
  SmallVector<unsigned> tiled;
  for (unsigned d = dims.size() == 4 ? 1 : 0; d < dims.size(); ++d)
    tiled.push_back(d);
  return parallelKnobs(dims, tiled);
}

static bool parallelCheck(const Knobs &knobs, llvm::ArrayRef<int64_t>,
                          const VectorModel &, std::string &why) {
  return checkThreads(knobs, why);
}

// Block tiles only: more threads than elements is not the same point.
static std::optional<int64_t> matmulExtent(llvm::StringRef knob,
                                           llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  if (knob == "blk_m")
    return dims[0];
  if (knob == "blk_n")
    return dims[1];
  if (knob == "blk_k")
    return dims[2];
  return std::nullopt;
}

static std::optional<int64_t> parallelExtent(llvm::StringRef knob,
                                             llvm::ArrayRef<int64_t> dims) {
  unsigned d;
  if (knob.consume_front("blk_") && !knob.getAsInteger(10, d) &&
      d < dims.size())
    return dims[d];
  return std::nullopt;
}

const TemplateRules *schedule::gpu::lookupRules(llvm::StringRef sequence) {
  static constexpr TemplateRules kMatmul = {matmulDefaults, matmulDomain,
                                            matmulCheck, matmulExtent};
  static constexpr TemplateRules kParallel = {
      parallelDefaults, parallelDomain, parallelCheck, parallelExtent};
  static constexpr std::pair<llvm::StringLiteral, const TemplateRules *>
      kTable[] = {
          {"gpu.matmul", &kMatmul},
          {"gpu.batch_matmul", &kMatmul},
          {"gpu.elementwise_1d", &kParallel},
          {"gpu.elementwise_2d", &kParallel},
          {"gpu.elementwise_3d", &kParallel},
          {"gpu.elementwise_4d", &kParallel},
          {"gpu.reduction_1d", &kParallel},
          {"gpu.reduction_2d", &kParallel},
          {"gpu.reduction_3d", &kParallel},
          {"gpu.reduction_4d", &kParallel},
          {"gpu.pooling_nchw", &kParallel},
          {"gpu.conv2d_nchw", &kParallel},
      };
  for (const auto &[symbol, rules] : kTable)
    if (symbol == sequence)
      return rules;
  return nullptr;
}
