//===- FusionTest.cpp - fusion sites and merging fusion groups ------------===//

#include "int21/AgentSearch/Fusion.h"
#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Kernel.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Runtime/Engine.h"
#include "int21/Runtime/Tensors.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

using namespace int21::search;
using int21::FusionGroupOp;

namespace {

// %0 (exp) feeds only the matmul group %1: a site. %2 (exp) feeds both the
// add group %3 and the function's results: not a site, since merging it
// would lose a result. %1 feeds %3, which also reads %2: a site too.
constexpr const char *kModule = R"mlir(
func.func @main(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>, %c: tensor<16x24xf32>) -> (tensor<16x24xf32>, tensor<16x24xf32>) {
  %0 = int21.fusion_group {
    %e = tensor.empty() : tensor<16x32xf32>
    %x = linalg.exp ins(%a : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
    int21.yield %x : tensor<16x32xf32>
  } : tensor<16x32xf32>
  %1 = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {reg_n = 8 : i64}>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<16x24xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
    %m = linalg.matmul ins(%0, %b : tensor<16x32xf32>, tensor<32x24xf32>) outs(%f : tensor<16x24xf32>) -> tensor<16x24xf32>
    int21.yield %m : tensor<16x24xf32>
  } : tensor<16x24xf32>
  %2 = int21.fusion_group {
    %e = tensor.empty() : tensor<16x24xf32>
    %x = linalg.exp ins(%c : tensor<16x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
    int21.yield %x : tensor<16x24xf32>
  } : tensor<16x24xf32>
  %3 = int21.fusion_group {
    %e = tensor.empty() : tensor<16x24xf32>
    %s = linalg.add ins(%1, %2 : tensor<16x24xf32>, tensor<16x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
    int21.yield %s : tensor<16x24xf32>
  } : tensor<16x24xf32>
  return %3, %2 : tensor<16x24xf32>, tensor<16x24xf32>
}
)mlir";

class FusionTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    int21::registerCompilerDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    context->loadDialect<int21::Int21Dialect, mlir::func::FuncDialect>();
    module = parse();
    ASSERT_TRUE(module);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse() {
    return mlir::parseSourceString<mlir::ModuleOp>(kModule, context.get());
  }

  llvm::SmallVector<FusionGroupOp> groups() {
    llvm::SmallVector<FusionGroupOp> all;
    module->walk([&](FusionGroupOp group) { all.push_back(group); });
    return all;
  }

  /// The outputs of `source`'s engine on inputs drawn with `seed`.
  std::vector<int21::runtime::Tensor> run(mlir::ModuleOp source,
                                          uint64_t seed) {
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    if (mlir::failed(int21::compileToEngine(source, {}, os))) {
      ADD_FAILURE() << "the module does not compile";
      return {};
    }
    auto engine = int21::runtime::Engine::load(
        llvm::MemoryBuffer::getMemBufferCopy(bytes, "fusion.int21"),
        "fusion.int21");
    if (!engine) {
      ADD_FAILURE() << llvm::toString(engine.takeError());
      return {};
    }
    std::mt19937_64 rng(seed);
    std::vector<int21::runtime::Tensor> inputs;
    for (const int21::runtime::TensorSpec &spec : (*engine)->inputs())
      inputs.push_back(int21::runtime::randomTensor(spec, rng));
    auto outputs = (*engine)->run(inputs);
    if (!outputs) {
      ADD_FAILURE() << llvm::toString(outputs.takeError());
      return {};
    }
    return std::move(*outputs);
  }

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(FusionTest, SitesAreProducersWithOneConsumer) {
  llvm::SmallVector<FusionGroupOp> all = groups();
  llvm::SmallVector<FusionSite> sites = findFusionSites(*module);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].producer, all[0]);
  EXPECT_EQ(sites[0].consumer, all[1]);
  EXPECT_EQ(sites[1].producer, all[1]);
  EXPECT_EQ(sites[1].consumer, all[3]);
  // %2 is also a result of the function.
  EXPECT_FALSE(canMerge(all[2], all[3]));
  // Not a producer of %0.
  EXPECT_FALSE(canMerge(all[1], all[0]));
}

TEST_F(FusionTest, MergedGroupHoldsBothBodies) {
  llvm::SmallVector<FusionGroupOp> all = groups();
  mlir::FailureOr<FusionGroupOp> merged = mergeGroups(all[0], all[1]);
  ASSERT_TRUE(mlir::succeeded(merged));
  EXPECT_EQ(*merged, all[1]);
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
  EXPECT_EQ(groups().size(), 3u);
  // The producer's exp comes first and feeds the matmul; the schedule chosen
  // for the matmul alone is gone.
  auto &body = merged->getBody().front();
  auto exp = llvm::find_if(body, [](mlir::Operation &op) {
    return mlir::isa<mlir::linalg::ExpOp>(op);
  });
  ASSERT_NE(exp, body.end());
  mlir::linalg::MatmulOp matmul;
  merged->walk([&](mlir::linalg::MatmulOp op) { matmul = op; });
  ASSERT_TRUE(matmul);
  EXPECT_EQ(matmul.getInputs()[0], exp->getResult(0));
  EXPECT_FALSE(merged->getScheduleAttr());
  // A pair that is no site is left alone.
  llvm::SmallVector<FusionGroupOp> rest = groups();
  EXPECT_TRUE(mlir::failed(mergeGroups(rest[1], rest[2])));
  EXPECT_EQ(groups().size(), 3u);
}

TEST_F(FusionTest, MergedModelComputesTheSame) {
  mlir::OwningOpRef<mlir::ModuleOp> original = parse();
  ASSERT_TRUE(original);
  // The second site's producer is the first's consumer: merging both makes
  // one group of exp, matmul and add.
  llvm::SmallVector<FusionGroupOp> all = groups();
  ASSERT_TRUE(mlir::succeeded(mergeGroups(all[0], all[1])));
  ASSERT_TRUE(mlir::succeeded(mergeGroups(all[1], all[3])));
  EXPECT_EQ(groups().size(), 2u);
  std::vector<int21::runtime::Tensor> want = run(*original, 5);
  std::vector<int21::runtime::Tensor> got = run(*module, 5);
  ASSERT_EQ(want.size(), 2u);
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape());
    for (int64_t e = 0; e < want[i].numElements(); ++e)
      EXPECT_NEAR(got[i].dataAs<float>()[e], want[i].dataAs<float>()[e],
                  1e-4 * (1 + std::abs(want[i].dataAs<float>()[e])))
          << "output " << i << " element " << e;
  }
}

TEST_F(FusionTest, MergesApplyBySignature) {
  std::vector<SiteKey> keys = siteKeys(*module);
  ASSERT_EQ(keys.size(), 2u);
  // The clone the search measures is the work the model's merge gives.
  llvm::SmallVector<FusionSite> sites = findFusionSites(*module);
  mlir::OwningOpRef<mlir::ModuleOp> scratch =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(context.get()));
  FusionGroupOp clone = cloneMerged(sites[0], *scratch);
  ASSERT_TRUE(clone);
  EXPECT_EQ(kernelSignature(clone), keys[0].merged);
  EXPECT_EQ(keys[0].producerSignature, kernelSignature(sites[0].producer));
  EXPECT_EQ(keys[0].consumerSignature, kernelSignature(sites[0].consumer));
  EXPECT_EQ(groups().size(), 4u);

  // Both sites share group %1: only the first merge given is applied.
  FusionMerge first{keys[0].producerSignature, keys[0].consumerSignature,
                    keys[0].merged, 1.0};
  FusionMerge second{keys[1].producerSignature, keys[1].consumerSignature,
                     keys[1].merged, 2.0};
  std::vector<unsigned> chosen = selectSites(keys, {second, first});
  ASSERT_EQ(chosen.size(), 1u);
  EXPECT_EQ(chosen[0], 1u);

  FusionMerge other = first;
  other.merged = "0123456789abcdef";
  EXPECT_EQ(applyMerges(*module, {other}), 0u);
  EXPECT_EQ(applyMerges(*module, {first, second}), 1u);
  llvm::SmallVector<FusionGroupOp> left = groups();
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(kernelSignature(left[0]), keys[0].merged);
}

Trial measured(unsigned kernel, const Kernel &work, Schedule schedule,
               double ms, bool isDefault) {
  Trial trial;
  trial.candidate.kernel = kernel;
  trial.candidate.schedule = std::move(schedule);
  trial.candidate.agent = isDefault ? "default" : "tiling";
  trial.hash = scheduleHash(work.signature, trial.candidate.schedule);
  trial.isDefault = isDefault;
  trial.time.medianMs = ms;
  return trial;
}

TEST_F(FusionTest, FusionAgentProposesMergesOnce) {
  ASSERT_TRUE(mlir::succeeded(int21::schedule::prepareForScheduling(*module)));
  std::vector<Kernel> kernels = extractKernels(*module);
  ASSERT_EQ(kernels.size(), 4u);
  // The merge of exp (kernel 0) into the matmul (kernel 1), after them.
  llvm::SmallVector<FusionSite> sites = findFusionSites(*module);
  mlir::OwningOpRef<mlir::ModuleOp> scratch =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(context.get()));
  std::optional<Kernel> merged =
      describeKernel(cloneMerged(sites[0], *scratch));
  ASSERT_TRUE(merged);
  merged->mergeOf = {0, 1};
  kernels.push_back(*merged);
  Blackboard board(kernels);
  std::unique_ptr<Agent> agent = createBuiltinAgent("fusion", 1);
  ASSERT_TRUE(agent);
  EXPECT_EQ(agent->name(), "fusion");

  // Nothing before the parts are measured, nothing for the model's kernels.
  EXPECT_TRUE(agent->propose(board, 4, 1).empty());
  for (unsigned k = 0; k < 4; ++k)
    board.record(measured(k, kernels[k],
                          defaultSchedule(kernels[k].choices.front()), 1.0,
                          /*isDefault=*/true));
  EXPECT_TRUE(agent->propose(board, 1, 1).empty());

  std::vector<Candidate> merge = agent->propose(board, 4, 1);
  ASSERT_EQ(merge.size(), 1u);
  EXPECT_EQ(merge[0].kernel, 4u);
  EXPECT_EQ(merge[0].agent, "fusion");
  EXPECT_EQ(describe(merge[0].schedule),
            describe(defaultSchedule(kernels[4].choices.front())));

  // Once the merge is measured, only schedules of the parts that fit it
  // and were not tried.
  Trial trial = measured(4, kernels[4], merge[0].schedule, 1.5, true);
  trial.candidate.agent = "fusion";
  board.record(trial);
  for (const Candidate &next : agent->propose(board, 4, 2)) {
    std::string why;
    EXPECT_TRUE(isValidSchedule(kernels[4], next.schedule, why)) << why;
    EXPECT_FALSE(
        board.tried(scheduleHash(kernels[4].signature, next.schedule)));
    ASSERT_TRUE(next.parent);
    EXPECT_LT(*next.parent, 2u);
  }
}

} // namespace
