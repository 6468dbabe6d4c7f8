//===- PTX.cpp - assemble PTX with ptxas and read its resource report -----===//

#include "int21/Compiler/PTX.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using llvm::StringRef;

std::optional<std::string> int21::findPtxas() {
  if (const char *env = std::getenv("INT21_PTXAS"); env && *env) {
    if (llvm::sys::fs::can_execute(env))
      return std::string(env);
    return std::nullopt;
  }
  if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

std::vector<int21::KernelResources> int21::parsePtxasReport(StringRef log) {
  std::vector<KernelResources> kernels;
  llvm::Regex entry("Compiling entry function '([^']+)'");
  llvm::Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
                    "([0-9]+) bytes spill loads");
  llvm::Regex used("Used ([0-9]+) registers");
  llvm::Regex smem("([0-9]+) bytes smem");
  llvm::SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    llvm::SmallVector<StringRef, 4> m;
    if (entry.match(line, &m)) {
      kernels.push_back({});
      kernels.back().name = m[1].str();
      continue;
    }
    if (kernels.empty())
      continue;
    KernelResources &k = kernels.back();
    if (frame.match(line, &m)) {
      m[1].getAsInteger(10, k.stackBytes);
      m[2].getAsInteger(10, k.spillStores);
      m[3].getAsInteger(10, k.spillLoads);
    }
    if (used.match(line, &m))
      m[1].getAsInteger(10, k.registers);
    if (line.contains("Used") && smem.match(line, &m))
      m[1].getAsInteger(10, k.sharedBytes);
  }
  return kernels;
}

llvm::Expected<int21::PTXAssembly> int21::assemblePTX(StringRef ptx,
                                                      StringRef chip) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  std::optional<std::string> ptxas = findPtxas();
  if (!ptxas)
    return fail("no ptxas found ($INT21_PTXAS, PATH, /usr/local/cuda/bin)");
  llvm::SmallString<128> ptxPath, cubinPath, logPath;
  for (auto [suffix, path] :
       {std::pair<StringRef, llvm::SmallString<128> *>{"ptx", &ptxPath},
        {"cubin", &cubinPath},
        {"log", &logPath}})
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("int21", suffix, *path))
      return fail("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removePtx(ptxPath), removeCubin(cubinPath),
      removeLog(logPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(ptxPath, ec);
    if (ec)
      return fail("cannot write " + ptxPath + ": " + ec.message());
    os << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  llvm::SmallVector<StringRef> args = {*ptxas, arch,      "-v",
                                       "-o",   cubinPath, ptxPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects,
                                     /*SecondsToWait=*/300, 0, &error);
  PTXAssembly result;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    result.log = (*buffer)->getBuffer().str();
  if (rc != 0)
    return fail("ptxas " + arch + " failed" +
                (error.empty() ? "" : ": " + error) + "\n" + result.log);
  auto cubin = llvm::MemoryBuffer::getFile(cubinPath, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!cubin)
    return fail("cannot read the cubin: " + cubin.getError().message());
  result.cubin = (*cubin)->getBuffer().str();
  result.kernels = parsePtxasReport(result.log);
  return result;
}
