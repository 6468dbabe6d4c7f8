//===- GPUPlanTest.cpp - GPU engine plans: round trip and every refusal ---===//

#include "int21/Runtime/GPUPlan.h"
#include "int21/Runtime/EngineFile.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>

using namespace int21::runtime;

namespace {

EngineMetadata sampleMetadata() {
  EngineMetadata meta;
  meta.target = "sm_90";
  meta.compilerVersion = "int21 test";
  meta.inputs = {{"x", DType::F32, {4, 4}}};    // 64 bytes
  meta.outputs = {{"y", DType::F32, {4, 4}}};   // 64 bytes
  meta.weights = {{"w", 0, 64}, {"b", 64, 16}}; // 64 and 16 bytes
  meta.workspaceSize = 256;
  return meta;
}

BufferRef ref(BufferKind kind, unsigned index, uint64_t offset,
              uint64_t size = 0) {
  BufferRef r;
  r.kind = kind;
  r.index = index;
  r.offset = offset;
  r.size = size;
  return r;
}

GPUPlan samplePlan() {
  GPUPlan plan;
  plan.modules = {{"kernels",
                   {{"gemm",
                     {ArgKind::Pointer, ArgKind::Pointer, ArgKind::Pointer,
                      ArgKind::I32, ArgKind::I64, ArgKind::F32, ArgKind::F64}},
                    {"relu", {ArgKind::Pointer, ArgKind::Pointer}}}}};
  GPUStep gemm;
  gemm.kind = GPUStep::Kind::Launch;
  gemm.module = "kernels";
  gemm.kernel = "gemm";
  gemm.grid = {2, 3, 1};
  gemm.block = {16, 16, 1};
  gemm.sharedBytes = 4096;
  gemm.args = {KernelArg::ptr(ref(BufferKind::Input, 0, 0, 64)),
               KernelArg::ptr(ref(BufferKind::Weight, 0, 0, 64)),
               KernelArg::ptr(ref(BufferKind::Workspace, 0, 128, 64)),
               KernelArg::i32(-7),
               KernelArg::i64(int64_t(1) << 40),
               KernelArg::f32(std::numeric_limits<float>::quiet_NaN()),
               KernelArg::f64(-0.25)};
  GPUStep relu;
  relu.kind = GPUStep::Kind::Launch;
  relu.module = "kernels";
  relu.kernel = "relu";
  relu.args = {KernelArg::ptr(ref(BufferKind::Workspace, 0, 128)),
               KernelArg::ptr(ref(BufferKind::Workspace, 0, 192, 64))};
  GPUStep copy;
  copy.kind = GPUStep::Kind::Copy;
  copy.src = ref(BufferKind::Workspace, 0, 192);
  copy.dst = ref(BufferKind::Output, 0, 0);
  copy.bytes = 64;
  GPUStep memset;
  memset.kind = GPUStep::Kind::Memset;
  memset.dst = ref(BufferKind::Workspace, 0, 0);
  memset.bytes = 128;
  memset.value = 0xff;
  plan.steps = {memset, gemm, relu, copy};
  return plan;
}

std::string errorOf(llvm::Expected<GPUPlan> plan) {
  if (plan)
    return "";
  return llvm::toString(plan.takeError());
}

/// The error of parsing `plan` after `edit` changed its JSON.
std::string errorAfter(llvm::function_ref<void(llvm::json::Object &root)> edit,
                       const EngineMetadata &meta = sampleMetadata()) {
  llvm::json::Value root = gpuPlanToJSON(samplePlan());
  edit(*root.getAsObject());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << root;
  return errorOf(parseGPUPlan(text, meta, "e.int21"));
}

llvm::json::Object &step(llvm::json::Object &root, size_t index) {
  return *(*root.getArray("steps"))[index].getAsObject();
}

TEST(GPUPlanTest, RoundTripKeepsEveryField) {
  GPUPlan plan = samplePlan();
  for (bool pretty : {false, true}) {
    std::string text = gpuPlanToString(plan, pretty);
    llvm::Expected<GPUPlan> read =
        parseGPUPlan(text, sampleMetadata(), "e.int21");
    ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
    EXPECT_EQ(*read, plan);
    // The NaN travels as its bits.
    EXPECT_EQ(read->steps[1].args[5].bits, plan.steps[1].args[5].bits);
    EXPECT_EQ(read->steps[1].args[3].bits, 0xfffffff9u);
  }
}

TEST(GPUPlanTest, JSONIsReadable) {
  std::string text = gpuPlanToString(samplePlan());
  EXPECT_NE(text.find(R"("op":"launch")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("grid":[2,3,1])"), std::string::npos) << text;
  EXPECT_NE(text.find(R"({"i32":-7})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"({"f32":"0x7fc00000"})"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("buffer":"workspace")"), std::string::npos) << text;
}

TEST(GPUPlanTest, RefusesMalformedPlans) {
  EXPECT_EQ(errorOf(parseGPUPlan("{", sampleMetadata(), "e.int21"))
                .rfind("e.int21: plan is not valid JSON", 0),
            0u);
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) { root["version"] = 2; }),
            "e.int21: plan version 2 is not supported (this runtime reads "
            "version 1); recompile the model");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) { root.erase("steps"); }),
            "e.int21: plan needs a 'modules' and a 'steps' list");
  EXPECT_EQ(errorAfter(
                [](llvm::json::Object &root) { step(root, 0)["op"] = "fill"; }),
            "e.int21: plan step 0: unknown op 'fill' (launch, copy or memset)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 1)["grid"] = llvm::json::Array{1, 1};
            }),
            "e.int21: plan step 1 (launch kernels::gemm): 'grid' must be a "
            "list of 3 sizes (x, y, z)");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &root) {
        (*step(root, 1).getArray("args"))[0] = llvm::json::Object{
            {"ptr", llvm::json::Object{{"buffer", "constant"}, {"offset", 0}}}};
      }),
      "e.int21: plan step 1 (launch kernels::gemm): argument 0: "
      "unknown buffer 'constant' (input, weight, output or workspace)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              (*step(root, 1).getArray("args"))[3] =
                  llvm::json::Object{{"i32", int64_t(1) << 33}};
            }),
            "e.int21: plan step 1 (launch kernels::gemm): argument 3: i32 "
            "value must be a 32-bit integer");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &root) {
        (*step(root, 1).getArray("args"))[3] = llvm::json::Object{{"u8", 1}};
      }),
      "e.int21: plan step 1 (launch kernels::gemm): argument 3: "
      "unknown kind 'u8' (ptr, i32, i64, f32 or f64)");
  EXPECT_EQ(errorAfter(
                [](llvm::json::Object &root) { step(root, 0)["value"] = 256; }),
            "e.int21: plan step 0 (memset): 'value' must be a byte (0 to 255)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 3).getObject("dst")->erase("offset");
            }),
            "e.int21: plan step 3 (copy): 'offset' is missing");
}

TEST(GPUPlanTest, RefusesUnknownBuffersAndKernels) {
  auto editArg = [](unsigned s, unsigned a, llvm::StringRef buffer,
                    unsigned index) {
    return [=](llvm::json::Object &root) {
      (*step(root, s).getArray("args"))[a] = llvm::json::Object{
          {"ptr", llvm::json::Object{
                      {"buffer", buffer}, {"index", index}, {"offset", 0}}}};
    };
  };
  EXPECT_EQ(errorAfter(editArg(1, 0, "input", 1)),
            "e.int21: plan step 1 (launch kernels::gemm): argument 0: the "
            "engine has no input 1");
  EXPECT_EQ(errorAfter(editArg(1, 1, "weight", 2)),
            "e.int21: plan step 1 (launch kernels::gemm): argument 1: the "
            "engine has no weight 2");
  EngineMetadata noWorkspace = sampleMetadata();
  noWorkspace.workspaceSize = 0;
  EXPECT_EQ(errorAfter([](llvm::json::Object &) {}, noWorkspace),
            "e.int21: plan step 0 (memset): destination: the engine has no "
            "workspace");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 1)["kernel"] = "conv";
            }),
            "e.int21: plan step 1 (launch kernels::conv): unknown kernel");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 1)["module"] = "other";
            }),
            "e.int21: plan step 1 (launch other::gemm): unknown kernel");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              (*root.getArray("modules"))
                  .push_back(llvm::json::Object{
                      {"name", "kernels"}, {"kernels", llvm::json::Array{}}});
            }),
            "e.int21: plan module 1: 'kernels' appears twice");
}

TEST(GPUPlanTest, RefusesBadLaunches) {
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 1).getArray("args")->pop_back();
            }),
            "e.int21: plan step 1 (launch kernels::gemm): has 6 arguments, "
            "the kernel takes 7");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &root) {
        (*step(root, 1).getArray("args"))[3] = llvm::json::Object{{"i64", 3}};
      }),
      "e.int21: plan step 1 (launch kernels::gemm): argument 3 is i64, "
      "the kernel takes i32");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 1)["block"] = llvm::json::Array{64, 32, 1};
            }),
            "e.int21: plan step 1 (launch kernels::gemm): block 64x32x1 "
            "exceeds the CUDA limits (1024 threads, z <= 64)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 1)["grid"] = llvm::json::Array{1, 70000, 1};
            }),
            "e.int21: plan step 1 (launch kernels::gemm): grid 1x70000x1 "
            "exceeds the CUDA limits (2^31-1 x 65535 x 65535)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 1)["grid"] = llvm::json::Array{0, 1, 1};
            }),
            "e.int21: plan step 1 (launch kernels::gemm): 'grid' sizes must be "
            "positive 32-bit integers");
}

TEST(GPUPlanTest, RefusesAccessOutsideBuffers) {
  // A pointer whose reach runs past its buffer: 64 bytes of workspace from
  // offset 224 of 256.
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              (*(*step(root, 1).getArray("args"))[2].getAsObject())
                  .getObject("ptr")
                  ->
                  operator[]("offset") = 224;
            }),
            "e.int21: plan step 1 (launch kernels::gemm): argument 2: bytes "
            "[224, 288) lie outside the workspace (256 bytes)");
  // An offset alone past the end.
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              (*(*step(root, 2).getArray("args"))[0].getAsObject())
                  .getObject("ptr")
                  ->
                  operator[]("offset") = 300;
            }),
            "e.int21: plan step 2 (launch kernels::relu): argument 0: bytes "
            "[300, 300) lie outside the workspace (256 bytes)");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &root) { step(root, 3)["bytes"] = 65; }),
      "e.int21: plan step 3 (copy): source: bytes [192, 257) lie "
      "outside the workspace (256 bytes)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 3).getObject("src")->operator[]("offset") = 0;
              step(root, 3)["bytes"] = 65;
            }),
            "e.int21: plan step 3 (copy): destination: bytes [0, 65) lie "
            "outside output 0 (64 bytes)");
  // Huge offsets do not wrap around.
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              step(root, 0).getObject("dst")->operator[]("offset") =
                  std::numeric_limits<int64_t>::max();
            }),
            "e.int21: plan step 0 (memset): destination: bytes "
            "[9223372036854775807, 9223372036854775935) lie outside the "
            "workspace (256 bytes)");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              *step(root, 3).getObject("dst") =
                  llvm::json::Object{{"buffer", "workspace"}, {"offset", 160}};
            }),
            "e.int21: plan step 3 (copy): source and destination overlap "
            "(bytes [192, 256) and [160, 224))");
  EXPECT_EQ(
      errorAfter([](llvm::json::Object &root) { step(root, 3)["bytes"] = 0; }),
      "e.int21: plan step 3 (copy): copies or sets no bytes");
  EXPECT_EQ(errorAfter([](llvm::json::Object &root) {
              *step(root, 3).getObject("dst") = llvm::json::Object{
                  {"buffer", "weight"}, {"index", 0}, {"offset", 0}};
            }),
            "e.int21: plan step 3 (copy): writes into weight 0, which is "
            "read-only");
}

constexpr const char *kPTX = R"ptx(
.version 7.8
.target sm_90
.address_size 64

	// .globl	gemm
.visible .entry gemm(
	.param .u64 .ptr .align 1 gemm_param_0,
	.param .u64 .ptr .align 1 gemm_param_1,
	.param .u64 .ptr .align 1 gemm_param_2,
	.param .u32 gemm_param_3,
	.param .u64 gemm_param_4,
	.param .f32 gemm_param_5,
	.param .f64 gemm_param_6
)
{
	ret;
}
.visible .entry relu(.param .u64 relu_param_0, .param .align 8 .b8 relu_param_1[8])
{
	ret;
}
)ptx";

TEST(GPUPlanTest, ListsPTXEntries) {
  std::vector<PTXEntry> entries = listPTXEntries(kPTX);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "gemm");
  EXPECT_EQ(entries[0].paramSizes,
            (std::vector<unsigned>{8, 8, 8, 4, 8, 4, 8}));
  EXPECT_EQ(entries[1].name, "relu");
  EXPECT_EQ(entries[1].paramSizes, (std::vector<unsigned>{8, 8}));
  EXPECT_EQ(ptxTarget(kPTX), "sm_90");
  EXPECT_EQ(smVersion("sm_90"), 90u);
  EXPECT_EQ(smVersion("sm_90a"), 90u);
  EXPECT_FALSE(smVersion("cpu:x86_64:znver4").has_value());
  EXPECT_FALSE(smVersion("sm_").has_value());
}

std::string engineWith(llvm::StringRef ptx, const GPUPlan &plan,
                       bool withPlan = true) {
  std::string planText = gpuPlanToString(plan);
  std::string weights(80, '\1');
  std::vector<Section> sections;
  if (!ptx.empty())
    sections.push_back({SectionKind::Code, "kernels.ptx", ptx});
  if (withPlan)
    sections.push_back({SectionKind::Plan, kGPUPlanSection.str(), planText});
  sections.push_back({SectionKind::Weights, "weights", weights});
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeEngineFile(sampleMetadata(), sections, os);
  return bytes;
}

std::string readError(const std::string &bytes) {
  llvm::Expected<EngineFile> file = EngineFile::read(
      llvm::MemoryBuffer::getMemBufferCopy(bytes, "e.int21"), "e.int21");
  if (!file)
    return llvm::toString(file.takeError());
  return errorOf(readGPUPlan(*file, "e.int21"));
}

TEST(GPUPlanTest, ChecksThePlanAgainstTheCode) {
  EXPECT_EQ(readError(engineWith(kPTX, samplePlan())), "");
  EXPECT_EQ(readError(engineWith(kPTX, samplePlan(), /*withPlan=*/false)),
            "e.int21: GPU engine has no plan section");
  EXPECT_EQ(readError(engineWith("", samplePlan())),
            "e.int21: GPU engine has no code section 'kernels.ptx' for module "
            "'kernels'");
  GPUPlan renamed = samplePlan();
  renamed.modules[0].kernels[1].name = "gelu";
  renamed.steps[2].kernel = "gelu";
  EXPECT_EQ(readError(engineWith(kPTX, renamed)),
            "e.int21: kernel 'gelu' of module 'kernels' is not an entry of its "
            "PTX");
  GPUPlan wider = samplePlan();
  wider.modules[0].kernels[0].params[3] = ArgKind::I64;
  wider.steps[1].args[3] = KernelArg::i64(-7);
  EXPECT_EQ(readError(engineWith(kPTX, wider)),
            "e.int21: kernel 'kernels::gemm' takes 4 bytes for parameter 3 in "
            "its PTX, the plan passes i64 (8 bytes)");
  GPUPlan longer = samplePlan();
  longer.modules[0].kernels[1].params.push_back(ArgKind::I32);
  longer.steps[2].args.push_back(KernelArg::i32(1));
  EXPECT_EQ(
      readError(engineWith(kPTX, longer)),
      "e.int21: kernel 'kernels::relu' takes 2 parameters in its PTX, the "
      "plan passes 3");
}

} // namespace

namespace {

TEST(GPUPlanTest, MangledPlansAreErrorsNotCrashes) {
  // Every byte of the plan's text changed in turn, and random truncations:
  // each parse either succeeds (and then validates) or fails with a message.
  std::string text = gpuPlanToString(samplePlan());
  std::mt19937 rng(21);
  const char replacements[] = {'0', '9', '-', '"', '{',
                               '}', '[', ']', ',', 'x'};
  int errors = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    std::string mangled = text;
    mangled[i] = replacements[rng() % sizeof(replacements)];
    llvm::Expected<GPUPlan> plan =
        parseGPUPlan(mangled, sampleMetadata(), "e.int21");
    if (!plan) {
      std::string message = llvm::toString(plan.takeError());
      EXPECT_EQ(message.rfind("e.int21: ", 0), 0u) << message;
      ++errors;
    }
  }
  for (size_t cut = 0; cut < text.size(); cut += 7) {
    llvm::Expected<GPUPlan> plan =
        parseGPUPlan(text.substr(0, cut), sampleMetadata(), "e.int21");
    EXPECT_FALSE(bool(plan));
    llvm::consumeError(plan.takeError());
  }
  EXPECT_GT(errors, 0);
}

} // namespace
