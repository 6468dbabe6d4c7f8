//===- int21-opt.cpp - mlir-opt with the int21 dialect and passes ---------===//
//
// mlir-opt's driver, with one difference: the output is written only when
// the run succeeds. Upstream opens `-o` before it parses the input and
// deletes it when anything fails, which loses the file a user had there
// and, as root, removes a device such as /dev/null. Here the result is kept
// in memory; on success it replaces a regular file whole (a temporary file
// beside it, then a rename) and is written into anything else (a device, a
// pipe) as it is; on failure nothing at `-o` is touched.
//
//===----------------------------------------------------------------------===//

#include "int21/Dialect/Int21/Int21Dialect.h"
#include "int21/Support/ParserGuard.h"
#include "int21/Transforms/Schedule.h"
#include "int21/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace {
/// Writes `text` to `path` ("-": stdout); the error names the path.
bool writeOutput(llvm::StringRef path, llvm::StringRef text) {
  if (path == "-") {
    llvm::outs() << text;
    llvm::outs().flush();
    return true;
  }
  auto fail = [&](const std::error_code &ec) {
    llvm::errs() << "int21-opt: error: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return false;
  };
  llvm::sys::fs::file_status status;
  bool exists = !llvm::sys::fs::status(path, status) &&
                llvm::sys::fs::exists(status);
  if (exists && !llvm::sys::fs::is_regular_file(status)) {
    // A device or a pipe: written into, never replaced or removed.
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (!ec) {
      os << text;
      os.close();
      ec = os.error();
    }
    return ec ? fail(ec) : true;
  }
  llvm::SmallString<128> temp;
  llvm::SmallString<128> model(path);
  model += ".tmp-%%%%%%";
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return fail(ec);
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
    os.close();
    ec = os.error();
    os.clear_error();
  }
  if (!ec)
    ec = llvm::sys::fs::rename(temp, path);
  if (ec) {
    llvm::sys::fs::remove(temp);
    return fail(ec);
  }
  return true;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  int21::registerInt21Passes();
  int21::registerInt21Pipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (int21-gpu-codegen) translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<int21::Int21Dialect>();
  // The schedule templates, their transform ops and their contract (which
  // checks every #int21.schedule).
  int21::schedule::registerScheduleDialects(registry);

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "int21 optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  // --show-dialects and --list-passes print and return before any file is
  // opened: upstream's driver does them.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        argc, argv, inputFilename, outputFilename, registry));

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (std::optional<int21::ParserCrash> crash =
          int21::findKnownParserCrash(input->getBuffer())) {
    llvm::errs() << (inputFilename == "-" ? "<stdin>" : inputFilename) << ":"
                 << crash->line << ":" << crash->column
                 << ": error: " << crash->what << "\n";
    return 1;
  }
  std::string result;
  llvm::raw_string_ostream os(result);
  if (mlir::failed(
          mlir::MlirOptMain(os, std::move(input), registry, config))) {
    // What was printed before the failure (with --split-input-file, the
    // chunks that succeeded) still goes to stdout, as upstream's does.
    if (outputFilename == "-")
      llvm::outs() << result;
    return 1;
  }
  return writeOutput(outputFilename, result) ? 0 : 1;
}
