//===- Engine.cpp - load and run compiled int21 engines -------------------===//

#include "int21/Runtime/Engine.h"
#include "int21/Runtime/Cuda.h"
#include "int21/Runtime/GPUPlan.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace llvm;
using namespace int21::runtime;

static constexpr size_t kAlign = 64;

static Error engineError(StringRef path, const Twine &message) {
  return createStringError(inconvertibleErrorCode(), path + ": " + message);
}

//===----------------------------------------------------------------------===//
// Tensor
//===----------------------------------------------------------------------===//

void Tensor::Free::operator()(void *p) const { std::free(p); }

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : type(dtype), dims(std::move(shape)) {
  size_t bytes = alignTo(std::max<size_t>(sizeInBytes(), 1), kAlign);
  void *p = std::aligned_alloc(kAlign, bytes);
  if (!p)
    report_bad_alloc_error("int21: cannot allocate a tensor");
  std::memset(p, 0, bytes);
  storage = std::shared_ptr<void>(p, Free());
}

void Tensor::shrinkTo(std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  assert(n <= numElements() && "a tensor shrinks to fewer elements only");
  (void)n;
  dims = std::move(shape);
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

std::string Engine::hostTarget() {
  return "cpu:" + sys::getProcessTriple() + ":" + sys::getHostCPUName().str();
}

unsigned Engine::defaultThreads() {
  int cores = llvm::get_physical_cores();
  return std::max(1u, cores > 0
                          ? unsigned(cores)
                          : llvm::hardware_concurrency().compute_thread_count());
}

/// Binds the threads of the engines' parallel loops to cores (OpenMP's
/// OMP_PLACES=cores, OMP_PROC_BIND=close, set before the OpenMP runtime
/// starts: at the first run of an engine with threads) where that run's
/// threads fill every core the process may run on. Unbound, the threads of
/// a fork/join migrate and two-thread runs were bimodal (a fork/join of
/// ~80 us instead of ~3 in some processes). Where they leave cores free the
/// threads stay unbound: OpenMP binds each process's first thread to the
/// first core of its set, so processes running side by side (a test suite,
/// a server's workers) would share that core. A setting of the user's
/// (OMP_PROC_BIND, OMP_PLACES, or the runtime's own KMP_AFFINITY,
/// GOMP_CPU_AFFINITY) is left as it is; OMP_PROC_BIND=false unbinds.
static void bindThreadsToCores(unsigned threads) {
  static std::once_flag once;
  std::call_once(once, [threads] {
    for (const char *name : {"OMP_PROC_BIND", "OMP_PLACES", "KMP_AFFINITY",
                             "GOMP_CPU_AFFINITY"})
      if (std::getenv(name))
        return;
    // (Physical cores of the process's affinity mask, on Linux.)
    int cores = llvm::get_physical_cores();
    if (threads < 2 || cores < 1 || threads < unsigned(cores))
      return;
    setenv("OMP_PLACES", "cores", /*overwrite=*/0);
    setenv("OMP_PROC_BIND", "close", /*overwrite=*/0);
  });
}

struct Engine::Code {
  /// The metadata of this code: the engine's, or a specialisation's.
  const EngineMetadata *meta = nullptr;
  void *library = nullptr;
  /// The memfd the code was loaded from, open while it is loaded.
  int codeFile = -1;
  void (*entry)(void **) = nullptr;
  /// Dynamic code's `int21_shapes(int64_t *extents, void **args)`: fills in
  /// the outputs' extents from the inputs' (and the values of the inputs in
  /// EngineMetadata::shapeValueInputs; args as int21_entry's, the outputs
  /// null); 0 when the inputs' are valid.
  int32_t (*shapes)(int64_t *, void **) = nullptr;
  void (*setNumThreads)(int) = nullptr;
  std::vector<const void *> weightPointers;
  /// Scratch memory of meta->workspaceSize bytes: one per run in flight,
  /// kept for the next run (so pages are touched once, not per run).
  mutable std::mutex workspaceMutex;
  mutable std::vector<std::shared_ptr<void>> freeWorkspaces;

  ~Code() {
    if (library)
      dlclose(library);
    if (codeFile >= 0)
      close(codeFile);
  }
};

Engine::Engine(EngineFile file, std::string name)
    : file(std::move(file)), name(std::move(name)),
      threadCount(defaultThreads()) {}

Engine::~Engine() {
  cuda.reset();
  codes.clear();
}

/// Maps `code` (a shared object) into the process without a file on disk
/// where the kernel allows (memfd), else through a temporary file removed
/// right after loading. Each call gives a library of its own: the loader
/// takes a path it has seen before for a library it has already loaded, so
/// the memfd (and with it its /proc/self/fd path) stays open, in `codeFile`,
/// as long as the library is loaded.
/// Checks that `code` is a whole shared object for this machine before the
/// dynamic loader maps it: the ELF header, and every program header and
/// loadable segment inside the bytes given (a truncated object would fault
/// in the loader, not fail).
static Error checkSharedObject(StringRef code, StringRef name) {
  auto bad = [&](const Twine &why) {
    return engineError(name, "the code section is not a shared object for "
                             "this machine: " + why);
  };
  Elf64_Ehdr header;
  if (code.size() < sizeof(header))
    return bad("it has " + Twine(code.size()) + " bytes, less than an ELF "
               "header");
  std::memcpy(&header, code.data(), sizeof(header));
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return bad("no ELF magic");
  if (header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB)
    return bad("not a little-endian 64-bit object");
  if (header.e_type != ET_DYN)
    return bad("not a shared object (ELF type " + Twine(header.e_type) + ")");
#if defined(__x86_64__)
  constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
  constexpr uint16_t kMachine = EM_AARCH64;
#else
  constexpr uint16_t kMachine = 0;
#endif
  if (kMachine && header.e_machine != kMachine)
    return bad("built for ELF machine " + Twine(header.e_machine));
  uint64_t size = code.size();
  auto within = [&](uint64_t offset, uint64_t bytes) {
    return offset <= size && bytes <= size - offset;
  };
  if (header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
      !within(header.e_phoff, uint64_t(header.e_phnum) * sizeof(Elf64_Phdr)))
    return bad("its program headers lie outside the section");
  if (header.e_shnum &&
      (header.e_shentsize != sizeof(Elf64_Shdr) ||
       !within(header.e_shoff, uint64_t(header.e_shnum) * sizeof(Elf64_Shdr))))
    return bad("its section headers lie outside the section");
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment;
    std::memcpy(&segment, code.data() + header.e_phoff + i * sizeof(segment),
                sizeof(segment));
    if (segment.p_type != PT_LOAD && segment.p_type != PT_DYNAMIC)
      continue;
    if (!within(segment.p_offset, segment.p_filesz) ||
        segment.p_filesz > segment.p_memsz)
      return bad("segment " + Twine(i) + " (" + Twine(segment.p_filesz) +
                 " bytes at offset " + Twine(segment.p_offset) +
                 ") lies outside its " + Twine(size) + " bytes");
  }
  return Error::success();
}

static Expected<void *> openLibrary(StringRef code, StringRef name,
                                    int &codeFile) {
  int fd = -1;
  SmallString<128> path;
#ifdef MFD_CLOEXEC
  fd = memfd_create("int21-engine", MFD_CLOEXEC);
#endif
  bool temporary = false;
  if (fd >= 0) {
    path = ("/proc/self/fd/" + Twine(fd)).str();
    if (!sys::fs::exists(path)) {
      close(fd);
      fd = -1;
    }
  }
  if (fd < 0) {
    if (std::error_code ec =
            sys::fs::createTemporaryFile("int21-engine", "so", fd, path))
      return engineError(name, "cannot create a file for the code: " +
                                   ec.message());
    temporary = true;
  }
  const char *p = code.data();
  size_t left = code.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n <= 0) {
      close(fd);
      if (temporary)
        sys::fs::remove(path);
      return engineError(name, "cannot write the code out for loading");
    }
    p += n;
    left -= n;
  }
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string error = handle ? "" : dlerror();
  if (handle && !temporary)
    codeFile = fd;
  else
    close(fd);
  if (temporary)
    sys::fs::remove(path);
  if (!handle)
    return engineError(name, "cannot load the engine's code: " + error);
  return handle;
}

Expected<std::unique_ptr<Engine>> Engine::load(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false,
      /*IsVolatile=*/false, Align(kAlign));
  if (!buffer)
    return engineError(path, "cannot read: " + buffer.getError().message());
  return load(std::move(*buffer), path);
}

/// Checks the engine's tensors: every dtype has a size.
static Error checkSpecs(const EngineMetadata &meta, StringRef name) {
  for (const TensorSpec &spec : meta.inputs)
    if (dtypeSize(spec.dtype) == 0)
      return engineError(name, "input '" + spec.name + "' has no dtype size");
  return Error::success();
}

Expected<std::unique_ptr<Engine>>
Engine::load(std::unique_ptr<MemoryBuffer> buffer, StringRef name) {
  Expected<EngineFile> file = EngineFile::read(std::move(buffer), name);
  if (!file)
    return file.takeError();
  const EngineMetadata &meta = file->metadata();
  std::string host = hostTarget();
  if (isGPUTarget(meta.target)) {
    // The plan and code are checked before the driver is looked for: a
    // broken engine is reported as such on any machine.
    Expected<GPUPlan> plan = readGPUPlan(*file, name);
    if (!plan)
      return plan.takeError();
    if (Error error = checkSpecs(meta, name))
      return std::move(error);
    std::unique_ptr<Engine> engine(new Engine(std::move(*file), name.str()));
    Expected<std::unique_ptr<CudaExecutor>> executor =
        CudaExecutor::create(engine->file, std::move(*plan), name);
    if (!executor)
      return executor.takeError();
    engine->cuda = std::move(*executor);
    return engine;
  }
  if (!StringRef(meta.target).starts_with("cpu:"))
    return engineError(name, "engine was compiled for target '" + meta.target +
                                 "'; this runtime runs 'cpu' engines and "
                                 "NVIDIA GPU ('sm_XY') engines only");
  if (meta.target != host)
    return engineError(name, "engine was compiled for target '" + meta.target +
                                 "', this machine is '" + host +
                                 "'; recompile the model here");
  std::optional<Section> weights = file->find(SectionKind::Weights, "weights");
  bool anyWeights = !meta.weights.empty();
  for (const EngineSpecialization &special : meta.specializations)
    anyWeights |= !special.metadata.weights.empty();
  if (anyWeights && !weights)
    return engineError(name, "engine lists weights but has no weights section");
  if (Error error = checkSpecs(meta, name))
    return std::move(error);
  // The generic code's weights are laid out in order; a specialisation's
  // share them where the bytes are the same, so only their bounds and
  // alignment are checked.
  for (auto [i, weight] : llvm::enumerate(meta.weights))
    if (i > 0 && weight.offset < meta.weights[i - 1].offset +
                                     meta.weights[i - 1].size)
      return engineError(name, "weight '" + weight.name + "' at offset " +
                                   Twine(weight.offset) +
                                   " is not where the weights section lays it "
                                   "out (64-byte aligned, after the one "
                                   "before)");

  std::unique_ptr<Engine> engine(new Engine(std::move(*file), name.str()));
  const char *base = nullptr;
  if (weights) {
    base = weights->data.data();
    if (reinterpret_cast<uintptr_t>(base) % kAlign != 0) {
      size_t bytes = alignTo(std::max<size_t>(weights->data.size(), 1), kAlign);
      void *copy = std::aligned_alloc(kAlign, bytes);
      if (!copy)
        return engineError(name, "cannot allocate memory for the weights");
      std::memcpy(copy, base, weights->data.size());
      engine->alignedWeights = std::shared_ptr<void>(copy, std::free);
      base = static_cast<const char *>(copy);
    }
  }
  const EngineMetadata &loaded = engine->metadata();
  Expected<std::unique_ptr<Code>> generic =
      loadCode(engine->file, loaded, "cpu.so", base, name);
  if (!generic)
    return generic.takeError();
  engine->codes.push_back(std::move(*generic));
  for (const EngineSpecialization &special : loaded.specializations) {
    Expected<std::unique_ptr<Code>> code =
        loadCode(engine->file, special.metadata, special.code, base, name);
    if (!code)
      return code.takeError();
    engine->codes.push_back(std::move(*code));
  }
  return engine;
}

Expected<std::unique_ptr<Engine::Code>>
Engine::loadCode(const EngineFile &file, const EngineMetadata &meta,
                 StringRef section, const char *weights, StringRef name) {
  std::optional<Section> code = file.find(SectionKind::Code, section);
  if (!code)
    return engineError(name, "engine has no CPU code section '" + section +
                                 "'");
  std::optional<Section> weightSection =
      file.find(SectionKind::Weights, "weights");
  uint64_t weightBytes = weightSection ? weightSection->data.size() : 0;
  for (const WeightSpec &weight : meta.weights) {
    if (weight.offset > weightBytes || weight.size > weightBytes - weight.offset)
      return engineError(name, "weight '" + weight.name +
                                   "' lies outside the weights section");
    if (weight.offset % kAlign != 0)
      return engineError(name, "weight '" + weight.name + "' at offset " +
                                   Twine(weight.offset) +
                                   " is not where the weights section lays "
                                   "it out (64-byte aligned)");
  }
  if (Error error = checkSharedObject(code->data, name))
    return std::move(error);

  auto loaded = std::make_unique<Code>();
  loaded->meta = &meta;
  Expected<void *> library = openLibrary(code->data, name, loaded->codeFile);
  if (!library)
    return library.takeError();
  loaded->library = *library;
  loaded->entry = reinterpret_cast<void (*)(void **)>(
      dlsym(loaded->library, "int21_entry"));
  if (!loaded->entry)
    return engineError(name, "engine code '" + section +
                                 "' has no int21_entry");
  if (meta.isDynamic()) {
    loaded->shapes = reinterpret_cast<int32_t (*)(int64_t *, void **)>(
        dlsym(loaded->library, "int21_shapes"));
    if (!loaded->shapes)
      return engineError(name, "engine has dynamic dimensions but its code "
                               "has no int21_shapes");
  }
  // The code says what it takes; the metadata must say the same, or a run
  // would hand the code buffers of other sizes than it reads and writes.
  const char *abi =
      static_cast<const char *>(dlsym(loaded->library, kABISymbol.data()));
  if (!abi)
    return engineError(name, "engine code has no ABI descriptor (" +
                                 kABISymbol + "): it was built by another "
                                 "int21; recompile the model");
  StringRef codeABI(abi, strnlen(abi, 1 << 24));
  if (codeABI.split('\n').first != kABIVersionLine)
    return engineError(name, "engine code was built by another int21 (its "
                             "contract is '" +
                                 codeABI.split('\n').first.take_front(40) +
                                 "', this runtime's '" + kABIVersionLine +
                                 "'); recompile the model");
  std::string mismatch = abiMismatch(codeABI, abiDescriptor(meta));
  if (!mismatch.empty())
    return engineError(name, "engine metadata does not match its code" +
                                 (section == "cpu.so"
                                      ? std::string()
                                      : " '" + section.str() + "'") +
                                 ": " + mismatch);
  // Present when the code uses OpenMP; the count is per calling thread.
  loaded->setNumThreads = reinterpret_cast<void (*)(int)>(
      dlsym(loaded->library, "omp_set_num_threads"));
  for (const WeightSpec &weight : meta.weights)
    loaded->weightPointers.push_back(weights + weight.offset);
  return loaded;
}

void Engine::setThreads(unsigned count) { threadCount = std::max(1u, count); }

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

Error Engine::checkInputValues(
    const Code *code, ArrayRef<const void *> inputs,
    ArrayRef<std::vector<int64_t>> inputShapes) const {
  const std::vector<TensorSpec> &specs =
      code ? code->meta->inputs : metadata().inputs;
  if (inputs.size() != specs.size())
    return engineError(name, "expected " + Twine(specs.size()) +
                                 " inputs, got " + Twine(inputs.size()));
  for (auto [i, data, spec] : llvm::enumerate(inputs, specs)) {
    if (spec.indexBounds.empty())
      continue;
    std::string outside;
    if (spec.isDynamic()) {
      // Bounds-checked at the shape of this run.
      if (i >= inputShapes.size())
        return engineError(name, "input '" + spec.name +
                                     "' is dynamic: give the inputs' shapes");
      TensorSpec shaped = spec;
      shaped.shape = inputShapes[i];
      outside = checkIndexBounds(shaped, data);
    } else {
      outside = checkIndexBounds(spec, data);
    }
    if (!outside.empty())
      return engineError(name, outside);
  }
  return Error::success();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") +
         (d == TensorSpec::kDynamicExtent ? std::string("?")
                                          : std::to_string(d));
  return s + "]";
}

Expected<std::vector<int64_t>>
Engine::inputExtents(ArrayRef<std::vector<int64_t>> inputShapes) const {
  const std::vector<TensorSpec> &specs = metadata().inputs;
  if (inputShapes.size() != specs.size())
    return engineError(name, "expected the shapes of " + Twine(specs.size()) +
                                 " inputs, got " + Twine(inputShapes.size()));
  std::vector<int64_t> extents;
  // The extent each dimension name took first, and where.
  llvm::StringMap<std::pair<int64_t, std::string>> named;
  for (auto [shape, spec] : llvm::zip(inputShapes, specs)) {
    if (shape.size() != spec.shape.size())
      return engineError(name, "input '" + spec.name + "' must have rank " +
                                   Twine(spec.shape.size()) + " (shape " +
                                   shapeString(spec.shape) + "), not " +
                                   Twine(shape.size()) + " (" +
                                   shapeString(shape) + ")");
    uint64_t bytes = dtypeSize(spec.dtype);
    for (auto [d, extent] : llvm::enumerate(shape)) {
      int64_t expected = spec.shape[d];
      if (extent < 0 || (extent != 0 && bytes > (uint64_t(1) << 40) /
                                                    uint64_t(extent)))
        return engineError(name, "input '" + spec.name + "' dimension " +
                                     Twine(d) + " is " + Twine(extent) +
                                     ": outside [0, 2^40 bytes]");
      bytes *= uint64_t(extent);
      if (expected != TensorSpec::kDynamicExtent) {
        if (extent != expected)
          return engineError(name, "input '" + spec.name + "' dimension " +
                                       Twine(d) + " must be " +
                                       Twine(expected) + " (shape " +
                                       shapeString(spec.shape) + "), not " +
                                       Twine(extent));
        continue;
      }
      if (spec.hasProfile() &&
          (extent < spec.profileMin[d] || extent > spec.profileMax[d]))
        return engineError(name, "input '" + spec.name + "' dimension " +
                                     Twine(d) + " is " + Twine(extent) +
                                     ", outside the engine's profile [" +
                                     Twine(spec.profileMin[d]) + ", " +
                                     Twine(spec.profileMax[d]) + "]");
      extents.push_back(extent);
      if (d >= spec.dimNames.size() || spec.dimNames[d].empty())
        continue;
      const std::string &dimName = spec.dimNames[d];
      std::string here = "input '" + spec.name + "' dimension " +
                         std::to_string(d);
      auto [it, inserted] = named.try_emplace(dimName, extent, here);
      if (!inserted && it->second.first != extent)
        return engineError(name, here + " ('" + dimName + "') is " +
                                     Twine(extent) + ", but " +
                                     it->second.second + " ('" + dimName +
                                     "') is " + Twine(it->second.first));
    }
  }
  return extents;
}

Expected<std::vector<int64_t>>
Engine::extentsFor(ArrayRef<std::vector<int64_t>> inputShapes,
                   ArrayRef<const void *> inputs) const {
  // Outputs shaped by the values of inputs need those inputs' data.
  const std::vector<std::string> &valueInputs = metadata().shapeValueInputs;
  if (!valueInputs.empty() && inputs.size() != metadata().inputs.size()) {
    std::string names;
    for (const std::string &input : valueInputs)
      names += (names.empty() ? "'" : ", '") + input + "'";
    return engineError(name, "the outputs' shapes depend on the values of "
                             "input(s) " + names +
                             ": give the inputs' data with their shapes");
  }
  Expected<std::vector<int64_t>> extents = inputExtents(inputShapes);
  if (!extents)
    return extents.takeError();
  // Values that index the inputs' dimensions (an axis, a K) are checked
  // against their bounds before the shapes are computed from them, which
  // would not say what is wrong.
  if (!valueInputs.empty())
    if (Error error = checkInputValues(nullptr, inputs, inputShapes))
      return std::move(error);
  for (const TensorSpec &spec : metadata().outputs)
    for (int64_t d : spec.shape)
      if (d == TensorSpec::kDynamicExtent)
        extents->push_back(-1);
  if (extents->size() != metadata().numExtents)
    return engineError(name, "engine metadata counts " +
                                 Twine(metadata().numExtents) +
                                 " dynamic extents, its tensors " +
                                 Twine(extents->size()));
  const Code *generic = codes.empty() ? nullptr : codes.front().get();
  if (!generic || !generic->shapes)
    return engineError(name, "engine has no code computing output shapes");
  // The arguments as int21_entry takes them, without the outputs.
  std::vector<void *> args;
  for (size_t i = 0; i < metadata().inputs.size(); ++i)
    args.push_back(i < inputs.size() ? const_cast<void *>(inputs[i])
                                     : nullptr);
  for (const void *p : generic->weightPointers)
    args.push_back(const_cast<void *>(p));
  args.resize(args.size() + metadata().numResultBuffers() +
                  (generic->meta->workspaceSize ? 1 : 0),
              nullptr);
  if (int32_t status = generic->shapes(extents->data(), args.data())) {
    const std::vector<std::string> &checks = metadata().extentChecks;
    std::string what = valueInputs.empty()
                           ? "the inputs' shapes do not fit the model"
                           : "the inputs' shapes or values do not fit the model";
    if (status > 0 && size_t(status) <= checks.size())
      return engineError(name, what + ": " + checks[status - 1]);
    return engineError(name, what + " (check " + Twine(status) +
                                 " of the engine failed)");
  }
  return extents;
}

int Engine::specializationFor(
    ArrayRef<std::vector<int64_t>> inputShapes) const {
  for (auto [i, special] : llvm::enumerate(metadata().specializations)) {
    const std::vector<TensorSpec> &inputs = special.metadata.inputs;
    if (inputs.size() == inputShapes.size() &&
        llvm::all_of(llvm::zip(inputs, inputShapes), [](auto pair) {
          return std::get<0>(pair).shape == std::get<1>(pair);
        }))
      return int(i);
  }
  return -1;
}

/// The outputs' shapes of `meta` from an extents array (the outputs'
/// extents follow the inputs'), each extent within [0, its bound in
/// `bounds`].
/// An output the run sizes (TensorSpec::sizedByRun) has the extents the run
/// gave (`ran`), 0 before it.
static Expected<std::vector<std::vector<int64_t>>>
shapesFromExtents(const EngineMetadata &meta, StringRef name,
                  ArrayRef<int64_t> extents, ArrayRef<int64_t> bounds,
                  bool ran = false) {
  std::vector<std::vector<int64_t>> result;
  size_t next = 0;
  for (const TensorSpec &spec : meta.inputs)
    for (int64_t d : spec.shape)
      next += d == TensorSpec::kDynamicExtent;
  for (const TensorSpec &spec : meta.outputs) {
    std::vector<int64_t> shape = spec.shape;
    for (int64_t &extent : shape)
      if (extent == TensorSpec::kDynamicExtent) {
        extent = extents[next];
        if (spec.sizedByRun) {
          ++next;
          if (!ran) {
            extent = 0;
            continue;
          }
          if (extent < 0)
            return engineError(name, "output '" + spec.name +
                                         "' was not written by the run");
          continue;
        }
        if (extent < 0)
          return engineError(name, "output '" + spec.name +
                                       "' got a negative extent");
        if (extent > bounds[next])
          return engineError(name, "output '" + spec.name + "' got extent " +
                                       Twine(extent) + ", above its bound " +
                                       Twine(bounds[next]));
        ++next;
      }
    result.push_back(std::move(shape));
  }
  return result;
}

Expected<std::vector<std::vector<int64_t>>>
Engine::outputShapes(ArrayRef<std::vector<int64_t>> inputShapes,
                     ArrayRef<const void *> inputs) const {
  std::vector<std::vector<int64_t>> result;
  if (!isDynamic()) {
    for (auto [shape, spec] : llvm::zip(inputShapes, metadata().inputs))
      if (shape != spec.shape)
        return engineError(name, "input '" + spec.name + "' must have shape " +
                                     shapeString(spec.shape) + ", not " +
                                     shapeString(shape));
    if (inputShapes.size() != metadata().inputs.size())
      return engineError(name, "expected the shapes of " +
                                   Twine(metadata().inputs.size()) +
                                   " inputs, got " + Twine(inputShapes.size()));
    for (const TensorSpec &spec : metadata().outputs)
      result.push_back(spec.shape);
    return result;
  }
  if (int special = specializationFor(inputShapes); special >= 0) {
    if (Expected<std::vector<int64_t>> checked = inputExtents(inputShapes);
        !checked)
      return checked.takeError();
    for (const TensorSpec &spec :
         metadata().specializations[special].metadata.outputs)
      result.push_back(spec.shape);
    return result;
  }
  Expected<std::vector<int64_t>> extents = extentsFor(inputShapes, inputs);
  if (!extents)
    return extents.takeError();
  return shapesFromExtents(metadata(), name, *extents, *extents);
}

Error Engine::run(ArrayRef<const void *> inputs,
                  ArrayRef<void *> outputs) const {
  if (isDynamic())
    return engineError(name, "engine has dynamic dimensions: give the "
                             "inputs' shapes to run it");
  return runChecked(codes.empty() ? nullptr : codes.front().get(), inputs,
                    {}, outputs, /*deviceMs=*/nullptr, nullptr);
}

Error Engine::run(ArrayRef<const void *> inputs,
                  ArrayRef<std::vector<int64_t>> inputShapes,
                  ArrayRef<void *> outputs,
                  std::vector<std::vector<int64_t>> *ranShapes,
                  std::vector<std::shared_ptr<void>> *ranBuffers) const {
  return runShaped(inputs, inputShapes, outputs, /*ms=*/nullptr, ranShapes,
                   ranBuffers);
}

Error Engine::runShaped(ArrayRef<const void *> inputs,
                        ArrayRef<std::vector<int64_t>> inputShapes,
                        ArrayRef<void *> outputs, double *ms,
                        std::vector<std::vector<int64_t>> *ranShapes,
                        std::vector<std::shared_ptr<void>> *ranBuffers) const {
  if (!isDynamic()) {
    Expected<std::vector<std::vector<int64_t>>> checked =
        outputShapes(inputShapes);
    if (!checked)
      return checked.takeError();
    if (ranShapes)
      *ranShapes = std::move(*checked);
    if (!ms)
      return run(inputs, outputs);
    Expected<double> took = runTimed(inputs, outputs);
    if (!took)
      return took.takeError();
    *ms = *took;
    return Error::success();
  }
  // The shapes are checked and the code chosen before the clock starts: a
  // static engine has them built in.
  std::vector<int64_t> extents;
  const Code *code = nullptr;
  if (int special = specializationFor(inputShapes); special >= 0) {
    if (Expected<std::vector<int64_t>> checked = inputExtents(inputShapes);
        !checked)
      return checked.takeError();
    code = codes[special + 1].get();
  } else {
    Expected<std::vector<int64_t>> computed = extentsFor(inputShapes, inputs);
    if (!computed)
      return computed.takeError();
    extents = std::move(*computed);
    code = codes.front().get();
  }
  // What the shape query gave: the run overwrites the extents it computes
  // from data, which must lie within.
  std::vector<int64_t> bounds = extents;
  // An output the run sizes: the code stores the address of the buffer it
  // allocated (int21_output) where the output's pointer would be.
  const std::vector<TensorSpec> &outSpecs = code->meta->outputs;
  std::vector<int64_t> addresses(outSpecs.size(), 0);
  SmallVector<void *> results(outputs.begin(), outputs.end());
  for (auto [i, spec] : llvm::enumerate(outSpecs))
    if (spec.sizedByRun && i < results.size())
      results[i] = &addresses[i];
  std::vector<std::shared_ptr<void>> owned(outSpecs.size());
  auto start = std::chrono::steady_clock::now();
  Error ranError =
      runChecked(code, inputs, inputShapes, results, /*deviceMs=*/nullptr,
                 extents.empty() ? nullptr : extents.data());
  auto end = std::chrono::steady_clock::now();
  for (auto [i, address] : llvm::enumerate(addresses))
    if (address)
      owned[i] = std::shared_ptr<void>(
          reinterpret_cast<void *>(static_cast<uintptr_t>(address)), std::free);
  if (ranError)
    return ranError;
  for (auto [i, spec] : llvm::enumerate(outSpecs))
    if (spec.sizedByRun && !owned[i])
      return engineError(name, "the run could not allocate output '" +
                                   spec.name + "'");
  if (ranBuffers)
    *ranBuffers = std::move(owned);
  if (ms)
    *ms = std::chrono::duration<double, std::milli>(end - start).count();
  if (!ranShapes)
    return Error::success();
  // The outputs' shapes: a specialisation's are static; the generic code's
  // follow the extents array, where the run wrote those computed from data.
  ranShapes->clear();
  if (code != codes.front().get()) {
    for (const TensorSpec &spec : code->meta->outputs)
      ranShapes->push_back(spec.shape);
    return Error::success();
  }
  Expected<std::vector<std::vector<int64_t>>> shapes =
      shapesFromExtents(metadata(), name, extents, bounds, /*ran=*/true);
  if (!shapes)
    return shapes.takeError();
  *ranShapes = std::move(*shapes);
  return Error::success();
}

Error Engine::runChecked(const Code *code, ArrayRef<const void *> inputs,
                         ArrayRef<std::vector<int64_t>> inputShapes,
                         ArrayRef<void *> outputs, double *deviceMs,
                         int64_t *extents) const {
  if (Error error = checkInputValues(code, inputs, inputShapes))
    return error;
  if (outputs.size() != metadata().outputs.size())
    return engineError(name, "expected " + Twine(metadata().outputs.size()) +
                                 " outputs, got " + Twine(outputs.size()));
  if (!cuda && !code)
    return engineError(name, "engine has no code to run");
  // The code writes the index checks after the outputs: [least, greatest]
  // of each node's computed indices, 16 bytes at most.
  const std::vector<TensorSpec> &checks =
      cuda ? metadata().checks : code->meta->checks;
  SmallVector<std::array<int64_t, 2>> checkData(checks.size());
  SmallVector<void *> results(outputs.begin(), outputs.end());
  for (std::array<int64_t, 2> &data : checkData)
    results.push_back(data.data());
  if (Error error = cuda ? cuda->run(inputs, results, deviceMs)
                         : runOnHost(*code, inputs, results, extents))
    return error;
  for (auto [check, data] : llvm::zip(checks, checkData)) {
    std::string outside = checkComputedIndices(check, data.data());
    if (!outside.empty())
      return engineError(name, outside);
  }
  return Error::success();
}

Error Engine::runOnHost(const Code &code, ArrayRef<const void *> inputs,
                        ArrayRef<void *> results, int64_t *extents) const {
  std::vector<void *> args;
  args.reserve(inputs.size() + code.weightPointers.size() + results.size() +
               2);
  for (const void *p : inputs)
    args.push_back(const_cast<void *>(p));
  for (const void *p : code.weightPointers)
    args.push_back(const_cast<void *>(p));
  for (void *p : results)
    args.push_back(p);
  std::shared_ptr<void> workspace;
  if (uint64_t size = code.meta->workspaceSize) {
    {
      std::lock_guard<std::mutex> lock(code.workspaceMutex);
      if (!code.freeWorkspaces.empty()) {
        workspace = std::move(code.freeWorkspaces.back());
        code.freeWorkspaces.pop_back();
      }
    }
    if (!workspace) {
      void *p = std::aligned_alloc(kAlign, alignTo(size, kAlign));
      if (!p)
        return engineError(name, "cannot allocate " + Twine(size) +
                                     " bytes of workspace");
      workspace = std::shared_ptr<void>(p, std::free);
    }
    args.push_back(workspace.get());
  }
  if (extents)
    args.push_back(extents);
  if (code.setNumThreads) {
    bindThreadsToCores(threadCount);
    code.setNumThreads(static_cast<int>(threadCount));
  }
  code.entry(args.data());
  if (workspace) {
    std::lock_guard<std::mutex> lock(code.workspaceMutex);
    code.freeWorkspaces.push_back(std::move(workspace));
  }
  return Error::success();
}

Expected<std::vector<Tensor>> Engine::run(ArrayRef<Tensor> inputs) const {
  const std::vector<TensorSpec> &specs = metadata().inputs;
  if (inputs.size() != specs.size())
    return engineError(name, "expected " + Twine(specs.size()) +
                                 " inputs, got " + Twine(inputs.size()));
  std::vector<const void *> in;
  std::vector<std::vector<int64_t>> shapes;
  for (auto [tensor, spec] : llvm::zip(inputs, specs)) {
    if (tensor.dtype() != spec.dtype)
      return engineError(name, "input '" + spec.name + "' must be " +
                                   dtypeName(spec.dtype) + ", not " +
                                   dtypeName(tensor.dtype()));
    in.push_back(tensor.data());
    shapes.push_back(tensor.shape());
  }
  Expected<std::vector<std::vector<int64_t>>> outShapes =
      outputShapes(shapes, in);
  if (!outShapes)
    return outShapes.takeError();
  std::vector<Tensor> results;
  std::vector<void *> out;
  for (auto [spec, shape] : llvm::zip(metadata().outputs, *outShapes)) {
    results.emplace_back(spec.dtype, shape);
    out.push_back(results.back().data());
  }
  std::vector<std::vector<int64_t>> ranShapes;
  std::vector<std::shared_ptr<void>> ranBuffers;
  if (Error error = run(in, shapes, out, &ranShapes, &ranBuffers))
    return std::move(error);
  for (auto [i, tensor, shape] : llvm::enumerate(results, ranShapes)) {
    if (i < ranBuffers.size() && ranBuffers[i]) {
      // Sized by the run: its elements are in the buffer the run allocated.
      tensor = Tensor(tensor.dtype(), std::move(shape),
                      std::move(ranBuffers[i]));
      continue;
    }
    if (tensor.shape() != shape)
      tensor.shrinkTo(std::move(shape));
  }
  return results;
}

Expected<double> Engine::runTimed(ArrayRef<const void *> inputs,
                                  ArrayRef<void *> outputs) const {
  if (cuda) {
    double ms = 0;
    if (Error error = runChecked(nullptr, inputs, {}, outputs, &ms, nullptr))
      return std::move(error);
    return ms;
  }
  auto start = std::chrono::steady_clock::now();
  if (Error error = run(inputs, outputs))
    return std::move(error);
  auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(end - start).count();
}

Expected<double> Engine::runTimed(ArrayRef<const void *> inputs,
                                  ArrayRef<std::vector<int64_t>> inputShapes,
                                  ArrayRef<void *> outputs) const {
  double ms = 0;
  if (Error error = runShaped(inputs, inputShapes, outputs, &ms))
    return std::move(error);
  return ms;
}

std::string Engine::deviceDescription() const {
  return cuda ? cuda->deviceDescription() : std::string("cpu");
}
