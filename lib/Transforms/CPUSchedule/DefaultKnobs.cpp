//===- DefaultKnobs.cpp - default knob values of the CPU schedules --------===//

#include "DefaultKnobs.h"

#include <algorithm>

using namespace mlir::int21::cpu;

/// Thread tiles to aim for: enough to balance a few cores.
static constexpr int64_t kMinThreadTiles = 8;

/// The largest multiple of `unit` that divides `dim` and is at most `limit`;
/// when there is none, `limit` rounded down to a multiple of `unit` (or `dim`
/// when it is smaller), leaving a partial last tile (peeled by the templates).
static int64_t pickTile(int64_t dim, int64_t unit, int64_t limit) {
  if (dim <= unit)
    return dim;
  limit = std::max(unit, std::min(limit, dim));
  for (int64_t t = limit / unit * unit; t >= unit; t -= unit)
    if (dim % t == 0)
      return t;
  return limit / unit * unit;
}

/// The register tile width along a contiguous output dimension: a vector
/// width that divides it when one does, so that few tiles are left over.
static int64_t pickVectorWidth(int64_t dim) {
  for (int64_t w : {32, 16})
    if (dim % w == 0)
      return w;
  if (dim % 28 == 0) // 28x28, 14x14 feature maps: 16 + 8 + 4 lanes.
    return 28;
  if (dim <= 64) // 7x7 feature maps, small N: one unpeeled tile.
    return dim;
  return 32; // The remainder tile is peeled off and stays scalar.
}

Knobs mlir::int21::cpu::matmulKnobs(int64_t m, int64_t n, int64_t k) {
  Knobs knobs;
  // 8 rows x 32 lanes: 16 AVX-512 (or 32 AVX2) accumulators, one B row load
  // and 8 broadcasts per k.
  int64_t regN = pickVectorWidth(n);
  int64_t regM = std::min<int64_t>(m, regN > 32 ? 4 : 8);
  int64_t parN = pickTile(n, regN, 128);
  int64_t tilesN = (n + parN - 1) / parN;
  int64_t wantM = std::max<int64_t>(1, kMinThreadTiles / tilesN);
  int64_t parM = pickTile(m, regM, std::max<int64_t>(regM, m / wantM));
  knobs["par_m"] = parM;
  knobs["par_n"] = parN;
  // A divisor of K: with a partial K tile the accumulators are not hoisted
  // out of the K loop.
  knobs["cache_k"] = pickTile(k, 1, 256);
  knobs["reg_m"] = regM;
  knobs["reg_n"] = regN;
  return knobs;
}

Knobs mlir::int21::cpu::conv2dKnobs(int64_t f, int64_t oh, int64_t ow,
                                    int64_t taps) {
  int64_t pixels = oh * ow;
  Knobs knobs = matmulKnobs(f, pixels, taps);
  // Each thread tile recomputes its im2col slice: keep all filters of a
  // pixel tile in one thread tile when there are few of them.
  int64_t parM = f <= 128 ? f : pickTile(f, knobs["reg_m"], 64);
  int64_t tilesM = (f + parM - 1) / parM;
  int64_t wantN = std::max<int64_t>(1, kMinThreadTiles / tilesM);
  // Pixel tiles are whole output rows: the im2col slice of a tile that starts
  // or ends inside a row is not a box of the input (upstream tiling computes
  // a wrong one), and whole rows dividing oh keep every tile full. Among
  // those, prefer a pixel count that is a multiple of 16 lanes: an odd vector
  // width (28 lanes) makes LLVM shuffle the accumulator rows at every step.
  // Two tiles per thread of a 2-core machine are enough when that buys full
  // vectors.
  auto rowsFor = [&](int64_t minTiles, int64_t lanes) -> int64_t {
    for (int64_t r = oh; r >= 1; --r)
      if (oh % r == 0 && oh / r >= minTiles && r * ow <= 512 &&
          (r * ow) % lanes == 0)
        return r;
    return 0;
  };
  int64_t rows = rowsFor(wantN, 32);
  if (!rows)
    rows = rowsFor(wantN, 16);
  if (!rows)
    rows = rowsFor(std::min<int64_t>(wantN, 4), 16);
  if (!rows) {
    // No such split: the whole image when it is small (one im2col per filter
    // tile), else the largest split into enough tiles.
    rows = 1;
    for (int64_t r = oh; r >= 1; --r)
      if (oh % r == 0 && (oh / r >= wantN || pixels <= 256) &&
          r * ow <= std::max<int64_t>(512, pixels <= 256 ? pixels : 0)) {
        rows = r;
        break;
      }
  }
  int64_t parN = rows * ow;
  // 32 or 16 lanes; the rest of the pixel tile (4 of 196, 1 of 49) is peeled
  // into a static narrower tile, vectorized too.
  int64_t regN = parN % 32 == 0 ? 32 : parN >= 16 ? 16 : parN;
  // 16 accumulator registers either way (8 x 32 or 16 x 16 lanes).
  int64_t regM = std::min<int64_t>(f, regN == 16 && f % 16 == 0 ? 16 : 8);
  knobs["reg_n"] = regN;
  knobs["reg_m"] = regM;
  // A pixel tile covering the whole image is the only one: every filter tile
  // recomputes the same im2col slice (scalar gathers), so use two filter
  // tiles, enough for two threads, rather than eight.
  if (parN == pixels && f > 128 && (f / 2) % regM == 0)
    parM = f / 2;
  knobs["par_m"] = parM;
  knobs["par_n"] = parN;
  knobs["ew_par_c"] = std::max<int64_t>(1, f / kMinThreadTiles);
  int64_t vec = ow <= 64 ? ow : pickTile(ow, 16, 64);
  knobs["ew_vec"] = vec;
  return knobs;
}

Knobs mlir::int21::cpu::elementwiseKnobs(llvm::ArrayRef<int64_t> shape) {
  Knobs knobs;
  size_t rank = shape.size();
  int64_t inner = shape.back();
  int64_t vec = inner <= 64 ? inner : pickTile(inner, 16, 64);
  knobs["vec"] = vec;
  // Split the outer dimensions, outermost first, until there are enough
  // thread tiles; the innermost dimension stays whole unless it is the only
  // one.
  int64_t need = kMinThreadTiles;
  for (size_t d = 0; d + 1 < rank; ++d) {
    int64_t count = 1;
    if (need > 1) {
      count = std::min(need, shape[d]);
      while (shape[d] % count != 0)
        ++count;
      need = (need + count - 1) / count;
    }
    knobs["par_" + std::to_string(d)] = shape[d] / count;
  }
  int64_t last = inner;
  if (rank == 1 || need > 1)
    last = pickTile(inner, vec, std::max(vec, inner / need));
  knobs["par_" + std::to_string(rank - 1)] = last;
  return knobs;
}

Knobs mlir::int21::cpu::outerForallKnobs(llvm::ArrayRef<int64_t> shape,
                                         unsigned parallelDims) {
  Knobs knobs;
  int64_t need = kMinThreadTiles;
  for (unsigned d = 0; d < parallelDims && d < shape.size(); ++d) {
    int64_t count = std::max<int64_t>(1, std::min(need, shape[d]));
    int64_t tile = (shape[d] + count - 1) / count;
    need = (need + count - 1) / count;
    knobs["par_" + std::to_string(d)] = std::max<int64_t>(1, tile);
  }
  return knobs;
}
