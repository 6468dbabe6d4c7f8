//===- Target.cpp - where an engine runs, resolved once -------------------===//

#include "int21/Compiler/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/TargetParser/Host.h"

using namespace int21;
using llvm::StringRef;

static std::string hostTriple() { return llvm::sys::getProcessTriple(); }
static std::string hostCPU() { return llvm::sys::getHostCPUName().str(); }

Target::Target()
    : fullName("cpu:" + hostTriple() + ":" + hostCPU()),
      cpuTriple(hostTriple()), cpuName(hostCPU()) {}

llvm::Expected<Target> Target::parseGPU(StringRef text) {
  if (text != "sm_80" && text != "sm_90")
    return llvm::createStringError("unknown GPU target '" + text +
                                   "' (expected sm_80 or sm_90)");
  Target target;
  target.targetKind = Kind::GPU;
  target.fullName = text.str();
  target.cpuTriple.clear();
  target.cpuName.clear();
  return target;
}

llvm::Expected<Target> Target::parse(StringRef text) {
  if (text.starts_with("sm_"))
    return parseGPU(text);
  if (text == "cpu")
    return Target();
  llvm::SmallVector<StringRef, 3> parts;
  text.split(parts, ':');
  if (parts.size() != 3 || parts[0] != "cpu" || parts[1].empty() ||
      parts[2].empty())
    return llvm::createStringError(
        "unknown target '" + text +
        "' (expected 'cpu', 'cpu:<triple>:<cpu>', 'sm_80' or 'sm_90')");
  Target target;
  target.fullName = text.str();
  target.cpuTriple = parts[1].str();
  target.cpuName = parts[2].str();
  return target;
}

bool Target::isHost() const { return *this == Target(); }
