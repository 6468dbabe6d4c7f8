//===- int21-fuzz-agent.cpp - external-agent answers -> proposals ---------===//
//
// The bytes are what an external agent writes back (docs/agent-protocol.md):
// each line is read as the answer to a `propose` for one of three kernels
// (a matmul, a convolution, an elementwise group), as the search reads it.
// A proposal it accepts must then lie in the kernel's space: the fuzz target
// checks that too, since a schedule outside it would reach the compiler.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "int21/AgentSearch/Agent.h"
#include "int21/AgentSearch/Kernel.h"
#include "int21/Compiler/Compiler.h"
#include "int21/Transforms/Schedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

using namespace int21::search;
namespace schedule = int21::schedule;

namespace {

/// The kernel module, read when the target starts (INT21_FUZZ_KERNELS, set
/// by CMake to fuzz/Inputs/agent-kernels.mlir).
constexpr const char *kKernelsPath = INT21_FUZZ_KERNELS;

/// The kernels, extracted once: what the search would send an agent.
const std::vector<Kernel> &kernels() {
  static const std::vector<Kernel> extracted = [] {
    mlir::DialectRegistry registry;
    int21::registerCompilerDialects(registry);
    mlir::MLIRContext context(registry);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceFile<mlir::ModuleOp>(kKernelsPath, &context);
    if (!module || failed(schedule::prepareForScheduling(*module))) {
      std::fprintf(stderr, "int21-fuzz-agent: cannot read %s\n", kKernelsPath);
      std::abort();
    }
    std::vector<Kernel> found = extractKernels(*module);
    if (found.empty())
      std::abort();
    return found;
  }();
  return extracted;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::vector<Kernel> &work = kernels();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  unsigned turn = 0;
  while (!text.empty()) {
    auto [line, rest] = text.split('\n');
    text = rest;
    const Kernel &kernel = work[turn++ % work.size()];
    unsigned count = 1 + turn % 8;
    ProposeReply reply = parseProposeReply(kernel, line, count);
    if (reply.schedules.size() > count)
      __builtin_trap();
    for (const Schedule &proposal : reply.schedules) {
      const schedule::ScheduleChoice *choice =
          kernel.findChoice(proposal.sequence);
      std::string why;
      schedule::Knobs knobs;
      for (const auto &[name, value] : proposal.knobs)
        knobs[name] = value;
      if (!choice || !schedule::isInSpace(*choice, knobs, why))
        __builtin_trap(); // Accepted, yet outside the space.
    }
  }
  return 0;
}
