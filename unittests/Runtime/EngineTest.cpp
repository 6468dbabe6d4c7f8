//===- EngineTest.cpp - compile a small model, load and run its engine ----===//

#include "int21/Compiler/Compiler.h"
#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Runtime/Engine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <thread>

using namespace int21::runtime;

namespace {

// y = relu(x @ w + b): 64 weight elements (outlined into the weights
// section), a small bias that stays in the code.
constexpr const char *kModel = R"mlir(
func.func @main(%x: tensor<2x8xf32> {onnx.name = "x"}) -> (tensor<2x8xf32> {onnx.name = "y"}) {
  %w = int21.constant dense<[
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 6.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 8.0]]> : tensor<8x8xf32>
  %b = int21.constant dense<[0.5, -100.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]> : tensor<8xf32>
  %m = int21.matmul %x, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
  %a = int21.add %m, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %y = int21.relu %a : tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}
)mlir";

/// The engine of `source`, compiled for this machine (empty on failure).
std::string compileEngine(llvm::StringRef source) {
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadDialect<int21::Int21Dialect, mlir::func::FuncDialect>();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  std::string out;
  if (!module)
    return out;
  llvm::raw_string_ostream os(out);
  if (mlir::failed(int21::compileToEngine(*module, {}, os)))
    out.clear();
  return out;
}

/// The engine of kModel.
const std::string &engineBytes() {
  static const std::string bytes = compileEngine(kModel);
  return bytes;
}

/// The engine of kModel without its relu: y = x @ w + b.
const std::string &linearEngineBytes() {
  static const std::string bytes = [] {
    std::string source = kModel;
    llvm::StringRef relu = "  %y = int21.relu %a : tensor<2x8xf32>\n"
                           "  return %y : tensor<2x8xf32>";
    size_t at = source.find(relu.str());
    if (at == std::string::npos)
      return std::string();
    source.replace(at, relu.size(), "  return %a : tensor<2x8xf32>");
    return compileEngine(source);
  }();
  return bytes;
}

llvm::Expected<std::unique_ptr<Engine>> loadBytes(const std::string &bytes) {
  return Engine::load(llvm::MemoryBuffer::getMemBufferCopy(bytes, "test.int21"),
                      "test.int21");
}

std::string errorOf(llvm::Expected<std::unique_ptr<Engine>> engine) {
  return engine ? "" : llvm::toString(engine.takeError());
}

void expectModelOutput(const Engine &engine, float scale) {
  Tensor x(DType::F32, {2, 8});
  for (int i = 0; i < 16; ++i)
    x.dataAs<float>()[i] = scale * (i % 8);
  llvm::Expected<std::vector<Tensor>> y = engine.run({x});
  ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
  ASSERT_EQ(y->size(), 1u);
  for (int i = 0; i < 16; ++i) {
    int j = i % 8;
    float want = std::max(0.0f, scale * j * (j + 1) + (j == 1 ? -100.0f : 0.5f));
    EXPECT_FLOAT_EQ((*y)[0].dataAs<float>()[i], want) << "element " << i;
  }
}

TEST(EngineTest, CompilesLoadsAndRuns) {
  ASSERT_FALSE(engineBytes().empty());
  llvm::Expected<std::unique_ptr<Engine>> engine = loadBytes(engineBytes());
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
  const EngineMetadata &meta = (*engine)->metadata();
  EXPECT_EQ(meta.target, Engine::hostTarget());
  ASSERT_EQ(meta.inputs.size(), 1u);
  EXPECT_EQ(meta.inputs[0], (TensorSpec{"x", DType::F32, {2, 8}}));
  ASSERT_EQ(meta.outputs.size(), 1u);
  EXPECT_EQ(meta.outputs[0], (TensorSpec{"y", DType::F32, {2, 8}}));
  ASSERT_EQ(meta.weights.size(), 1u);
  EXPECT_EQ(meta.weights[0].size, 64u * 4u);
  expectModelOutput(**engine, 1.0f);
}

TEST(EngineTest, TwoEnginesInOneProcessShareNothing) {
  llvm::Expected<std::unique_ptr<Engine>> a = loadBytes(engineBytes());
  llvm::Expected<std::unique_ptr<Engine>> b = loadBytes(engineBytes());
  ASSERT_TRUE(bool(a) && bool(b));
  (*a)->setThreads(1);
  (*b)->setThreads(2);
  EXPECT_EQ((*a)->threads(), 1u);
  EXPECT_EQ((*b)->threads(), 2u);
  // Run both at once from two threads, then one after the other is unloaded.
  std::thread ta([&] { expectModelOutput(**a, 1.0f); });
  std::thread tb([&] { expectModelOutput(**b, 2.0f); });
  ta.join();
  tb.join();
  a->reset();
  expectModelOutput(**b, 3.0f);
}

// A depthwise convolution whose thread tiles each pad their own window into
// a buffer of the engine's allocator (y = the 3x3 sums of x, zero-padded).
constexpr const char *kWindowModel = R"mlir(
func.func @main(%x: tensor<1x8x20x20xf32> {onnx.name = "x"}) -> (tensor<1x8x20x20xf32> {onnx.name = "y"}) {
  %w = int21.constant dense<1.0> : tensor<8x1x3x3xf32>
  %y = int21.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 8 : i64}
      : (tensor<1x8x20x20xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x20x20xf32>
  return %y : tensor<1x8x20x20xf32>
}
)mlir";

// The allocator's blocks are cached per thread: the engine's own threads
// and several callers' at once allocate and free the tiles' buffers without
// sharing a lock, and every run still reads what it wrote; the blocks of
// every thread are released when the engine is unloaded, and a second
// engine loaded after it starts afresh.
TEST(EngineTest, ThreadTileBuffersFromManyThreads) {
  static const std::string bytes = compileEngine(kWindowModel);
  ASSERT_FALSE(bytes.empty());
  for (int load = 0; load < 2; ++load) {
    llvm::Expected<std::unique_ptr<Engine>> engine = loadBytes(bytes);
    ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
    (*engine)->setThreads(2);
    auto check = [&](float scale) {
      Tensor x(DType::F32, {1, 8, 20, 20});
      for (int i = 0; i < 8 * 400; ++i)
        x.dataAs<float>()[i] = scale;
      for (int run = 0; run < 20; ++run) {
        llvm::Expected<std::vector<Tensor>> y = (*engine)->run({x});
        ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
        const float *out = (*y)[0].dataAs<float>();
        for (int c = 0; c < 8; ++c)
          for (int h = 0; h < 20; ++h)
            for (int w = 0; w < 20; ++w) {
              int rows = 3 - (h == 0) - (h == 19), cols = 3 - (w == 0) - (w == 19);
              ASSERT_FLOAT_EQ(out[(c * 20 + h) * 20 + w], scale * rows * cols)
                  << "channel " << c << " at " << h << ", " << w;
            }
      }
    };
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t)
      callers.emplace_back(check, 1.0f + t);
    for (std::thread &caller : callers)
      caller.join();
  }
}

// Engines of different code loaded side by side each run their own code
// (the loader must not take the second for the first, whose code came from
// a file of the same name).
TEST(EngineTest, EnginesOfDifferentCodeRunTheirOwnCode) {
  ASSERT_FALSE(linearEngineBytes().empty());
  llvm::Expected<std::unique_ptr<Engine>> relu = loadBytes(engineBytes());
  llvm::Expected<std::unique_ptr<Engine>> linear =
      loadBytes(linearEngineBytes());
  ASSERT_TRUE(bool(relu) && bool(linear));
  Tensor x(DType::F32, {2, 8});
  for (int i = 0; i < 16; ++i)
    x.dataAs<float>()[i] = 1.0f;
  llvm::Expected<std::vector<Tensor>> y = (*linear)->run({x});
  ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
  // Element 1: 1 * 2 - 100, which the relu engine would clamp to 0.
  EXPECT_FLOAT_EQ((*y)[0].dataAs<float>()[1], -98.0f);
  expectModelOutput(**relu, 1.0f);
}

TEST(EngineTest, LoadsFromAFile) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("engine", "int21", path));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << engineBytes();
  }
  llvm::Expected<std::unique_ptr<Engine>> engine = Engine::load(path);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
  expectModelOutput(**engine, 0.5f);
}

TEST(EngineTest, RefusesWrongInputs) {
  llvm::Expected<std::unique_ptr<Engine>> engine = loadBytes(engineBytes());
  ASSERT_TRUE(bool(engine));
  auto error = [&](std::vector<Tensor> inputs) {
    llvm::Expected<std::vector<Tensor>> y = (*engine)->run(inputs);
    return y ? std::string() : llvm::toString(y.takeError());
  };
  EXPECT_NE(error({}).find("expected 1 inputs, got 0"), std::string::npos);
  EXPECT_NE(error({Tensor(DType::I64, {2, 8})})
                .find("input 'x' must be float32, not int64"),
            std::string::npos);
  EXPECT_NE(error({Tensor(DType::F32, {8, 2})})
                .find("input 'x' must have shape [2x8], not [8x2]"),
            std::string::npos);
}

TEST(EngineTest, RefusesCorruptTruncatedAndForeignEngines) {
  std::string bytes = engineBytes();
  std::string corrupt = bytes;
  corrupt[bytes.size() / 2] ^= 0x5a;
  EXPECT_NE(errorOf(loadBytes(corrupt)).find("checksum mismatch"),
            std::string::npos);
  EXPECT_NE(errorOf(loadBytes(bytes.substr(0, bytes.size() - 100)))
                .find("truncated"),
            std::string::npos);
  EXPECT_NE(errorOf(loadBytes("not an engine")).find("not an int21 engine"),
            std::string::npos);

  // The same code and weights, recorded for another target or version.
  llvm::Expected<std::unique_ptr<Engine>> engine = loadBytes(bytes);
  ASSERT_TRUE(bool(engine));
  EngineMetadata meta = (*engine)->metadata();
  std::string code;
  {
    llvm::Expected<EngineFile> file = EngineFile::read(
        llvm::MemoryBuffer::getMemBufferCopy(bytes, "x"), "x");
    ASSERT_TRUE(bool(file));
    code = file->find(SectionKind::Code)->data.str();
  }
  auto rewrite = [&](const EngineMetadata &m) {
    std::string out;
    llvm::raw_string_ostream os(out);
    writeEngineFile(m, {{SectionKind::Code, "cpu.so", code}}, os);
    return out;
  };
  EngineMetadata other = meta;
  other.target = "cpu:aarch64-unknown-linux-gnu:neoverse-v2";
  EXPECT_NE(errorOf(loadBytes(rewrite(other)))
                .find("compiled for target 'cpu:aarch64-unknown-linux-gnu:"
                      "neoverse-v2', this machine is"),
            std::string::npos);
  other.target = "tpu_v5";
  EXPECT_NE(errorOf(loadBytes(rewrite(other)))
                .find("runs 'cpu' engines and NVIDIA GPU ('sm_XY') engines "
                      "only"),
            std::string::npos);
  // A GPU engine is checked for its plan before any driver is looked for.
  other.target = "sm_90";
  EXPECT_EQ(errorOf(loadBytes(rewrite(other))),
            "test.int21: GPU engine has no plan section");
  // Weights listed but not stored.
  EXPECT_NE(errorOf(loadBytes(rewrite(meta))).find("no weights section"),
            std::string::npos);
  std::string newer = bytes;
  newer[8] = 2; // The format version, little-endian u32 after the magic.
  EXPECT_NE(errorOf(loadBytes(newer)).find("format version 2"),
            std::string::npos);
}

// Metadata edited to disagree with the code, with the checksum recomputed
// (it is unkeyed): refused at load, naming what differs, before the code
// ever runs with buffers of other sizes than it reads and writes.
TEST(EngineTest, RefusesMetadataThatDisagreesWithItsCode) {
  std::string bytes = engineBytes();
  llvm::Expected<EngineFile> file = EngineFile::read(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, "x"), "x");
  ASSERT_TRUE(bool(file));
  const EngineMetadata meta = file->metadata();
  std::string code = file->find(SectionKind::Code)->data.str();
  std::string weights = file->find(SectionKind::Weights)->data.str();
  auto rewrite = [&](const EngineMetadata &m, const std::string &codeBytes) {
    std::string out;
    llvm::raw_string_ostream os(out);
    writeEngineFile(m,
                    {{SectionKind::Code, "cpu.so", codeBytes},
                     {SectionKind::Weights, "weights", weights}},
                    os);
    return out;
  };
  // Rewritten unchanged, it loads.
  ASSERT_TRUE(bool(loadBytes(rewrite(meta, code))));
  auto refusal = [&](const EngineMetadata &m) {
    return errorOf(loadBytes(rewrite(m, code)));
  };

  EngineMetadata edited = meta;
  edited.workspaceSize = meta.workspaceSize + 4096;
  EXPECT_NE(refusal(edited).find("engine metadata does not match its code: "
                                 "the code takes workspace as"),
            std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.outputs[0].shape.back() += 1;
  EXPECT_NE(refusal(edited).find("the code takes output 0 as float32 ["),
            std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.outputs[0].dtype = DType::F16;
  EXPECT_NE(refusal(edited).find("output 0 as float32"), std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.inputs[0].shape[0] = int64_t(1) << 31;
  EXPECT_NE(refusal(edited).find("does not match its code"), std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.outputs.clear();
  EXPECT_NE(refusal(edited).find("the code takes output 0"), std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.weights.clear();
  EXPECT_NE(refusal(edited).find("does not match its code"), std::string::npos)
      << refusal(edited);
  edited = meta;
  edited.weights[0].offset = 1;
  EXPECT_NE(refusal(edited).find("weight 'weight_0'"), std::string::npos)
      << refusal(edited);
  // Inside the section but not where the compiler lays weights out.
  weights.append(128, '\0');
  edited.weights[0].offset = 8;
  EXPECT_NE(refusal(edited).find("weight 'weight_0' at offset 8 is not where "
                                 "the weights section lays it out"),
            std::string::npos)
      << refusal(edited);
  weights.resize(weights.size() - 128);
  edited = meta;
  edited.inputs[0].shape = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_NE(refusal(edited).find("describes more than 2^40 bytes"),
            std::string::npos)
      << refusal(edited);

  // A code section cut short is refused before the dynamic loader maps it.
  for (size_t keep : {size_t(10), size_t(200), code.size() / 2}) {
    std::string error = errorOf(loadBytes(rewrite(meta, code.substr(0, keep))));
    EXPECT_NE(error.find("the code section is not a shared object for this "
                         "machine"),
              std::string::npos)
        << keep << ": " << error;
  }
}

} // namespace
