//===- PTX.h - assemble PTX with ptxas and read its resource report -------===//
//
// The GPU path's check that its PTX is accepted, and what the search reads
// about a kernel before running it: `ptxas -v` is run in a child process
// (from $INT21_PTXAS, else PATH, else /usr/local/cuda/bin) and its report
// parsed per kernel.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_PTX_H
#define INT21_COMPILER_PTX_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace int21 {

/// What ptxas reports for one kernel (.entry).
struct KernelResources {
  std::string name;
  unsigned registers = 0;
  /// Static shared memory, in bytes.
  uint64_t sharedBytes = 0;
  uint64_t spillStores = 0;
  uint64_t spillLoads = 0;
  uint64_t stackBytes = 0;
};

/// A PTX module assembled for one chip.
struct PTXAssembly {
  /// The cubin (ELF) ptxas wrote.
  std::string cubin;
  /// One entry per kernel, in the order ptxas reports them.
  std::vector<KernelResources> kernels;
  /// ptxas's full report (stderr and stdout).
  std::string log;
};

/// The ptxas to run: $INT21_PTXAS, else `ptxas` on PATH, else
/// /usr/local/cuda/bin/ptxas; std::nullopt when none exists.
std::optional<std::string> findPtxas();

/// Assembles `ptx` for `chip` (sm_80, sm_90) with `ptxas -v`. Fails with
/// ptxas's messages when it rejects the PTX, or when there is no ptxas.
/// Thread-safe (each call has its own temporary files).
llvm::Expected<PTXAssembly> assemblePTX(llvm::StringRef ptx,
                                        llvm::StringRef chip);

/// Parses a `ptxas -v` report into per-kernel resources.
std::vector<KernelResources> parsePtxasReport(llvm::StringRef log);

} // namespace int21

#endif // INT21_COMPILER_PTX_H
