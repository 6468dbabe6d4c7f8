//===- RearrangeOps.cpp - import of ONNX block and tile rearrangements ----===//
//
// DepthToSpace, SpaceToDepth and Tile move or repeat elements in patterns
// that reshapes, a transpose and a broadcast express exactly (the ONNX
// specification defines the first two that way).
//
//===----------------------------------------------------------------------===//

#include "../NodeImporter.h"

using namespace mlir;
using namespace int21;
using namespace int21::onnx_import;

namespace {

/// reshape(x, before) -> transpose(perm) -> reshape(after).
FailureOr<Value> reshapeTransposeReshape(NodeImporter &n, Value x,
                                         ArrayRef<int64_t> before,
                                         ArrayRef<int64_t> perm,
                                         ArrayRef<int64_t> after) {
  FailureOr<Value> v = n.reshape(x, before);
  if (failed(v))
    return failure();
  v = n.create<TransposeOp>(*v, n.b.getDenseI64ArrayAttr(perm));
  if (failed(v))
    return failure();
  return n.reshape(*v, after);
}

/// A 4-D NCHW input's dimensions and the node's blocksize.
struct Blocked {
  int64_t bs, b, c, h, w;
};

/// The blocksize of a 4-D NCHW node, checked positive, with the input's
/// dimensions.
FailureOr<Blocked> blockSize(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (x.getRank() != 4)
    return n.emitError() << "expects a 4-D input (N, C, H, W), got rank "
                         << x.getRank(),
           failure();
  int64_t block = n.attrInt("blocksize", 0);
  if (block <= 0)
    return n.emitError() << "blocksize must be positive, got " << block,
           failure();
  ArrayRef<int64_t> s = x.getShape();
  return Blocked{block, s[0], s[1], s[2], s[3]};
}

LogicalResult importDepthToSpace(NodeImporter &n) {
  FailureOr<Blocked> blocked = blockSize(n);
  if (failed(blocked))
    return failure();
  auto [bs, b, c, h, w] = *blocked;
  if (c % (bs * bs) != 0)
    return n.emitError() << "channels (" << c
                         << ") must be a multiple of blocksize^2 (" << bs * bs
                         << ")",
           failure();
  int64_t depth = c / (bs * bs);
  SmallVector<int64_t> after = {b, depth, h * bs, w * bs};
  std::string mode = n.attrString("mode", "DCR");
  if (mode == "DCR")
    return n.setResult(reshapeTransposeReshape(
        n, n.input(0), {b, bs, bs, depth, h, w}, {0, 3, 4, 1, 5, 2}, after));
  if (mode == "CRD")
    return n.setResult(reshapeTransposeReshape(
        n, n.input(0), {b, depth, bs, bs, h, w}, {0, 1, 4, 2, 5, 3}, after));
  return n.emitError() << "mode '" << mode << "' is not supported (DCR or CRD)",
         failure();
}

LogicalResult importSpaceToDepth(NodeImporter &n) {
  FailureOr<Blocked> blocked = blockSize(n);
  if (failed(blocked))
    return failure();
  auto [bs, b, c, h, w] = *blocked;
  if (h % bs != 0 || w % bs != 0)
    return n.emitError() << "height and width (" << h << ", " << w
                         << ") must be multiples of blocksize " << bs,
           failure();
  return n.setResult(reshapeTransposeReshape(
      n, n.input(0), {b, c, h / bs, bs, w / bs, bs}, {0, 3, 5, 1, 2, 4},
      {b, c * bs * bs, h / bs, w / bs}));
}

/// Tile repeats dimension i repeats[i] times: x is viewed with a unit
/// dimension before every repeated one, broadcast to [r_i, d_i] pairs and
/// reshaped to [r_i * d_i].
/// Tile by repeats given as data: [1, d0, 1, d1, ...] expanded to
/// [r0, d0, r1, d1, ...] and viewed as [r0 * d0, r1 * d1, ...], the repeats
/// read at run time.
LogicalResult importRuntimeTile(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  Value data = n.input(0);
  FailureOr<SmallVector<SymbolicExtent>> repeats = n.extentsOf(1, "repeats");
  if (failed(repeats))
    return failure();
  if (static_cast<int64_t>(repeats->size()) != x.getRank())
    return n.emitError() << "repeats needs " << x.getRank() << " entries, got "
                         << repeats->size(),
           failure();
  SmallVector<int64_t> split, broadcast, tiled;
  SmallVector<Value> broadcastSizes, tiledSizes;
  for (auto [d, r] : llvm::enumerate(*repeats)) {
    Value count = n.nonNegative(n.extentValue(r));
    Value extent = n.extentOf(data, d);
    split.push_back(1);
    split.push_back(x.getDimSize(d));
    broadcast.push_back(ShapedType::kDynamic);
    broadcastSizes.push_back(count);
    broadcast.push_back(x.getDimSize(d));
    if (x.isDynamicDim(d))
      broadcastSizes.push_back(extent);
    tiled.push_back(ShapedType::kDynamic);
    tiledSizes.push_back(arith::MulIOp::create(n.b, n.loc, count, extent));
  }
  FailureOr<Value> v = n.reshape(data, split);
  if (failed(v))
    return failure();
  Value expanded = ExpandOp::create(n.b, n.loc, x.clone(broadcast), *v,
                                    broadcastSizes);
  n.setOutput(0, ReshapeOp::create(n.b, n.loc, x.clone(tiled), expanded,
                                   tiledSizes));
  return success();
}

LogicalResult importTile(NodeImporter &n) {
  RankedTensorType x = n.inputType(0);
  if (n.isRuntimeInput(1) || n.symbolicInput(1))
    return importRuntimeTile(n);
  FailureOr<SmallVector<int64_t>> repeats = n.constantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  if (static_cast<int64_t>(repeats->size()) != x.getRank())
    return n.emitError() << "repeats needs " << x.getRank() << " entries, got "
                         << repeats->size(),
           failure();
  SmallVector<int64_t> split, broadcast, tiled;
  for (auto [d, r] : llvm::zip(x.getShape(), *repeats)) {
    if (r < 0)
      return n.emitError() << "repeats must not be negative, got " << r,
             failure();
    if (r != 1) {
      split.push_back(1);
      broadcast.push_back(r);
    }
    split.push_back(d);
    broadcast.push_back(d);
    tiled.push_back(r * d);
  }
  if (failed(checkedNumElements(tiled)))
    return n.emitError() << "the tiled shape is absurd", failure();
  FailureOr<Value> v = n.reshape(n.input(0), split);
  if (failed(v))
    return failure();
  if (broadcast != split) {
    v = n.create<ExpandOp>(x.clone(broadcast), *v);
    if (failed(v))
      return failure();
  }
  return n.setResult(n.reshape(*v, tiled));
}

} // namespace

void int21::onnx_import::registerRearrangeOps(OpImportTable &t) {
  t["DepthToSpace"] = {importDepthToSpace};
  t["SpaceToDepth"] = {importSpaceToDepth};
  t["Tile"] = {importTile, 6};
  allowSymbolicShapes(t, {"Tile"});
}
