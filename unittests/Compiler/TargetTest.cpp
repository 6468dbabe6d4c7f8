//===- TargetTest.cpp - targets as users spell them ------------------------===//

#include "int21/Compiler/Compiler.h"
#include "int21/Compiler/Target.h"

#include <gtest/gtest.h>

using int21::Target;

namespace {
std::string errorOf(llvm::Expected<Target> parsed) {
  if (parsed)
    return "";
  return llvm::toString(parsed.takeError());
}
} // namespace

TEST(TargetTest, CpuIsThisMachine) {
  llvm::Expected<Target> cpu = Target::parse("cpu");
  ASSERT_TRUE(static_cast<bool>(cpu)) << errorOf(std::move(cpu));
  EXPECT_TRUE(cpu->isCPU());
  EXPECT_TRUE(cpu->isHost());
  EXPECT_FALSE(cpu->triple().empty());
  EXPECT_FALSE(cpu->cpu().empty());
  EXPECT_TRUE(cpu->chip().empty());
  EXPECT_EQ(cpu->name(),
            "cpu:" + cpu->triple().str() + ":" + cpu->cpu().str());
  EXPECT_EQ(*cpu, Target());
  // Its name parses back to the same target.
  llvm::Expected<Target> again = Target::parse(cpu->name());
  ASSERT_TRUE(static_cast<bool>(again)) << errorOf(std::move(again));
  EXPECT_EQ(*again, *cpu);
  EXPECT_TRUE(again->isHost());
}

TEST(TargetTest, ExplicitCpus) {
  llvm::Expected<Target> other =
      Target::parse("cpu:aarch64-unknown-linux-gnu:neoverse-v2");
  ASSERT_TRUE(static_cast<bool>(other)) << errorOf(std::move(other));
  EXPECT_TRUE(other->isCPU());
  EXPECT_EQ(other->triple(), "aarch64-unknown-linux-gnu");
  EXPECT_EQ(other->cpu(), "neoverse-v2");
  EXPECT_EQ(other->name(), "cpu:aarch64-unknown-linux-gnu:neoverse-v2");
  EXPECT_NE(*other, Target());
}

TEST(TargetTest, Gpus) {
  for (llvm::StringRef chip : {"sm_80", "sm_90"}) {
    llvm::Expected<Target> gpu = Target::parse(chip);
    ASSERT_TRUE(static_cast<bool>(gpu)) << errorOf(std::move(gpu));
    EXPECT_TRUE(gpu->isGPU());
    EXPECT_FALSE(gpu->isHost());
    EXPECT_EQ(gpu->chip(), chip);
    EXPECT_EQ(gpu->name(), chip);
    EXPECT_TRUE(gpu->triple().empty());
    llvm::Expected<Target> only = Target::parseGPU(chip);
    ASSERT_TRUE(static_cast<bool>(only)) << errorOf(std::move(only));
    EXPECT_EQ(*only, *gpu);
  }
}

TEST(TargetTest, BadTargetsNameTheTextAndWhatIsAccepted) {
  for (llvm::StringRef bad : {"", "gpu", "cpu:", "cpu::znver4",
                              "cpu:x86_64-unknown-linux-gnu:", "cpu:a:b:c",
                              "CPU", "sm_75", "sm_", "sm_90a"}) {
    std::string message = errorOf(Target::parse(bad));
    EXPECT_NE(message.find("'" + bad.str() + "'"), std::string::npos)
        << bad.str() << ": " << message;
    EXPECT_NE(message.find("sm_"), std::string::npos) << message;
  }
  // A GPU option takes no CPU.
  std::string message = errorOf(Target::parseGPU("cpu"));
  EXPECT_NE(message.find("'cpu'"), std::string::npos) << message;
}

// The vector registers the CPU schedules size their register tiles by, from
// the CPU a target names (x86 ones read from LLVM's subtarget features).
TEST(TargetTest, VectorRegisters) {
  auto model = [](llvm::StringRef text) {
    llvm::Expected<Target> target = Target::parse(text);
    EXPECT_TRUE(static_cast<bool>(target)) << errorOf(std::move(target));
    int21::schedule::VectorModel vectors = int21::vectorModelFor(*target);
    return std::to_string(vectors.bits) + "x" +
           std::to_string(vectors.registers);
  };
#if defined(__x86_64__)
  EXPECT_EQ(model("cpu:x86_64-unknown-linux-gnu:skylake-avx512"), "512x32");
  EXPECT_EQ(model("cpu:x86_64-unknown-linux-gnu:znver2"), "256x16");
  EXPECT_EQ(model("cpu:x86_64-unknown-linux-gnu:haswell"), "256x16");
  EXPECT_EQ(model("cpu:x86_64-unknown-linux-gnu:x86-64"), "128x16");
  // AVX2 holds a quarter of AVX-512's floats: the accumulators scale so.
  int21::schedule::VectorModel avx2{256, 16};
  EXPECT_EQ(avx2.floats(), 128);
  EXPECT_EQ(avx2.scaled(24), 6);
  EXPECT_FALSE(avx2.isReference());
  EXPECT_TRUE(int21::schedule::VectorModel().isReference());
#endif
  EXPECT_EQ(model("cpu:aarch64-unknown-linux-gnu:neoverse-v2"), "128x32");
  // A GPU has none: the reference model (the CPU rules are not used).
  EXPECT_TRUE(int21::vectorModelFor(*Target::parse("sm_90")).isReference());
}
