//===- Int21Module.cpp - the int21 Python extension (int21._int21) --------===//
//
// Binds the compiler (import, tune, compile to an engine, all in process) and
// the runtime (load, save, run on numpy arrays); Int21Python.h says how the
// parts are laid out. python/int21/__init__.py is the API users see: it
// checks and normalises the arguments of compile() and re-exports the
// classes bound here.
//
//===----------------------------------------------------------------------===//

#include "Int21Python.h"

#include <cerrno>

using namespace int21::python;

namespace {
/// The exception types, created once when the module is imported and kept
/// for the life of the interpreter.
PyObject *compileErrorType = nullptr;
PyObject *engineErrorType = nullptr;
} // namespace

[[noreturn]] void int21::python::throwOSError(std::error_code ec,
                                              const std::string &path) {
  errno = ec.value();
  PyErr_SetFromErrnoWithFilename(PyExc_OSError, path.c_str());
  throw py::error_already_set();
}

void int21::python::bindErrors(py::module_ &m) {
  compileErrorType = PyErr_NewExceptionWithDoc(
      "int21.CompileError",
      "The compiler rejected the model; `diagnostics` lists its messages, one "
      "line each (file, ONNX node, message).",
      PyExc_RuntimeError, nullptr);
  engineErrorType = PyErr_NewExceptionWithDoc(
      "int21.EngineError",
      "An engine could not be read, loaded or run (a corrupt or foreign "
      "file, an engine compiled for another machine).",
      PyExc_RuntimeError, nullptr);
  m.attr("CompileError") = py::handle(compileErrorType);
  m.attr("EngineError") = py::handle(engineErrorType);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const CompileFailure &e) {
      py::object error =
          py::reinterpret_borrow<py::object>(compileErrorType)(e.what());
      error.attr("diagnostics") = py::cast(e.diagnostics);
      PyErr_SetObject(compileErrorType, error.ptr());
    } catch (const EngineFailure &e) {
      PyErr_SetString(engineErrorType, e.what());
    }
  });
}

PYBIND11_MODULE(_int21, m) {
  m.doc() = "int21's compiler and runtime (use the int21 package).";
  bindErrors(m);
  bindEngine(m);
  bindCompiler(m);
  bindKnowledgeBase(m);
}
