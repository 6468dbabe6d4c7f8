//===- FormFusionGroups.cpp - default policy for int21.fusion_group -------===//

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace int21 {
#define GEN_PASS_DEF_INT21FORMFUSIONGROUPS
#include "int21/Transforms/Passes.h.inc"
} // namespace int21

using namespace mlir;
using namespace int21;

namespace {

/// Ops that move or reinterpret data rather than compute: they stay outside
/// groups, where later stages turn them into views or copies.
bool isDataMovement(Operation *op) {
  return isa<ConstantOp, ReshapeOp, TransposeOp, ExpandOp, ConcatOp, SliceOp,
             DynamicSliceOp,
             GatherOp, PadOp, GatherElementsOp, GatherNDOp, ScatterElementsOp,
             ScatterNDOp, NonZeroOp, UniqueOp, NonMaxSuppressionOp,
             MaxPoolIndicesOp, RandomOp>(op);
}

bool isElementwise(Operation *op) {
  return op->hasTrait<int21::OpTrait::ElementwiseBroadcastable>();
}

struct Cluster {
  SmallVector<Operation *> ops;
};

struct FormFusionGroupsPass
    : int21::impl::Int21FormFusionGroupsBase<FormFusionGroupsPass> {
  using Base::Base;

  void runOnOperation() override {
    // The function's blocks, and those of the control flow in them (an ONNX
    // If's branches, a Loop's body): groups never cross a region's boundary.
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (isa<func::FuncOp, scf::IfOp, scf::WhileOp, scf::ForOp>(parent))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      formGroups(*block);
  }

  /// Whether `op` may join `cluster` through its operand `operand`: the
  /// cluster produces `operand` for `op` alone, and every other operand of
  /// `op` is available before the cluster starts, so the group can be placed
  /// where its first op was. A value defined in another block dominates the
  /// whole of this one.
  bool canJoin(Operation *op, Value operand, Cluster &cluster,
               const DenseMap<Operation *, Cluster *> &clusterOf) const {
    if (cluster.ops.size() >= maxGroupSize)
      return false;
    if (!llvm::all_of(operand.getUsers(),
                      [&](Operation *user) { return user == op; }))
      return false;
    if (broadcastsContraction(op, operand, cluster))
      return false;
    Operation *first = cluster.ops.front();
    return llvm::all_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return !def || def->getBlock() != first->getBlock() ||
             clusterOf.lookup(def) == &cluster || def->isBeforeInBlock(first);
    });
  }

  /// Whether `op` would join a cluster of a matmul or convolution through
  /// a value it broadcasts to a larger result: the scale of a
  /// squeeze-and-excitation block, [N, C, 1, 1] from a 1x1 convolution,
  /// applied to [N, C, H, W]. The group's templates tile the contraction's
  /// iteration space; an op over a larger one leaves them only the generic
  /// schedule (threads, no vectors: 0.17 ms for a 240x28x28 multiply). Alone
  /// the op gets the elementwise template.
  static bool broadcastsContraction(Operation *op, Value operand,
                                    const Cluster &cluster) {
    auto in = dyn_cast<RankedTensorType>(operand.getType());
    auto out = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!in || !out || in.getShape() == out.getShape())
      return false;
    return llvm::any_of(cluster.ops, [](Operation *member) {
      return isa<MatMulOp, EinsumOp, ConvOp, ConvTransposeOp>(member);
    });
  }

  void formGroups(Block &block) {
    SmallVector<std::unique_ptr<Cluster>> clusters;
    DenseMap<Operation *, Cluster *> clusterOf;
    for (Operation &op : block) {
      if (!isa<Int21Dialect>(op.getDialect()) ||
          isa<FusionGroupOp, BoundedExtentOp>(op) || isDataMovement(&op))
        continue;
      Cluster *target = nullptr;
      if (fuseElementwise && isElementwise(&op)) {
        for (Value operand : op.getOperands()) {
          Cluster *producer = clusterOf.lookup(operand.getDefiningOp());
          if (producer && canJoin(&op, operand, *producer, clusterOf)) {
            target = producer;
            break;
          }
        }
      }
      if (!target) {
        clusters.push_back(std::make_unique<Cluster>());
        target = clusters.back().get();
      }
      target->ops.push_back(&op);
      clusterOf[&op] = target;
    }
    if (fuseElementwise)
      mergeEpilogues(clusters, clusterOf);
    for (const std::unique_ptr<Cluster> &cluster : clusters)
      if (!cluster->ops.empty())
        materialize(*cluster);
  }

  /// Merges a cluster of elementwise ops into the one cluster it consumes
  /// when that cluster's results are used by the two alone: an epilogue
  /// that reads its producer's value more than once (SiLU x * sigmoid(x),
  /// GELU x * (1 + erf(x / sqrt 2)) / 2, HardSwish) could not join it op by
  /// op, since the first of its ops is not the value's only user. Its other
  /// operands must exist before the producer's cluster starts.
  void mergeEpilogues(SmallVector<std::unique_ptr<Cluster>> &clusters,
                      DenseMap<Operation *, Cluster *> &clusterOf) const {
    for (bool merged = true; merged;) {
      merged = false;
      for (const std::unique_ptr<Cluster> &epilogue : clusters) {
        if (epilogue->ops.empty() ||
            !llvm::all_of(epilogue->ops, isElementwise))
          continue;
        Block *block = epilogue->ops.front()->getBlock();
        // The one cluster of this block that the epilogue reads.
        Cluster *producer = nullptr;
        bool single = true;
        for (Operation *op : epilogue->ops)
          for (Value v : op->getOperands()) {
            Operation *def = v.getDefiningOp();
            Cluster *c = def ? clusterOf.lookup(def) : nullptr;
            if (!c || c == epilogue.get())
              continue;
            single &= !producer || producer == c;
            producer = c;
          }
        if (!producer || !single ||
            producer->ops.size() + epilogue->ops.size() > maxGroupSize)
          continue;
        auto member = [&](Operation *op) {
          Cluster *c = clusterOf.lookup(op);
          return c == producer || c == epilogue.get();
        };
        bool producesForEpilogueAlone = llvm::all_of(
            producer->ops, [&](Operation *op) {
              return llvm::all_of(op->getUsers(), member);
            });
        Operation *first = producer->ops.front();
        bool operandsReady = llvm::all_of(epilogue->ops, [&](Operation *op) {
          return llvm::all_of(op->getOperands(), [&](Value v) {
            Operation *def = v.getDefiningOp();
            return !def || def->getBlock() != block || member(def) ||
                   def->isBeforeInBlock(first);
          });
        });
        bool broadcasts = llvm::any_of(epilogue->ops, [&](Operation *op) {
          return llvm::any_of(op->getOperands(), [&](Value v) {
            Operation *def = v.getDefiningOp();
            return def && clusterOf.lookup(def) == producer &&
                   broadcastsContraction(op, v, *producer);
          });
        });
        if (!producesForEpilogueAlone || !operandsReady || broadcasts)
          continue;
        for (Operation *op : epilogue->ops) {
          producer->ops.push_back(op);
          clusterOf[op] = producer;
        }
        epilogue->ops.clear();
        llvm::sort(producer->ops, [](Operation *a, Operation *b) {
          return a->isBeforeInBlock(b);
        });
        merged = true;
      }
    }
  }

  /// Replaces the ops of `cluster` by one fusion group placed where its first
  /// op was; the group yields every value used outside it.
  void materialize(Cluster &cluster) {
    llvm::SmallPtrSet<Operation *, 8> members(cluster.ops.begin(),
                                              cluster.ops.end());
    llvm::SetVector<Value> escaping;
    SmallVector<Location> locs;
    for (Operation *op : cluster.ops) {
      locs.push_back(op->getLoc());
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !members.contains(user);
            }))
          escaping.insert(result);
    }
    Operation *first = cluster.ops.front();
    OpBuilder builder(first);
    Location loc = builder.getFusedLoc(locs);
    SmallVector<Type> types;
    for (Value v : escaping)
      types.push_back(v.getType());
    auto group = FusionGroupOp::create(builder, loc, types, ScheduleAttr());
    Block *body = &group.getBody().emplaceBlock();
    for (Operation *op : cluster.ops)
      op->moveBefore(body, body->end());
    builder.setInsertionPointToEnd(body);
    YieldOp::create(builder, loc, escaping.getArrayRef());
    for (auto [value, result] : llvm::zip(escaping, group->getResults()))
      Value(value).replaceUsesWithIf(result, [&](OpOperand &use) {
        return !group->isAncestor(use.getOwner());
      });
  }
};

} // namespace
