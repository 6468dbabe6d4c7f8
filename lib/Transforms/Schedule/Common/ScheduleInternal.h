//===- ScheduleInternal.h - what the schedule layer's files share ---------===//
//
// Private to lib/Transforms/Schedule: the plans the targets' default rules
// make for a group, the tags templates find payload ops by, the template
// library's parsing and knob resolution, and the rules each target declares
// for its templates (defaults and domains from the work, plausibility).
//
//===----------------------------------------------------------------------===//

#ifndef INT21_TRANSFORMS_SCHEDULE_SCHEDULEINTERNAL_H
#define INT21_TRANSFORMS_SCHEDULE_SCHEDULEINTERNAL_H

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"

#include <optional>
#include <string>

namespace int21::schedule {

/// The attribute that marks a named sequence as a schedule template.
constexpr llvm::StringLiteral kTemplateMarker = "int21.schedule_template";

// Tags the templates match payload ops by (see CPU/matmul.mlir).
constexpr llvm::StringLiteral kRootTag = "int21.root";
constexpr llvm::StringLiteral kAnchorTag = "int21.anchor";
constexpr llvm::StringLiteral kFuseTag = "int21.fuse";
constexpr llvm::StringLiteral kElementwiseTag = "int21.ew";
/// An input the group lays out anew for its anchor (a depthwise
/// convolution's channel blocks), transposed in each thread tile.
constexpr llvm::StringLiteral kPackTag = "int21.pack";
constexpr llvm::StringLiteral kTags[] = {kRootTag, kAnchorTag, kFuseTag,
                                         kElementwiseTag, kPackTag};

/// One way to schedule a group: a template, its default knob values and the
/// tags to put on the group's ops.
struct Plan {
  std::string sequence;
  Knobs knobs;
  /// The dimensions the knobs tile (see ScheduleChoice::dims).
  llvm::SmallVector<int64_t> dims;
  llvm::SmallVector<std::pair<Operation *, llvm::StringRef>> tags;
};

/// What a target declares for one of its templates, beside the template:
/// the default schedule's knob values for the work's dims, the domain of a
/// knob for them (std::nullopt: the template's own option list) and the
/// rules a point must follow.
/// Defaults and rules take the vector registers of the CPU (GPU rules
/// ignore them); domains do not depend on them, so that a schedule tuned
/// on one CPU is a point of the same space on another.
struct TemplateRules {
  Knobs (*defaults)(llvm::ArrayRef<int64_t> dims,
                    const VectorModel &vectors) = nullptr;
  std::optional<llvm::SmallVector<int64_t>> (*domain)(
      llvm::StringRef knob, llvm::ArrayRef<int64_t> dims) = nullptr;
  bool (*check)(const Knobs &knobs, llvm::ArrayRef<int64_t> dims,
                const VectorModel &vectors, std::string &why) = nullptr;
  /// For a tile size, the extent of the dimension it tiles: a tile at least
  /// that large is one tile of the whole dimension, whatever its size, so a
  /// larger value given by hand (--schedule-knobs over groups of several
  /// shapes) means the extent. std::nullopt for other knobs.
  std::optional<int64_t> (*extent)(llvm::StringRef knob,
                                   llvm::ArrayRef<int64_t> dims) = nullptr;
};

/// `knobs` with each tile size above the extent it tiles set to the extent
/// (see TemplateRules::extent).
void clampToExtents(llvm::StringRef sequence, llvm::ArrayRef<int64_t> dims,
                    Knobs &knobs);

namespace detail {
FailureOr<OwningOpRef<ModuleOp>> parseTemplateLibrary(MLIRContext *ctx,
                                                      ScheduleTarget target);
/// Calls `fn` on every knob and alternatives op of `sequence` and of the
/// sequences it includes, each once.
void forEachTunable(transform::NamedSequenceOp sequence, ModuleOp library,
                    function_ref<void(Operation *)> fn);
/// Resolves every knob and alternative of `sequence` (and of the sequences
/// it includes) from `knobs`; those not named keep the template's own
/// `selected` value, alternatives their first region. Fails when an
/// alternative index names no region.
LogicalResult resolveKnobs(transform::NamedSequenceOp sequence,
                           ModuleOp library, const Knobs &knobs);
void registerScheduleContract(DialectRegistry &registry);
} // namespace detail

// Classification (Common/Groups.cpp).
bool hasStaticTensorLoops(linalg::LinalgOp op);
/// The extent the default knobs assume for a dynamic loop: the generic code
/// of a dynamic model has one schedule for every size (its tiles static,
/// the remainders peeled), picked for mid-sized rows and sequences.
constexpr int64_t kDynamicExtentHint = 32;
/// `extent`, or kDynamicExtentHint where it is dynamic.
int64_t hintedExtent(int64_t extent);
/// The loop ranges of `op`, kDynamicExtentHint for each dynamic one.
llvm::SmallVector<int64_t> hintedLoopRanges(linalg::LinalgOp op);
bool isAllParallel(linalg::LinalgOp op);
/// Whether `group` yields a tensor of dynamic extents (the generic code of
/// a dynamic model).
bool yieldsDynamicShapes(FusionGroupOp group);
/// The ops of the group's body that the templates work on.
llvm::SmallVector<linalg::LinalgOp> getLinalgOps(FusionGroupOp group);
/// The op whose single result the group yields, if the group has that form.
linalg::LinalgOp getRoot(FusionGroupOp group);
/// True when `op` is elementwise over exactly the iteration space `shape`
/// (dynamic extents where `shape` has them: the group's ops have the same
/// extents there, since the group computes one value over them).
bool isElementwiseOver(linalg::LinalgOp op, llvm::ArrayRef<int64_t> shape);
bool isPlainMatmul(Operation *op);
/// A linalg.batch_matmul whose left operand is one matrix for every batch,
/// maps (m, k), (b, k, n), (b, m, n): a pointwise convolution over a
/// dynamic batch of images (see LowerToLinalg/NN.cpp).
bool isSharedLhsBatchMatmul(Operation *op);
bool isPlainConv(Operation *op);
/// A one-group 2-D convolution with the weight in blocks of 16 filters,
/// [F/16, C, KH, KW, 16] (see LowerToLinalg/NN.cpp): a generic with loops
/// (n, fb, fi, oh, ow, c, kh, kw), input (n, c, ...), weight (fb, c, kh, kw,
/// fi), output (n, fb, fi, oh, ow).
bool isFilterLanesConv2d(Operation *op);
/// A 2-D depthwise convolution with its channels in blocks of L along the
/// vectors (see LowerToLinalg/NN.cpp): a generic with loops (n, cb, ci, oh,
/// ow, kh, kw), input [N, C/L, H, W, L] at (n, cb, ..., ..., ci), weight
/// (cb, kh, kw, ci), output (n, cb, ci, oh, ow).
bool isChannelLanesDepthwise2d(Operation *op);
/// A product with its right operand in panels of 16 columns (see
/// LowerToLinalg/Structured.cpp): a generic with loops (m, nb, ni, k), A at
/// (m, k) (at (k, m) if `transposedA`: a pointwise convolution's input, see
/// LowerToLinalg/NN.cpp), B [N/16, K, 16] at (nb, k, ni), the output [M,
/// N/16, 16].
bool isPanelMatmul(Operation *op, bool transposedA = false);
/// A depthwise convolution over two spatial dimensions in the form the
/// lowering writes it: a generic with loops (n, c, oh, ow, kh, kw), input
/// (n, c, oh * s + kh * d, ow * s + kw * d), weight (c, kh, kw), output
/// (n, c, oh, ow).
bool isDepthwiseConv2d(Operation *op);
/// A max or sum pooling over two spatial dimensions in the form the
/// lowering writes it: a generic with loops (n, c, oh, ow, kh, kw), input
/// (n, c, oh * s + kh * d, ow * s + kw * d), a window operand (kh, kw) that
/// only gives the window its shape, output (n, c, oh, ow).
bool isWindowPool2d(Operation *op);
/// A convolution of G groups over two spatial dimensions in the form the
/// lowering writes it: a generic with loops (n, g, f, oh, ow, c, kh, kw),
/// input (n, g, c, oh * s + kh * d, ow * s + kw * d), weight
/// (g, f, c, kh, kw), output (n, g, f, oh, ow).
bool isGroupedConv2d(Operation *op);
/// Moves reshapes of yielded values after the group.
void moveYieldedReshapesOut(FusionGroupOp group);
/// Gives each op of `group` that starts from a `tensor.empty` another op
/// starts from too an empty of its own (CSE merges empties of one shape).
void unshareEmptyInits(FusionGroupOp group);
void clearTags(Operation *scope);

/// The plans of `target`'s default rules for a group, most specific first.
llvm::SmallVector<Plan> planDefaults(FusionGroupOp group,
                                     ScheduleTarget target);
/// The rules of template `sequence`, or null when it has none.
const TemplateRules *lookupRules(llvm::StringRef sequence);

namespace cpu {
/// The CPU plans for the vector registers of the group's module
/// (VectorModel::of).
llvm::SmallVector<Plan> planDefaults(FusionGroupOp group);
const TemplateRules *lookupRules(llvm::StringRef sequence);
/// @cpu.matmul and @cpu.batch_matmul: C[m, n] += A[m, k] * B[k, n].
Knobs matmulKnobs(int64_t m, int64_t n, int64_t k, const VectorModel &vectors);
/// @cpu.matmul_transposed: C^T[p, f] = A[k, p]^T x B[k, f], transposed
/// into the group's [f, p].
Knobs transposedMatmulKnobs(int64_t f, int64_t p, int64_t k,
                            const VectorModel &vectors);
/// @cpu.conv2d_nchw on dims {f, oh, ow, taps, c, ih, iw, stride_h,
/// stride_w}: f filters over an oh x ow output, c channels and c*kh*kw taps,
/// an ih x iw (padded) input. The knobs of both algorithms (see conv.mlir)
/// and `direct`, which picks one.
Knobs conv2dKnobs(llvm::ArrayRef<int64_t> dims, const VectorModel &vectors);
/// @cpu.conv2d_filter_lanes on dims {f, oh, ow, c, kh, kw, ih, iw}.
Knobs filterLanesConvKnobs(llvm::ArrayRef<int64_t> dims,
                           const VectorModel &vectors);
/// @cpu.conv2d_filter_lanes_dynamic on the same dims, dynamic extents given
/// as kDynamicExtentHint.
Knobs dynamicFilterLanesConvKnobs(llvm::ArrayRef<int64_t> dims,
                                  const VectorModel &vectors);
/// dims = c, oh, ow, kh, kw, ih, iw (padded), lanes.
Knobs channelLanesDepthwiseKnobs(llvm::ArrayRef<int64_t> dims,
                                 const VectorModel &vectors);
/// @cpu.depthwise_channel_lanes_dynamic on the same dims, dynamic extents
/// given as kDynamicExtentHint.
Knobs dynamicChannelLanesDepthwiseKnobs(llvm::ArrayRef<int64_t> dims);
/// @cpu.matmul_panels on dims {m, n, k}.
Knobs panelMatmulKnobs(llvm::ArrayRef<int64_t> dims,
                       const VectorModel &vectors);
/// @cpu.matmul_panels_transposed on dims {f, p, k}.
Knobs transposedPanelsKnobs(llvm::ArrayRef<int64_t> dims,
                            const VectorModel &vectors);
Knobs depthwiseKnobs(int64_t c, int64_t oh, int64_t ow, int64_t ih,
                     int64_t iw);
/// @cpu.depthwise_conv2d_nchw_dynamic over c channels (maps of dynamic
/// extents).
Knobs dynamicDepthwiseKnobs(int64_t c);
/// @cpu.grouped_conv2d_nchw: g groups of f filters over c channels each, an
/// oh x ow output of an ih x iw (padded) input.
Knobs groupedConvKnobs(int64_t g, int64_t f, int64_t oh, int64_t ow,
                       int64_t c, int64_t ih, int64_t iw,
                       const VectorModel &vectors);
/// @cpu.grouped_conv2d_nchw_dynamic on dims {g, f, oh, ow, c, ih, iw},
/// dynamic extents given as kDynamicExtentHint.
Knobs dynamicGroupedConvKnobs(llvm::ArrayRef<int64_t> dims,
                              const VectorModel &vectors);
/// @cpu.elementwise_<rank>d on an iteration space of this shape.
Knobs elementwiseKnobs(llvm::ArrayRef<int64_t> shape);
/// @cpu.outer_forall_<n>d: threads over the leading `parallelDims` (1 or 2)
/// dimensions of this shape.
Knobs outerForallKnobs(llvm::ArrayRef<int64_t> shape, unsigned parallelDims);
} // namespace cpu

namespace gpu {
llvm::SmallVector<Plan> planDefaults(FusionGroupOp group);
const TemplateRules *lookupRules(llvm::StringRef sequence);
/// @gpu.matmul and @gpu.batch_matmul: C[m, n] += A[m, k] * B[k, n] per
/// block of blk_m x blk_n outputs, thr_y x thr_x threads.
Knobs matmulKnobs(int64_t m, int64_t n, int64_t k);
/// The @gpu.tile_fuse_<n>d based templates (elementwise, reduction,
/// pooling, conv2d) over the root's leading parallel dimensions `shape`;
/// `tiled` lists the dimensions the template tiles.
Knobs parallelKnobs(llvm::ArrayRef<int64_t> shape,
                    llvm::ArrayRef<unsigned> tiled);
/// Duplicates ops with several users in the group and fuses elementwise
/// chains, so that each kernel's tiles are computed where they are used.
void prepareGroup(FusionGroupOp group);
/// Splat tensor constants become fills, computed by a kernel.
void materializeSplats(ModuleOp module);
/// Drops the memory spaces the GPU templates request (the CPU-side check).
void dropMemorySpaces(Operation *scope);
} // namespace gpu

} // namespace int21::schedule

#endif // INT21_TRANSFORMS_SCHEDULE_SCHEDULEINTERNAL_H
