//===- Target.h - where an engine runs, resolved once ---------------------===//
//
// A target as the user spells it ("cpu", "cpu:<triple>:<cpu>", "sm_80",
// "sm_90") is parsed once, where it enters int21 (a command-line option, a
// Python argument, a search worker's request), into a Target; everything
// after that takes the Target and never parses a string again.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_TARGET_H
#define INT21_COMPILER_TARGET_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace int21 {

class Target {
public:
  enum class Kind { CPU, GPU };

  /// This machine's CPU.
  Target();

  /// Parses "cpu" (this machine), "cpu:<triple>:<cpu>" or an NVIDIA GPU int21
  /// compiles for ("sm_80", "sm_90"). The error names the text and what is
  /// accepted.
  static llvm::Expected<Target> parse(llvm::StringRef text);
  /// Parses a GPU target only (the chip of --gpu-schedules, say).
  static llvm::Expected<Target> parseGPU(llvm::StringRef text);

  Kind kind() const { return targetKind; }
  bool isCPU() const { return targetKind == Kind::CPU; }
  bool isGPU() const { return targetKind == Kind::GPU; }

  /// The name engines, knowledge-base records and libraries record:
  /// "cpu:<triple>:<cpu>" for a CPU, the chip ("sm_90") for a GPU. parse()
  /// gives this target back from it.
  const std::string &name() const { return fullName; }
  /// A CPU's LLVM triple and CPU name (empty for a GPU).
  llvm::StringRef triple() const { return cpuTriple; }
  llvm::StringRef cpu() const { return cpuName; }
  /// A GPU's chip (empty for a CPU).
  llvm::StringRef chip() const {
    return isGPU() ? llvm::StringRef(fullName) : llvm::StringRef();
  }
  /// Whether this is the machine the compiler runs on (engines built for it
  /// can be run and timed here).
  bool isHost() const;

  bool operator==(const Target &other) const {
    return fullName == other.fullName;
  }
  bool operator!=(const Target &other) const { return !(*this == other); }

private:
  Kind targetKind = Kind::CPU;
  std::string fullName;
  std::string cpuTriple;
  std::string cpuName;
};

} // namespace int21

#endif // INT21_COMPILER_TARGET_H
