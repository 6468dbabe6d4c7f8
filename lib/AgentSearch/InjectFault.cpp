//===- InjectFault.cpp - the compile child's test hook: faults on demand --===//

#include "int21/AgentSearch/Tuner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

#include <chrono>
#include <csignal>
#include <thread>

using namespace mlir;

llvm::Error(::int21::search::injectFault)(ModuleOp module,
                                          llvm::StringRef kind) {
  if (kind == "crash") {
    std::raise(SIGSEGV);
    return llvm::createStringError("SIGSEGV did not end the process");
  }
  if (kind == "hang") {
    while (true)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (kind != "wrong")
    return llvm::createStringError("unknown fault '" + kind + "'");
  // The first computation of the first linalg.generic that computes; a
  // named op is generalized only when there is no generic (its body is
  // fixed), which templates that match named ops then no longer fit.
  IRRewriter rewriter(module.getContext());
  auto computes = [](linalg::LinalgOp op) {
    return !op.getBlock()->without_terminator().empty();
  };
  linalg::GenericOp generic;
  module.walk([&](linalg::GenericOp op) {
    if (!generic && computes(op))
      generic = op;
  });
  if (!generic) {
    linalg::LinalgOp named;
    module.walk([&](linalg::LinalgOp op) {
      if (!named && computes(op) && !isa<linalg::FillOp, linalg::CopyOp>(op))
        named = op;
    });
    if (!named)
      return llvm::createStringError("no linalg op to change");
    rewriter.setInsertionPoint(named);
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, named);
    if (failed(generalized))
      return llvm::createStringError("cannot generalize " +
                                     named->getName().getStringRef());
    generic = *generalized;
  }
  Operation *target = nullptr;
  generic.getBody()->walk([&](Operation *op) {
    if (!target && isa<arith::MulFOp, arith::MulIOp, arith::AddFOp,
                       arith::AddIOp, arith::MaximumFOp>(op))
      target = op;
  });
  if (!target)
    return llvm::createStringError("no arithmetic to change");
  rewriter.setInsertionPoint(target);
  Value lhs = target->getOperand(0), rhs = target->getOperand(1);
  Location loc = target->getLoc();
  Operation *replacement;
  if (isa<arith::MulFOp>(target))
    replacement = arith::AddFOp::create(rewriter, loc, lhs, rhs);
  else if (isa<arith::MulIOp>(target))
    replacement = arith::AddIOp::create(rewriter, loc, lhs, rhs);
  else if (isa<arith::AddFOp>(target))
    replacement = arith::SubFOp::create(rewriter, loc, lhs, rhs);
  else if (isa<arith::AddIOp>(target))
    replacement = arith::SubIOp::create(rewriter, loc, lhs, rhs);
  else
    replacement = arith::MinimumFOp::create(rewriter, loc, lhs, rhs);
  rewriter.replaceOp(target, replacement->getResults());
  return llvm::Error::success();
}
