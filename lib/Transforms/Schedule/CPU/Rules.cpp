//===- Rules.cpp - the CPU templates' rules: defaults, domains, limits ----===//
//
// One place per template: the knob values its default schedule takes for the
// work (its dims, see ScheduleChoice::dims), the domain of each knob for that
// work, and the rules a point must follow. The values are correct for any
// shape (tiles that do not divide a dimension are masked when vectorized) and
// chosen to divide the dimensions where they can, so that full tiles need no
// masks.
//
//===----------------------------------------------------------------------===//

#include "../Common/ScheduleInternal.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <tuple>

using namespace mlir;
using namespace int21;
using namespace int21::schedule;
using namespace int21::schedule::cpu;
using llvm::SmallVector;

/// Thread tiles to aim for: enough to balance a few cores.
static constexpr int64_t kMinThreadTiles = 8;

/// The largest multiple of `unit` that divides `dim` and is at most `limit`;
/// when there is none, `limit` rounded down to a multiple of `unit` (or `dim`
/// when it is smaller), leaving a partial last tile (peeled by the templates).
static SmallVector<int64_t> tileOptions(int64_t dim, int64_t minimum);

static int64_t pickTile(int64_t dim, int64_t unit, int64_t limit) {
  if (dim <= unit)
    return dim;
  limit = std::max(unit, std::min(limit, dim));
  for (int64_t t = limit / unit * unit; t >= unit; t -= unit)
    if (dim % t == 0)
      return t;
  return limit / unit * unit;
}

/// The register tile width along a contiguous output dimension: 32 lanes
/// on a long row that leaves one vector of 16 over, else a vector width
/// that divides it when one does, so that few tiles are left over.
static int64_t pickVectorWidth(int64_t dim) {
  // 32 lanes also where a long row leaves one vector of 16 over (784 of a
  // 28x28 map: 24 x 32 + 16): two loads a step for the register tile's
  // rows, where 16 x 16 lanes broadcast 16 elements for one load, as many
  // loads as FMAs. Pointwise convolutions at 28x28, 1 thread: 512 -> 128
  // 0.865 -> 0.715 ms, 128 -> 512 0.861 -> 0.751, 240 -> 40 0.115 -> 0.098.
  if (dim >= 128 && dim % 32 == 16)
    return 32;
  for (int64_t w : {32, 16})
    if (dim % w == 0)
      return w;
  if (dim < 16)
    return dim;
  // 32 or 16 lanes, whichever leaves a remainder of at most one vector (4 of
  // 196, 1 of 49, 8 of 1000), which is peeled into a static narrower tile and
  // vectorized too. An odd tile width (28 or 49 lanes) or a remainder wider
  // than a vector (17 of 49) makes LLVM shuffle the accumulator rows at
  // every step: a pointwise convolution 960x49x160 took 0.55 ms with 32 + 17
  // lanes and 1.8 ms with 49, 0.11 ms with 16 + 1.
  return dim > 32 && dim % 32 <= 16 ? 32 : 16;
}

/// The rows of a window op's register tile, at most `limit` (what the
/// accumulators hold): a divisor of the plane's rows when one is at least
/// half the limit, else the limit with the rest of the plane peeled. The 7
/// rows of a 7x7 plane in tiles of 4 (3 left over) took 0.055 ms at
/// 55x8x7x7 (grouped), one row a tile 0.088; 14 rows in tiles of 4 or 2
/// were within 4% (576x14x14, depthwise). Never a remainder of one row
/// (see windowTileCheck).
static int64_t pickRows(int64_t rows, int64_t limit) {
  if (rows <= limit)
    return rows;
  int64_t divisor = pickTile(rows, 1, limit);
  if (rows % divisor == 0 && (2 * divisor >= limit || rows % limit == 1))
    return divisor;
  return limit;
}

/// The columns of a window op's register tile (and of its epilogue's
/// vectors): 16 lanes, the rest of a longer row peeled, unless that leaves
/// one column over (see windowTileCheck); then another register width, or
/// the whole row (17 columns: one vector of 17 lanes).
static int64_t pickColumns(int64_t ow);

/// Whether tiles of `width` leave one element of `extent` over.
static bool leavesOneOver(int64_t extent, int64_t width) {
  return width > 1 && extent > width && extent % width == 1;
}

/// `width` columns of a row of `ow`, narrowed where whole tiles of it
/// would leave one column over: a tile of one column carries 0-d vectors
/// through the window loops, which the lowering to LLVM leaves unconverted
/// (3x3 at 19x19 in tiles of 6 columns, squeezenet on AVX2).
static int64_t noSingleColumnLeft(int64_t ow, int64_t width) {
  while (width > 2 && leavesOneOver(ow, width))
    --width;
  return width;
}

static int64_t pickColumns(int64_t ow) {
  if (ow <= 16)
    return ow;
  for (int64_t width : {16, 24, 32, 48, 64, 8})
    if (width <= ow && ow % width != 1)
      return width;
  return ow;
}

Knobs schedule::cpu::matmulKnobs(int64_t m, int64_t n, int64_t k,
                                 const VectorModel &vectors) {
  Knobs knobs;
  // 8 or 12 rows x 32 lanes: 16 or 24 AVX-512 (32 or 48 AVX2)
  // accumulators, one B row load and 8 or 12 broadcasts per k; 16 x 16
  // where rows are 16 lanes wide.
  int64_t regN = pickVectorWidth(n);
  // 12 rows where B's rows are short (the maps of 28x28 and smaller of
  // pointwise convolutions: fewer broadcasts and loads per FMA; chains of
  // 16 layers, 1 thread: 1024 <-> 256 at 14x14 12.0 -> 11.7 ms, 512 <-> 128
  // at 28x28 10.5 -> 10.2), 8 on longer ones (64 <-> 256 at 56x56: 6.7 with
  // 8, 7.1 with 12; 1024^3 as tuned), and where tiles of 12 leave fewer
  // than 8 rows over (a tile of 4 rows has half the FMAs a load; 672 -> 112
  // at 14x14 0.221 ms with 8 rows, 0.246 with 12).
  int64_t regM = std::min<int64_t>(
      m, regN == 16                                      ? 16
         : n < 1024 && (m % 12 == 0 || m % 12 >= 8) ? 12
                                                    : 8);
  // Fewer registers (AVX2's 16 of 8 floats hold 6 of the vectors of 16
  // above): rows of 16 lanes, 6 of them, 12 accumulators, two B loads and
  // a broadcast.
  int64_t accumulators = vectors.scaled(24);
  if (accumulators < 24) {
    regN = std::min<int64_t>(regN, 16);
    regM = std::min<int64_t>(m, std::max<int64_t>(1, accumulators * 16 / regN));
  }
  // Where the register tiles leave a remainder, one thread tile of the whole
  // width when it is short (a 7x7 or 14x14 feature map), so that the
  // remainder is peeled once, statically, not in every thread tile; on a
  // longer row, tiles of whole vectors that divide it (112 of 784: 3 x 32
  // + 16 lanes).
  int64_t parN = n % regN == 0 ? pickTile(n, regN, 128)
                 : n <= 512    ? n
                               : pickTile(n, n % 16 == 0 ? 16 : regN, 128);
  int64_t tilesN = (n + parN - 1) / parN;
  int64_t wantM = std::max<int64_t>(1, kMinThreadTiles / tilesN);
  // Thread tiles that divide M: a partial one makes every thread tile's rows
  // dynamic, and the register tiles of its remainder scalar (58 rows in
  // tiles of 48: 0.33 ms, 12x the time of one tile of 58).
  auto threadRows = [&](int64_t unit) {
    int64_t rows = pickTile(m, unit, std::max<int64_t>(unit, m / wantM));
    if (m % rows != 0)
      for (int64_t t : tileOptions(m, 4))
        if (t >= rows && m % t == 0)
          return t;
    return rows;
  };
  int64_t parM = threadRows(regM);
  // Thread tiles of a few register tiles each leave their remainder in
  // every one (112 rows: 8 tiles of 14 = 12 + 2): then 8 rows.
  if (regM == 12 && parM % regM != 0 && parM < 4 * regM) {
    regM = std::min<int64_t>(m, 8);
    parM = threadRows(regM);
  }
  knobs["par_m"] = parM;
  knobs["par_n"] = parN;
  knobs["reg_m"] = regM;
  knobs["reg_n"] = regN;
  // Copy B into panels one register tile wide (contiguous) when B's rows are
  // a multiple of 4 KiB apart, so that the rows of an unpacked panel share a
  // few L1 sets, and the thread tile has enough rows to reuse each copy.
  // Measured on 1024^3 f32 (1 thread, AVX-512): 5-10% faster; slower with
  // shorter rows (768, 512 columns) or fewer rows (M <= 256), where the copy
  // costs more than the conflicts it avoids.
  bool packB = n % 1024 == 0 && parM >= 512;
  knobs["cache_n"] = regN;
  knobs["pack_b"] = packB;
  // A divisor of K: with a partial K tile the accumulators are not hoisted
  // out of the K loop. A packed panel streams from L2 without conflicts, so
  // it may be longer (128 KiB for 1024 x 32 floats), which loads and stores
  // the accumulators less often: 3-8% faster than 256 at 1024^3 and
  // 512x1024x1024.
  knobs["cache_k"] = pickTile(k, 1, packB ? 1024 : 256);
  // Register tiles that start from the bias and end through the epilogue in
  // registers, over the whole of K, where the B panel a row of register
  // tiles sweeps (K x par_n) stays in L2 (256 KiB): the thread tile's
  // passes for the bias, the K tiles and the epilogue cost more than the
  // products when K is short. 1 thread: 16 -> 96 channels at 112x112
  // 0.417 -> 0.284 ms, 32 -> 192 at 28x28 0.072 -> 0.055, 960 -> 320 at
  // 7x7 0.252 -> 0.235; K x par_n above it, slower: 128x3072x768 3.2 ->
  // 4.5 ms, 1024^3 10.7 -> 15.1 (128x768x768, 3% slower).
  knobs["epilogue_regs"] = !packB && k * parN * 4 <= (256 << 10);
  return knobs;
}

Knobs schedule::cpu::transposedMatmulKnobs(int64_t f, int64_t p, int64_t,
                                           const VectorModel &vectors) {
  Knobs knobs;
  // reg_p rows of reg_f filters, up to 24 accumulators: 12 x 32 lanes (two
  // loads of B and 12 broadcasts of A a step); the filters' tile a divisor
  // of their count (48 filters: 3 vectors). The most pixels, the rest of
  // the map peeled: each register tile reads its slice of B (K x reg_f)
  // from L2 again. Chains of 8 to 16 layers, 1 thread: 2048 <-> 512 at 7x7
  // 6.47 ms with 7 pixels (no tile left over), 5.80 with 12 (one left
  // over); 1024 <-> 256 at 14x14 11.25 with 7, 9.90 with 12.
  // (With fewer registers, a quarter of the accumulators on AVX2: 16
  // filters, up to 6 pixels.)
  int64_t accumulators = vectors.scaled(24);
  int64_t regF = f % 32 == 0 && accumulators >= 12 ? 32 : 16;
  int64_t maxP = std::min<int64_t>(12, accumulators * 16 / regF);
  int64_t regP = std::min<int64_t>(p, maxP);
  // The whole of the pixels a thread tile (the A panel, K x P, is read by
  // every register tile of the thread), and enough filter tiles for the
  // threads.
  int64_t parP = p <= 512 ? p : pickTile(p, regP, 256);
  int64_t tilesP = (p + parP - 1) / parP;
  int64_t wantF = std::max<int64_t>(1, kMinThreadTiles / tilesP);
  int64_t parF = pickTile(f, regF, std::max<int64_t>(regF, f / wantF));
  knobs["par_f"] = parF;
  knobs["par_p"] = parP;
  knobs["reg_f"] = regF;
  knobs["reg_p"] = regP;
  return knobs;
}

Knobs schedule::cpu::transposedPanelsKnobs(llvm::ArrayRef<int64_t> dims,
                                           const VectorModel &vectors) {
  Knobs knobs;
  if (dims.size() != 3 || dims[0] % 16 != 0)
    return knobs;
  auto [f, p] = std::make_tuple(dims[0], dims[1]);
  int64_t blocks = f / 16;
  // As @cpu.matmul_transposed: reg_p pixels x reg_nb panels (7 x 2 on a 7x7
  // map), the whole of the pixels a thread tile, enough panel tiles for the
  // threads.
  Knobs plain = transposedMatmulKnobs(f, p, dims[2], vectors);
  int64_t regNb = plain["reg_f"] / 16;
  int64_t parP = plain["par_p"];
  int64_t tilesP = (p + parP - 1) / parP;
  int64_t wantNb = std::max<int64_t>(1, kMinThreadTiles / tilesP);
  knobs["par_nb"] =
      pickTile(blocks, regNb, std::max<int64_t>(regNb, blocks / wantNb));
  knobs["par_p"] = parP;
  knobs["reg_nb"] = regNb;
  knobs["reg_p"] = plain["reg_p"];
  return knobs;
}

Knobs schedule::cpu::filterLanesConvKnobs(llvm::ArrayRef<int64_t> dims,
                                          const VectorModel &vectors) {
  Knobs knobs;
  if (dims.size() != 8 || dims[0] % 16 != 0)
    return knobs;
  auto [f, oh, ow] = std::make_tuple(dims[0], dims[1], dims[2]);
  int64_t blocks = f / 16;
  // reg_w output columns x reg_fb blocks of 16 filters, up to 24
  // accumulators: a step (of c x kh x kw) loads reg_fb weight vectors and
  // broadcasts reg_w input elements. Columns that divide the row (7 for rows
  // of 7, 14 and 28, 8 for 56 and 112), so that no register tile is left
  // over. With fewer registers, fewer accumulators: on AVX2 (16 registers
  // of 8 floats) one block of 16 filters by up to 6 columns, 12 registers
  // (resnet18 at 160x160, 1 thread, 2-core EPYC: 62 -> 39 ms against 2
  // blocks by 10 columns, whose 40 accumulators spilled).
  int64_t accumulators = vectors.scaled(24);
  int64_t regFb = blocks % 2 == 0 && accumulators >= 12 ? 2 : 1;
  int64_t maxW = std::min<int64_t>(12, accumulators / regFb);
  int64_t regW = std::min<int64_t>(ow, maxW);
  for (int64_t w = maxW; w >= std::min<int64_t>(4, maxW / 2); --w)
    if (ow % w == 0) {
      regW = w;
      break;
    }
  // Thread tiles of up to 8 blocks (128 filters) and bands of output rows,
  // enough tiles for the cores. The weight panel a register tile sweeps (c x
  // kh x kw x 16 reg_fb) is read again for every row of the tile: on maps of
  // 7 rows or fewer (512 channels: 590 KiB a panel) a tile takes all the
  // rows, and the threads split the filters (3x3, 512 -> 512 at 7x7: 3.2 ms
  // in bands of one row, 2.3 in whole maps).
  int64_t parFb = blocks <= 8 ? blocks : pickTile(blocks, regFb, 8);
  int64_t tilesF = (blocks + parFb - 1) / parFb;
  int64_t wantH = std::max<int64_t>(1, kMinThreadTiles / tilesF);
  int64_t parH = pickTile(oh, 1, std::max<int64_t>(1, oh / wantH));
  if (oh <= 7) {
    parH = oh;
    parFb = pickTile(blocks, regFb,
                     std::max<int64_t>(regFb, blocks / kMinThreadTiles));
  }
  knobs["par_fb"] = parFb;
  knobs["par_h"] = parH;
  knobs["reg_fb"] = regFb;
  knobs["reg_w"] = noSingleColumnLeft(ow, regW);
  // The bias and the epilogue on the accumulators, stored once: 1 thread,
  // a stem 3 -> 32 (3x3, stride 2, 224x224) 0.597 -> 0.446 ms, 3 -> 64
  // (7x7) 2.42 -> 2.08, chains of 3x3 64 -> 64 at 56x56 9.78 -> 9.34;
  // within 2% at 14x14 and 7x7.
  knobs["epilogue_regs"] = 1;
  knobs["ew_vec"] = ow <= 64 ? ow : pickTile(ow, 16, 64);
  return knobs;
}

Knobs schedule::cpu::channelLanesDepthwiseKnobs(llvm::ArrayRef<int64_t> dims,
                                                const VectorModel &vectors) {
  Knobs knobs;
  if (dims.size() != 8 || dims[7] < 1 || dims[0] % dims[7] != 0)
    return knobs;
  auto [c, oh, ow, kh] = std::make_tuple(dims[0], dims[1], dims[2], dims[3]);
  int64_t blocks = c / dims[7];
  // reg_w output pixels of one channel block: reg_w accumulators, a weight
  // vector and the input vectors (read by the FMAs themselves). Columns
  // that divide the row (7 for rows of 7, 14 for 14 to 112), so that no
  // register tile is left over. (Up to 6 pixels on AVX2: 12 of its 16
  // registers.)
  int64_t maxW = std::min<int64_t>(14, vectors.scaled(24));
  int64_t regW = std::min<int64_t>(ow, std::min<int64_t>(8, maxW));
  for (int64_t w = maxW; w >= std::min<int64_t>(4, maxW); --w)
    if (ow % w == 0) {
      regW = w;
      break;
    }
  // A thread tile transposes the input rows its output rows read, the
  // window's kh - 1 rows beyond them again in the next tile: bands of at
  // least 2 (kh - 1) rows, whole maps where the channel blocks alone give
  // the threads enough tiles (the maps of 14 rows or fewer of the wide
  // layers).
  int64_t minRows = std::min<int64_t>(oh, std::max<int64_t>(4, 2 * (kh - 1)));
  int64_t wantH = std::max<int64_t>(1, kMinThreadTiles / blocks);
  int64_t parH = std::max<int64_t>(minRows, oh / wantH);
  while (oh % parH != 0)
    ++parH;
  if (oh <= 14 && blocks >= kMinThreadTiles)
    parH = oh;
  knobs["par_cb"] = 1;
  knobs["par_h"] = parH;
  knobs["reg_w"] = noSingleColumnLeft(ow, regW);
  knobs["ew_vec"] = ow <= 64 ? ow : pickTile(ow, 16, 64);
  return knobs;
}

Knobs schedule::cpu::panelMatmulKnobs(llvm::ArrayRef<int64_t> dims,
                                      const VectorModel &vectors) {
  Knobs knobs;
  if (dims.size() != 3 || dims[1] % 16 != 0)
    return knobs;
  auto [m, n, k] = std::make_tuple(dims[0], dims[1], dims[2]);
  int64_t blocks = n / 16;
  // Register tiles of reg_m rows x reg_nb panels of 16 columns, up to 24
  // accumulators beside the panels' vectors and a broadcast row element;
  // rows that divide m where some do, else a peeled remainder. Fewer
  // registers, fewer accumulators (AVX2: one panel by up to 6 rows).
  int64_t accumulators = vectors.scaled(24);
  int64_t regNb = blocks % 2 == 0 && accumulators >= 12 ? 2 : 1;
  int64_t maxM = accumulators >= 24 ? (regNb == 2 ? 12 : 14)
                                    : accumulators / regNb;
  int64_t regM = std::min<int64_t>(m, std::min<int64_t>(8, maxM));
  for (int64_t r = maxM; r >= std::min<int64_t>(4, maxM); --r)
    if (m % r == 0) {
      regM = r;
      break;
    }
  // Thread tiles of all the rows (up to 256) and panels whose slice of B
  // (k x 16 par_nb floats) stays within half of a 2 MiB L2, enough tiles for
  // the cores.
  int64_t parM = m <= 256 ? m : pickTile(m, regM, 128);
  int64_t tilesM = (m + parM - 1) / parM;
  int64_t wantNb = std::max<int64_t>(1, kMinThreadTiles / tilesM);
  int64_t inL2 = std::max<int64_t>(regNb, (512 * 1024) / (k * 64));
  int64_t parNb = pickTile(blocks, regNb,
                           std::min(inL2, std::max<int64_t>(regNb,
                                                            blocks / wantNb)));
  knobs["par_m"] = parM;
  knobs["par_nb"] = parNb;
  knobs["reg_m"] = regM;
  knobs["reg_nb"] = regNb;
  return knobs;
}

/// The knobs of @cpu.conv2d_nchw's im2col contraction: f filters over
/// oh*ow output pixels and c*kh*kw taps, then the group's elementwise ops.
static Knobs im2colKnobs(int64_t f, int64_t oh, int64_t ow, int64_t taps,
                         const VectorModel &vectors) {
  int64_t pixels = oh * ow;
  Knobs knobs = matmulKnobs(f, pixels, taps, vectors);
  // The conv template has no B panels (its B is the im2col slice), and
  // keeps its epilogue apart (reshapes lie between them).
  knobs.erase("cache_n");
  knobs.erase("pack_b");
  knobs.erase("epilogue_regs");
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
  // 16 accumulator registers either way (8 x 32 or 16 x 16 lanes); with
  // fewer registers, 16 lanes by as many rows as @cpu.matmul's (6 on AVX2).
  int64_t regM = std::min<int64_t>(f, regN == 16 && f % 16 == 0 ? 16 : 8);
  if (vectors.scaled(24) < 24) {
    regN = std::min<int64_t>(regN, 16);
    regM = std::min<int64_t>(
        f, std::max<int64_t>(1, vectors.scaled(24) * 16 / regN));
  }
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
  // The im2col copy a vector of up to 32 pixels of one output row at a
  // time, not element by element with the map's divisions (1 thread, ms):
  // 3x3 512 -> 512 at 7x7 2.80 -> 1.80; 7x7 stride 2, 3 -> 64 at 112x112
  // 1.70 -> 1.57 (56 pixels a piece, a span of 111 read and shuffled:
  // 5.3); 3x3 stride 2, 64 -> 128 at 28x28 0.74 -> 0.73.
  knobs["col_w"] = pickTile(ow, 1, 32);
  int64_t vec = ow <= 64 ? ow : pickTile(ow, 16, 64);
  knobs["ew_vec"] = vec;
  return knobs;
}

Knobs schedule::cpu::conv2dKnobs(llvm::ArrayRef<int64_t> dims,
                                 const VectorModel &vectors) {
  if (dims.size() != 9)
    return {};
  auto [f, oh, ow, taps, c] =
      std::make_tuple(dims[0], dims[1], dims[2], dims[3], dims[4]);
  Knobs knobs = im2colKnobs(f, oh, ow, taps, vectors);
  Knobs window = groupedConvKnobs(1, f, oh, ow, c, dims[5], dims[6], vectors);
  window.erase("par_g");
  // (The window form keeps its bias and epilogue in passes of their own.)
  window.erase("epilogue_regs");
  // The window form reads a row of the input as one contiguous vector at
  // stride 1, where im2col copies every input element kh*kw times with
  // scalar index arithmetic (28% of its time at 64x56x56, 3x3): measured,
  // 1 thread, 3x3 (ms, im2col -> window): 64x56x56 1.92 -> 1.45,
  // 128x28x28 1.60 -> 1.41, 256x14x14 1.96 -> 1.57; 5x5 192->64 at 28x28
  // 4.05 -> 2.90. Rows of 7 fill 7 of 16 lanes (512x7x7: 2.75 -> 3.05),
  // and a strided window is a shuffle a step (stride 2, 64x56x56 -> 128:
  // 0.90 -> 1.68; 3 -> 64 channels 7x7 at 224x224: 1.97 -> 3.98): those
  // keep im2col, whose pixel tiles span rows. So do rows of 8 to 12 (3x3,
  // 128 channels, 12x12: 0.24 -> 0.30; 10x10: 0.20 -> 0.24; 64, 8x8:
  // 0.037 -> 0.050).
  // Nor rows whose register tile would be an odd width above 16 lanes (17
  // columns, with no width that leaves no single column over): filters x
  // vector<17> accumulators took 3.5 ms at 64 -> 64 channels, 17x17,
  // im2col 0.26.
  int64_t columns = pickColumns(ow);
  bool direct = dims[7] == 1 && dims[8] == 1 && ow >= 14 &&
                (columns <= 16 || columns % 16 == 0);
  for (auto &[name, value] : window)
    if (name != "ew_vec" || direct)
      knobs[name] = value;
  knobs["direct"] = direct;
  return knobs;
}

Knobs schedule::cpu::depthwiseKnobs(int64_t c, int64_t oh, int64_t ow,
                                    int64_t ih, int64_t iw) {
  Knobs knobs;
  // A register tile of reg_h rows x reg_w columns: the accumulators of one
  // channel, in registers across the 3x3 (or any) window. Widths of 16
  // lanes, the rest of a longer row peeled: an odd width (28 lanes for
  // 56-wide rows) made every step shuffle, 1.9x slower at 144x56x56, and 8
  // lanes (which divide 56) took 1.15x the time of 16 + 8 at stride 2
  // (0.40 ms against 0.35 at 96x112x112), 1.4x for a 3x3 max pool of stride
  // 2 (64x112x112), the same at stride 1.
  int64_t regW = pickColumns(ow);
  int64_t regH = pickRows(oh, regW <= 8 ? 8 : 4);
  // Thread tiles of whole output planes (a thread pads its own input
  // window, so bands of rows copy their halo rows twice) whose padded input
  // planes and output planes stay in the L1 cache, at most 32 KiB, from the
  // copy that pads the input through the bias, the window and the epilogue
  // that read and write the output tile (192x28x28: 24 channels a tile,
  // 0.057 ms, 4 channels 0.048; 144x56x56: 9 channels 0.152, one 0.123;
  // 96x112x112, stride 2: 12 channels a tile took 1.35x the time of one);
  // bands of rows only where there are too few channel tiles for the cores.
  int64_t parH = oh;
  int64_t planeBytes = (ih > 0 && iw > 0 ? ih * iw * 4 : (oh + 2) * (ow + 2) * 4) +
                       oh * ow * 4;
  int64_t parC = pickTile(c, 1, std::max<int64_t>(1, c / kMinThreadTiles));
  parC = std::min<int64_t>(parC, std::max<int64_t>(1, (32 << 10) / planeBytes));
  parC = pickTile(c, 1, parC);
  int64_t tilesC = (c + parC - 1) / parC;
  if (tilesC < kMinThreadTiles && oh >= 2 * regH)
    parH = pickTile(oh, regH,
                    std::max<int64_t>(regH, oh * tilesC / kMinThreadTiles));
  knobs["par_c"] = parC;
  knobs["par_h"] = parH;
  knobs["reg_h"] = std::min(regH, parH);
  knobs["reg_w"] = regW;
  // The bias and the epilogue on the accumulators, stored once (a window of
  // 9 multiply-adds an output costs little more than the passes over the
  // tile that start it from the bias and apply the epilogue): 1 thread,
  // 3x3 + ReLU, 144 channels at 56x56 0.261 -> 0.173 ms, 576 at 14x14
  // 0.098 -> 0.051, 96 at 112x112 stride 2 0.569 -> 0.474.
  knobs["epilogue_regs"] = 1;
  knobs["ew_vec"] = regW;
  return knobs;
}

Knobs schedule::cpu::dynamicDepthwiseKnobs(int64_t c) {
  // Maps whose extents only a run knows: register tiles of 4 rows x 16
  // columns (a partial one padded to a whole one), thread tiles of up to 4
  // channels (a tile of c / 8 where there are fewer than 32) by bands of 16
  // rows: a band's padded input and output planes stay in the L1 cache up
  // to rows of about 100 pixels.
  Knobs knobs;
  knobs["par_c"] = pickTile(c, 1, std::clamp<int64_t>(c / kMinThreadTiles, 1, 4));
  knobs["par_h"] = 16;
  knobs["reg_h"] = 4;
  knobs["reg_w"] = 16;
  knobs["ew_vec"] = 16;
  return knobs;
}

static Knobs dynamicDepthwiseDefaults(llvm::ArrayRef<int64_t> dims,
                                      const VectorModel &) {
  if (dims.size() != 5)
    return {};
  return dynamicDepthwiseKnobs(dims[0]);
}

Knobs schedule::cpu::groupedConvKnobs(int64_t g, int64_t f, int64_t oh,
                                      int64_t ow, int64_t c, int64_t ih,
                                      int64_t iw, const VectorModel &vectors) {
  Knobs knobs;
  // A register tile of reg_f filters x reg_h rows x reg_w columns: reg_h
  // input vectors and reg_f broadcast weights a step (of c x kh x kw steps)
  // into 16 accumulators of 16 lanes. 4 x 4 x 16 was the fastest of the
  // shapes of 16 accumulators (8 x 2, 2 x 8) and of 8 or 32 on RegNet's
  // 8-wide groups: 0.216 ms at 6x8x56x56 (8 x 2 x 16: 0.28), 0.121 at
  // 13x8x28x28 (0.151), 0.067 at 26x8x14x14 (0.075). Rows of 16 lanes,
  // the rest of a longer row peeled: 8 lanes where 16 do not divide the row
  // (56) took 1.5x the time, 32 (with 24 left over) 6x.
  // With fewer registers (a quarter of those on AVX2: 4 of 16 lanes, 8 of
  // its registers), fewer filters, so that a tile keeps two rows where the
  // plane has them (a tile of one row keeps its epilogue apart, see
  // windowTileCheck).
  int64_t accumulators = vectors.scaled(16);
  int64_t regF = f % 4 == 0 ? 4 : f % 2 == 0 ? 2 : 1;
  int64_t regW = pickColumns(ow);
  int64_t rowVectors = (regW + 15) / 16;
  while (regF > 1 && regF * rowVectors * std::min<int64_t>(oh, 2) > accumulators)
    regF /= 2;
  int64_t perRow = regF * rowVectors;
  int64_t regH = pickRows(oh, std::max<int64_t>(1, accumulators / perRow));
  // Rows the tiles of two would leave one of over (9 rows): fewer filters
  // still for a taller tile (AVX2, 9 rows: 1 filter x 3 rows, not 4 x 1).
  for (int64_t fewer = regF / 2; accumulators < 16 && regH == 1 && oh > 1 &&
                                 fewer >= 1;
       fewer /= 2) {
    int64_t rows =
        pickRows(oh, std::max<int64_t>(1, accumulators / (fewer * rowVectors)));
    if (rows > 1) {
      regF = fewer;
      regH = rows;
    }
  }
  // Rows of 16 lanes or fewer in tiles of 2 rows (14x14) leave half the
  // accumulators unused with 4 filters: take 8 (256 -> 256 channels at
  // 14x14, one group: 1.46-1.50 -> 1.21-1.32 ms, 0.85 -> 0.73 at 2
  // threads; 26 groups of 8 filters: 0.098 -> 0.095).
  while (regF * 2 <= 16 && f % (regF * 2) == 0 &&
         regF * 2 * regH * ((regW + 15) / 16) <= accumulators)
    regF *= 2;
  // Thread tiles of whole groups and output planes whose padded input
  // (c channels of ih x iw) stays in the L2 cache, at most 128 KiB (as for
  // depthwise convolutions); bands of rows where there are too few group
  // tiles for the cores.
  int64_t planeBytes = std::max<int64_t>(1, c * ih * iw * 4);
  int64_t parG = pickTile(g, 1, std::max<int64_t>(1, g / kMinThreadTiles));
  parG = std::min<int64_t>(parG, std::max<int64_t>(1, (128 << 10) / planeBytes));
  parG = pickTile(g, 1, parG);
  int64_t tilesG = (g + parG - 1) / parG;
  int64_t parH = oh;
  if (tilesG < kMinThreadTiles && oh >= 2 * regH)
    parH = pickTile(oh, regH,
                    std::max<int64_t>(regH, oh * tilesG / kMinThreadTiles));
  knobs["par_g"] = parG;
  knobs["par_f"] = f;
  knobs["par_h"] = parH;
  knobs["reg_f"] = regF;
  knobs["reg_h"] = std::min(regH, parH);
  knobs["reg_w"] = regW;
  // The bias and the epilogue on the accumulators, stored once: 1 thread,
  // 3x3 groups of 8 channels + ReLU, 48 channels at 56x56 0.269 -> 0.248
  // ms, 104 at 28x28 0.155 -> 0.143, 208 at 14x14 0.104 -> 0.100. Not on
  // register tiles of one row (see windowTileCheck): rows of 5 (RegNet's
  // last stage at 160x160) get those.
  knobs["epilogue_regs"] = knobs["reg_h"] > 1 ? 1 : 0;
  knobs["ew_vec"] = regW;
  return knobs;
}

Knobs schedule::cpu::dynamicGroupedConvKnobs(llvm::ArrayRef<int64_t> dims,
                                             const VectorModel &vectors) {
  if (dims.size() != 7)
    return {};
  // The static rules' register tile for the hinted extents (4 filters x 4
  // rows x 16 columns on AVX-512), threads over the groups and bands of 16
  // rows; the bias and the epilogue apart (a padded tile's accumulators
  // are not the output's).
  Knobs knobs = groupedConvKnobs(dims[0], dims[1], dims[2], dims[3], dims[4],
                                 dims[5], dims[6], vectors);
  knobs.erase("epilogue_regs");
  knobs["par_h"] = std::max<int64_t>(16, knobs["reg_h"]);
  knobs["ew_vec"] = 16;
  return knobs;
}

Knobs schedule::cpu::elementwiseKnobs(llvm::ArrayRef<int64_t> shape) {
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

Knobs schedule::cpu::outerForallKnobs(llvm::ArrayRef<int64_t> shape,
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

//===----------------------------------------------------------------------===//
// Knob domains
//===----------------------------------------------------------------------===//

static void sortUnique(SmallVector<int64_t> &values) {
  llvm::sort(values);
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

/// Tile sizes for a dimension of `dim`: the powers of two from `minimum`
/// below it, its halves, thirds, quarters and eighths where they are whole,
/// and the whole dimension.
static SmallVector<int64_t> tileOptions(int64_t dim, int64_t minimum) {
  SmallVector<int64_t> options;
  for (int64_t t = minimum; t < dim; t *= 2)
    options.push_back(t);
  for (int64_t parts : {2, 3, 4, 8})
    if (dim % parts == 0 && dim / parts >= minimum)
      options.push_back(dim / parts);
  options.push_back(std::max<int64_t>(dim, 1));
  sortUnique(options);
  return options;
}

/// Cache tiles of a reduction of `dim`: tile sizes that divide it (a
/// partial tile keeps the accumulators from being hoisted).
static SmallVector<int64_t> divisorOptions(int64_t dim, int64_t minimum) {
  SmallVector<int64_t> options;
  for (int64_t t : tileOptions(dim, minimum))
    if (dim % t == 0)
      options.push_back(t);
  return options;
}

/// Register tile sizes up to `limit`, the dimension itself when smaller.
static SmallVector<int64_t> registerOptions(int64_t dim,
                                            llvm::ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> options;
  for (int64_t s : sizes)
    if (s <= dim)
      options.push_back(s);
  if (dim <= sizes.back())
    options.push_back(dim);
  sortUnique(options);
  return options;
}

static constexpr int64_t kRegM[] = {1, 2, 3, 4, 6, 8, 12, 16};
static constexpr int64_t kRegN[] = {8, 16, 24, 32, 48, 64};
static constexpr int64_t kRegK[] = {1, 2, 4};
static constexpr int64_t kVectorWidths[] = {4, 8, 16, 32, 64};

// @cpu.matmul and @cpu.batch_matmul: dims = m, n, k.
static std::optional<SmallVector<int64_t>> matmulDomain(llvm::StringRef knob,
                                                        llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  auto [m, n, k] = std::make_tuple(dims[0], dims[1], dims[2]);
  if (knob == "par_m")
    return tileOptions(m, 4);
  if (knob == "par_n" || knob == "cache_n")
    return tileOptions(n, 16);
  if (knob == "cache_k")
    return divisorOptions(k, 16);
  if (knob == "reg_m")
    return registerOptions(m, kRegM);
  if (knob == "reg_n")
    return registerOptions(n, kRegN);
  if (knob == "reg_k")
    return registerOptions(k, kRegK);
  return std::nullopt;
}

static Knobs matmulDefaults(llvm::ArrayRef<int64_t> dims,
                            const VectorModel &vectors) {
  if (dims.size() != 3)
    return {};
  return matmulKnobs(dims[0], dims[1], dims[2], vectors);
}

static int64_t knobOr0(const Knobs &knobs, llvm::StringRef name) {
  auto it = knobs.find(name);
  return it == knobs.end() ? 0 : it->second;
}

/// The floats a register tile's accumulators may hold: all the vector
/// registers but an eighth (28 of AVX-512's 32, 14 of AVX2's 16), the rest
/// for the operands of a step.
static int64_t accumulatorFloats(const VectorModel &vectors) {
  return vectors.floats() - vectors.floats() / 8;
}

/// The register tile within the thread tile and the vector registers.
static bool checkRegisterTile(const Knobs &knobs, const VectorModel &vectors,
                              std::string &why) {
  if (knobOr0(knobs, "reg_m") > knobOr0(knobs, "par_m")) {
    why = "register tile rows (reg_m) exceed the thread tile (par_m)";
    return false;
  }
  if (knobOr0(knobs, "reg_n") > knobOr0(knobs, "par_n")) {
    why = "register tile columns (reg_n) exceed the thread tile (par_n)";
    return false;
  }
  // The vector registers (32 of 16 floats on AVX-512): the accumulators
  // and a row of B.
  if (knobOr0(knobs, "reg_m") * knobOr0(knobs, "reg_n") > vectors.floats()) {
    why = "the register tile (reg_m x reg_n) needs more accumulators than "
          "there are vector registers";
    return false;
  }
  return true;
}

static bool matmulCheck(const Knobs &knobs, llvm::ArrayRef<int64_t>,
                        const VectorModel &vectors, std::string &why) {
  if (!checkRegisterTile(knobs, vectors, why))
    return false;
  // A panel narrower than the register tile, or wider than the thread tile,
  // leaves partial (scalar) register tiles or copies nothing useful.
  if (knobOr0(knobs, "pack_b") &&
      (knobOr0(knobs, "cache_n") < knobOr0(knobs, "reg_n") ||
       knobOr0(knobs, "cache_n") > knobOr0(knobs, "par_n"))) {
    why = "the B panel (cache_n) must lie between the register tile "
          "(reg_n) and the thread tile (par_n)";
    return false;
  }
  return true;
}

// @cpu.matmul_transposed: dims = f, p, k (the root's [f, p], K).
static constexpr int64_t kRegFilters[] = {16, 32, 64};
static constexpr int64_t kRegPixels[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 16};

static std::optional<SmallVector<int64_t>>
transposedMatmulDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  auto [f, p, k] = std::make_tuple(dims[0], dims[1], dims[2]);
  if (knob == "par_f")
    return tileOptions(f, 16);
  if (knob == "par_p")
    return tileOptions(p, 1);
  if (knob == "reg_f")
    return registerOptions(f, kRegFilters);
  if (knob == "reg_p")
    return registerOptions(p, kRegPixels);
  if (knob == "reg_k")
    return registerOptions(k, kRegK);
  return std::nullopt;
}

static Knobs transposedMatmulDefaults(llvm::ArrayRef<int64_t> dims,
                                      const VectorModel &vectors) {
  if (dims.size() != 3)
    return {};
  return transposedMatmulKnobs(dims[0], dims[1], dims[2], vectors);
}

static bool transposedMatmulCheck(const Knobs &knobs, llvm::ArrayRef<int64_t>,
                                  const VectorModel &vectors,
                                  std::string &why) {
  if (knobOr0(knobs, "reg_f") > knobOr0(knobs, "par_f")) {
    why = "register tile filters (reg_f) exceed the thread tile (par_f)";
    return false;
  }
  if (knobOr0(knobs, "reg_p") > knobOr0(knobs, "par_p")) {
    why = "register tile pixels (reg_p) exceed the thread tile (par_p)";
    return false;
  }
  // The vector registers, all but an eighth (4 of AVX-512's 32): the
  // accumulators; the rest a row of B.
  if (knobOr0(knobs, "reg_f") * knobOr0(knobs, "reg_p") >
      accumulatorFloats(vectors)) {
    why = "the register tile (reg_f x reg_p) needs more accumulators than "
          "there are vector registers";
    return false;
  }
  return true;
}

static std::optional<int64_t>
transposedMatmulExtent(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  if (knob == "par_f" || knob == "reg_f")
    return dims[0];
  if (knob == "par_p" || knob == "reg_p")
    return dims[1];
  if (knob == "reg_k")
    return dims[2];
  return std::nullopt;
}

// @cpu.conv2d_filter_lanes: dims = f, oh, ow, c, kh, kw, ih, iw.
static constexpr int64_t kRegColumns[] = {2, 3, 4, 5, 6, 7, 8, 12, 14, 16};
static constexpr int64_t kRegBlocks[] = {1, 2, 4};

static std::optional<SmallVector<int64_t>>
filterLanesConvDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 8)
    return std::nullopt;
  auto [f, oh, ow] = std::make_tuple(dims[0], dims[1], dims[2]);
  if (knob == "par_fb")
    return tileOptions(f / 16, 1);
  if (knob == "par_h")
    return tileOptions(oh, 1);
  if (knob == "reg_fb")
    return registerOptions(f / 16, kRegBlocks);
  if (knob == "reg_w")
    return registerOptions(ow, kRegColumns);
  if (knob == "ew_vec")
    return tileOptions(ow, 8);
  return std::nullopt;
}

static Knobs filterLanesConvDefaults(llvm::ArrayRef<int64_t> dims,
                                     const VectorModel &vectors) {
  return filterLanesConvKnobs(dims, vectors);
}

Knobs schedule::cpu::dynamicFilterLanesConvKnobs(llvm::ArrayRef<int64_t> dims,
                                                 const VectorModel &vectors) {
  if (dims.size() != 9 || dims[8] < 1 || dims[0] % dims[8] != 0)
    return {};
  // The static template's rules for the same blocks (of 16 lanes there).
  int64_t blocks = dims[0] / dims[8];
  SmallVector<int64_t> asSixteen(dims.take_front(8));
  asSixteen[0] = blocks * 16;
  Knobs knobs = filterLanesConvKnobs(asSixteen, vectors);
  if (knobs.empty())
    return knobs;
  // Its epilogue is a pass of its own.
  knobs.erase("epilogue_regs");
  // Register tiles of 4 columns x up to 4 blocks of filters (16
  // accumulators; a step 4 broadcasts and 4 weight vectors for 16 FMAs, as
  // 8 x 2 has 10 loads for 16): the columns past the last full tile, a
  // remainder of at most 3 whatever the row, run one by one, each reading
  // the weight panel again; with tiles of 8, rows of 7 (the last stage of a
  // 224 x 224 network) were 7 single columns. (Fewer blocks where there
  // are fewer registers: one on AVX2, 8 of its 16.)
  int64_t maxFb = std::max<int64_t>(1, vectors.scaled(16) / 4);
  int64_t regFb = 1;
  for (int64_t fb : {4, 3, 2})
    if (fb <= maxFb && blocks % fb == 0) {
      regFb = fb;
      break;
    }
  // (Rows of a static width under a dynamic batch: no single column over,
  // see noSingleColumnLeft; 3 columns on rows of 5.)
  knobs["reg_w"] = noSingleColumnLeft(dims[2], 4);
  knobs["reg_fb"] = regFb;
  knobs["par_fb"] = std::max(knobs["par_fb"], regFb);
  if (knobs["par_fb"] % regFb != 0)
    knobs["par_fb"] = regFb;
  return knobs;
}

/// @cpu.conv2d_filter_lanes_dynamic (dynamicFilterLanesConvKnobs).
static Knobs dynamicFilterLanesConvDefaults(llvm::ArrayRef<int64_t> dims,
                                            const VectorModel &vectors) {
  return dynamicFilterLanesConvKnobs(dims, vectors);
}

/// Whether the columns of `knob` (reg_w, ew_vec) leave one column of a row
/// of `ow` over (see noSingleColumnLeft).
static bool leavesOneColumn(const Knobs &knobs, llvm::StringRef knob,
                            int64_t ow, std::string &why) {
  if (!leavesOneOver(ow, knobOr0(knobs, knob)))
    return false;
  why = ("the " + knob + " columns leave one column of a row over").str();
  return true;
}

static bool filterLanesConvCheck(const Knobs &knobs,
                                 llvm::ArrayRef<int64_t> dims,
                                 const VectorModel &vectors, std::string &why) {
  if (dims.size() >= 3 && leavesOneColumn(knobs, "reg_w", dims[2], why))
    return false;
  if (knobOr0(knobs, "reg_fb") > knobOr0(knobs, "par_fb")) {
    why = "register tile filter blocks (reg_fb) exceed the thread tile "
          "(par_fb)";
    return false;
  }
  if (knobOr0(knobs, "reg_fb") * knobOr0(knobs, "reg_w") * 16 >
      accumulatorFloats(vectors)) {
    why = "the register tile (reg_fb x reg_w) needs more accumulators than "
          "there are vector registers";
    return false;
  }
  return true;
}

static std::optional<int64_t>
filterLanesConvExtent(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 8)
    return std::nullopt;
  if (knob == "par_fb" || knob == "reg_fb")
    return dims[0] / 16;
  if (knob == "par_h")
    return dims[1];
  if (knob == "reg_w" || knob == "ew_vec")
    return dims[2];
  return std::nullopt;
}

// @cpu.matmul_panels: dims = m, n, k.
static constexpr int64_t kPanelRows[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14};
static constexpr int64_t kPanels[] = {1, 2, 3, 4};

static std::optional<SmallVector<int64_t>>
panelMatmulDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3 || dims[1] % 16 != 0)
    return std::nullopt;
  if (knob == "par_m")
    return tileOptions(dims[0], 1);
  if (knob == "par_nb")
    return tileOptions(dims[1] / 16, 1);
  if (knob == "reg_m")
    return registerOptions(dims[0], kPanelRows);
  if (knob == "reg_nb")
    return registerOptions(dims[1] / 16, kPanels);
  return std::nullopt;
}

static Knobs panelMatmulDefaults(llvm::ArrayRef<int64_t> dims,
                                 const VectorModel &vectors) {
  return panelMatmulKnobs(dims, vectors);
}

/// The register tile of the panel templates (reg_<rows> rows x reg_nb
/// panels) within their thread tile and the registers: 32 vector registers
/// hold the accumulators, the panels' vectors and a broadcast element.
static bool panelTileCheck(const Knobs &knobs, llvm::StringRef rows,
                           const VectorModel &vectors, std::string &why) {
  std::string reg = ("reg_" + rows).str(), par = ("par_" + rows).str();
  if (knobOr0(knobs, reg) > knobOr0(knobs, par) ||
      knobOr0(knobs, "reg_nb") > knobOr0(knobs, "par_nb")) {
    why = "the register tile (" + reg + " x reg_nb) exceeds the thread tile (" +
          par + " x par_nb)";
    return false;
  }
  if (knobOr0(knobs, reg) * knobOr0(knobs, "reg_nb") * 16 >
      accumulatorFloats(vectors)) {
    why = "the register tile (" + reg +
          " x reg_nb) needs more accumulators than there are vector registers";
    return false;
  }
  return true;
}

static bool panelMatmulCheck(const Knobs &knobs, llvm::ArrayRef<int64_t>,
                             const VectorModel &vectors, std::string &why) {
  return panelTileCheck(knobs, "m", vectors, why);
}

static std::optional<int64_t>
panelMatmulExtent(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  if (knob == "par_m" || knob == "reg_m")
    return dims[0];
  if (knob == "par_nb" || knob == "reg_nb")
    return dims[1] / 16;
  return std::nullopt;
}

// @cpu.matmul_panels_transposed: dims = f, p, k.
static std::optional<SmallVector<int64_t>>
transposedPanelsDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3 || dims[0] % 16 != 0)
    return std::nullopt;
  if (knob == "par_nb")
    return tileOptions(dims[0] / 16, 1);
  if (knob == "par_p")
    return tileOptions(dims[1], 1);
  if (knob == "reg_nb")
    return registerOptions(dims[0] / 16, kPanels);
  if (knob == "reg_p")
    return registerOptions(dims[1], kPanelRows);
  return std::nullopt;
}

static Knobs transposedPanelsDefaults(llvm::ArrayRef<int64_t> dims,
                                      const VectorModel &vectors) {
  return transposedPanelsKnobs(dims, vectors);
}

static bool transposedPanelsCheck(const Knobs &knobs, llvm::ArrayRef<int64_t>,
                                  const VectorModel &vectors,
                                  std::string &why) {
  return panelTileCheck(knobs, "p", vectors, why);
}

Knobs schedule::cpu::dynamicChannelLanesDepthwiseKnobs(
    llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 8 || dims[7] < 1 || dims[0] % dims[7] != 0)
    return {};
  int64_t kh = dims[3];
  // Rows whose width only a run knows: register tiles of 4 pixels, so that
  // the pixels past the last full tile of a row, run one by one (a vector of
  // channels each), are at most 3 whatever the row; bands of at least 8
  // output rows (the window's kh - 1 rows beyond a band transposed again by
  // the next one), 2 (kh - 1) for larger windows.
  Knobs knobs;
  knobs["par_cb"] = 1;
  knobs["par_h"] = std::max<int64_t>(8, 2 * (kh - 1));
  // (Rows of a static width under a dynamic batch: no single column over,
  // see noSingleColumnLeft; 3 columns on rows of 5.)
  knobs["reg_w"] = noSingleColumnLeft(dims[2], 4);
  knobs["ew_vec"] = 16;
  return knobs;
}

static Knobs dynamicChannelLanesDepthwiseDefaults(llvm::ArrayRef<int64_t> dims,
                                                 const VectorModel &) {
  return dynamicChannelLanesDepthwiseKnobs(dims);
}

static std::optional<int64_t>
transposedPanelsExtent(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  if (knob == "par_nb" || knob == "reg_nb")
    return dims[0] / 16;
  if (knob == "par_p" || knob == "reg_p")
    return dims[1];
  return std::nullopt;
}

// @cpu.depthwise_channel_lanes: dims = c, oh, ow, kh, kw, ih, iw, lanes.
static std::optional<SmallVector<int64_t>>
channelLanesDepthwiseDomain(llvm::StringRef knob,
                            llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 8 || dims[7] < 1)
    return std::nullopt;
  auto [c, oh, ow] = std::make_tuple(dims[0], dims[1], dims[2]);
  if (knob == "par_cb")
    return tileOptions(c / dims[7], 1);
  if (knob == "par_h")
    return tileOptions(oh, 1);
  if (knob == "reg_w")
    return registerOptions(ow, kRegColumns);
  if (knob == "ew_vec")
    return tileOptions(ow, 8);
  return std::nullopt;
}

static Knobs channelLanesDepthwiseDefaults(llvm::ArrayRef<int64_t> dims,
                                           const VectorModel &vectors) {
  return channelLanesDepthwiseKnobs(dims, vectors);
}

static bool channelLanesDepthwiseCheck(const Knobs &knobs,
                                       llvm::ArrayRef<int64_t> dims,
                                       const VectorModel &vectors,
                                       std::string &why) {
  if (dims.size() >= 3 && leavesOneColumn(knobs, "reg_w", dims[2], why))
    return false;
  // The vector registers: the accumulators and a weight vector.
  if (knobOr0(knobs, "reg_w") * 16 > accumulatorFloats(vectors)) {
    why = "the register tile (reg_w) needs more accumulators than there are "
          "vector registers";
    return false;
  }
  return true;
}

static std::optional<int64_t>
channelLanesDepthwiseExtent(llvm::StringRef knob,
                            llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 8 || dims[7] < 1)
    return std::nullopt;
  if (knob == "par_cb")
    return dims[0] / dims[7];
  if (knob == "par_h")
    return dims[1];
  if (knob == "reg_w" || knob == "ew_vec")
    return dims[2];
  return std::nullopt;
}

// @cpu.conv2d_nchw: dims = f, oh, ow, c * kh * kw, c, ih, iw, stride_h,
// stride_w (see conv2dKnobs).
static constexpr int64_t kRegF[] = {1, 2, 4, 8, 16};

static std::optional<SmallVector<int64_t>>
windowPlaneDomain(llvm::StringRef knob, int64_t oh, int64_t ow);

static std::optional<SmallVector<int64_t>> convDomain(llvm::StringRef knob,
                                                      llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 9)
    return std::nullopt;
  auto [f, oh, ow, taps] = std::make_tuple(dims[0], dims[1], dims[2], dims[3]);
  if (knob == "direct")
    return SmallVector<int64_t>{0, 1};
  if (knob == "par_m")
    return tileOptions(f, 4);
  if (knob == "par_n") {
    // Whole output rows only (see im2colKnobs).
    SmallVector<int64_t> options;
    for (int64_t rows = 1; rows <= oh; ++rows)
      if (oh % rows == 0 && (rows * ow <= 1024 || rows == 1))
        options.push_back(rows * ow);
    return options;
  }
  if (knob == "cache_k")
    return divisorOptions(taps, 16);
  if (knob == "reg_m")
    return registerOptions(f, kRegM);
  if (knob == "reg_n")
    return registerOptions(oh * ow, kRegN);
  if (knob == "ew_par_c" || knob == "par_f")
    return tileOptions(f, 1);
  if (knob == "col_w") {
    // Divisors of the output row: a piece of the copy never spans rows.
    SmallVector<int64_t> options;
    for (int64_t w = 1; w <= std::min<int64_t>(ow, 64); ++w)
      if (ow % w == 0)
        options.push_back(w);
    return options;
  }
  if (knob == "reg_f")
    return registerOptions(f, kRegF);
  return windowPlaneDomain(knob, oh, ow);
}

static Knobs convDefaults(llvm::ArrayRef<int64_t> dims,
                          const VectorModel &vectors) {
  return conv2dKnobs(dims, vectors);
}

static bool windowTileCheck(const Knobs &knobs, llvm::ArrayRef<int64_t> dims,
                            const VectorModel &vectors, std::string &why);

static bool convCheck(const Knobs &knobs, llvm::ArrayRef<int64_t> dims,
                      const VectorModel &vectors, std::string &why) {
  // Only the selected algorithm's knobs shape the code.
  if (!knobOr0(knobs, "direct"))
    return checkRegisterTile(knobs, vectors, why);
  if (dims.size() != 9)
    return true;
  // The window check on the grouped form's dims (g, f, oh, ow, c, ih, iw).
  int64_t grouped[] = {1, dims[0], dims[1], dims[2], dims[4], dims[5], dims[6]};
  return windowTileCheck(knobs, grouped, vectors, why);
}

// @cpu.depthwise_conv2d_nchw: dims = c, oh, ow.
static constexpr int64_t kRegRows[] = {1, 2, 3, 4, 6, 7, 8};

/// The knobs of a window op's output plane (oh x ow): thread rows, the
/// register tile's rows and columns, the epilogue's vector width.
static std::optional<SmallVector<int64_t>>
windowPlaneDomain(llvm::StringRef knob, int64_t oh, int64_t ow) {
  if (knob == "par_h")
    return tileOptions(oh, 1);
  if (knob == "reg_h")
    return registerOptions(oh, kRegRows);
  if (knob == "reg_w") {
    // Register tiles of an odd width above 16 lanes (24, 28 columns) carry
    // accumulators LLVM splits badly: 3x3, 128 channels at 28x28 took 35 ms
    // with 28 columns, 1.36 with 16 (+ 12 peeled). Not points of the space
    // (a default outside it, the whole row of 17 columns, stays).
    SmallVector<int64_t> options;
    for (int64_t w : registerOptions(ow, kRegN))
      if (w <= 16 || w % 16 == 0)
        options.push_back(w);
    return options;
  }
  if (knob == "ew_vec")
    return registerOptions(ow, kVectorWidths);
  return std::nullopt;
}

static std::optional<SmallVector<int64_t>>
depthwiseDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 5)
    return std::nullopt;
  if (knob == "par_c")
    return tileOptions(dims[0], 1);
  return windowPlaneDomain(knob, dims[1], dims[2]);
}

static Knobs depthwiseDefaults(llvm::ArrayRef<int64_t> dims,
                               const VectorModel &) {
  if (dims.size() != 5)
    return {};
  return depthwiseKnobs(dims[0], dims[1], dims[2], dims[3], dims[4]);
}

/// The register tile of a window op (@cpu.depthwise_conv2d_nchw,
/// @cpu.grouped_conv2d_nchw) within its thread tile and the registers.
static bool windowTileCheck(const Knobs &knobs, llvm::ArrayRef<int64_t> dims,
                            const VectorModel &vectors, std::string &why) {
  if (knobOr0(knobs, "reg_h") > knobOr0(knobs, "par_h")) {
    why = "register tile rows (reg_h) exceed the thread tile (par_h)";
    return false;
  }
  bool grouped = knobs.count("reg_f");
  // Register tiles of one row of a grouped convolution with the epilogue on
  // the accumulators send the vector lowering into a rewrite loop that does
  // not end (RegNet's 3x3 groups of 8 on 5x5 and 7x7 maps): not a point of
  // the space.
  if (grouped && knobOr0(knobs, "epilogue_regs") == 1 &&
      knobOr0(knobs, "reg_h") == 1) {
    why = "a register tile of one row (reg_h = 1) with the epilogue in "
          "registers (epilogue_regs = 1)";
    return false;
  }
  // A peeled remainder of one row (17 rows in tiles of 4) sends the vector
  // lowering of its steps into a rewrite loop that does not end (seen with
  // a 3x3 stride-2 max pool of 33x33 rows): not a point of the space.
  int64_t regH = knobOr0(knobs, "reg_h"), parH = knobOr0(knobs, "par_h");
  size_t ohDim = grouped ? 2 : 1;
  int64_t oh = dims.size() > ohDim ? dims[ohDim] : 0;
  auto oneRowLeft = [&](int64_t rows) {
    return regH > 1 && rows > regH && rows % regH == 1;
  };
  if (oneRowLeft(parH) || (parH > 0 && oneRowLeft(oh % parH ? oh % parH : parH))) {
    why = "the register tile rows (reg_h) leave one row of a thread tile "
          "(par_h) over";
    return false;
  }
  // Likewise a remainder of one column, of the register tile or of the
  // epilogue's vectors: its 0-d vectors, carried by the window loops, are
  // left unconverted by the lowering to LLVM (depthwise, grouped or window
  // convolutions of 17-column rows in tiles of 16).
  size_t owDim = ohDim + 1;
  int64_t ow = dims.size() > owDim ? dims[owDim] : 0;
  for (llvm::StringRef knob : {"reg_w", "ew_vec"})
    if (leavesOneColumn(knobs, knob, ow, why))
      return false;
  if (grouped && knobOr0(knobs, "reg_f") > knobOr0(knobs, "par_f")) {
    why = "register tile filters (reg_f) exceed the thread tile (par_f)";
    return false;
  }
  // The vector registers (32 of 16 floats on AVX-512): the accumulators,
  // the input box and a broadcast weight.
  int64_t filters = grouped ? knobOr0(knobs, "reg_f") : 1;
  if (filters * knobOr0(knobs, "reg_h") * knobOr0(knobs, "reg_w") >
      vectors.floats()) {
    why = grouped ? "the register tile (reg_f x reg_h x reg_w) needs more "
                    "accumulators than there are vector registers"
                  : "the register tile (reg_h x reg_w) needs more "
                    "accumulators than there are vector registers";
    return false;
  }
  return true;
}

static std::optional<int64_t> depthwiseExtent(llvm::StringRef knob,
                                              llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 5)
    return std::nullopt;
  if (knob == "par_c")
    return dims[0];
  if (knob == "par_h" || knob == "reg_h")
    return dims[1];
  if (knob == "reg_w" || knob == "ew_vec")
    return dims[2];
  return std::nullopt;
}

// @cpu.grouped_conv2d_nchw: dims = g, f, oh, ow, c, ih, iw.

static std::optional<SmallVector<int64_t>>
groupedConvDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 7)
    return std::nullopt;
  if (knob == "par_g")
    return tileOptions(dims[0], 1);
  if (knob == "par_f")
    return tileOptions(dims[1], 1);
  if (knob == "reg_f")
    return registerOptions(dims[1], kRegF);
  return windowPlaneDomain(knob, dims[2], dims[3]);
}

static Knobs groupedConvDefaults(llvm::ArrayRef<int64_t> dims,
                                 const VectorModel &vectors) {
  if (dims.size() != 7)
    return {};
  return groupedConvKnobs(dims[0], dims[1], dims[2], dims[3], dims[4],
                          dims[5], dims[6], vectors);
}

static Knobs dynamicGroupedConvDefaults(llvm::ArrayRef<int64_t> dims,
                                        const VectorModel &vectors) {
  return dynamicGroupedConvKnobs(dims, vectors);
}

static std::optional<int64_t> groupedConvExtent(llvm::StringRef knob,
                                                llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 7)
    return std::nullopt;
  if (knob == "par_g")
    return dims[0];
  if (knob == "par_f" || knob == "reg_f")
    return dims[1];
  if (knob == "par_h" || knob == "reg_h")
    return dims[2];
  if (knob == "reg_w" || knob == "ew_vec")
    return dims[3];
  return std::nullopt;
}

// @cpu.elementwise_<rank>d: dims = the iteration space.
static std::optional<SmallVector<int64_t>>
elementwiseDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  if (knob == "vec" && !dims.empty())
    return registerOptions(dims.back(), kVectorWidths);
  unsigned d;
  if (knob.consume_front("par_") && !knob.getAsInteger(10, d) &&
      d < dims.size())
    return tileOptions(dims[d], 1);
  return std::nullopt;
}

static Knobs elementwiseDefaults(llvm::ArrayRef<int64_t> dims,
                                 const VectorModel &) {
  if (dims.empty())
    return {};
  return elementwiseKnobs(dims);
}

// @cpu.outer_forall_<n>d: dims = the n leading parallel dimensions.
static std::optional<SmallVector<int64_t>>
outerForallDomain(llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) {
  unsigned d;
  if (knob.consume_front("par_") && !knob.getAsInteger(10, d) &&
      d < dims.size())
    return tileOptions(dims[d], 1);
  return std::nullopt;
}

static Knobs outerForallDefaults(llvm::ArrayRef<int64_t> dims,
                                 const VectorModel &) {
  return outerForallKnobs(dims, dims.size());
}

static std::optional<int64_t> indexedExtent(llvm::StringRef knob,
                                           llvm::StringRef prefix,
                                           llvm::ArrayRef<int64_t> dims) {
  unsigned d;
  if (knob.consume_front(prefix) && !knob.getAsInteger(10, d) &&
      d < dims.size())
    return dims[d];
  return std::nullopt;
}

static std::optional<int64_t> matmulExtent(llvm::StringRef knob,
                                           llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 3)
    return std::nullopt;
  if (knob == "par_m" || knob == "reg_m")
    return dims[0];
  if (knob == "par_n" || knob == "reg_n" || knob == "cache_n")
    return dims[1];
  if (knob == "cache_k" || knob == "reg_k")
    return dims[2];
  return std::nullopt;
}

static std::optional<int64_t> convExtent(llvm::StringRef knob,
                                         llvm::ArrayRef<int64_t> dims) {
  if (dims.size() != 9)
    return std::nullopt;
  if (knob == "par_m" || knob == "reg_m" || knob == "ew_par_c" ||
      knob == "par_f" || knob == "reg_f")
    return dims[0];
  if (knob == "par_n" || knob == "reg_n")
    return dims[1] * dims[2];
  if (knob == "par_h" || knob == "reg_h")
    return dims[1];
  if (knob == "cache_k")
    return dims[3];
  if (knob == "ew_vec" || knob == "reg_w" || knob == "col_w")
    return dims[2];
  return std::nullopt;
}

static std::optional<int64_t> elementwiseExtent(llvm::StringRef knob,
                                                llvm::ArrayRef<int64_t> dims) {
  if (knob == "vec" && !dims.empty())
    return dims.back();
  return indexedExtent(knob, "par_", dims);
}

static std::optional<int64_t> outerForallExtent(llvm::StringRef knob,
                                                llvm::ArrayRef<int64_t> dims) {
  return indexedExtent(knob, "par_", dims);
}

const TemplateRules *schedule::cpu::lookupRules(llvm::StringRef sequence) {
  static constexpr TemplateRules kMatmul = {matmulDefaults, matmulDomain,
                                            matmulCheck, matmulExtent};
  static constexpr TemplateRules kTransposedMatmul = {
      transposedMatmulDefaults, transposedMatmulDomain, transposedMatmulCheck,
      transposedMatmulExtent};
  static constexpr TemplateRules kConv = {convDefaults, convDomain, convCheck,
                                          convExtent};
  static constexpr TemplateRules kFilterLanesConv = {
      filterLanesConvDefaults, filterLanesConvDomain, filterLanesConvCheck,
      filterLanesConvExtent};
  static constexpr TemplateRules kDynamicFilterLanesConv = {
      dynamicFilterLanesConvDefaults, filterLanesConvDomain,
      filterLanesConvCheck, filterLanesConvExtent};
  static constexpr TemplateRules kPanelMatmul = {
      panelMatmulDefaults, panelMatmulDomain, panelMatmulCheck,
      panelMatmulExtent};
  static constexpr TemplateRules kTransposedPanels = {
      transposedPanelsDefaults, transposedPanelsDomain, transposedPanelsCheck,
      transposedPanelsExtent};
  static constexpr TemplateRules kChannelLanesDepthwise = {
      channelLanesDepthwiseDefaults, channelLanesDepthwiseDomain,
      channelLanesDepthwiseCheck, channelLanesDepthwiseExtent};
  static constexpr TemplateRules kDynamicChannelLanesDepthwise = {
      dynamicChannelLanesDepthwiseDefaults, channelLanesDepthwiseDomain,
      channelLanesDepthwiseCheck, channelLanesDepthwiseExtent};
  static constexpr TemplateRules kDepthwise = {
      depthwiseDefaults, depthwiseDomain, windowTileCheck, depthwiseExtent};
  static constexpr TemplateRules kDynamicDepthwise = {
      dynamicDepthwiseDefaults, depthwiseDomain, windowTileCheck,
      depthwiseExtent};
  static constexpr TemplateRules kGroupedConv = {
      groupedConvDefaults, groupedConvDomain, windowTileCheck,
      groupedConvExtent};
  static constexpr TemplateRules kDynamicGroupedConv = {
      dynamicGroupedConvDefaults, groupedConvDomain, windowTileCheck,
      groupedConvExtent};
  static constexpr TemplateRules kElementwise = {
      elementwiseDefaults, elementwiseDomain, nullptr, elementwiseExtent};
  static constexpr TemplateRules kOuterForall = {
      outerForallDefaults, outerForallDomain, nullptr, outerForallExtent};
  static constexpr std::pair<llvm::StringLiteral, const TemplateRules *>
      kTable[] = {
          {"cpu.matmul", &kMatmul},
          {"cpu.batch_matmul", &kMatmul},
          {"cpu.matmul_transposed", &kTransposedMatmul},
          {"cpu.matmul_panels", &kPanelMatmul},
          {"cpu.matmul_panels_transposed", &kTransposedPanels},
          {"cpu.conv2d_nchw", &kConv},
          {"cpu.conv2d_filter_lanes", &kFilterLanesConv},
          {"cpu.conv2d_filter_lanes_dynamic", &kDynamicFilterLanesConv},
          {"cpu.depthwise_conv2d_nchw", &kDepthwise},
          {"cpu.depthwise_conv2d_nchw_dynamic", &kDynamicDepthwise},
          {"cpu.depthwise_channel_lanes", &kChannelLanesDepthwise},
          {"cpu.depthwise_channel_lanes_dynamic",
           &kDynamicChannelLanesDepthwise},
          {"cpu.grouped_conv2d_nchw", &kGroupedConv},
          {"cpu.grouped_conv2d_nchw_dynamic", &kDynamicGroupedConv},
          {"cpu.elementwise_1d", &kElementwise},
          {"cpu.elementwise_2d", &kElementwise},
          {"cpu.elementwise_3d", &kElementwise},
          {"cpu.elementwise_4d", &kElementwise},
          {"cpu.outer_forall_1d", &kOuterForall},
          {"cpu.outer_forall_2d", &kOuterForall},
      };
  for (const auto &[symbol, rules] : kTable)
    if (symbol == sequence)
      return rules;
  return nullptr;
}
