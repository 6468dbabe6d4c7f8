//===- PTXTest.cpp - ptxas's resource report and assemblePTX --------------===//

#include "int21/Compiler/PTX.h"

#include "gtest/gtest.h"

namespace {

TEST(PTXTest, ParsesThePtxasReport) {
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'main_kernel_0' for 'sm_90'\n"
      "ptxas info    : Function properties for main_kernel_0\n"
      "    0 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 57 registers, used 1 barriers, 32768 bytes smem, "
      "400 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'main_kernel' for 'sm_90'\n"
      "ptxas info    : Function properties for main_kernel\n"
      "    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 1 barriers\n";
  std::vector<int21::KernelResources> kernels = int21::parsePtxasReport(log);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "main_kernel_0");
  EXPECT_EQ(kernels[0].registers, 57u);
  EXPECT_EQ(kernels[0].sharedBytes, 32768u);
  EXPECT_EQ(kernels[0].spillStores, 8u);
  EXPECT_EQ(kernels[0].spillLoads, 12u);
  EXPECT_EQ(kernels[1].name, "main_kernel");
  EXPECT_EQ(kernels[1].registers, 10u);
  EXPECT_EQ(kernels[1].sharedBytes, 0u);
  EXPECT_EQ(kernels[1].stackBytes, 16u);
}

TEST(PTXTest, AssemblesAKernel) {
  if (!int21::findPtxas())
    GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  const char *ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .shared .align 4 .b8 buf[1024];
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, buf;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";
  llvm::Expected<int21::PTXAssembly> result = int21::assemblePTX(ptx, "sm_90");
  ASSERT_TRUE(static_cast<bool>(result)) << llvm::toString(result.takeError());
  EXPECT_FALSE(result->cubin.empty());
  ASSERT_EQ(result->kernels.size(), 1u);
  EXPECT_EQ(result->kernels[0].name, "k");
  EXPECT_EQ(result->kernels[0].sharedBytes, 1024u);
  // Rejected PTX is an error with ptxas's message, not a crash.
  llvm::Expected<int21::PTXAssembly> bad =
      int21::assemblePTX(".version 8.0\n.target sm_90\nnonsense\n", "sm_90");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("ptxas"), std::string::npos);
}

} // namespace
