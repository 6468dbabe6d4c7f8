//===- KnowledgeBase.cpp - int21.KnowledgeBase: records and export --------===//

#include "Int21Python.h"

#include "int21/AgentSearch/KnowledgeBase.h"
#include "int21/AgentSearch/Library.h"
#include "int21/Compiler/Compiler.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace int21::python;
using int21::search::KnowledgeBase;
using int21::search::KnowledgeRecord;

namespace {

/// A knowledge base file, opened for each call (several processes may write
/// it meanwhile; each call sees what is committed).
class PyKnowledgeBase {
public:
  explicit PyKnowledgeBase(std::optional<std::string> path)
      : filePath(path ? *path : KnowledgeBase::defaultPath()) {
    // Created (or checked) now, so that a bad file fails here.
    open(/*readOnly=*/false);
  }

  const std::string &path() const { return filePath; }

  std::vector<KnowledgeRecord> records(std::optional<std::string> target) {
    std::unique_ptr<KnowledgeBase> kb = open(/*readOnly=*/true);
    std::string resolved = target ? resolve(*target) : std::string();
    std::vector<KnowledgeRecord> found;
    std::string error;
    {
      pybind11::gil_scoped_release release;
      llvm::Expected<std::vector<KnowledgeRecord>> all =
          kb->records(resolved);
      if (all)
        found = std::move(*all);
      else
        error = llvm::toString(all.takeError());
    }
    if (!error.empty())
      throw std::runtime_error(error);
    return found;
  }

  size_t export_(const std::string &path, const std::string &target) {
    std::string resolved = resolve(target);
    std::vector<KnowledgeRecord> all = records(resolved);
    size_t count = 0;
    for (const KnowledgeRecord &record : all)
      count += record.target == resolved;
    std::string error;
    {
      pybind11::gil_scoped_release release;
      mlir::DialectRegistry registry;
      int21::registerCompilerDialects(registry);
      mlir::MLIRContext context(registry);
      llvm::Expected<std::string> text =
          int21::search::exportLibrary(context, all, resolved, filePath);
      if (!text) {
        error = llvm::toString(text.takeError());
      } else {
        std::error_code ec;
        llvm::raw_fd_ostream os(path, ec);
        if (ec)
          error = "cannot write '" + path + "': " + ec.message();
        else
          os << *text;
      }
    }
    if (!error.empty())
      throw std::runtime_error(error);
    return count;
  }

private:
  static std::string resolve(const std::string &target) {
    if (target.rfind("cpu", 0) != 0)
      return target;
    llvm::Expected<int21::Target> resolved = int21::Target::parse(target);
    if (!resolved)
      throw pybind11::value_error("target: " +
                                  llvm::toString(resolved.takeError()));
    return resolved->name();
  }

  std::unique_ptr<KnowledgeBase> open(bool readOnly) {
    llvm::Expected<std::unique_ptr<KnowledgeBase>> kb =
        KnowledgeBase::open(filePath, readOnly);
    if (!kb)
      throw std::runtime_error(llvm::toString(kb.takeError()));
    return std::move(*kb);
  }

  std::string filePath;
};

} // namespace

void int21::python::bindKnowledgeBase(pybind11::module_ &m) {
  namespace py = pybind11;
  py::class_<KnowledgeRecord>(
      m, "KnowledgeRecord",
      "The best schedule known for one piece of work on one target.")
      .def_readonly("id", &KnowledgeRecord::id)
      .def_readonly("signature", &KnowledgeRecord::signature)
      .def_readonly("target", &KnowledgeRecord::target)
      .def_readonly("compiler_version", &KnowledgeRecord::compilerVersion)
      .def_readonly("machine", &KnowledgeRecord::machine)
      .def_readonly("threads", &KnowledgeRecord::threads)
      .def_readonly("op_kind", &KnowledgeRecord::opKind)
      .def_readonly("dims", &KnowledgeRecord::dims)
      .def_readonly("element_types", &KnowledgeRecord::elementTypes)
      .def_property_readonly(
          "template",
          [](const KnowledgeRecord &r) { return r.schedule.sequence; })
      .def_property_readonly(
          "knobs", [](const KnowledgeRecord &r) { return r.schedule.knobs; })
      .def_property_readonly(
          "median_ms", [](const KnowledgeRecord &r) { return r.time.medianMs; })
      .def_property_readonly(
          "spread", [](const KnowledgeRecord &r) { return r.time.spread; })
      .def_property_readonly(
          "reps", [](const KnowledgeRecord &r) { return r.time.reps; })
      .def_readonly("default_ms", &KnowledgeRecord::defaultMs)
      .def_property_readonly("speedup", &KnowledgeRecord::speedup)
      .def_readonly("seed", &KnowledgeRecord::seed)
      .def_readonly("max_error", &KnowledgeRecord::maxError)
      .def_readonly("tolerance", &KnowledgeRecord::tolerance)
      .def_readonly("roofline_ms", &KnowledgeRecord::rooflineMs)
      .def_readonly("agent", &KnowledgeRecord::agent)
      .def_readonly("parent", &KnowledgeRecord::parent)
      .def_readonly("created_at", &KnowledgeRecord::createdAt)
      .def("__repr__", [](const KnowledgeRecord &r) {
        std::string dims;
        for (size_t i = 0; i < r.dims.size(); ++i)
          dims += (i ? "x" : "") + std::to_string(r.dims[i]);
        return "<KnowledgeRecord " + std::to_string(r.id) + ": " + r.opKind +
               " " + dims + " " + r.elementTypes + " on " + r.target + ", " +
               int21::search::describe(r.schedule) + ">";
      });

  py::class_<PyKnowledgeBase>(
      m, "KnowledgeBase",
      "A knowledge base file (SQLite): what schedule searches found.\n\n"
      "KnowledgeBase(path=None) opens (creating it) the file at `path`, or\n"
      "the default one ($XDG_CACHE_HOME/int21/kb.sqlite) that int21.compile\n"
      "and int21-compile use. A file that is not a knowledge base raises\n"
      "RuntimeError.")
      .def(py::init<std::optional<std::string>>(), py::arg("path") = py::none())
      .def_property_readonly("path", &PyKnowledgeBase::path)
      .def("records", &PyKnowledgeBase::records, py::arg("target") = py::none(),
           "Every record (of `target` when given: 'cpu' is this machine), "
           "by id.")
      .def("export", &PyKnowledgeBase::export_, py::arg("path"),
           py::arg("target") = "cpu",
           "Writes the records of `target` as a transform library "
           "(int21-kb export); returns how many records it holds.")
      .def("__len__",
           [](PyKnowledgeBase &kb) { return kb.records(std::nullopt).size(); })
      .def("__repr__", [](const PyKnowledgeBase &kb) {
        return "<KnowledgeBase " + kb.path() + ">";
      });
}
