//===- Plans.cpp - which CPU template schedules a fusion group ------------===//
//
// The CPU's default rules: a group around one matmul or convolution gets
// that op's template (@cpu.matmul, @cpu.batch_matmul,
// @cpu.matmul_transposed for a product the group transposes,
// @cpu.matmul_panels for one with its constant operand in panels,
// @cpu.matmul_panels_transposed for both, @cpu.conv2d_nchw,
// @cpu.conv2d_filter_lanes, @cpu.depthwise_conv2d_nchw,
// @cpu.depthwise_channel_lanes, @cpu.grouped_conv2d_nchw; on dynamic
// extents their _dynamic variants),
// one of elementwise ops @cpu.elementwise_<rank>d, and any other group
// threads over its leading parallel dimensions (@cpu.outer_forall_<n>d),
// most specific first; the knob values come from CPU/Rules.cpp.
//
//===----------------------------------------------------------------------===//

#include "../Common/ScheduleInternal.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace int21;
using namespace int21::schedule;
using namespace int21::schedule::cpu;

namespace {

/// The tags of a window schedule (depthwise, grouped or a convolution's
/// window form): every op but the root fused into the root's thread tiles,
/// every op but the anchor elementwise, and the padding of the anchor's
/// input fused too, so that each thread pads only its window.
void tagWindowProducers(Plan &plan, FusionGroupOp group, linalg::LinalgOp root,
                        linalg::LinalgOp anchor,
                        ArrayRef<linalg::LinalgOp> ops) {
  for (linalg::LinalgOp op : ops) {
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
    if (op != anchor)
      plan.tags.push_back({op, kElementwiseTag});
  }
  if (auto pad = anchor.getDpsInputOperand(0)->get().getDefiningOp<tensor::PadOp>())
    if (group->isAncestor(pad))
      plan.tags.push_back({pad, kFuseTag});
}

/// The group's one op with a reduction (its matmul or convolution), or null
/// when it has none or several.
linalg::LinalgOp soleAnchor(ArrayRef<linalg::LinalgOp> ops) {
  linalg::LinalgOp anchor;
  for (linalg::LinalgOp op : ops) {
    if (isAllParallel(op))
      continue;
    if (anchor)
      return {};
    anchor = op;
  }
  return anchor;
}

/// The tags of a plan whose root's thread tiles take every op of the group
/// but those `apart` (computed once, before the threads): the root, the
/// anchor, every other op fused, every op but the anchor elementwise.
void tagAroundAnchor(Plan &plan, linalg::LinalgOp root,
                     linalg::LinalgOp anchor, ArrayRef<linalg::LinalgOp> ops,
                     llvm::function_ref<bool(Operation *)> apart =
                         [](Operation *) { return false; }) {
  plan.tags.push_back({root, kRootTag});
  plan.tags.push_back({anchor, kAnchorTag});
  for (linalg::LinalgOp op : ops) {
    if (apart(op))
      continue;
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
    if (op != anchor)
      plan.tags.push_back({op, kElementwiseTag});
  }
}

/// The anchor-based plans: matmul or conv with elementwise ops around it.
std::optional<Plan> planAnchored(FusionGroupOp group, linalg::LinalgOp root,
                                 ArrayRef<linalg::LinalgOp> ops,
                                 const VectorModel &vectors) {
  linalg::LinalgOp anchor = soleAnchor(ops);
  if (!anchor)
    return std::nullopt;
  bool matmul = isPlainMatmul(anchor) || isSharedLhsBatchMatmul(anchor);
  bool conv = isPlainConv(anchor);
  // Pooling has the form of a depthwise convolution (its window in place of
  // the weight) and gets its template.
  bool depthwise = isDepthwiseConv2d(anchor) || isWindowPool2d(anchor);
  bool grouped = isGroupedConv2d(anchor);
  bool filterLanes = isFilterLanesConv2d(anchor);
  // Dynamic extents (the generic code of a dynamic model): the filter-lanes
  // convolution and the matmuls (attention's batched products), whose
  // register tiles are static and whose remainders are peeled, with their
  // knobs for kDynamicExtentHint there; depthwise convolutions and pools
  // (a dynamic batch alone too: the static template's vector lowering did
  // not settle on one) the template that pads their partial register tiles
  // to whole ones.
  bool staticLoops = hasStaticTensorLoops(anchor);
  if ((!matmul && !conv && !depthwise && !grouped && !filterLanes) ||
      !anchor.hasPureTensorSemantics() || (conv && !staticLoops))
    return std::nullopt;
  auto outType = cast<RankedTensorType>(anchor->getResult(0).getType());
  for (linalg::LinalgOp op : ops)
    if (op != anchor && !isElementwiseOver(op, outType.getShape()))
      return std::nullopt;

  Plan plan;
  SmallVector<int64_t> loops = hintedLoopRanges(anchor);
  plan.tags.push_back({root, kRootTag});
  plan.tags.push_back({anchor, kAnchorTag});
  // A window op whose output rows have one column (a 1-D pooling imported
  // with a unit width) gives its vectors no lanes: the unit dimensions fold
  // away into 0-d vectors, on which the vector lowering does not settle.
  // It threads over its leading dimensions instead.
  if ((depthwise || grouped) && loops[grouped ? 4 : 3] < 2)
    return std::nullopt;
  if (depthwise || grouped) {
    // Depthwise [n, c, oh, ow, kh, kw] or grouped [n, g, f, oh, ow, c, kh,
    // kw]: threads over channels (groups and their filters) and output
    // rows, the epilogue and the producers (the bias, the padding) fused
    // into them. The dims end with the padded input's ih, iw (the plane a
    // thread pads and reads, 4x the output's at stride 2).
    auto inType = cast<RankedTensorType>(anchor.getDpsInputOperand(0)->get().getType());
    int64_t ih = inType.getDimSize(inType.getRank() - 2),
            iw = inType.getDimSize(inType.getRank() - 1);
    if (depthwise && !staticLoops) {
      plan.sequence = "cpu.depthwise_conv2d_nchw_dynamic";
      plan.dims = {loops[1], loops[2], loops[3], hintedExtent(ih),
                   hintedExtent(iw)};
      // A dynamic batch of planes whose extents are static (a model
      // exported with a dynamic batch alone): the static template's tiles
      // and the epilogue in the register tiles, no remainder being dynamic
      // (1 thread, 3x96x40x40 3x3 + ReLU6: 0.37 -> 0.24 ms, static 0.18).
      SmallVector<int64_t> exact = anchor.getStaticLoopRanges();
      bool staticPlanes = !ShapedType::isDynamic(exact[2]) &&
                          !ShapedType::isDynamic(exact[3]) &&
                          !ShapedType::isDynamic(ih) &&
                          !ShapedType::isDynamic(iw);
      plan.knobs = staticPlanes
                       ? depthwiseKnobs(loops[1], loops[2], loops[3], ih, iw)
                       : dynamicDepthwiseKnobs(loops[1]);
    } else if (depthwise) {
      plan.sequence = "cpu.depthwise_conv2d_nchw";
      plan.dims = {loops[1], loops[2], loops[3], ih, iw};
      plan.knobs = depthwiseKnobs(loops[1], loops[2], loops[3], ih, iw);
    } else if (!staticLoops) {
      // Grouped convolutions of dynamic extents: register tiles of the
      // static template's shape for maps of kDynamicExtentHint, their
      // partial ones padded to whole ones.
      plan.sequence = "cpu.grouped_conv2d_nchw_dynamic";
      plan.dims = {loops[1], loops[2], loops[3], loops[4], loops[5],
                   hintedExtent(ih), hintedExtent(iw)};
      plan.knobs = dynamicGroupedConvKnobs(plan.dims, vectors);
    } else {
      plan.sequence = "cpu.grouped_conv2d_nchw";
      plan.dims = {loops[1], loops[2], loops[3], loops[4], loops[5], ih, iw};
      plan.knobs = groupedConvKnobs(loops[1], loops[2], loops[3], loops[4],
                                    loops[5], ih, iw, vectors);
    }
    // A window group without an epilogue (a pool, a convolution alone)
    // keeps its accumulators' init apart: epilogue_regs = 1 has nothing to
    // fuse into a root that is the window op itself (its region does not
    // apply, and the group fell back to the first with the schedule saying
    // otherwise).
    if (root == anchor)
      plan.knobs.erase("epilogue_regs");
    tagWindowProducers(plan, group, root, anchor, ops);
    return plan;
  }
  if (filterLanes) {
    // [n, fb, fi, oh, ow, c, kh, kw] (blocks of 16 filters), the filters
    // along the vectors; the dims add the padded input's ih, iw.
    auto inType =
        cast<RankedTensorType>(anchor.getDpsInputOperand(0)->get().getType());
    // Output rows of dynamic extents: the template that tiles their
    // remainders by one column.
    bool dynamic = !staticLoops;
    plan.sequence = dynamic ? "cpu.conv2d_filter_lanes_dynamic"
                            : "cpu.conv2d_filter_lanes";
    plan.dims = {loops[1] * loops[2],
                 loops[3],
                 loops[4],
                 loops[5],
                 loops[6],
                 loops[7],
                 hintedExtent(inType.getDimSize(2)),
                 hintedExtent(inType.getDimSize(3))};
    // (The dynamic template's dims add the lanes: 16, or 8 for a
    // convolution of 8k filters.)
    if (dynamic)
      plan.dims.push_back(loops[2]);
    plan.knobs = dynamic ? dynamicFilterLanesConvKnobs(plan.dims, vectors)
                         : filterLanesConvKnobs(plan.dims, vectors);
    tagWindowProducers(plan, group, root, anchor, ops);
    return plan;
  }
  if (conv) {
    // [n, f, oh, ow, c, kh, kw], scheduled by im2col (the elementwise ops
    // then stay apart from the contraction: reshapes lie between them) or
    // as a window convolution (the epilogue, the bias and the padding fused
    // into the thread tiles, as for grouped convolutions). The dims add the
    // padded input's ih, iw and the strides, which the rules pick by.
    auto named = cast<linalg::Conv2DNchwFchwOp>(anchor.getOperation());
    auto inType =
        cast<RankedTensorType>(anchor.getDpsInputOperand(0)->get().getType());
    SmallVector<int64_t> strides(named.getStrides().getValues<int64_t>());
    plan.sequence = "cpu.conv2d_nchw";
    plan.dims = {loops[1],
                 loops[2],
                 loops[3],
                 loops[4] * loops[5] * loops[6],
                 loops[4],
                 inType.getDimSize(2),
                 inType.getDimSize(3),
                 strides[0],
                 strides[1]};
    plan.knobs = conv2dKnobs(plan.dims, vectors);
    tagWindowProducers(plan, group, root, anchor, ops);
    return plan;
  }
  bool batched = isa<linalg::BatchMatmulOp>(anchor);
  plan.sequence = batched ? "cpu.batch_matmul" : "cpu.matmul";
  size_t b = batched ? 1 : 0;
  plan.knobs = matmulKnobs(loops[b], loops[b + 1], loops[b + 2], vectors);
  plan.dims = {loops[b], loops[b + 1], loops[b + 2]};
  for (linalg::LinalgOp op : ops) {
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
    if (op != anchor)
      plan.tags.push_back({op, kElementwiseTag});
  }
  return plan;
}

/// A matmul whose product the group transposes: C^T[m, n] (A read plainly
/// or through a transposed map) -> linalg.transpose -> [n, m], the other ops
/// elementwise over either shape (the bias the product starts from, the
/// epilogue after the transpose). Lowered that way where the vectors run
/// along n (see LowerToLinalg/NN.cpp, pointwise convolutions).
std::optional<Plan> planTransposedMatmul(linalg::LinalgOp root,
                                         ArrayRef<linalg::LinalgOp> ops,
                                         const VectorModel &vectors) {
  linalg::LinalgOp anchor = soleAnchor(ops);
  auto matmul = dyn_cast_or_null<linalg::MatmulOp>(
      anchor ? anchor.getOperation() : nullptr);
  if (!matmul || !hasStaticTensorLoops(matmul) ||
      !matmul->getResult(0).hasOneUse())
    return std::nullopt;
  // Plain maps, or A transposed: (k, m), (k, n), (m, n).
  MLIRContext *ctx = matmul.getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> transposedA = {AffineMap::get(3, 0, {k, m}, ctx),
                                        AffineMap::get(3, 0, {k, n}, ctx),
                                        AffineMap::get(3, 0, {m, n}, ctx)};
  if (matmul.hasUserDefinedMaps() &&
      matmul.getIndexingMapsArray() != ArrayRef<AffineMap>(transposedA))
    return std::nullopt;
  auto transpose =
      dyn_cast<linalg::TransposeOp>(*matmul->getResult(0).getUsers().begin());
  if (!transpose || transpose->getParentOp() != matmul->getParentOp() ||
      transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return std::nullopt;
  // B's own transpose (and the padding of its rows), when B is no constant
  // that int21-outline-weights folded: computed once, before the threads.
  SmallPtrSet<Operation *, 4> prepareB;
  for (Value b = matmul.getDpsInputOperand(1)->get(); Operation *def =
           b.getDefiningOp();) {
    if (!isa<tensor::ExtractSliceOp, tensor::PadOp, linalg::TransposeOp>(def))
      break;
    prepareB.insert(def);
    b = def->getOperand(0);
  }
  SmallVector<int64_t> loops = matmul.getStaticLoopRanges();
  SmallVector<int64_t> product = {loops[0], loops[1]},
                       result = {loops[1], loops[0]};
  for (linalg::LinalgOp op : ops)
    if (op != matmul && op != transpose && !prepareB.contains(op) &&
        !isElementwiseOver(op, product) && !isElementwiseOver(op, result))
      return std::nullopt;
  if (root != transpose && !isElementwiseOver(root, result))
    return std::nullopt;
  Plan plan;
  plan.sequence = "cpu.matmul_transposed";
  plan.dims = {loops[1], loops[0], loops[2]};
  plan.knobs = transposedMatmulKnobs(loops[1], loops[0], loops[2], vectors);
  tagAroundAnchor(plan, root, matmul, ops,
                  [&](Operation *op) { return prepareB.contains(op); });
  return plan;
}

/// A product with its constant right operand in panels of 16 columns: the
/// generic over (m, nb, ni, k) (@cpu.matmul_panels), the other ops
/// elementwise over its output [M, N/16, 16] (the zeros or the bias it
/// starts from, the epilogue), and the panels' own transpose where
/// int21-outline-weights did not fold it (computed once, before the
/// threads). Or a pointwise convolution's transposed product, A read at
/// (k, m), [P, F/16, 16] then transposed to the group's [F/16, 16, P]
/// (@cpu.matmul_panels_transposed), the other ops over either shape.
std::optional<Plan> planPanels(linalg::LinalgOp root,
                               ArrayRef<linalg::LinalgOp> ops,
                               const VectorModel &vectors) {
  linalg::LinalgOp anchor = soleAnchor(ops);
  if (!anchor || !anchor.hasPureTensorSemantics())
    return std::nullopt;
  bool transposedA = isPanelMatmul(anchor, /*transposedA=*/true);
  if (!transposedA && !isPanelMatmul(anchor))
    return std::nullopt;
  // Rows of dynamic extent (the generic code of a dynamic model's linear
  // layers): the thread and register tiles over them are static, their
  // remainders peeled; the knobs are chosen for kDynamicExtentHint rows.
  SmallVector<int64_t> exact = anchor.getStaticLoopRanges();
  if (llvm::any_of(ArrayRef<int64_t>(exact).drop_front(transposedA ? 0 : 1),
                   ShapedType::isDynamic) ||
      (transposedA && ShapedType::isDynamic(exact[0])))
    return std::nullopt;
  SmallVector<int64_t> loops = hintedLoopRanges(anchor);
  SmallVector<int64_t> product = {exact[0], exact[1], exact[2]},
                       result = product;
  linalg::TransposeOp transpose;
  if (transposedA) {
    if (!anchor->getResult(0).hasOneUse())
      return std::nullopt;
    transpose = dyn_cast<linalg::TransposeOp>(
        *anchor->getResult(0).getUsers().begin());
    if (!transpose || transpose->getParentOp() != anchor->getParentOp() ||
        transpose.getPermutation() != ArrayRef<int64_t>{1, 2, 0})
      return std::nullopt;
    result = {exact[1], exact[2], exact[0]};
  }
  auto panels =
      anchor.getDpsInputOperand(1)->get().getDefiningOp<linalg::TransposeOp>();
  for (linalg::LinalgOp op : ops)
    if (op != anchor && op != transpose && op != panels &&
        !isElementwiseOver(op, product) && !isElementwiseOver(op, result))
      return std::nullopt;
  if (transposedA && root != transpose && !isElementwiseOver(root, result))
    return std::nullopt;
  Plan plan;
  if (transposedA) {
    plan.sequence = "cpu.matmul_panels_transposed";
    plan.dims = {loops[1] * loops[2], loops[0], loops[3]};
    plan.knobs = transposedPanelsKnobs(plan.dims, vectors);
  } else {
    plan.sequence = "cpu.matmul_panels";
    plan.dims = {loops[0], loops[1] * loops[2], loops[3]};
    plan.knobs = panelMatmulKnobs(plan.dims, vectors);
  }
  tagAroundAnchor(plan, root, anchor, ops,
                  [&](Operation *op) { return op == panels; });
  return plan;
}

/// A depthwise convolution with its channels along the vectors: the
/// generic over (n, cb, ci, oh, ow, kh, kw), its input the transpose of the
/// group's NCHW input into channel blocks (padded after), the other ops
/// elementwise over its output [N, C/L, L, OH, OW] (the bias it starts
/// from, the epilogue).
std::optional<Plan> planChannelLanesDepthwise(FusionGroupOp group,
                                              linalg::LinalgOp root,
                                              ArrayRef<linalg::LinalgOp> ops,
                                              const VectorModel &vectors) {
  linalg::LinalgOp anchor = soleAnchor(ops);
  if (!anchor || !isChannelLanesDepthwise2d(anchor) ||
      !anchor.hasPureTensorSemantics())
    return std::nullopt;
  Value input = anchor.getDpsInputOperand(0)->get();
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (pad && group->isAncestor(pad))
    input = pad.getSource();
  auto pack = input.getDefiningOp<linalg::TransposeOp>();
  if (!pack || !group->isAncestor(pack) ||
      pack.getPermutation() != ArrayRef<int64_t>{0, 1, 3, 4, 2})
    return std::nullopt;
  SmallVector<int64_t> exact = anchor.getStaticLoopRanges();
  SmallVector<int64_t> out(exact.begin(), exact.begin() + 5);
  for (linalg::LinalgOp op : ops)
    if (op != anchor && op != pack && !isElementwiseOver(op, out))
      return std::nullopt;
  // [n, cb, ci, oh, ow, kh, kw]; the dims add the padded input's ih, iw
  // and the lanes. Dynamic extents (the generic code of a dynamic model):
  // the template that tiles the remainders of rows by one pixel, its knobs
  // for rows of kDynamicExtentHint.
  bool dynamic = llvm::any_of(exact, ShapedType::isDynamic);
  SmallVector<int64_t> loops = hintedLoopRanges(anchor);
  auto inType = cast<RankedTensorType>(anchor.getDpsInputOperand(0)->get().getType());
  Plan plan;
  plan.sequence = dynamic ? "cpu.depthwise_channel_lanes_dynamic"
                          : "cpu.depthwise_channel_lanes";
  plan.dims = {loops[1] * loops[2],
               loops[3],
               loops[4],
               loops[5],
               loops[6],
               hintedExtent(inType.getDimSize(2)),
               hintedExtent(inType.getDimSize(3)),
               loops[2]};
  plan.knobs = dynamic ? dynamicChannelLanesDepthwiseKnobs(plan.dims)
                       : channelLanesDepthwiseKnobs(plan.dims, vectors);
  plan.tags.push_back({root, kRootTag});
  plan.tags.push_back({anchor, kAnchorTag});
  // The input's transpose (the pack) is fused into the thread tiles by a
  // step of its own, after its consumer (the padding), and never into the
  // register tiles: it is not tagged to fuse.
  plan.tags.push_back({pack, kPackTag});
  for (linalg::LinalgOp op : ops) {
    if (op != root && op != pack)
      plan.tags.push_back({op, kFuseTag});
    if (op != anchor && op != pack)
      plan.tags.push_back({op, kElementwiseTag});
  }
  if (pad && group->isAncestor(pad))
    plan.tags.push_back({pad, kFuseTag});
  return plan;
}

/// Every op elementwise over the root's iteration space.
std::optional<Plan> planElementwise(linalg::LinalgOp root,
                                    ArrayRef<linalg::LinalgOp> ops) {
  if (!root.hasPureTensorSemantics() || !isAllParallel(root))
    return std::nullopt;
  SmallVector<int64_t> shape = root.getStaticLoopRanges();
  if (shape.empty() || shape.size() > 4)
    return std::nullopt;
  for (linalg::LinalgOp op : ops)
    if (!isElementwiseOver(op, shape))
      return std::nullopt;
  Plan plan;
  plan.sequence = "cpu.elementwise_" + std::to_string(shape.size()) + "d";
  plan.dims = hintedLoopRanges(root);
  plan.knobs = elementwiseKnobs(plan.dims);
  plan.tags.push_back({root, kRootTag});
  for (linalg::LinalgOp op : ops) {
    plan.tags.push_back({op, kElementwiseTag});
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
  }
  return plan;
}

/// Threads over the root's leading parallel dimensions, the rest fused.
std::optional<Plan> planOuterForall(linalg::LinalgOp root,
                                    ArrayRef<linalg::LinalgOp> ops) {
  if (!root.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<int64_t> shape = hintedLoopRanges(root);
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  unsigned parallel = 0;
  while (parallel < 2 && parallel < iterators.size() &&
         iterators[parallel] == utils::IteratorType::parallel)
    ++parallel;
  if (parallel == 0)
    return std::nullopt;
  // A unit leading dimension gives no threads: use the second one too.
  unsigned dims = (parallel == 2 && shape[0] < 4) ? 2 : 1;
  Plan plan;
  plan.sequence = "cpu.outer_forall_" + std::to_string(dims) + "d";
  plan.knobs = outerForallKnobs(shape, dims);
  plan.dims.assign(shape.begin(), shape.begin() + dims);
  plan.tags.push_back({root, kRootTag});
  for (linalg::LinalgOp op : ops)
    if (op != root)
      plan.tags.push_back({op, kFuseTag});
  return plan;
}

/// Whether the group's work is too small to share between threads: a
/// fork and join of the OpenMP team (2-5 us) would cost more than a second
/// thread saves. The work is counted as the ops of the bodies over the
/// iterations (at 16 a nanosecond: vectors of f32, about one a cycle) and
/// the bytes of the group's operands and results (at 16 a nanosecond from
/// the caches); tiny below 2 us.
bool isTinyWork(FusionGroupOp group, ArrayRef<linalg::LinalgOp> ops) {
  auto bytesOf = [](Type type) -> double {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasStaticShape() ||
        !shaped.getElementType().isIntOrFloat())
      return 0;
    return shaped.getNumElements() *
           std::max<unsigned>(1, shaped.getElementType().getIntOrFloatBitWidth() / 8);
  };
  double work = 0, bytes = 0;
  for (linalg::LinalgOp op : ops) {
    if (!hasStaticTensorLoops(op))
      return false;
    double iterations = 1;
    for (int64_t size : op.getStaticLoopRanges())
      iterations *= size;
    double bodyOps = 0;
    for (Operation &inner : op->getRegion(0).front().without_terminator())
      if (!isa<linalg::IndexOp>(inner))
        ++bodyOps;
    work += iterations * std::max(1.0, bodyOps);
  }
  for (Value operand : group->getOperands())
    bytes += bytesOf(operand.getType());
  for (Type type : group->getResultTypes())
    bytes += bytesOf(type);
  // (Values used from above, not operands of the group op.)
  llvm::SetVector<Value> captured;
  mlir::getUsedValuesDefinedAbove(group->getRegion(0), captured);
  for (Value value : captured)
    bytes += bytesOf(value.getType());
  constexpr double kOpsPerNs = 16, kBytesPerNs = 16, kTinyNs = 2000;
  return std::max(work / kOpsPerNs, bytes / kBytesPerNs) < kTinyNs;
}

/// A plan whose thread tiles are all the work: every par_ knob at the
/// extent of the dimension it tiles.
void oneThreadTile(Plan &plan) {
  const TemplateRules *rules = cpu::lookupRules(plan.sequence);
  if (!rules || !rules->extent)
    return;
  for (auto &entry : plan.knobs)
    if (entry.getKey().starts_with("par_"))
      if (std::optional<int64_t> extent =
              rules->extent(entry.getKey(), plan.dims))
        entry.getValue() = std::max<int64_t>(entry.getValue(), *extent);
}

} // namespace

/// The plans of the default CPU schedule for a group, most specific first.
SmallVector<Plan> schedule::cpu::planDefaults(FusionGroupOp group) {
  SmallVector<Plan> plans;
  linalg::LinalgOp root = getRoot(group);
  if (!root)
    return plans;
  // A group that computes nothing (a dimension of 0) needs no schedule, and
  // the knob heuristics divide by its dimensions.
  if (hasStaticTensorLoops(root) &&
      llvm::is_contained(root.getStaticLoopRanges(), 0))
    return plans;
  SmallVector<linalg::LinalgOp> ops = getLinalgOps(group);
  // Vectors of i1 are bit-packed in memory, tensors of i1 one byte per
  // element: groups that touch booleans get threads but no vectors.
  bool touchesBool = llvm::any_of(ops, [](linalg::LinalgOp op) {
    auto isBool = [](Type t) { return getElementTypeOrSelf(t).isInteger(1); };
    return llvm::any_of(op->getOperandTypes(), isBool) ||
           llvm::any_of(op->getResultTypes(), isBool);
  });
  if (!touchesBool) {
    // The register tiles for the CPU the module is compiled for.
    VectorModel vectors = VectorModel::of(group);
    if (std::optional<Plan> plan = planTransposedMatmul(root, ops, vectors))
      plans.push_back(std::move(*plan));
    else if (std::optional<Plan> plan =
                 planChannelLanesDepthwise(group, root, ops, vectors))
      plans.push_back(std::move(*plan));
    else if (std::optional<Plan> plan = planPanels(root, ops, vectors))
      plans.push_back(std::move(*plan));
    else if (std::optional<Plan> plan =
                 planAnchored(group, root, ops, vectors))
      plans.push_back(std::move(*plan));
    if (std::optional<Plan> plan = planElementwise(root, ops))
      plans.push_back(std::move(*plan));
  }
  if (std::optional<Plan> plan = planOuterForall(root, ops))
    plans.push_back(std::move(*plan));
  if (isTinyWork(group, ops))
    for (Plan &plan : plans)
      oneThreadTile(plan);
  return plans;
}
