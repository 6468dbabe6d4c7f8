//===- GPUPlan.cpp - write, read and validate GPU engine plans ------------===//
//
// Reading never trusts the file: every field is type-checked, every buffer
// and kernel looked up, every byte range checked without overflow, so that a
// corrupt or hand-edited plan is an error naming the engine and the step
// rather than a fault on the device.
//
//===----------------------------------------------------------------------===//

#include "int21/Runtime/GPUPlan.h"
#include "int21/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace llvm;
using namespace int21::runtime;

namespace {
constexpr StringLiteral kBufferKinds[] = {"input", "weight", "output",
                                          "workspace"};
constexpr StringLiteral kArgKinds[] = {"ptr", "i32", "i64", "f32", "f64"};
// Limits every CUDA device since compute capability 3.0 shares.
constexpr uint64_t kMaxGridX = (1ull << 31) - 1;
constexpr uint64_t kMaxGridYZ = 65535;
constexpr uint64_t kMaxBlockThreads = 1024;
constexpr uint64_t kMaxBlockZ = 64;
} // namespace

StringRef int21::runtime::bufferKindName(BufferKind kind) {
  return kBufferKinds[static_cast<unsigned>(kind)];
}

StringRef int21::runtime::argKindName(ArgKind kind) {
  return kArgKinds[static_cast<unsigned>(kind)];
}

size_t int21::runtime::argKindSize(ArgKind kind) {
  switch (kind) {
  case ArgKind::I32:
  case ArgKind::F32:
    return 4;
  case ArgKind::Pointer:
  case ArgKind::I64:
  case ArgKind::F64:
    return 8;
  }
  return 0;
}

KernelArg KernelArg::ptr(BufferRef ref) {
  KernelArg arg;
  arg.kind = ArgKind::Pointer;
  arg.pointer = ref;
  return arg;
}

KernelArg KernelArg::i32(int32_t value) {
  KernelArg arg;
  arg.kind = ArgKind::I32;
  arg.bits = static_cast<uint32_t>(value);
  return arg;
}

KernelArg KernelArg::i64(int64_t value) {
  KernelArg arg;
  arg.kind = ArgKind::I64;
  arg.bits = static_cast<uint64_t>(value);
  return arg;
}

KernelArg KernelArg::f32(float value) {
  KernelArg arg;
  arg.kind = ArgKind::F32;
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  arg.bits = bits;
  return arg;
}

KernelArg KernelArg::f64(double value) {
  KernelArg arg;
  arg.kind = ArgKind::F64;
  std::memcpy(&arg.bits, &value, 8);
  return arg;
}

bool GPUStep::operator==(const GPUStep &other) const {
  if (kind != other.kind)
    return false;
  switch (kind) {
  case Kind::Launch:
    return module == other.module && kernel == other.kernel &&
           grid == other.grid && block == other.block &&
           sharedBytes == other.sharedBytes && args == other.args;
  case Kind::Copy:
    return src == other.src && dst == other.dst && bytes == other.bytes;
  case Kind::Memset:
    return dst == other.dst && bytes == other.bytes && value == other.value;
  }
  return false;
}

std::string GPUStep::describe() const {
  switch (kind) {
  case Kind::Launch:
    return "launch " + module + "::" + kernel;
  case Kind::Copy:
    return "copy";
  case Kind::Memset:
    return "memset";
  }
  return "step";
}

const GPUKernel *GPUPlan::findKernel(StringRef module, StringRef kernel) const {
  for (const GPUModule &m : modules)
    if (m.name == module)
      for (const GPUKernel &k : m.kernels)
        if (k.name == kernel)
          return &k;
  return nullptr;
}

bool int21::runtime::isGPUTarget(StringRef target) {
  return smVersion(target).has_value();
}

std::optional<unsigned> int21::runtime::smVersion(StringRef target) {
  if (!target.consume_front("sm_"))
    return std::nullopt;
  target.consume_back("a");
  unsigned version;
  if (target.empty() || target.getAsInteger(10, version) || version < 10)
    return std::nullopt;
  return version;
}

std::optional<uint64_t> int21::runtime::bufferSize(const EngineMetadata &meta,
                                                   BufferKind kind,
                                                   unsigned index) {
  auto tensorBytes = [](const TensorSpec &spec) {
    uint64_t n = dtypeSize(spec.dtype);
    for (int64_t d : spec.shape)
      n *= static_cast<uint64_t>(d);
    return n;
  };
  switch (kind) {
  case BufferKind::Input:
    if (index < meta.inputs.size())
      return tensorBytes(meta.inputs[index]);
    return std::nullopt;
  case BufferKind::Output:
    // The outputs, then the index checks.
    if (index < meta.numResultBuffers())
      return tensorBytes(meta.resultBuffer(index));
    return std::nullopt;
  case BufferKind::Weight:
    if (index < meta.weights.size())
      return meta.weights[index].size;
    return std::nullopt;
  case BufferKind::Workspace:
    if (index == 0 && meta.workspaceSize > 0)
      return meta.workspaceSize;
    return std::nullopt;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static json::Value refToJSON(const BufferRef &ref) {
  json::Object object{{"buffer", bufferKindName(ref.kind)},
                      {"offset", static_cast<int64_t>(ref.offset)}};
  if (ref.kind != BufferKind::Workspace)
    object["index"] = static_cast<int64_t>(ref.index);
  if (ref.size)
    object["size"] = static_cast<int64_t>(ref.size);
  return std::move(object);
}

/// A float as a JSON number when it is finite, else its bits as a hex string
/// (JSON has no NaN or infinity).
static json::Value floatToJSON(double value, uint64_t bits, unsigned width) {
  if (std::isfinite(value))
    return value;
  std::string text;
  raw_string_ostream os(text);
  os << format_hex(bits, 2 + width / 4);
  return text;
}

static json::Value argToJSON(const KernelArg &arg) {
  StringRef key = argKindName(arg.kind);
  switch (arg.kind) {
  case ArgKind::Pointer:
    return json::Object{{key, refToJSON(arg.pointer)}};
  case ArgKind::I32:
    return json::Object{{key, static_cast<int64_t>(static_cast<int32_t>(
                                  static_cast<uint32_t>(arg.bits)))}};
  case ArgKind::I64:
    return json::Object{{key, static_cast<int64_t>(arg.bits)}};
  case ArgKind::F32: {
    uint32_t bits = static_cast<uint32_t>(arg.bits);
    float value;
    std::memcpy(&value, &bits, 4);
    return json::Object{{key, floatToJSON(value, bits, 32)}};
  }
  case ArgKind::F64: {
    double value;
    std::memcpy(&value, &arg.bits, 8);
    return json::Object{{key, floatToJSON(value, arg.bits, 64)}};
  }
  }
  return nullptr;
}

static json::Value dimsToJSON(const std::array<uint32_t, 3> &dims) {
  return json::Array{static_cast<int64_t>(dims[0]),
                     static_cast<int64_t>(dims[1]),
                     static_cast<int64_t>(dims[2])};
}

json::Value int21::runtime::gpuPlanToJSON(const GPUPlan &plan) {
  json::Array modules;
  for (const GPUModule &module : plan.modules) {
    json::Array kernels;
    for (const GPUKernel &kernel : module.kernels) {
      json::Array params;
      for (ArgKind kind : kernel.params)
        params.push_back(argKindName(kind));
      kernels.push_back(
          json::Object{{"name", kernel.name}, {"params", std::move(params)}});
    }
    modules.push_back(
        json::Object{{"name", module.name}, {"kernels", std::move(kernels)}});
  }
  json::Array steps;
  for (const GPUStep &step : plan.steps) {
    switch (step.kind) {
    case GPUStep::Kind::Launch: {
      json::Array args;
      for (const KernelArg &arg : step.args)
        args.push_back(argToJSON(arg));
      steps.push_back(json::Object{{"op", "launch"},
                                   {"module", step.module},
                                   {"kernel", step.kernel},
                                   {"grid", dimsToJSON(step.grid)},
                                   {"block", dimsToJSON(step.block)},
                                   {"shared", step.sharedBytes},
                                   {"args", std::move(args)}});
      break;
    }
    case GPUStep::Kind::Copy:
      steps.push_back(
          json::Object{{"op", "copy"},
                       {"src", refToJSON(step.src)},
                       {"dst", refToJSON(step.dst)},
                       {"bytes", static_cast<int64_t>(step.bytes)}});
      break;
    case GPUStep::Kind::Memset:
      steps.push_back(
          json::Object{{"op", "memset"},
                       {"dst", refToJSON(step.dst)},
                       {"value", step.value},
                       {"bytes", static_cast<int64_t>(step.bytes)}});
      break;
    }
  }
  return json::Object{{"version", kGPUPlanVersion},
                      {"modules", std::move(modules)},
                      {"steps", std::move(steps)}};
}

std::string int21::runtime::gpuPlanToString(const GPUPlan &plan, bool pretty) {
  std::string text;
  raw_string_ostream os(text);
  if (pretty)
    os << formatv("{0:2}", gpuPlanToJSON(plan));
  else
    os << gpuPlanToJSON(plan);
  return text;
}

static void printRef(const BufferRef &ref, raw_ostream &os) {
  os << bufferKindName(ref.kind);
  if (ref.kind != BufferKind::Workspace)
    os << " " << ref.index;
  os << " +" << ref.offset;
  if (ref.size)
    os << " [" << ref.size << "]";
}

void int21::runtime::printGPUPlan(const GPUPlan &plan, raw_ostream &os) {
  for (const GPUModule &module : plan.modules) {
    os << "module " << module.name << ":";
    for (auto [k, kernel] : llvm::enumerate(module.kernels)) {
      os << (k ? ", " : " ") << kernel.name << "(";
      for (auto [p, kind] : llvm::enumerate(kernel.params))
        os << (p ? ", " : "") << argKindName(kind);
      os << ")";
    }
    os << "\n";
  }
  for (auto [s, step] : llvm::enumerate(plan.steps)) {
    os << "step " << s << ": ";
    switch (step.kind) {
    case GPUStep::Kind::Launch:
      os << step.describe() << " grid " << step.grid[0] << "x" << step.grid[1]
         << "x" << step.grid[2] << " block " << step.block[0] << "x"
         << step.block[1] << "x" << step.block[2] << " shared "
         << step.sharedBytes << " (";
      for (auto [a, arg] : llvm::enumerate(step.args)) {
        if (a)
          os << ", ";
        if (arg.kind == ArgKind::Pointer) {
          printRef(arg.pointer, os);
          continue;
        }
        os << argKindName(arg.kind) << " ";
        if (arg.kind == ArgKind::I32)
          os << static_cast<int32_t>(static_cast<uint32_t>(arg.bits));
        else if (arg.kind == ArgKind::I64)
          os << static_cast<int64_t>(arg.bits);
        else if (arg.kind == ArgKind::F32) {
          uint32_t bits = static_cast<uint32_t>(arg.bits);
          float value;
          std::memcpy(&value, &bits, 4);
          os << format("%g", value);
        } else {
          double value;
          std::memcpy(&value, &arg.bits, 8);
          os << format("%g", value);
        }
      }
      os << ")\n";
      break;
    case GPUStep::Kind::Copy:
      os << "copy " << step.bytes << " bytes ";
      printRef(step.src, os);
      os << " -> ";
      printRef(step.dst, os);
      os << "\n";
      break;
    case GPUStep::Kind::Memset:
      os << "memset " << step.bytes << " bytes of ";
      printRef(step.dst, os);
      os << " to " << static_cast<unsigned>(step.value) << "\n";
      break;
    }
  }
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
/// Reads one plan, keeping where it is (the step, the field) for errors.
class PlanReader {
public:
  explicit PlanReader(StringRef path) : path(path) {}

  Expected<GPUPlan> read(const json::Value &root);

private:
  Error error(const Twine &message) const {
    return createStringError(inconvertibleErrorCode(),
                             path + ": " + where + message);
  }
  Expected<uint64_t> unsignedField(const json::Object &object, StringRef key,
                                   std::optional<uint64_t> fallback = {});
  Expected<std::string> stringField(const json::Object &object, StringRef key);
  Expected<BufferRef> readRef(const json::Value *value, StringRef what);
  Expected<KernelArg> readArg(const json::Value &value, unsigned index);
  Expected<std::array<uint32_t, 3>> readDims(const json::Object &object,
                                             StringRef key);
  Expected<GPUStep> readStep(const json::Value &value);

  StringRef path;
  /// "plan step 3", "plan module 0": what is being read.
  std::string subject;
  /// The prefix of errors: the subject and, once known, what the step does.
  std::string where;
};
} // namespace

Expected<uint64_t> PlanReader::unsignedField(const json::Object &object,
                                             StringRef key,
                                             std::optional<uint64_t> fallback) {
  const json::Value *value = object.get(key);
  if (!value) {
    if (fallback)
      return *fallback;
    return error("'" + key + "' is missing");
  }
  std::optional<int64_t> n = value->getAsInteger();
  if (!n || *n < 0)
    return error("'" + key + "' must be a non-negative integer");
  return static_cast<uint64_t>(*n);
}

Expected<std::string> PlanReader::stringField(const json::Object &object,
                                              StringRef key) {
  std::optional<StringRef> s = object.getString(key);
  if (!s || s->empty())
    return error("'" + key + "' must be a non-empty string");
  return s->str();
}

Expected<BufferRef> PlanReader::readRef(const json::Value *value,
                                        StringRef what) {
  const json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object)
    return error(what + " must be an object {buffer, index, offset[, size]}");
  std::optional<StringRef> buffer = object->getString("buffer");
  BufferRef ref;
  const auto *kind =
      buffer ? llvm::find(kBufferKinds, *buffer) : std::end(kBufferKinds);
  if (kind == std::end(kBufferKinds))
    return error(what + ": unknown buffer '" +
                 (buffer ? *buffer : StringRef("?")) +
                 "' (input, weight, output or workspace)");
  ref.kind = static_cast<BufferKind>(kind - std::begin(kBufferKinds));
  Expected<uint64_t> index = unsignedField(*object, "index", uint64_t(0));
  Expected<uint64_t> offset =
      index ? unsignedField(*object, "offset") : index.takeError();
  Expected<uint64_t> size =
      offset ? unsignedField(*object, "size", uint64_t(0)) : offset.takeError();
  if (!size)
    return size.takeError();
  if (*index > UINT32_MAX)
    return error(what + ": buffer index " + Twine(*index) + " is too large");
  ref.index = static_cast<unsigned>(*index);
  ref.offset = *offset;
  ref.size = *size;
  return ref;
}

/// A float field: a number, or its bits as a "0x..." string.
static std::optional<uint64_t> floatBits(const json::Value &value,
                                         unsigned width) {
  if (std::optional<StringRef> text = value.getAsString()) {
    uint64_t bits;
    StringRef digits = *text;
    if (!digits.consume_front("0x") || digits.getAsInteger(16, bits) ||
        (width == 32 && bits > UINT32_MAX))
      return std::nullopt;
    return bits;
  }
  std::optional<double> number = value.getAsNumber();
  if (!number)
    return std::nullopt;
  if (width == 32) {
    float f = static_cast<float>(*number);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  uint64_t bits;
  std::memcpy(&bits, &*number, 8);
  return bits;
}

Expected<KernelArg> PlanReader::readArg(const json::Value &value,
                                        unsigned index) {
  std::string what = ("argument " + Twine(index)).str();
  const json::Object *object = value.getAsObject();
  if (!object || object->size() != 1)
    return error(what + " must be an object with one key (ptr, i32, i64, "
                        "f32 or f64)");
  const auto &[key, inner] = *object->begin();
  const auto *kind = llvm::find(kArgKinds, key.str());
  if (kind == std::end(kArgKinds))
    return error(what + ": unknown kind '" + key.str() +
                 "' (ptr, i32, i64, f32 or f64)");
  KernelArg arg;
  arg.kind = static_cast<ArgKind>(kind - std::begin(kArgKinds));
  switch (arg.kind) {
  case ArgKind::Pointer: {
    Expected<BufferRef> ref = readRef(&inner, what);
    if (!ref)
      return ref.takeError();
    arg.pointer = *ref;
    return arg;
  }
  case ArgKind::I32: {
    std::optional<int64_t> n = inner.getAsInteger();
    if (!n || *n < INT32_MIN || *n > UINT32_MAX)
      return error(what + ": i32 value must be a 32-bit integer");
    arg.bits = static_cast<uint32_t>(*n);
    return arg;
  }
  case ArgKind::I64: {
    std::optional<int64_t> n = inner.getAsInteger();
    if (!n)
      return error(what + ": i64 value must be an integer");
    arg.bits = static_cast<uint64_t>(*n);
    return arg;
  }
  case ArgKind::F32:
  case ArgKind::F64: {
    unsigned width = arg.kind == ArgKind::F32 ? 32 : 64;
    std::optional<uint64_t> bits = floatBits(inner, width);
    if (!bits)
      return error(what + ": " + key.str() +
                   " value must be a number or its bits as \"0x...\"");
    arg.bits = *bits;
    return arg;
  }
  }
  return arg;
}

Expected<std::array<uint32_t, 3>>
PlanReader::readDims(const json::Object &object, StringRef key) {
  const json::Array *array = object.getArray(key);
  if (!array || array->size() != 3)
    return error("'" + key + "' must be a list of 3 sizes (x, y, z)");
  std::array<uint32_t, 3> dims;
  for (unsigned i = 0; i < 3; ++i) {
    std::optional<int64_t> n = (*array)[i].getAsInteger();
    if (!n || *n < 1 || *n > UINT32_MAX)
      return error("'" + key + "' sizes must be positive 32-bit integers");
    dims[i] = static_cast<uint32_t>(*n);
  }
  return dims;
}

Expected<GPUStep> PlanReader::readStep(const json::Value &value) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return error("must be an object");
  std::optional<StringRef> op = object->getString("op");
  GPUStep step;
  if (op == "launch") {
    step.kind = GPUStep::Kind::Launch;
    Expected<std::string> module = stringField(*object, "module");
    if (!module)
      return module.takeError();
    Expected<std::string> kernel = stringField(*object, "kernel");
    if (!kernel)
      return kernel.takeError();
    step.module = *module;
    step.kernel = *kernel;
    where = subject + " (launch " + step.module + "::" + step.kernel + "): ";
    Expected<std::array<uint32_t, 3>> grid = readDims(*object, "grid");
    if (!grid)
      return grid.takeError();
    Expected<std::array<uint32_t, 3>> block = readDims(*object, "block");
    if (!block)
      return block.takeError();
    step.grid = *grid;
    step.block = *block;
    Expected<uint64_t> shared = unsignedField(*object, "shared", uint64_t(0));
    if (!shared)
      return shared.takeError();
    if (*shared > UINT32_MAX)
      return error("'shared' is too large");
    step.sharedBytes = static_cast<uint32_t>(*shared);
    const json::Array *args = object->getArray("args");
    if (!args)
      return error("'args' must be a list");
    for (auto [i, arg] : llvm::enumerate(*args)) {
      Expected<KernelArg> parsed = readArg(arg, i);
      if (!parsed)
        return parsed.takeError();
      step.args.push_back(*parsed);
    }
    return step;
  }
  if (op == "copy" || op == "memset") {
    step.kind = op == "copy" ? GPUStep::Kind::Copy : GPUStep::Kind::Memset;
    where = subject + " (" + op->str() + "): ";
    if (step.kind == GPUStep::Kind::Copy) {
      Expected<BufferRef> src = readRef(object->get("src"), "'src'");
      if (!src)
        return src.takeError();
      step.src = *src;
    } else {
      Expected<uint64_t> byte = unsignedField(*object, "value", uint64_t(0));
      if (!byte)
        return byte.takeError();
      if (*byte > 255)
        return error("'value' must be a byte (0 to 255)");
      step.value = static_cast<uint8_t>(*byte);
    }
    Expected<BufferRef> dst = readRef(object->get("dst"), "'dst'");
    if (!dst)
      return dst.takeError();
    step.dst = *dst;
    Expected<uint64_t> bytes = unsignedField(*object, "bytes");
    if (!bytes)
      return bytes.takeError();
    step.bytes = *bytes;
    return step;
  }
  return error("unknown op '" + (op ? *op : StringRef("?")) +
               "' (launch, copy or memset)");
}

Expected<GPUPlan> PlanReader::read(const json::Value &root) {
  const json::Object *object = root.getAsObject();
  if (!object)
    return error("plan is not a JSON object");
  std::optional<int64_t> version = object->getInteger("version");
  if (version != kGPUPlanVersion)
    return error("plan version " +
                 (version ? Twine(*version) : Twine("(none)")) +
                 " is not supported (this runtime reads version " +
                 Twine(kGPUPlanVersion) + "); recompile the model");
  GPUPlan plan;
  const json::Array *modules = object->getArray("modules");
  const json::Array *steps = object->getArray("steps");
  if (!modules || !steps)
    return error("plan needs a 'modules' and a 'steps' list");
  for (auto [m, value] : llvm::enumerate(*modules)) {
    where = ("plan module " + Twine(m) + ": ").str();
    const json::Object *module = value.getAsObject();
    if (!module)
      return error("must be an object {name, kernels}");
    GPUModule parsed;
    Expected<std::string> name = stringField(*module, "name");
    if (!name)
      return name.takeError();
    parsed.name = *name;
    const json::Array *kernels = module->getArray("kernels");
    if (!kernels)
      return error("'kernels' must be a list");
    for (const json::Value &k : *kernels) {
      const json::Object *kernel = k.getAsObject();
      if (!kernel)
        return error("a kernel must be an object {name, params}");
      GPUKernel parsedKernel;
      Expected<std::string> kernelName = stringField(*kernel, "name");
      if (!kernelName)
        return kernelName.takeError();
      parsedKernel.name = *kernelName;
      const json::Array *params = kernel->getArray("params");
      if (!params)
        return error("kernel '" + parsedKernel.name +
                     "': 'params' must be a list");
      for (const json::Value &p : *params) {
        std::optional<StringRef> kind = p.getAsString();
        const auto *it =
            kind ? llvm::find(kArgKinds, *kind) : std::end(kArgKinds);
        if (it == std::end(kArgKinds))
          return error("kernel '" + parsedKernel.name +
                       "': unknown parameter kind '" +
                       (kind ? *kind : StringRef("?")) + "'");
        parsedKernel.params.push_back(
            static_cast<ArgKind>(it - std::begin(kArgKinds)));
      }
      parsed.kernels.push_back(std::move(parsedKernel));
    }
    plan.modules.push_back(std::move(parsed));
  }
  for (auto [s, value] : llvm::enumerate(*steps)) {
    subject = ("plan step " + Twine(s)).str();
    where = subject + ": ";
    Expected<GPUStep> step = readStep(value);
    if (!step)
      return step.takeError();
    plan.steps.push_back(std::move(*step));
  }
  return plan;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

static Error planError(StringRef path, const Twine &where,
                       const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           path + ": " + where + ": " + message);
}

/// Checks that `ref` names a buffer of `meta` and that `bytes` from its
/// offset (or its own size, when known and larger) stay inside it.
static std::optional<std::string>
checkRef(const BufferRef &ref, const EngineMetadata &meta, uint64_t bytes) {
  std::optional<uint64_t> size = bufferSize(meta, ref.kind, ref.index);
  std::string name =
      ref.kind == BufferKind::Workspace
          ? std::string("the workspace")
          : (bufferKindName(ref.kind) + " " + Twine(ref.index)).str();
  if (!size) {
    if (ref.kind == BufferKind::Workspace)
      return std::string("the engine has no workspace");
    return "the engine has no " + name;
  }
  uint64_t reach = std::max(bytes, ref.size);
  if (ref.offset > *size || reach > *size - ref.offset)
    return ("bytes [" + Twine(ref.offset) + ", " + Twine(ref.offset + reach) +
            ") lie outside " + name + " (" + Twine(*size) + " bytes)")
        .str();
  return std::nullopt;
}

Error int21::runtime::validateGPUPlan(const GPUPlan &plan,
                                      const EngineMetadata &meta,
                                      StringRef path) {
  StringSet<> moduleNames;
  for (auto [m, module] : llvm::enumerate(plan.modules)) {
    std::string where = ("plan module " + Twine(m)).str();
    if (module.name.empty())
      return planError(path, where, "has no name");
    if (!moduleNames.insert(module.name).second)
      return planError(path, where, "'" + module.name + "' appears twice");
    StringSet<> kernelNames;
    for (const GPUKernel &kernel : module.kernels)
      if (kernel.name.empty() || !kernelNames.insert(kernel.name).second)
        return planError(path, where,
                         "kernel '" + kernel.name +
                             "' is unnamed or appears twice");
  }
  for (auto [s, step] : llvm::enumerate(plan.steps)) {
    std::string where =
        ("plan step " + Twine(s) + " (" + step.describe() + ")").str();
    switch (step.kind) {
    case GPUStep::Kind::Launch: {
      const GPUKernel *kernel = plan.findKernel(step.module, step.kernel);
      if (!kernel)
        return planError(path, where, "unknown kernel");
      for (uint32_t d : step.grid)
        if (d == 0)
          return planError(path, where, "grid sizes must be positive");
      for (uint32_t d : step.block)
        if (d == 0)
          return planError(path, where, "block sizes must be positive");
      if (step.grid[0] > kMaxGridX || step.grid[1] > kMaxGridYZ ||
          step.grid[2] > kMaxGridYZ)
        return planError(path, where,
                         "grid " + Twine(step.grid[0]) + "x" +
                             Twine(step.grid[1]) + "x" + Twine(step.grid[2]) +
                             " exceeds the CUDA limits (2^31-1 x 65535 x "
                             "65535)");
      uint64_t threads =
          uint64_t(step.block[0]) * step.block[1] * step.block[2];
      if (threads > kMaxBlockThreads || step.block[2] > kMaxBlockZ)
        return planError(path, where,
                         "block " + Twine(step.block[0]) + "x" +
                             Twine(step.block[1]) + "x" + Twine(step.block[2]) +
                             " exceeds the CUDA limits (1024 threads, z <= "
                             "64)");
      if (step.args.size() != kernel->params.size())
        return planError(path, where,
                         "has " + Twine(step.args.size()) +
                             " arguments, the kernel takes " +
                             Twine(kernel->params.size()));
      for (auto [i, arg] : llvm::enumerate(step.args)) {
        if (arg.kind != kernel->params[i])
          return planError(path, where,
                           "argument " + Twine(i) + " is " +
                               argKindName(arg.kind) + ", the kernel takes " +
                               argKindName(kernel->params[i]));
        if (arg.kind != ArgKind::Pointer)
          continue;
        if (std::optional<std::string> problem = checkRef(arg.pointer, meta, 0))
          return planError(path, where,
                           "argument " + Twine(i) + ": " + *problem);
      }
      break;
    }
    case GPUStep::Kind::Copy:
    case GPUStep::Kind::Memset: {
      if (step.bytes == 0)
        return planError(path, where, "copies or sets no bytes");
      if (step.kind == GPUStep::Kind::Copy)
        if (std::optional<std::string> problem =
                checkRef(step.src, meta, step.bytes))
          return planError(path, where, "source: " + *problem);
      if (std::optional<std::string> problem =
              checkRef(step.dst, meta, step.bytes))
        return planError(path, where, "destination: " + *problem);
      if (step.kind == GPUStep::Kind::Copy && step.src.kind == step.dst.kind &&
          step.src.index == step.dst.index &&
          step.src.offset < step.dst.offset + step.bytes &&
          step.dst.offset < step.src.offset + step.bytes)
        return planError(path, where,
                         "source and destination overlap (bytes [" +
                             Twine(step.src.offset) + ", " +
                             Twine(step.src.offset + step.bytes) + ") and [" +
                             Twine(step.dst.offset) + ", " +
                             Twine(step.dst.offset + step.bytes) + "))");
      if (step.dst.kind == BufferKind::Weight ||
          step.dst.kind == BufferKind::Input)
        return planError(path, where,
                         "writes into " + bufferKindName(step.dst.kind) + " " +
                             Twine(step.dst.index) + ", which is read-only");
      break;
    }
    }
  }
  return Error::success();
}

Expected<GPUPlan> int21::runtime::parseGPUPlan(StringRef text,
                                               const EngineMetadata &meta,
                                               StringRef path) {
  Expected<json::Value> root = parseJSON(text);
  if (!root)
    return createStringError(
        inconvertibleErrorCode(),
        path + ": plan is not valid JSON: " + toString(root.takeError()));
  Expected<GPUPlan> plan = PlanReader(path).read(*root);
  if (!plan)
    return plan.takeError();
  if (Error error = validateGPUPlan(*plan, meta, path))
    return std::move(error);
  return plan;
}

//===----------------------------------------------------------------------===//
// Plans in engine files
//===----------------------------------------------------------------------===//

Expected<GPUPlan> int21::runtime::readGPUPlan(const EngineFile &file,
                                              StringRef path) {
  std::optional<Section> section =
      file.find(SectionKind::Plan, kGPUPlanSection);
  if (!section)
    return createStringError(inconvertibleErrorCode(),
                             path + ": GPU engine has no plan section");
  Expected<GPUPlan> plan = parseGPUPlan(section->data, file.metadata(), path);
  if (!plan)
    return plan.takeError();
  for (const GPUModule &module : plan->modules) {
    std::string name = module.name + ".ptx";
    std::optional<Section> code = file.find(SectionKind::Code, name);
    if (!code)
      return createStringError(inconvertibleErrorCode(),
                               path + ": GPU engine has no code section '" +
                                   name + "' for module '" + module.name + "'");
    std::vector<PTXEntry> entries = listPTXEntries(code->data);
    for (const GPUKernel &kernel : module.kernels) {
      auto entry = llvm::find_if(
          entries, [&](const PTXEntry &e) { return e.name == kernel.name; });
      if (entry == entries.end())
        return createStringError(inconvertibleErrorCode(),
                                 path + ": kernel '" + kernel.name +
                                     "' of module '" + module.name +
                                     "' is not an entry of its PTX");
      std::string qualified = module.name + "::" + kernel.name;
      if (entry->paramSizes.size() != kernel.params.size())
        return createStringError(
            inconvertibleErrorCode(),
            path + ": kernel '" + qualified + "' takes " +
                Twine(entry->paramSizes.size()) +
                " parameters in its PTX, the plan passes " +
                Twine(kernel.params.size()));
      for (auto [i, kind] : llvm::enumerate(kernel.params))
        if (entry->paramSizes[i] != argKindSize(kind))
          return createStringError(
              inconvertibleErrorCode(),
              path + ": kernel '" + qualified + "' takes " +
                  Twine(entry->paramSizes[i]) + " bytes for parameter " +
                  Twine(i) + " in its PTX, the plan passes " +
                  argKindName(kind) + " (" + Twine(argKindSize(kind)) +
                  " bytes)");
    }
  }
  return plan;
}
