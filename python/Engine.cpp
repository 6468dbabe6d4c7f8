//===- Engine.cpp - int21.Engine: engines run on numpy arrays -------------===//

#include "Int21Python.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace int21::python;
using int21::runtime::DType;
using int21::runtime::TensorSpec;

namespace {

/// The numpy dtype of `type`; none for bfloat16, which numpy lacks.
std::optional<py::dtype> numpyDType(DType type) {
  switch (type) {
  case DType::BF16:
    return std::nullopt;
  case DType::Bool:
    return py::dtype("bool");
  default:
    return py::dtype(int21::runtime::dtypeName(type).str());
  }
}

py::dtype requireNumpyDType(const TensorSpec &spec, const char *what) {
  std::optional<py::dtype> dtype = numpyDType(spec.dtype);
  if (!dtype)
    throw py::value_error(std::string(what) + " '" + spec.name +
                          "' is bfloat16, which numpy has no dtype for");
  return *dtype;
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + (d == TensorSpec::kDynamicExtent
                                ? std::string("None")
                                : std::to_string(d));
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// A spec's shape as Python sees it: a dynamic extent is its dimension name,
/// or None where it has none.
py::tuple shapeTuple(const TensorSpec &spec) {
  py::tuple shape(spec.shape.size());
  for (auto [i, d] : llvm::enumerate(spec.shape)) {
    if (d != TensorSpec::kDynamicExtent)
      shape[i] = py::int_(d);
    else if (i < spec.dimNames.size() && !spec.dimNames[i].empty())
      shape[i] = py::str(spec.dimNames[i]);
    else
      shape[i] = py::none();
  }
  return shape;
}

py::tuple asTuple(const TensorInfo &info) {
  return py::make_tuple(info.name, info.dtype, info.shape);
}

TensorInfo tensorInfo(const TensorSpec &spec) {
  std::optional<py::dtype> dtype = numpyDType(spec.dtype);
  py::object profile = py::none();
  if (spec.hasProfile())
    profile = py::make_tuple(py::tuple(py::cast(spec.profileMin)),
                             py::tuple(py::cast(spec.profileOpt)),
                             py::tuple(py::cast(spec.profileMax)));
  return {spec.name, dtype ? py::object(*dtype) : py::object(py::none()),
          shapeTuple(spec), profile};
}

} // namespace

PyEngine::PyEngine(std::unique_ptr<llvm::MemoryBuffer> bytes, std::string name)
    : bytes(std::move(bytes)), name(std::move(name)) {
  llvm::Expected<runtime::EngineFile> file =
      runtime::EngineFile::read(view(), this->name);
  if (!file)
    throw EngineFailure(llvm::toString(file.takeError()));
  meta = file->metadata();
  std::string host = runtime::Engine::hostTarget();
  if (meta.target != host) {
    // Kept, so that it can be inspected and saved; run() says why not.
    notRunnable = this->name + ": engine was compiled for target '" +
                  meta.target + "', this machine is '" + host + "'";
    return;
  }
  auto loaded = runtime::Engine::load(view(), this->name);
  if (!loaded)
    throw EngineFailure(llvm::toString(loaded.takeError()));
  engine = std::move(*loaded);
}

std::unique_ptr<PyEngine> PyEngine::load(const std::filesystem::path &path) {
  std::string file = path.string();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = [&] {
    py::gil_scoped_release release;
    return llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false,
                                       /*IsVolatile=*/true,
                                       llvm::Align(kAlign));
  }();
  if (!buffer)
    throwOSError(buffer.getError(), file);
  py::gil_scoped_release release;
  return std::make_unique<PyEngine>(std::move(*buffer), file);
}

void PyEngine::save(const std::filesystem::path &path) const {
  std::string file = path.string();
  std::error_code ec;
  {
    py::gil_scoped_release release;
    llvm::Expected<llvm::sys::fs::TempFile> temp =
        llvm::sys::fs::TempFile::create(file + ".tmp-%%%%%%");
    if (!temp) {
      ec = llvm::errorToErrorCode(temp.takeError());
    } else {
      {
        llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
        os << bytes->getBuffer();
        os.flush();
        ec = os.error();
        os.clear_error();
      }
      if (ec)
        llvm::consumeError(temp->discard());
      else if (llvm::Error error = temp->keep(file))
        ec = llvm::errorToErrorCode(std::move(error));
    }
  }
  if (ec)
    throwOSError(ec, file);
}

void PyEngine::setThreads(unsigned count) {
  if (count == 0)
    throw py::value_error("threads must be at least 1");
  requireLoaded();
  engine->setThreads(count);
}

std::unique_ptr<llvm::MemoryBuffer> PyEngine::view() const {
  return llvm::MemoryBuffer::getMemBuffer(bytes->getMemBufferRef(),
                                          /*RequiresNullTerminator=*/false);
}

std::vector<TensorInfo> PyEngine::infos(const std::vector<TensorSpec> &specs) {
  std::vector<TensorInfo> out;
  for (const TensorSpec &spec : specs)
    out.push_back(tensorInfo(spec));
  return out;
}

void PyEngine::requireLoaded() const {
  if (!engine)
    throw EngineFailure(notRunnable);
}

py::array PyEngine::checkInput(const TensorSpec &spec, py::handle value) {
  py::dtype want = requireNumpyDType(spec, "input");
  py::array array = py::array::ensure(value);
  if (!array)
    throw py::type_error("input '" + spec.name +
                         "': expected a numpy array, got " +
                         std::string(py::str(py::type::of(value))));
  if (!array.dtype().equal(want))
    throw py::value_error("input '" + spec.name + "': expected dtype " +
                          std::string(py::str(want)) + ", got " +
                          std::string(py::str(array.dtype())) +
                          " (int21 does not convert inputs; use .astype('" +
                          std::string(py::str(want)) + "'))");
  bool sameShape = array.ndim() == static_cast<py::ssize_t>(spec.shape.size());
  // The engine checks dynamic extents (and the names they share).
  for (py::ssize_t i = 0; sameShape && i < array.ndim(); ++i)
    sameShape = spec.shape[i] == TensorSpec::kDynamicExtent ||
                array.shape(i) == spec.shape[i];
  if (!sameShape) {
    std::vector<int64_t> got(array.shape(), array.shape() + array.ndim());
    throw py::value_error("input '" + spec.name + "': expected shape " +
                          shapeString(spec.shape) + ", got " +
                          shapeString(got));
  }
  constexpr int inPlace =
      py::array::c_style | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if ((array.flags() & inPlace) != inPlace)
    array = py::array::ensure(array, inPlace);
  return array;
}

std::vector<py::array> PyEngine::gatherInputs(py::handle feeds) const {
  if (!py::isinstance<py::dict>(feeds))
    throw py::type_error("feeds must be a dict {input name: array}, got " +
                         std::string(py::str(py::type::of(feeds))));
  const std::vector<TensorSpec> &specs = meta.inputs;
  auto names = [&] {
    std::string list;
    for (const TensorSpec &spec : specs)
      list += (list.empty() ? "'" : ", '") + spec.name + "'";
    return list.empty() ? std::string("none") : list;
  };
  // (A default py::array is an empty array, not a null handle.)
  std::vector<std::optional<py::array>> arrays(specs.size());
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(feeds)) {
    if (!py::isinstance<py::str>(key))
      throw py::type_error("feeds: input names must be strings, got " +
                           std::string(py::repr(key)));
    std::string inputName = key.cast<std::string>();
    auto it = llvm::find_if(
        specs, [&](const TensorSpec &spec) { return spec.name == inputName; });
    if (it == specs.end())
      throw py::value_error("unknown input '" + inputName +
                            "'; the engine's inputs are " + names());
    arrays[it - specs.begin()] = checkInput(*it, value);
  }
  std::vector<py::array> inputs;
  for (auto [spec, array] : llvm::zip(specs, arrays)) {
    if (!array)
      throw py::value_error(
          "missing input '" + spec.name + "' (" +
          std::string(py::str(requireNumpyDType(spec, "input"))) + " " +
          shapeString(spec.shape) + ")");
    inputs.push_back(std::move(*array));
  }
  return inputs;
}

py::object PyEngine::run(py::args args, py::kwargs kwargs) const {
  // The two forms, run(feeds) and run(output_names, feeds), with ONNX
  // Runtime's keyword names (output_names, input_feed) allowed.
  if (args.size() > 2)
    throw py::type_error("run() takes run(feeds) or run(output_names, feeds)");
  std::optional<py::object> outputNames, feeds;
  for (auto [key, value] : kwargs) {
    std::string keyword = py::str(key);
    auto object = py::reinterpret_borrow<py::object>(value);
    if (keyword == "output_names")
      outputNames = object;
    else if ((keyword == "input_feed" || keyword == "feeds") && !feeds)
      feeds = object;
    else
      throw py::type_error("run() got an unexpected or repeated keyword "
                           "argument '" +
                           keyword + "'");
  }
  if (args.size() == 2) {
    if (outputNames || feeds)
      throw py::type_error("run() got its arguments twice");
    outputNames = args[0];
    feeds = args[1];
  } else if (args.size() == 1) {
    if (feeds && outputNames)
      throw py::type_error("run() got its arguments twice");
    (feeds ? outputNames : feeds) = args[0];
  }
  if (!feeds)
    throw py::type_error("run() needs the inputs: run(feeds) or "
                         "run(output_names, feeds)");
  bool listForm = outputNames.has_value();
  requireLoaded();

  std::vector<py::array> inputs = gatherInputs(*feeds);
  std::vector<size_t> wanted;
  if (!outputNames || outputNames->is_none()) {
    for (size_t i = 0; i < meta.outputs.size(); ++i)
      wanted.push_back(i);
  } else {
    if (py::isinstance<py::str>(*outputNames) ||
        !py::isinstance<py::sequence>(*outputNames))
      throw py::type_error("output_names must be a list of names or None");
    for (py::handle item : *outputNames) {
      std::string outputName = py::str(item);
      auto it = llvm::find_if(meta.outputs, [&](const TensorSpec &spec) {
        return spec.name == outputName;
      });
      if (it == meta.outputs.end()) {
        std::string list;
        for (const TensorSpec &spec : meta.outputs)
          list += (list.empty() ? "'" : ", '") + spec.name + "'";
        throw py::value_error("unknown output '" + outputName +
                              "'; the engine's outputs are " + list);
      }
      wanted.push_back(it - meta.outputs.begin());
    }
  }

  // Fresh arrays, 64-byte aligned like the runtime's tensors, that the
  // engine writes into.
  std::vector<std::vector<int64_t>> inputShapes;
  std::vector<const void *> inputData;
  for (const py::array &array : inputs) {
    inputShapes.emplace_back(array.shape(), array.shape() + array.ndim());
    inputData.push_back(array.data());
  }
  llvm::Expected<std::vector<std::vector<int64_t>>> outputShapes =
      engine->outputShapes(inputShapes, inputData);
  if (!outputShapes)
    throw py::value_error(llvm::toString(outputShapes.takeError()));
  std::vector<py::array> outputs;
  std::vector<void *> outputPointers;
  for (auto [spec, shape] : llvm::zip(meta.outputs, *outputShapes)) {
    py::dtype dtype = requireNumpyDType(spec, "output");
    int64_t elements = 1;
    for (int64_t d : shape)
      elements *= d;
    size_t bytes = llvm::alignTo(
        std::max<size_t>(elements * int21::runtime::dtypeSize(spec.dtype), 1),
        kAlign);
    void *data = std::aligned_alloc(kAlign, bytes);
    if (!data)
      throw std::bad_alloc();
    py::capsule owner(data, [](void *p) { std::free(p); });
    outputs.emplace_back(dtype, shape, data, owner);
    outputPointers.push_back(data);
  }
  std::vector<const void *> inputPointers;
  for (const py::array &array : inputs)
    inputPointers.push_back(array.data());

  std::string error;
  std::vector<std::vector<int64_t>> ranShapes;
  std::vector<std::shared_ptr<void>> ranBuffers;
  {
    py::gil_scoped_release release;
    if (llvm::Error e = engine->run(inputPointers, inputShapes,
                                    outputPointers, &ranShapes, &ranBuffers))
      error = llvm::toString(std::move(e));
  }
  if (!error.empty())
    throw EngineFailure(error);
  // An output the run sized is in the buffer the run allocated, which the
  // array keeps alive.
  for (auto [i, buffer] : llvm::enumerate(ranBuffers)) {
    if (!buffer)
      continue;
    auto *keep = new std::shared_ptr<void>(std::move(buffer));
    py::capsule owner(keep, [](void *p) {
      delete static_cast<std::shared_ptr<void> *>(p);
    });
    outputs[i] = py::array(requireNumpyDType(meta.outputs[i], "output"),
                           ranShapes[i], keep->get(), owner);
    (*outputShapes)[i] = ranShapes[i];
  }
  // An output with extents computed from data (NonZero's count) holds its
  // elements first in the buffer allocated at their bound: a view of them.
  for (auto [i, shape] : llvm::enumerate(ranShapes))
    if (shape != *std::next(outputShapes->begin(), i)) {
      py::array whole = outputs[i];
      int64_t elements = 1;
      for (int64_t d : shape)
        elements *= d;
      outputs[i] = whole.attr("reshape")(-1)[py::slice(0, elements, 1)]
                       .attr("reshape")(py::tuple(py::cast(shape)));
    }

  if (!listForm) {
    py::dict result;
    for (size_t i : wanted)
      result[py::str(meta.outputs[i].name)] = outputs[i];
    return result;
  }
  py::list result;
  for (size_t i : wanted)
    result.append(outputs[i]);
  return result;
}

void int21::python::bindEngine(py::module_ &m) {
  py::class_<TensorInfo>(m, "TensorInfo",
                         "An input or output of an engine: name, numpy dtype "
                         "(None for bfloat16) and shape; also a tuple "
                         "(name, dtype, shape) to unpack or compare.")
      .def_readonly("name", &TensorInfo::name)
      .def_readonly("dtype", &TensorInfo::dtype)
      .def_readonly("shape", &TensorInfo::shape)
      .def_readonly("profile", &TensorInfo::profile,
                    "(min, opt, max) shapes of an input with a shape "
                    "profile (the shapes runs may give), else None.")
      .def("__len__", [](const TensorInfo &) { return 3; })
      .def("__iter__",
           [](const TensorInfo &info) { return py::iter(asTuple(info)); })
      .def("__getitem__",
           [](const TensorInfo &info, py::object index) -> py::object {
             return asTuple(info).attr("__getitem__")(index);
           })
      .def("__eq__",
           [](const TensorInfo &info, py::object other) -> py::object {
             if (py::isinstance<TensorInfo>(other))
               other = asTuple(other.cast<const TensorInfo &>());
             if (!py::isinstance<py::tuple>(other))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(asTuple(info).equal(other));
           })
      .def("__hash__",
           [](const TensorInfo &info) { return py::hash(asTuple(info)); })
      .def("__repr__", [](const TensorInfo &info) {
        return "TensorInfo(name=" + std::string(py::repr(py::str(info.name))) +
               ", dtype=" + std::string(py::str(info.dtype)) +
               ", shape=" + std::string(py::repr(info.shape)) + ")";
      });

  py::class_<PyEngine>(m, "Engine",
                       "A compiled model: int21.compile() makes one, "
                       "Engine.load() reads one that save() wrote.")
      .def_static("load", &PyEngine::load, py::arg("path"),
                  "Reads an engine file (.int21).")
      .def("save", &PyEngine::save, py::arg("path"),
           "Writes the engine file (.int21).")
      .def_property_readonly("inputs", &PyEngine::inputs)
      .def_property_readonly("outputs", &PyEngine::outputs)
      .def_property_readonly(
          "target", [](const PyEngine &e) { return e.metadata().target; })
      .def_property_readonly(
          "compiler_version",
          [](const PyEngine &e) { return e.metadata().compilerVersion; })
      .def_property("threads", &PyEngine::threads, &PyEngine::setThreads,
                    "Threads run() uses (default: the machine's).")
      .def_readonly("tuning", &PyEngine::tuning,
                    "What tune=True found (a TuneReport), else None.")
      .def("run", &PyEngine::run,
           "run(feeds) -> {output name: array}\n"
           "run(output_names, feeds) -> [array] (ONNX Runtime's form; "
           "output_names=None: every output)\n\n"
           "feeds maps every input name to a numpy array of the input's "
           "dtype and shape. C-contiguous arrays are read in place; others "
           "are copied. Releases the GIL while the engine runs.")
      .def("__repr__", [](const PyEngine &e) {
        std::string text = "<int21.Engine inputs=[";
        for (auto [i, spec] : llvm::enumerate(e.metadata().inputs))
          text += (i ? ", " : "") + spec.name + shapeString(spec.shape);
        text += "] outputs=[";
        for (auto [i, spec] : llvm::enumerate(e.metadata().outputs))
          text += (i ? ", " : "") + spec.name + shapeString(spec.shape);
        return text + "] target=" + e.metadata().target + ">";
      });
}
