//===- GpuEngineTest.cpp - GPU engines from host-form IR, loaded and run --===//
//
// The engine is built from a hand-written host module lowered with the
// upstream NVVM passes. Loading and running it needs a CUDA GPU: without
// one, the tests check the error instead, or skip saying why.
//
//===----------------------------------------------------------------------===//

#include "int21/Compiler/GpuEngine.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Runtime/Cuda.h"
#include "int21/Runtime/Engine.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

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

/// The GPU engine of kHost for sm_90, or "" with a failure recorded.
std::string buildEngine() {
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
  if (mlir::failed(int21::writeGpuEngine(*module, meta, os))) {
    ADD_FAILURE() << "cannot write the engine";
    return "";
  }
  return bytes;
}

const std::string &engineBytes() {
  static const std::string bytes = buildEngine();
  return bytes;
}

TEST(GpuEngineTest, PlanFollowsViewsToBuffers) {
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

  llvm::Expected<GpuPlan> plan = readGpuPlan(*file, "g.int21");
  ASSERT_TRUE(bool(plan)) << llvm::toString(plan.takeError());
  ASSERT_EQ(plan->steps.size(), 2u);
  const GpuStep &launch = plan->steps[0];
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
  const GpuStep &copy = plan->steps[1];
  EXPECT_EQ(copy.kind, GpuStep::Kind::Copy);
  EXPECT_EQ(copy.src.offset, 64u);
  EXPECT_EQ(copy.dst.kind, BufferKind::Output);
  EXPECT_EQ(copy.bytes, 32u);
}

bool haveDriver() {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  return handle != nullptr;
}

TEST(GpuEngineTest, LoadingWithoutADriverSaysSo) {
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

TEST(GpuEngineTest, RunsOnTheGPU) {
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
}

} // namespace
