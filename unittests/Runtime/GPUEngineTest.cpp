//===- GPUEngineTest.cpp - GPU engines from host-form IR, loaded and run --===//
//
// The engine is built from a hand-written host module lowered with the
// upstream NVVM passes. Loading and running it needs a CUDA GPU: without
// one, the tests check the error instead, or skip saying why.
//
//===----------------------------------------------------------------------===//

#include "int21/Compiler/GPUEngine.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Runtime/Cuda.h"
#include "int21/Runtime/Engine.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

#include <atomic>
#include <dlfcn.h>
#include <thread>

using namespace int21::runtime;

namespace {

// y = 2 * x[4:12] + w, through the workspace: a launch with a pointer into
// the middle of an input (a subview), a weight, a scalar of each kind the
// kernel reads, and a copy out of the workspace.
constexpr const char *kHost = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @axpy(%x: memref<8xf32, strided<[1], offset: 4>>,
                   %w: memref<8xf32>, %y: memref<8xf32>, %s: f32,
                   %n: index) kernel {
      %i = gpu.thread_id x
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<8xf32, strided<[1], offset: 4>>
        %b = memref.load %w[%i] : memref<8xf32>
        %m = arith.mulf %v, %s : f32
        %r = arith.addf %m, %b : f32
        memref.store %r, %y[%i] : memref<8xf32>
      }
      gpu.return
    }
  }
  func.func @main(%x: memref<16xf32> {onnx.name = "x"},
                  %w: memref<8xf32> {int21.weight = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>},
                  %y: memref<8xf32> {onnx.name = "y", int21.output},
                  %ws: memref<128xi8> {int21.workspace = 128 : i64}) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %two = arith.constant 2.0 : f32
    %sub = memref.subview %x[4] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1], offset: 4>>
    %tmp = memref.view %ws[%c64][] : memref<128xi8> to memref<8xf32>
    gpu.launch_func @kernels::@axpy blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%sub : memref<8xf32, strided<[1], offset: 4>>, %w : memref<8xf32>,
             %tmp : memref<8xf32>, %two : f32, %c8 : index)
    memref.copy %tmp, %y : memref<8xf32> to memref<8xf32>
    return
  }
}
)mlir";

/// ptxas -arch=CHIP on `ptx`: the cubin, for engines with one (the test's
/// own assembler; the compiler has its own).
mlir::FailureOr<std::string> runPtxas(llvm::StringRef ptx, llvm::StringRef chip,
                                      std::string &error) {
  llvm::ErrorOr<std::string> ptxas =
      llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    return error = "no ptxas", mlir::failure();
  llvm::SmallString<128> in, out;
  if (llvm::sys::fs::createTemporaryFile("int21-test", "ptx", in) ||
      llvm::sys::fs::createTemporaryFile("int21-test", "cubin", out))
    return error = "no temporary file", mlir::failure();
  llvm::FileRemover removeIn(in), removeOut(out);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  llvm::StringRef args[] = {*ptxas, arch, "-o", out, in};
  if (llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, {}, 60, 0,
                                &error) != 0)
    return error = "ptxas failed: " + error, mlir::failure();
  auto cubin = llvm::MemoryBuffer::getFile(out, /*IsText=*/false);
  if (!cubin)
    return error = "no cubin", mlir::failure();
  return (*cubin)->getBuffer().str();
}

/// The GPU engine of kHost for sm_90 (with a cubin from `assemble` when
/// given), or "" with a failure recorded.
std::string buildEngine(int21::AssemblePTXFn assemble = nullptr) {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kHost, &context);
  if (!module) {
    ADD_FAILURE() << "cannot parse the host module";
    return "";
  }
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          "gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-"
          "memref-call-conv=1}),nvvm-attach-target{chip=sm_90},"
          "gpu-module-to-binary{format=isa}",
          pm)) ||
      mlir::failed(pm.run(*module))) {
    ADD_FAILURE() << "cannot lower the kernels to PTX";
    return "";
  }
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  EngineMetadata meta;
  meta.target = "sm_90";
  if (mlir::failed(int21::writeGPUEngine(*module, meta, os, assemble))) {
    ADD_FAILURE() << "cannot write the engine";
    return "";
  }
  return bytes;
}

const std::string &engineBytes() {
  static const std::string bytes = buildEngine();
  return bytes;
}

bool havePtxas() {
  return bool(llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"}));
}

/// The engine of kHost with an sm_90 cubin beside its PTX.
const std::string &cubinEngineBytes() {
  static const std::string bytes = buildEngine(runPtxas);
  return bytes;
}

TEST(GPUEngineTest, PtxasAssemblesTheKernelsIntoTheEngine) {
  if (!havePtxas())
    GTEST_SKIP() << "needs ptxas (CUDA toolkit, /usr/local/cuda/bin)";
  ASSERT_FALSE(cubinEngineBytes().empty());
  llvm::Expected<EngineFile> file = EngineFile::read(
      llvm::MemoryBuffer::getMemBufferCopy(cubinEngineBytes(), "c.int21"),
      "c.int21");
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  std::optional<Section> cubin =
      file->find(SectionKind::Code, "kernels.sm_90.cubin");
  ASSERT_TRUE(cubin.has_value());
  EXPECT_TRUE(cubin->data.starts_with("\x7f"
                                      "ELF"));
}

TEST(GPUEngineTest, PlanFollowsViewsToBuffers) {
  ASSERT_FALSE(engineBytes().empty());
  llvm::Expected<EngineFile> file = EngineFile::read(
      llvm::MemoryBuffer::getMemBufferCopy(engineBytes(), "g.int21"),
      "g.int21");
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  const EngineMetadata &meta = file->metadata();
  EXPECT_EQ(meta.target, "sm_90");
  ASSERT_EQ(meta.inputs.size(), 1u);
  EXPECT_EQ(meta.inputs[0], (TensorSpec{"x", DType::F32, {16}}));
  ASSERT_EQ(meta.outputs.size(), 1u);
  EXPECT_EQ(meta.outputs[0], (TensorSpec{"y", DType::F32, {8}}));
  ASSERT_EQ(meta.weights.size(), 1u);
  EXPECT_EQ(meta.weights[0].size, 32u);
  EXPECT_EQ(meta.workspaceSize, 128u);

  llvm::Expected<GPUPlan> plan = readGPUPlan(*file, "g.int21");
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->steps.size(), 2u);
  const GPUStep &launch = plan->steps[0];
  EXPECT_EQ(launch.describe(), "launch kernels::axpy");
  EXPECT_EQ(launch.block, (std::array<uint32_t, 3>{8, 1, 1}));
  ASSERT_EQ(launch.args.size(), 5u);
  // The subview passes the input's own pointer; the kernel adds 4 floats
  // and reads 8: 48 bytes from the pointer.
  EXPECT_EQ(launch.args[0].pointer.kind, BufferKind::Input);
  EXPECT_EQ(launch.args[0].pointer.offset, 0u);
  EXPECT_EQ(launch.args[0].pointer.size, 48u);
  EXPECT_EQ(launch.args[1].pointer.kind, BufferKind::Weight);
  EXPECT_EQ(launch.args[2].pointer.kind, BufferKind::Workspace);
  EXPECT_EQ(launch.args[2].pointer.offset, 64u);
  EXPECT_EQ(launch.args[3], KernelArg::f32(2.0f));
  EXPECT_EQ(launch.args[4], KernelArg::i64(8));
  const GPUStep &copy = plan->steps[1];
  EXPECT_EQ(copy.kind, GPUStep::Kind::Copy);
  EXPECT_EQ(copy.src.offset, 64u);
  EXPECT_EQ(copy.dst.kind, BufferKind::Output);
  EXPECT_EQ(copy.bytes, 32u);
}

bool haveDriver() {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return handle != nullptr;
}

TEST(GPUEngineTest, LoadingWithoutADriverSaysSo) {
  ASSERT_FALSE(engineBytes().empty());
  if (haveDriver())
    GTEST_SKIP() << "libcuda.so.1 is present: this test is for machines "
                    "without a CUDA driver";
  llvm::Expected<std::unique_ptr<Engine>> engine = Engine::load(
      llvm::MemoryBuffer::getMemBufferCopy(engineBytes(), "g.int21"),
      "g.int21");
  ASSERT_FALSE(bool(engine));
  std::string error = llvm::toString(engine.takeError());
  EXPECT_EQ(error.rfind("g.int21: no CUDA driver found (libcuda.so.1: ", 0), 0u)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  llvm::Expected<std::vector<CudaDevice>> devices = listCudaDevices();
  ASSERT_FALSE(bool(devices));
  EXPECT_EQ(llvm::toString(devices.takeError())
                .rfind("no CUDA driver found (libcuda.so.1: ", 0),
            0u);
}

TEST(GPUEngineTest, RunsOnTheGPU) {
  ASSERT_FALSE(engineBytes().empty());
  llvm::Expected<std::vector<CudaDevice>> devices = listCudaDevices();
  if (!devices)
    GTEST_SKIP() << "needs a CUDA GPU: " << llvm::toString(devices.takeError());
  if (smVersion(devices->front().chip).value_or(0) < 90)
    GTEST_SKIP() << "needs an sm_90 or newer GPU, device 0 is "
                 << devices->front().chip;
  llvm::Expected<std::unique_ptr<Engine>> engine = Engine::load(
      llvm::MemoryBuffer::getMemBufferCopy(engineBytes(), "g.int21"),
      "g.int21");
  ASSERT_TRUE(bool(engine)) << llvm::toString(engine.takeError());
  EXPECT_TRUE((*engine)->onGpu());
  Tensor x(DType::F32, {16});
  for (int i = 0; i < 16; ++i)
    x.dataAs<float>()[i] = static_cast<float>(i);
  for (int round = 0; round < 3; ++round) {
    llvm::Expected<std::vector<Tensor>> y = (*engine)->run({x});
    ASSERT_TRUE(bool(y)) << llvm::toString(y.takeError());
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ((*y)[0].dataAs<float>()[i], 2.0f * (i + 4) + i) << i;
  }
  Tensor out(DType::F32, {8});
  llvm::Expected<double> ms = (*engine)->runTimed({x.data()}, {out.data()});
  ASSERT_TRUE(bool(ms)) << llvm::toString(ms.takeError());
  EXPECT_GE(*ms, 0.0);
  // Two engines side by side share nothing.
  llvm::Expected<std::unique_ptr<Engine>> second = Engine::load(
      llvm::MemoryBuffer::getMemBufferCopy(engineBytes(), "g2.int21"),
      "g2.int21");
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  llvm::Expected<std::vector<Tensor>> y2 = (*second)->run({x});
  ASSERT_TRUE(bool(y2)) << llvm::toString(y2.takeError());
  EXPECT_EQ((*y2)[0].dataAs<float>()[7], 2.0f * 11 + 7);
  EXPECT_NE((*engine)->deviceDescription().find("PTX JIT"), std::string::npos)
      << (*engine)->deviceDescription();

  // Runs from several threads take turns on the engine's buffers.
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Tensor input(DType::F32, {16});
      for (int i = 0; i < 16; ++i)
        input.dataAs<float>()[i] = static_cast<float>(i * (t + 1));
      for (int round = 0; round < 10; ++round) {
        llvm::Expected<std::vector<Tensor>> y = (*engine)->run({input});
        if (!y) {
          llvm::consumeError(y.takeError());
          ++wrong;
          continue;
        }
        for (int i = 0; i < 8; ++i)
          if ((*y)[0].dataAs<float>()[i] != 2.0f * (i + 4) * (t + 1) + i)
            ++wrong;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong.load(), 0);

  // The same with its cubin, which an sm_90 GPU loads instead of the PTX.
  if (!havePtxas() || devices->front().chip != "sm_90")
    return;
  llvm::Expected<std::unique_ptr<Engine>> withCubin = Engine::load(
      llvm::MemoryBuffer::getMemBufferCopy(cubinEngineBytes(), "c.int21"),
      "c.int21");
  ASSERT_TRUE(bool(withCubin)) << llvm::toString(withCubin.takeError());
  EXPECT_NE((*withCubin)->deviceDescription().find(", cubin)"),
            std::string::npos)
      << (*withCubin)->deviceDescription();
  llvm::Expected<std::vector<Tensor>> y3 = (*withCubin)->run({x});
  ASSERT_TRUE(bool(y3)) << llvm::toString(y3.takeError());
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ((*y3)[0].dataAs<float>()[i], 2.0f * (i + 4) + i) << i;
}

} // namespace

namespace {

// A gpu.binary with hand-written PTX: @k takes one pointer, @s a pointer and
// an i32.
constexpr const char *kBinary = R"mlir(
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = ".target sm_90\0A.visible .entry k(.param .u64 k_param_0)\0A{ ret; }\0A.visible .entry s(.param .u64 s_param_0, .param .u32 s_param_1)\0A{ ret; }\0A">]
)mlir";

/// The first error buildGPUPlan reports for a module of kBinary and `main`
/// ("" when it succeeds).
std::string planError(llvm::StringRef main, llvm::StringRef binary = kBinary,
                      llvm::StringRef target = "sm_90") {
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  std::string error;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (error.empty())
      error = diag.str();
    return mlir::success();
  });
  std::string source =
      ("module attributes {gpu.container_module} {\n" + binary + main + "\n}\n")
          .str();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return "parse error: " + error;
  EngineMetadata meta;
  meta.target = target.str();
  if (mlir::succeeded(int21::buildGPUPlan(*module, meta)))
    return "";
  return error.empty() ? "failed without a diagnostic" : error;
}

TEST(GPUEngineTest, ExtractsHandWrittenBinaries) {
  EXPECT_EQ(planError(R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    %n = arith.constant 3 : i32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
    gpu.launch_func @kernels::@s blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<8xf32>, %n : i32)
    return
  })mlir"),
            "");
}

TEST(GPUEngineTest, RefusesHostCodeOutsideTheForm) {
  struct Case {
    const char *main;
    const char *error;
  } cases[] = {
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %t = memref.alloc() : memref<8xf32>
    return
  })mlir",
       "'memref.alloc' cannot be part of a GPU engine's host plan (expected "
       "arith.constant, static memref views, gpu.launch_func, memref.copy and "
       "func.return)"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) -> memref<8xf32> {
    return %x : memref<8xf32>
  })mlir",
       "@main of a GPU engine returns nothing: its outputs are arguments"},
      {R"mlir(
  func.func @main(%y: memref<8xf32> {int21.output}, %x: memref<8xf32>) {
    return
  })mlir",
       "argument 1 of @main is an input after an output: the order is inputs, "
       "weights, outputs, workspace"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %n: index) {
    return
  })mlir",
       "argument 1 of @main is 'index', not a memref"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}, %ws: memref<128xi8> {int21.workspace = 128 : i64}) {
    %c1 = arith.constant 1 : index
    %c112 = arith.constant 112 : index
    %v = memref.view %ws[%c112][] : memref<128xi8> to memref<8xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%v : memref<8xf32>)
    return
  })mlir",
       "the extracted plan is invalid: plan: plan step 0 (launch "
       "kernels::k): argument 0: bytes [112, 144) lie outside the workspace "
       "(128 bytes)"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    %t = gpu.launch_func async @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
    return
  })mlir",
       "asynchronous launches are not supported"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    %h = arith.constant 1.0 : f16
    gpu.launch_func @kernels::@s blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %h : f16)
    return
  })mlir",
       "kernel operand 1 has type 'f16'; scalars passed to kernels must be "
       "i32, "
       "i64, index, f32 or f64"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@gemm blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
    return
  })mlir",
       "PTX has no entry 'gemm'"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@s blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>, %c1 : index)
    return
  })mlir",
       "kernel 's' takes 4 bytes for parameter 1 in its PTX, its launches "
       "pass i64 (8 bytes)"},
      {R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %s = memref.subview %x[0] [4] [2] : memref<8xf32> to memref<4xf32, strided<[2]>>
    %d = memref.subview %y[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
    memref.copy %s, %d : memref<4xf32, strided<[2]>> to memref<4xf32, strided<[1]>>
    return
  })mlir",
       "copies between buffers that are not both contiguous"},
  };
  for (const Case &c : cases) {
    std::string error = planError(c.main);
    EXPECT_NE(error.find(c.error), std::string::npos)
        << "expected: " << c.error << "\ngot: " << error << "\nfor:" << c.main;
  }
}

TEST(GPUEngineTest, RefusesBinariesWithoutPTXForTheChip) {
  const char *main = R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
    return
  })mlir";
  EXPECT_EQ(planError(main, kBinary, "sm_80"),
            "has no NVVM object for sm_80 (it has: sm_90)");
  EXPECT_EQ(
      planError(
          main,
          R"mlir(gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, bin = "\7FELF">])mlir"),
      "holds bin for sm_90, not PTX: run gpu-module-to-binary with "
      "format=isa");
  // Kernels lowered without bare pointers take a memref descriptor.
  EXPECT_NE(
      planError(
          main,
          R"mlir(gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = ".visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d, .param .u64 e)\0A{ ret; }">])mlir")
          .find("kernel 'k' takes 5 parameters in its PTX, its launches "
                "pass 1 (kernels must use the bare-pointer calling "
                "convention"),
      std::string::npos);
}

} // namespace

namespace {

/// buildGPUPlan of kBinary and `main` against the metadata an imported model
/// gives (`x` float32[8], `y` uint8[8]): its error, or "".
std::string planErrorWithMetadata(llvm::StringRef main, EngineMetadata &meta) {
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  std::string error;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    if (error.empty())
      error = diag.str();
    return mlir::success();
  });
  std::string source = ("module attributes {gpu.container_module} {\n" +
                        llvm::StringRef(kBinary) + main + "\n}\n")
                           .str();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return "parse error: " + error;
  if (mlir::succeeded(int21::buildGPUPlan(*module, meta)))
    return "";
  return error.empty() ? "failed without a diagnostic" : error;
}

TEST(GPUEngineTest, TakesInputsAndOutputsFromTheModelsMetadata) {
  EngineMetadata meta;
  meta.target = "sm_90";
  meta.inputs = {{"x", DType::F32, {8}}, {"empty", DType::F32, {0}}};
  meta.outputs = {{"y", DType::U8, {8}}};
  // Signless in the host form, unsigned in the model; an empty input passed
  // as a placeholder.
  EXPECT_EQ(planErrorWithMetadata(R"mlir(
  func.func @main(%x: memref<8xf32>, %e: memref<0xi8, strided<[1]>>, %y: memref<8xi8>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%y : memref<8xi8>)
    return
  })mlir",
                                  meta),
            "");
  EXPECT_EQ(meta.outputs[0].dtype, DType::U8);
  EXPECT_EQ(planErrorWithMetadata(R"mlir(
  func.func @main(%x: memref<4xf32>, %e: memref<0xf32>, %y: memref<8xi8>) {
    return
  })mlir",
                                  meta),
            "argument 0 of @main is 'memref<4xf32>', but input 'x' is "
            "float32[8]");
  EXPECT_EQ(planErrorWithMetadata(R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xi8>) {
    return
  })mlir",
                                  meta),
            "@main has 2 buffer arguments, expected 2 inputs, 0 weights and 1 "
            "outputs");
}

} // namespace

namespace {

TEST(GPUEngineTest, StoresTheCubinsTheAssemblerMakes) {
  mlir::DialectRegistry registry;
  int21::registerCompilerDialects(registry);
  mlir::MLIRContext context(registry);
  std::string diagnostic;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    diagnostic = diag.str();
    return mlir::success();
  });
  std::string source = (llvm::Twine("module attributes "
                                    "{gpu.container_module} {\n") +
                        kBinary + R"mlir(
  func.func @main(%x: memref<8xf32>, %y: memref<8xf32> {int21.output}) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
    return
  }
})mlir")
                           .str();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  std::string seenChip;
  auto assemble = [&](llvm::StringRef ptx, llvm::StringRef chip,
                      std::string &error) -> mlir::FailureOr<std::string> {
    seenChip = chip.str();
    if (!ptx.contains(".entry k"))
      return error = "not the module's PTX", mlir::failure();
    return std::string("cubin bytes");
  };
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  EngineMetadata meta;
  meta.target = "sm_90";
  ASSERT_TRUE(
      mlir::succeeded(int21::writeGPUEngine(*module, meta, os, assemble)))
      << diagnostic;
  EXPECT_EQ(seenChip, "sm_90");
  llvm::Expected<EngineFile> file = EngineFile::read(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, "c.int21"), "c.int21");
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  std::optional<Section> cubin =
      file->find(SectionKind::Code, "kernels.sm_90.cubin");
  ASSERT_TRUE(cubin.has_value());
  EXPECT_EQ(cubin->data, "cubin bytes");
  EXPECT_TRUE(file->find(SectionKind::Code, "kernels.ptx").has_value());
  EXPECT_TRUE(bool(readGPUPlan(*file, "c.int21")));

  // A failure to assemble is the compiler's error, with the assembler's
  // message.
  auto failing = [](llvm::StringRef, llvm::StringRef,
                    std::string &error) -> mlir::FailureOr<std::string> {
    error = "ptxas fatal: Unresolved extern function 'f'";
    return mlir::failure();
  };
  std::string ignored;
  llvm::raw_string_ostream ignoredOS(ignored);
  EXPECT_TRUE(
      mlir::failed(int21::writeGPUEngine(*module, meta, ignoredOS, failing)));
  EXPECT_EQ(diagnostic, "assembling the PTX of @kernels for sm_90 failed: "
                        "ptxas fatal: Unresolved extern function 'f'");
}

} // namespace
