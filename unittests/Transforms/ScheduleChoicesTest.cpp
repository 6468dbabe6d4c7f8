//===- ScheduleChoicesTest.cpp - the CPU matmul template as a search space ===//

#include "int21/Dialect/Int21/Int21Ops.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>
#include <tuple>

using namespace mlir;
using namespace int21;

namespace {

class MatmulChoicesTest : public ::testing::Test {
protected:
  MatmulChoicesTest() {
    DialectRegistry registry;
    registry.insert<Int21Dialect, func::FuncDialect, arith::ArithDialect,
                    linalg::LinalgDialect, tensor::TensorDialect>();
    schedule::registerScheduleDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The choice of @cpu.matmul (or `sequence` of `target`) for an MxK * KxN
  /// matmul group.
  schedule::ScheduleChoice matmulChoice(int64_t m, int64_t n, int64_t k,
                                   ScheduleTarget target = ScheduleTarget::CPU,
                                   llvm::StringRef sequence = "cpu.matmul") {
    std::string text = R"mlir(
      func.func @f(%a: tensor<MxKxf32>, %b: tensor<KxNxf32>) -> tensor<MxNxf32> {
        %0 = int21.fusion_group {
          %z = arith.constant 0.0 : f32
          %e = tensor.empty() : tensor<MxNxf32>
          %f = linalg.fill ins(%z : f32) outs(%e : tensor<MxNxf32>) -> tensor<MxNxf32>
          %m = linalg.matmul ins(%a, %b : tensor<MxKxf32>, tensor<KxNxf32>)
                             outs(%f : tensor<MxNxf32>) -> tensor<MxNxf32>
          int21.yield %m : tensor<MxNxf32>
        } : tensor<MxNxf32>
        return %0 : tensor<MxNxf32>
      })mlir";
    for (auto [token, value] : {std::pair{'M', m}, {'N', n}, {'K', k}})
      for (size_t at;
           (at = text.find(std::string(1, token) + "x")) != std::string::npos;)
        text.replace(at, 1, std::to_string(value));
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    FusionGroupOp group;
    module->walk([&](FusionGroupOp op) { group = op; });
    for (schedule::ScheduleChoice &choice : schedule::getScheduleChoices(group, target))
      if (choice.sequence == sequence)
        return choice;
    ADD_FAILURE() << "no " << sequence.str() << " choice";
    return {};
  }

  static const schedule::KnobDomain *find(const schedule::ScheduleChoice &choice,
                                     llvm::StringRef name) {
    for (const schedule::KnobDomain &domain : choice.domains)
      if (domain.name == name)
        return &domain;
    return nullptr;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// pack_b is a knob and an alternative under one name: the search sees it
// once, with the default that the shape gives (packed for 1024^3).
TEST_F(MatmulChoicesTest, PackBIsOneDimensionWithAShapeDefault) {
  schedule::ScheduleChoice choice = matmulChoice(1024, 1024, 1024);
  int count = 0;
  for (const schedule::KnobDomain &domain : choice.domains)
    count += domain.name == "pack_b";
  EXPECT_EQ(count, 1);
  const schedule::KnobDomain *packB = find(choice, "pack_b");
  ASSERT_TRUE(packB);
  EXPECT_EQ(packB->options, (llvm::SmallVector<int64_t>{0, 1}));
  EXPECT_EQ(choice.defaults.lookup("pack_b"), 1);
  EXPECT_EQ(choice.defaults.lookup("cache_n"), 32);
  EXPECT_EQ(choice.defaults.lookup("reg_k"), 1);
  const schedule::KnobDomain *regK = find(choice, "reg_k");
  ASSERT_TRUE(regK);
  EXPECT_EQ(regK->options, (llvm::SmallVector<int64_t>{1, 2, 4}));
  std::string why;
  EXPECT_TRUE(schedule::isPlausible(choice, choice.defaults, why)) << why;

  // Small matmuls are not packed: the copy would cost more than it saves.
  EXPECT_EQ(matmulChoice(64, 256, 128).defaults.lookup("pack_b"), 0);
}

TEST_F(MatmulChoicesTest, PanelsLieBetweenRegisterAndThreadTiles) {
  schedule::ScheduleChoice choice = matmulChoice(1024, 1024, 1024);
  schedule::Knobs knobs = choice.defaults;
  std::string why;
  knobs["cache_n"] = 16; // Narrower than reg_n = 32.
  EXPECT_FALSE(schedule::isPlausible(choice, knobs, why));
  EXPECT_NE(why.find("cache_n"), std::string::npos);
  // Unpacked, the panel width does not matter.
  knobs["pack_b"] = 0;
  EXPECT_TRUE(schedule::isPlausible(choice, knobs, why)) << why;
}

// The GPU matmul template shares the machinery: its knobs (and the
// promotion alternative, one dimension) have domains from the shape, and
// the default fits the block limits.
TEST_F(MatmulChoicesTest, GPUMatmulKnobsAndPromotion) {
  schedule::ScheduleChoice choice =
      matmulChoice(512, 768, 1024, ScheduleTarget::GPU, "gpu.matmul");
  EXPECT_EQ(choice.defaults.lookup("blk_m"), 64);
  EXPECT_EQ(choice.defaults.lookup("blk_n"), 64);
  EXPECT_EQ(choice.defaults.lookup("blk_k"), 32);
  EXPECT_EQ(choice.defaults.lookup("promote"), 1);
  const schedule::KnobDomain *promote = find(choice, "promote");
  ASSERT_TRUE(promote);
  EXPECT_TRUE(promote->alternative || promote->options.size() == 2);
  std::string why;
  EXPECT_TRUE(schedule::isPlausible(choice, choice.defaults, why)) << why;
  schedule::Knobs knobs = choice.defaults;
  knobs["thr_y"] = 32;
  knobs["thr_x"] = 64;
  EXPECT_FALSE(schedule::isPlausible(choice, knobs, why));
  // Shapes no power of two divides still get dividing block tiles.
  schedule::ScheduleChoice odd =
      matmulChoice(49, 10, 1000, ScheduleTarget::GPU, "gpu.matmul");
  EXPECT_EQ(49 % odd.defaults.lookup("blk_m"), 0);
  EXPECT_EQ(10 % odd.defaults.lookup("blk_n"), 0);
  EXPECT_EQ(1000 % odd.defaults.lookup("blk_k"), 0);
  EXPECT_TRUE(schedule::isPlausible(odd, odd.defaults, why)) << why;
}

// The registry reads each template's knobs from its own tune.knob and
// tune.alternatives ops, those of included sequences too, and knows which
// target a template serves.
TEST(TemplateRegistryTest, ReadsKnobsFromTheTemplates) {
  const schedule::TemplateRegistry &registry =
      schedule::TemplateRegistry::get();
  const schedule::TemplateSpec *matmul = registry.lookup("cpu.matmul");
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->target, ScheduleTarget::CPU);
  EXPECT_EQ(matmul->knobList(), "par_m, par_n, cache_k, reg_m, reg_n, "
                                "reg_k, epilogue_regs, pack_b, cache_n");
  // epilogue_regs selects one of two regions, the first by default.
  const schedule::KnobSpec *regs = matmul->lookup("epilogue_regs");
  ASSERT_NE(regs, nullptr);
  EXPECT_EQ(regs->regions, 2u);
  EXPECT_EQ(regs->selected, 0);
  // pack_b selects the alternative of the same name: one knob of two values.
  const schedule::KnobSpec *packB = matmul->lookup("pack_b");
  ASSERT_NE(packB, nullptr);
  EXPECT_EQ(packB->regions, 2u);
  EXPECT_EQ(matmul->lookup("reg_k")->selected, 1);
  const schedule::TemplateSpec *gpuMatmul = registry.lookup("gpu.matmul");
  ASSERT_NE(gpuMatmul, nullptr);
  EXPECT_EQ(gpuMatmul->target, ScheduleTarget::GPU);
  EXPECT_NE(gpuMatmul->lookup("promote"), nullptr);
  // Sequences the templates include are not templates themselves.
  EXPECT_EQ(registry.lookup("cpu.peel"), nullptr);
  EXPECT_EQ(registry.lookup("cpu.matmul_cache_tiles"), nullptr);

  std::string error;
  schedule::Knobs knobs;
  knobs["reg_n"] = 16;
  EXPECT_TRUE(succeeded(registry.check("cpu.matmul", knobs, error))) << error;
  knobs["reg_nn"] = 16;
  EXPECT_TRUE(failed(registry.check("cpu.matmul", knobs, error)));
  EXPECT_EQ(error.rfind("template @cpu.matmul has no knob 'reg_nn'", 0), 0u)
      << error;
  EXPECT_TRUE(failed(registry.check("cpu.nosuch", schedule::Knobs(), error)));
  EXPECT_EQ(error, "unknown schedule template @cpu.nosuch");
  schedule::Knobs alternative;
  alternative["pack_b"] = 2;
  EXPECT_TRUE(failed(registry.check("cpu.matmul", alternative, error)));
  EXPECT_NE(error.find("names no alternative"), std::string::npos) << error;
}

// A proposal for some work (a library record, an agent's) is checked against
// the domains of that work; a tile above the dimension it tiles is one tile.
// Depthwise convolutions of the shapes real models have, and odd ones: the
// group gets @cpu.depthwise_conv2d_nchw over (c, oh, ow), and its default
// point is plausible (in every domain, register tile within the thread
// tile and the registers).
TEST_F(MatmulChoicesTest, DepthwiseDefaultsArePlausible) {
  for (auto [c, size, stride] :
       {std::tuple{32, 112, 1}, {96, 112, 2}, {144, 56, 1}, {960, 7, 1},
        {100, 20, 1}, {70, 13, 2}, {24, 20, 1}}) {
    int64_t out = (size + 2 - 3) / stride + 1, in = size + 2;
    std::string text = R"mlir(
      func.func @f(%x: tensor<1x{0}x{1}x{1}xf32>, %w: tensor<{0}x3x3xf32>) -> tensor<1x{0}x{2}x{2}xf32> {
        %0 = int21.fusion_group {
          %z = arith.constant 0.0 : f32
          %e = tensor.empty() : tensor<1x{0}x{2}x{2}xf32>
          %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x{0}x{2}x{2}xf32>) -> tensor<1x{0}x{2}x{2}xf32>
          %c = linalg.generic {indexing_maps = [
              affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * {3} + d4, d3 * {3} + d5)>,
              affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d5)>,
              affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>],
              iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
              ins(%x, %w : tensor<1x{0}x{1}x{1}xf32>, tensor<{0}x3x3xf32>) outs(%f : tensor<1x{0}x{2}x{2}xf32>) {
          ^bb0(%a: f32, %b: f32, %o: f32):
            %m = arith.mulf %a, %b : f32
            %s = arith.addf %o, %m : f32
            linalg.yield %s : f32
          } -> tensor<1x{0}x{2}x{2}xf32>
          int21.yield %c : tensor<1x{0}x{2}x{2}xf32>
        } : tensor<1x{0}x{2}x{2}xf32>
        return %0 : tensor<1x{0}x{2}x{2}xf32>
      })mlir";
    for (auto [token, value] : {std::pair{"{0}", c}, {"{1}", in}, {"{2}", out},
                                {"{3}", stride}})
      for (size_t at; (at = text.find(token)) != std::string::npos;)
        text.replace(at, 3, std::to_string(value));
    module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << c << "x" << size;
    FusionGroupOp group;
    module->walk([&](FusionGroupOp op) { group = op; });
    llvm::SmallVector<schedule::ScheduleChoice> choices =
        schedule::getScheduleChoices(group);
    ASSERT_FALSE(choices.empty());
    const schedule::ScheduleChoice &choice = choices.front();
    EXPECT_EQ(choice.sequence, "cpu.depthwise_conv2d_nchw") << c << "x" << size;
    EXPECT_EQ(choice.dims, (llvm::SmallVector<int64_t>{c, out, out, in, in}));
    // The padded input and output planes of a thread tile stay in the L1
    // cache, or it holds one channel.
    int64_t parC = choice.defaults.lookup("par_c");
    EXPECT_TRUE(parC == 1 || parC * (in * in + out * out) * 4 <= (32 << 10))
        << c << "x" << size << " stride " << stride;
    std::string why;
    EXPECT_TRUE(schedule::isPlausible(choice, choice.defaults, why))
        << c << "x" << size << " stride " << stride << ": " << why;
  }
}

// The default matmul tiles of the shapes pointwise convolutions give
// (M filters x N pixels): thread tiles that divide M (a partial one leaves
// its register tiles dynamic, and scalar), register tiles of 16 or 32 lanes
// that leave at most one vector of N over (an odd width makes LLVM shuffle
// the accumulators), and a short N in one thread tile.
TEST_F(MatmulChoicesTest, PointwiseShapesGetStaticThreadAndVectorTiles) {
  for (auto [m, n, k] :
       {std::tuple{58, 784, 58}, {58, 99, 58}, {960, 49, 160}, {24, 3136, 144},
        {116, 196, 116}, {1000, 1, 1280}, {102, 196, 17}, {40, 20, 8}}) {
    schedule::ScheduleChoice choice = matmulChoice(m, n, k);
    const schedule::Knobs &knobs = choice.defaults;
    std::string what = std::to_string(m) + "x" + std::to_string(n) + "x" +
                       std::to_string(k);
    EXPECT_EQ(m % knobs.lookup("par_m"), 0) << what;
    int64_t regN = knobs.lookup("reg_n");
    EXPECT_TRUE(regN == 16 || regN == 32 || regN == n) << what;
    EXPECT_LE(n % regN, 16) << what;
    if (n <= 512 && n % regN != 0)
      EXPECT_EQ(knobs.lookup("par_n"), n) << what;
    std::string why;
    EXPECT_TRUE(schedule::isPlausible(choice, choice.defaults, why))
        << what << ": " << why;
  }
}

// The bias and the epilogue stay in the register tiles over the whole of K
// where the B panel a row of register tiles sweeps (K x par_n floats) fits
// the L2 cache: pointwise convolutions, short transformer GEMMs; long K or
// wide thread tiles keep the cache tiles over K.
TEST_F(MatmulChoicesTest, EpilogueInRegistersWhereTheBPanelStaysInL2) {
  for (auto [m, n, k, want] :
       {std::tuple{96, 12544, 16, 1}, {192, 784, 32, 1}, {960, 49, 160, 1},
        {320, 49, 960, 1}, {64, 256, 128, 1}, {128, 768, 3072, 0},
        {1024, 1024, 1024, 0}, {1, 1000, 1280, 0}}) {
    schedule::ScheduleChoice choice = matmulChoice(m, n, k);
    const schedule::Knobs &knobs = choice.defaults;
    EXPECT_EQ(knobs.lookup("epilogue_regs"), want)
        << m << "x" << n << "x" << k;
    if (want)
      EXPECT_LE(k * knobs.lookup("par_n") * 4, 256 << 10);
    std::string why;
    EXPECT_TRUE(schedule::isPlausible(choice, knobs, why)) << why;
  }
}

TEST(TemplateRegistryTest, ProposalsAreCheckedAgainstTheWork) {
  std::string error;
  schedule::Knobs knobs;
  knobs["reg_n"] = 17;
  EXPECT_TRUE(failed(
      schedule::checkProposal("cpu.matmul", knobs, {64, 256, 128}, error)));
  EXPECT_EQ(error, "knob 'reg_n' of template @cpu.matmul = 17 is outside its "
                   "domain for this work [8, 16, 24, 32, 48, 64]");
  knobs["reg_n"] = 16;
  knobs["par_m"] = 4096;
  EXPECT_TRUE(succeeded(
      schedule::checkProposal("cpu.matmul", knobs, {64, 256, 128}, error)))
      << error;
}

} // namespace

// A product the group transposes (a pointwise convolution on a map whose
// pixels fill the vectors badly, lowered as [P, F] = input^T x weight^T and
// transposed back) gets @cpu.matmul_transposed over the root's [F, P]:
// thread tiles that divide the filters, register tiles of whole vectors of
// filters that divide them, at most 24 accumulators, every default
// plausible.
TEST_F(MatmulChoicesTest, TransposedProductGetsFilterVectors) {
  for (auto [f, p, k] :
       {std::tuple{320, 49, 960}, {48, 100, 16}, {2048, 49, 512},
        {160, 9, 64}, {96, 49, 576}, {32, 25, 8}}) {
    std::string text = R"mlir(
      func.func @f(%a: tensor<KxPxf32>, %b: tensor<KxFxf32>) -> tensor<FxPxf32> {
        %0 = int21.fusion_group {
          %z = arith.constant 0.0 : f32
          %e = tensor.empty() : tensor<PxFxf32>
          %i = linalg.fill ins(%z : f32) outs(%e : tensor<PxFxf32>) -> tensor<PxFxf32>
          %m = linalg.matmul indexing_maps = [
                 affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>,
                 affine_map<(m, n, k) -> (m, n)>]
               ins(%a, %b : tensor<KxPxf32>, tensor<KxFxf32>)
               outs(%i : tensor<PxFxf32>) -> tensor<PxFxf32>
          %e2 = tensor.empty() : tensor<FxPxf32>
          %t = linalg.transpose ins(%m : tensor<PxFxf32>) outs(%e2 : tensor<FxPxf32>) permutation = [1, 0]
          int21.yield %t : tensor<FxPxf32>
        } : tensor<FxPxf32>
        return %0 : tensor<FxPxf32>
      })mlir";
    for (auto [token, value] : {std::pair{'F', f}, {'P', p}, {'K', k}})
      for (size_t at;
           (at = text.find(std::string(1, token) + "x")) != std::string::npos;)
        text.replace(at, 1, std::to_string(value));
    std::string what = std::to_string(f) + "x" + std::to_string(p) + "x" +
                       std::to_string(k);
    module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module) << what;
    FusionGroupOp group;
    module->walk([&](FusionGroupOp op) { group = op; });
    llvm::SmallVector<schedule::ScheduleChoice> choices =
        schedule::getScheduleChoices(group);
    ASSERT_FALSE(choices.empty()) << what;
    const schedule::ScheduleChoice &choice = choices.front();
    EXPECT_EQ(choice.sequence, "cpu.matmul_transposed") << what;
    EXPECT_EQ(choice.dims, (llvm::SmallVector<int64_t>{f, p, k})) << what;
    const schedule::Knobs &knobs = choice.defaults;
    int64_t regF = knobs.lookup("reg_f"), regP = knobs.lookup("reg_p");
    EXPECT_TRUE(regF == 16 || regF == 32) << what;
    EXPECT_EQ(f % regF, 0) << what;
    EXPECT_EQ(f % knobs.lookup("par_f"), 0) << what;
    EXPECT_LE(regP * regF / 16, 24) << what;
    std::string why;
    EXPECT_TRUE(schedule::isPlausible(choice, knobs, why)) << what << ": " << why;
  }
}
