//===- EngineFile.cpp - write and validate .int21 engine files ------------===//
//
// Every read is bounds-checked: a corrupt, truncated or foreign file is an
// error naming the file and the problem, never a crash.
//
//===----------------------------------------------------------------------===//

#include "int21/Runtime/EngineFile.h"
#include "int21/Support/JSON.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;
using namespace int21::runtime;

static constexpr char kMagic[8] = {'I', 'N', 'T', '2', '1', 'E', 'N', 'G'};
static constexpr size_t kHeaderSize = 32;
static constexpr size_t kSectionAlign = 64;

namespace {
struct DTypeInfo {
  DType type;
  StringLiteral name;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::F16, "float16", 2}, {DType::BF16, "bfloat16", 2},
    {DType::F32, "float32", 4}, {DType::F64, "float64", 8},
    {DType::Bool, "bool", 1},   {DType::I8, "int8", 1},
    {DType::I16, "int16", 2},   {DType::I32, "int32", 4},
    {DType::I64, "int64", 8},   {DType::U8, "uint8", 1},
    {DType::U16, "uint16", 2},  {DType::U32, "uint32", 4},
    {DType::U64, "uint64", 8},
};
} // namespace

StringRef int21::runtime::dtypeName(DType type) {
  for (const DTypeInfo &info : kDTypes)
    if (info.type == type)
      return info.name;
  return "unknown";
}

std::optional<DType> int21::runtime::parseDType(StringRef name) {
  for (const DTypeInfo &info : kDTypes)
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

size_t int21::runtime::dtypeSize(DType type) {
  for (const DTypeInfo &info : kDTypes)
    if (info.type == type)
      return info.size;
  return 0;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static json::Value specsToJSON(ArrayRef<TensorSpec> specs) {
  json::Array array;
  for (const TensorSpec &spec : specs) {
    json::Array shape;
    // A dynamic extent is written as its name ("?" where it has none).
    for (auto [i, d] : llvm::enumerate(spec.shape)) {
      if (d != TensorSpec::kDynamicExtent) {
        shape.push_back(d);
        continue;
      }
      std::string name = i < spec.dimNames.size() ? spec.dimNames[i] : "";
      shape.push_back(name.empty() ? "?" : name);
    }
    json::Object object{{"name", spec.name},
                        {"dtype", dtypeName(spec.dtype)},
                        {"shape", std::move(shape)}};
    if (!spec.indexBounds.empty()) {
      json::Array bounds;
      for (const IndexBounds &b : spec.indexBounds)
        bounds.push_back(
            json::Object{{"min", b.min}, {"max", b.max}, {"node", b.node}});
      object["index_bounds"] = std::move(bounds);
    }
    if (spec.hasDataDims())
      object["data_dims"] = spec.dataDims;
    if (spec.sizedByRun)
      object["sized_by_run"] = true;
    if (spec.hasProfile())
      object["profile"] = json::Object{{"min", spec.profileMin},
                                       {"opt", spec.profileOpt},
                                       {"max", spec.profileMax}};
    array.push_back(std::move(object));
  }
  return std::move(array);
}

static json::Value weightsToJSON(ArrayRef<WeightSpec> weights) {
  json::Array array;
  for (const WeightSpec &weight : weights)
    array.push_back(json::Object{{"name", weight.name},
                                 {"offset", static_cast<int64_t>(weight.offset)},
                                 {"size", static_cast<int64_t>(weight.size)}});
  return std::move(array);
}

static void appendLE32(std::string &out, uint32_t v) {
  char bytes[4];
  support::endian::write32le(bytes, v);
  out.append(bytes, 4);
}

static void appendLE64(std::string &out, uint64_t v) {
  char bytes[8];
  support::endian::write64le(bytes, v);
  out.append(bytes, 8);
}

/// Pads `out` with zeros so that the file offset after it (kHeaderSize plus
/// its size) is a multiple of kSectionAlign.
static void padPayload(std::string &out) {
  size_t offset = kHeaderSize + out.size();
  out.append(alignTo(offset, kSectionAlign) - offset, '\0');
}

/// What an engine's metadata and a specialisation's have in common: the
/// contract of one piece of code.
static json::Object codeMetadataToJSON(const EngineMetadata &metadata) {
  json::Object object{
      {"inputs", specsToJSON(metadata.inputs)},
      {"outputs", specsToJSON(metadata.outputs)},
      {"weights", weightsToJSON(metadata.weights)},
      {"workspace_size", static_cast<int64_t>(metadata.workspaceSize)}};
  // Written only when there are checks, so that engines without any read as
  // they always did.
  if (!metadata.checks.empty())
    object["checks"] = specsToJSON(metadata.checks);
  if (metadata.numExtents)
    object["extents"] = static_cast<int64_t>(metadata.numExtents);
  if (!metadata.extentChecks.empty()) {
    json::Array checks;
    for (const std::string &check : metadata.extentChecks)
      checks.push_back(check);
    object["extent_checks"] = std::move(checks);
  }
  if (!metadata.shapeValueInputs.empty()) {
    json::Array names;
    for (const std::string &name : metadata.shapeValueInputs)
      names.push_back(name);
    object["shape_value_inputs"] = std::move(names);
  }
  return object;
}

void int21::runtime::writeEngineFile(const EngineMetadata &metadata,
                                     ArrayRef<Section> sections,
                                     raw_ostream &os) {
  std::string metaText;
  raw_string_ostream metaStream(metaText);
  json::Object object = codeMetadataToJSON(metadata);
  object["target"] = metadata.target;
  object["compiler_version"] = metadata.compilerVersion;
  if (!metadata.specializations.empty()) {
    json::Array list;
    for (const EngineSpecialization &special : metadata.specializations) {
      json::Object entry = codeMetadataToJSON(special.metadata);
      entry["code"] = special.code;
      list.push_back(std::move(entry));
    }
    object["specializations"] = std::move(list);
  }
  metaStream << json::Value(std::move(object));
  metaStream.flush();

  std::vector<Section> all;
  all.push_back({SectionKind::Metadata, "metadata", metaText});
  all.insert(all.end(), sections.begin(), sections.end());

  std::string payload;
  for (const Section &section : all) {
    appendLE32(payload, static_cast<uint32_t>(section.kind));
    appendLE32(payload, section.name.size());
    appendLE64(payload, section.data.size());
    payload += section.name;
    padPayload(payload);
    payload.append(section.data.data(), section.data.size());
    padPayload(payload);
  }

  std::string header(kMagic, sizeof(kMagic));
  appendLE32(header, kEngineFormatVersion);
  appendLE32(header, all.size());
  appendLE64(header, payload.size());
  appendLE64(header, xxh3_64bits(payload));
  os << header << payload;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

std::string int21::runtime::abiDescriptor(const EngineMetadata &metadata) {
  std::string text;
  raw_string_ostream os(text);
  // Version 2: a weight is its size; where it lies in the weights section
  // is the loader's business (specialisations share weights).
  os << kABIVersionLine << "\n";
  auto tensor = [&](StringRef role, size_t i, const TensorSpec &spec) {
    os << role << " " << i << ": " << dtypeName(spec.dtype) << " [";
    for (auto [d, dim] : llvm::enumerate(spec.shape)) {
      os << (d ? "x" : "");
      if (dim == TensorSpec::kDynamicExtent)
        os << (spec.sizedByRun ? "?run"
               : llvm::is_contained(spec.dataDims, (int64_t)d) ? "?data"
                                                               : "?");
      else
        os << dim;
    }
    os << "]\n";
  };
  for (auto [i, spec] : llvm::enumerate(metadata.inputs))
    tensor("input", i, spec);
  for (auto [i, weight] : llvm::enumerate(metadata.weights))
    os << "weight " << i << ": " << weight.size << " bytes\n";
  for (auto [i, spec] : llvm::enumerate(metadata.outputs))
    tensor("output", i, spec);
  for (auto [i, spec] : llvm::enumerate(metadata.checks))
    tensor("check", i, spec);
  os << "workspace: " << metadata.workspaceSize << " bytes\n";
  if (metadata.numExtents)
    os << "extents: " << metadata.numExtents << "\n";
  return text;
}

std::string int21::runtime::abiMismatch(StringRef code, StringRef metadata) {
  SmallVector<StringRef> fromCode, fromMeta;
  code.split(fromCode, '\n', -1, /*KeepEmpty=*/false);
  metadata.split(fromMeta, '\n', -1, /*KeepEmpty=*/false);
  // The argument a line describes: "input 0", "weight 3", "workspace".
  auto argument = [](StringRef line) { return line.split(':').first; };
  for (size_t i = 0, e = std::max(fromCode.size(), fromMeta.size()); i < e;
       ++i) {
    StringRef c = i < fromCode.size() ? fromCode[i] : StringRef();
    StringRef m = i < fromMeta.size() ? fromMeta[i] : StringRef();
    if (c == m)
      continue;
    if (c.empty())
      return ("the metadata describes " + argument(m) +
              ", which the code does not take")
          .str();
    if (m.empty() || argument(c) != argument(m))
      return ("the code takes " + argument(c) + " (" + c.split(": ").second +
              "), the metadata " +
              (m.empty() ? "has nothing there"
                         : ("describes " + argument(m) + " there").str()))
          .str();
    return ("the code takes " + argument(c) + " as " + c.split(": ").second +
            ", the metadata says " + m.split(": ").second)
        .str();
  }
  return "";
}

/// Element `i` of an i32 or i64 index tensor.
static int64_t indexAt(const TensorSpec &spec, const void *data, uint64_t i) {
  return spec.dtype == DType::I32 ? static_cast<const int32_t *>(data)[i]
                                  : static_cast<const int64_t *>(data)[i];
}

std::string int21::runtime::checkIndexBounds(const TensorSpec &spec,
                                             const void *data) {
  if (spec.indexBounds.empty())
    return "";
  uint64_t count = 1;
  for (int64_t dim : spec.shape)
    count *= static_cast<uint64_t>(dim);
  for (uint64_t i = 0; i < count; ++i) {
    int64_t value = indexAt(spec, data, i);
    for (const IndexBounds &b : spec.indexBounds)
      if (value < b.min || value > b.max)
        return ("input '" + spec.name + "' holds " + Twine(value) +
                " at element " + Twine(i) + ", outside [" + Twine(b.min) +
                ", " + Twine(b.max) + "], the indices node " + b.node +
                " takes")
            .str();
  }
  return "";
}

std::string int21::runtime::checkComputedIndices(const TensorSpec &check,
                                                 const void *data) {
  if (check.shape != std::vector<int64_t>{2})
    return "";
  for (const IndexBounds &b : check.indexBounds)
    for (int64_t value : {indexAt(check, data, 0), indexAt(check, data, 1)})
      if (value < b.min || value > b.max)
        return ("node " + b.node + " computed the index " + Twine(value) +
                ", outside [" + Twine(b.min) + ", " + Twine(b.max) + "]")
            .str();
  return "";
}

static Error engineError(StringRef path, const Twine &message) {
  return createStringError(inconvertibleErrorCode(),
                           path + ": " + message);
}

/// The deepest nesting the metadata may have: int21 writes six levels at
/// most (the object, the specialisations, one, its tensors, one's profile,
/// a shape).
static constexpr unsigned kMaxMetadataDepth = 16;

/// The largest tensor an engine may describe (1 TiB): far beyond any real
/// input or output, and small enough that sizes never overflow.
static constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 40;

static Expected<std::vector<TensorSpec>>
specsFromJSON(const json::Object &meta, StringRef key, StringRef path) {
  const json::Array *array = meta.getArray(key);
  if (!array)
    return engineError(path, "metadata has no '" + key + "' list");
  std::vector<TensorSpec> specs;
  for (const json::Value &value : *array) {
    const json::Object *object = value.getAsObject();
    std::optional<StringRef> name = object ? object->getString("name") : std::nullopt;
    std::optional<StringRef> dtype =
        object ? object->getString("dtype") : std::nullopt;
    const json::Array *shape = object ? object->getArray("shape") : nullptr;
    if (!name || !dtype || !shape)
      return engineError(path, "metadata entry of '" + key +
                                   "' needs a name, a dtype and a shape");
    TensorSpec spec;
    spec.name = name->str();
    std::optional<DType> parsed = parseDType(*dtype);
    if (!parsed)
      return engineError(path, "unknown dtype '" + *dtype + "' for '" +
                                   *name + "'");
    spec.dtype = *parsed;
    bool dynamic = false;
    for (const json::Value &dim : *shape) {
      if (std::optional<StringRef> dimName = dim.getAsString()) {
        if (dimName->empty())
          return engineError(path, "empty dimension name in the shape of '" +
                                       *name + "'");
        dynamic = true;
        spec.shape.push_back(TensorSpec::kDynamicExtent);
        spec.dimNames.push_back(*dimName == "?" ? "" : dimName->str());
        continue;
      }
      std::optional<int64_t> d = dim.getAsInteger();
      if (!d || *d < 0)
        return engineError(path, "invalid dimension in the shape of '" +
                                     *name + "'");
      spec.shape.push_back(*d);
      spec.dimNames.push_back("");
    }
    if (!dynamic)
      spec.dimNames.clear();
    uint64_t bytes = dtypeSize(spec.dtype);
    for (int64_t dim : spec.shape) {
      if (dim == TensorSpec::kDynamicExtent)
        continue;
      if (dim != 0 && bytes > kMaxTensorBytes / uint64_t(dim))
        return engineError(path, "the shape of '" + *name +
                                     "' describes more than 2^40 bytes");
      bytes *= uint64_t(dim);
    }
    if (const json::Value *bounds = object->get("index_bounds")) {
      const json::Array *list = bounds->getAsArray();
      if (!list || (spec.dtype != DType::I32 && spec.dtype != DType::I64))
        return engineError(path, "'index_bounds' of '" + *name +
                                     "' must be a list, on an i32 or i64 "
                                     "tensor");
      for (const json::Value &entry : *list) {
        const json::Object *b = entry.getAsObject();
        std::optional<int64_t> min = b ? b->getInteger("min") : std::nullopt;
        std::optional<int64_t> max = b ? b->getInteger("max") : std::nullopt;
        std::optional<StringRef> node = b ? b->getString("node") : std::nullopt;
        if (!min || !max || !node || *min > *max)
          return engineError(path, "an index bound of '" + *name +
                                       "' needs integers min <= max and a "
                                       "node");
        spec.indexBounds.push_back({*min, *max, node->str()});
      }
    }
    if (const json::Value *dims = object->get("data_dims")) {
      const json::Array *list = dims->getAsArray();
      if (!list || list->empty())
        return engineError(path, "'data_dims' of '" + *name +
                                     "' must be a list of dimensions");
      for (const json::Value &entry : *list) {
        std::optional<int64_t> d = entry.getAsInteger();
        if (!d || *d < 0 || *d >= (int64_t)spec.shape.size() ||
            spec.shape[*d] != TensorSpec::kDynamicExtent ||
            (!spec.dataDims.empty() && *d <= spec.dataDims.back()))
          return engineError(path, "'data_dims' of '" + *name +
                                       "' must list dynamic dimensions of "
                                       "its shape in increasing order");
        spec.dataDims.push_back(*d);
      }
    }
    if (const json::Value *run = object->get("sized_by_run")) {
      std::optional<bool> flag = run->getAsBoolean();
      if (!flag || (*flag && (!spec.isDynamic() || key != "outputs")))
        return engineError(path, "'sized_by_run' of '" + *name +
                                     "' must be a boolean, true on an output "
                                     "of dynamic shape only");
      spec.sizedByRun = *flag;
    }
    if (const json::Value *profile = object->get("profile")) {
      const json::Object *bounds = profile->getAsObject();
      auto extents = [&](StringRef bound, std::vector<int64_t> &out) {
        const json::Array *list = bounds ? bounds->getArray(bound) : nullptr;
        if (!list || list->size() != spec.shape.size())
          return false;
        for (const json::Value &value : *list) {
          std::optional<int64_t> d = value.getAsInteger();
          if (!d || *d < 0)
            return false;
          out.push_back(*d);
        }
        return true;
      };
      if (!dynamic || !extents("min", spec.profileMin) ||
          !extents("opt", spec.profileOpt) || !extents("max", spec.profileMax))
        return engineError(path, "the profile of '" + *name +
                                     "' needs min, opt and max shapes of its "
                                     "rank, on a dynamic tensor");
      for (size_t d = 0; d < spec.shape.size(); ++d) {
        int64_t extent = spec.shape[d];
        if (spec.profileMin[d] > spec.profileOpt[d] ||
            spec.profileOpt[d] > spec.profileMax[d] ||
            (extent != TensorSpec::kDynamicExtent &&
             (spec.profileMin[d] != extent || spec.profileMax[d] != extent)))
          return engineError(path, "the profile of '" + *name +
                                       "' does not hold min <= opt <= max "
                                       "within its shape at dimension " +
                                       Twine(d));
      }
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

/// The contract of one piece of code (codeMetadataToJSON's object): an
/// engine's, or a specialisation's.
static Expected<EngineMetadata> codeMetadataFromJSON(const json::Object *meta,
                                                     StringRef path) {
  EngineMetadata result;
  Expected<std::vector<TensorSpec>> inputs = specsFromJSON(*meta, "inputs", path);
  if (!inputs)
    return inputs.takeError();
  Expected<std::vector<TensorSpec>> outputs =
      specsFromJSON(*meta, "outputs", path);
  if (!outputs)
    return outputs.takeError();
  // Checks are optional: only engines with computed indices have them.
  std::vector<TensorSpec> checks;
  if (meta->get("checks")) {
    Expected<std::vector<TensorSpec>> read =
        specsFromJSON(*meta, "checks", path);
    if (!read)
      return read.takeError();
    checks = std::move(*read);
    for (const TensorSpec &check : checks)
      if (check.shape != std::vector<int64_t>{2} || check.indexBounds.empty())
        return engineError(path, "check '" + check.name +
                                     "' must be an i32 or i64 tensor of "
                                     "shape [2] with index_bounds");
  }
  // Weights are optional: an engine without any has no list.
  if (const json::Array *weights = meta->getArray("weights")) {
    for (const json::Value &value : *weights) {
      const json::Object *object = value.getAsObject();
      std::optional<StringRef> name =
          object ? object->getString("name") : std::nullopt;
      std::optional<int64_t> woffset =
          object ? object->getInteger("offset") : std::nullopt;
      std::optional<int64_t> size =
          object ? object->getInteger("size") : std::nullopt;
      if (!name || !woffset || !size || *woffset < 0 || *size < 0)
        return engineError(path, "metadata entry of 'weights' needs a name, "
                                 "an offset and a size");
      result.weights.push_back(
          {name->str(), static_cast<uint64_t>(*woffset),
           static_cast<uint64_t>(*size)});
    }
  }
  if (std::optional<int64_t> workspace = meta->getInteger("workspace_size")) {
    if (*workspace < 0 || uint64_t(*workspace) > kMaxTensorBytes)
      return engineError(path, "metadata has a workspace_size of " +
                                   Twine(*workspace) +
                                   " bytes, outside [0, 2^40]");
    result.workspaceSize = static_cast<uint64_t>(*workspace);
  }
  // The extents array holds every dynamic extent of the inputs and outputs.
  uint64_t dynamicExtents = 0;
  for (const std::vector<TensorSpec> *specs : {&*inputs, &*outputs})
    for (const TensorSpec &spec : *specs)
      for (int64_t d : spec.shape)
        dynamicExtents += d == TensorSpec::kDynamicExtent;
  for (const TensorSpec &check : checks)
    if (check.isDynamic())
      return engineError(path, "check '" + check.name + "' has a dynamic shape");
  int64_t extents = meta->getInteger("extents").value_or(0);
  if (extents < 0 || uint64_t(extents) != dynamicExtents)
    return engineError(path, "metadata has " + Twine(extents) +
                                 " extents, but its inputs and outputs have " +
                                 Twine(dynamicExtents) + " dynamic dimensions");
  result.numExtents = dynamicExtents;
  if (const json::Value *list = meta->get("extent_checks")) {
    const json::Array *array = list->getAsArray();
    if (!array || !dynamicExtents)
      return engineError(path, "'extent_checks' must be a list of messages, "
                               "in an engine with dynamic extents");
    for (const json::Value &entry : *array) {
      std::optional<StringRef> message = entry.getAsString();
      if (!message)
        return engineError(path, "'extent_checks' must be a list of messages");
      result.extentChecks.push_back(message->str());
    }
  }
  if (const json::Value *list = meta->get("shape_value_inputs")) {
    const json::Array *array = list->getAsArray();
    if (!array || !dynamicExtents)
      return engineError(path, "'shape_value_inputs' must be a list of input "
                               "names, in an engine with dynamic extents");
    for (const json::Value &entry : *array) {
      std::optional<StringRef> input = entry.getAsString();
      if (!input || llvm::none_of(*inputs, [&](const TensorSpec &spec) {
            return spec.name == *input;
          }))
        return engineError(path, "'shape_value_inputs' must name inputs of "
                                 "the engine");
      result.shapeValueInputs.push_back(input->str());
    }
  }
  result.inputs = std::move(*inputs);
  result.outputs = std::move(*outputs);
  result.checks = std::move(checks);
  return result;
}

/// Checks that `special`, specialisation `index` of an engine of `generic`
/// metadata, is that engine's code at static input shapes within the
/// inputs' profiles.
static Error checkSpecialization(const EngineMetadata &generic,
                                 const EngineMetadata &special, size_t index,
                                 StringRef path) {
  auto bad = [&](const Twine &why) {
    return engineError(path, "specialisation " + Twine(index) + " " + why);
  };
  if (special.isDynamic())
    return bad("has dynamic extents");
  auto sameTensors = [&](ArrayRef<TensorSpec> ours, ArrayRef<TensorSpec> theirs,
                         StringRef role) -> Error {
    if (ours.size() != theirs.size())
      return bad("has " + Twine(theirs.size()) + " " + role + ", the engine " +
                 Twine(ours.size()));
    for (auto [mine, its] : llvm::zip(ours, theirs)) {
      if (mine.name != its.name || mine.dtype != its.dtype ||
          mine.shape.size() != its.shape.size() || its.hasProfile())
        return bad("describes " + role.drop_back() + " '" + its.name +
                   "' otherwise than the engine does");
      for (size_t d = 0; d < mine.shape.size(); ++d) {
        int64_t extent = its.shape[d];
        bool fits = mine.shape[d] == TensorSpec::kDynamicExtent
                        ? !mine.hasProfile() ||
                              (extent >= mine.profileMin[d] &&
                               extent <= mine.profileMax[d])
                        : extent == mine.shape[d];
        if (!fits)
          return bad("gives " + role.drop_back() + " '" + its.name +
                     "' extent " + Twine(extent) + " at dimension " +
                     Twine(d) + ", outside the engine's shape or profile");
      }
    }
    return Error::success();
  };
  if (Error error = sameTensors(generic.inputs, special.inputs, "inputs"))
    return error;
  return sameTensors(generic.outputs, special.outputs, "outputs");
}

Expected<EngineFile>
EngineFile::read(std::unique_ptr<MemoryBuffer> buffer, StringRef path,
                 std::optional<StringRef> expectedTarget) {
  StringRef bytes = buffer->getBuffer();
  if (bytes.size() < kHeaderSize ||
      !bytes.starts_with(StringRef(kMagic, sizeof(kMagic))))
    return engineError(path, "not an int21 engine (no INT21ENG header)");
  const char *header = bytes.data();
  uint32_t version = support::endian::read32le(header + 8);
  uint32_t sectionCount = support::endian::read32le(header + 12);
  uint64_t payloadSize = support::endian::read64le(header + 16);
  uint64_t checksum = support::endian::read64le(header + 24);
  if (version != kEngineFormatVersion)
    return engineError(path, "engine format version " + Twine(version) +
                                 " is not supported (this runtime reads "
                                 "version " +
                                 Twine(kEngineFormatVersion) +
                                 "); recompile the model");
  if (payloadSize != bytes.size() - kHeaderSize)
    return engineError(path, "truncated or padded engine: the header "
                             "announces " +
                                 Twine(payloadSize) + " bytes of sections, "
                                 "the file has " +
                                 Twine(bytes.size() - kHeaderSize));
  StringRef payload = bytes.drop_front(kHeaderSize);
  if (xxh3_64bits(payload) != checksum)
    return engineError(path, "corrupt engine: checksum mismatch");

  EngineFile file;
  size_t offset = 0; // Within the payload.
  for (uint32_t i = 0; i < sectionCount; ++i) {
    if (payload.size() - offset < 16)
      return engineError(path, "section " + Twine(i) + " header is cut off");
    const char *p = payload.data() + offset;
    uint32_t kind = support::endian::read32le(p);
    uint32_t nameSize = support::endian::read32le(p + 4);
    uint64_t dataSize = support::endian::read64le(p + 8);
    offset += 16;
    if (nameSize > payload.size() - offset)
      return engineError(path, "section " + Twine(i) + " name is cut off");
    std::string name = payload.substr(offset, nameSize).str();
    offset = alignTo(kHeaderSize + offset + nameSize, kSectionAlign) -
             kHeaderSize;
    if (offset > payload.size() || dataSize > payload.size() - offset)
      return engineError(path, "section '" + name + "' runs past the end "
                                                    "of the file");
    StringRef data = payload.substr(offset, dataSize);
    offset = alignTo(kHeaderSize + offset + dataSize, kSectionAlign) -
             kHeaderSize;
    if (kind < static_cast<uint32_t>(SectionKind::Metadata) ||
        kind > static_cast<uint32_t>(SectionKind::Plan))
      return engineError(path, "section '" + name + "' has unknown kind " +
                                   Twine(kind));
    file.sectionList.push_back({static_cast<SectionKind>(kind), name, data});
  }
  if (offset != payload.size())
    return engineError(path, "unexpected bytes after the last section");

  std::optional<Section> metaSection = file.find(SectionKind::Metadata);
  if (!metaSection)
    return engineError(path, "engine has no metadata section");
  if (jsonNestsDeeperThan(metaSection->data, kMaxMetadataDepth))
    return engineError(path, "metadata nests deeper than " +
                                 Twine(kMaxMetadataDepth) + " levels");
  Expected<json::Value> metaJSON = json::parse(metaSection->data);
  if (!metaJSON)
    return engineError(path, "metadata is not valid JSON: " +
                                 toString(metaJSON.takeError()));
  const json::Object *meta = metaJSON->getAsObject();
  std::optional<StringRef> target =
      meta ? meta->getString("target") : std::nullopt;
  std::optional<StringRef> compilerVersion =
      meta ? meta->getString("compiler_version") : std::nullopt;
  if (!target || !compilerVersion)
    return engineError(path, "metadata needs a target and a compiler_version");
  Expected<EngineMetadata> body = codeMetadataFromJSON(meta, path);
  if (!body)
    return body.takeError();
  file.meta = std::move(*body);
  file.meta.target = target->str();
  file.meta.compilerVersion = compilerVersion->str();
  if (const json::Value *list = meta->get("specializations")) {
    const json::Array *array = list->getAsArray();
    if (!array || !file.meta.isDynamic())
      return engineError(path, "'specializations' must be a list, in an "
                               "engine with dynamic extents");
    for (auto [i, entry] : llvm::enumerate(*array)) {
      const json::Object *object = entry.getAsObject();
      std::optional<StringRef> code =
          object ? object->getString("code") : std::nullopt;
      if (!code || code->empty())
        return engineError(path, "specialisation " + Twine(i) +
                                     " needs the name of its code section");
      Expected<EngineMetadata> special = codeMetadataFromJSON(object, path);
      if (!special)
        return special.takeError();
      if (Error error = checkSpecialization(file.meta, *special, i, path))
        return std::move(error);
      file.meta.specializations.push_back({code->str(), std::move(*special)});
    }
  }
  if (expectedTarget && *expectedTarget != file.meta.target)
    return engineError(path, "engine was compiled for target '" +
                                 file.meta.target + "', not for '" +
                                 *expectedTarget + "'");
  file.buffer = std::move(buffer);
  return file;
}

Expected<EngineFile> EngineFile::open(StringRef path,
                                      std::optional<StringRef> expectedTarget) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return engineError(path, "cannot read: " + buffer.getError().message());
  return read(std::move(*buffer), path, expectedTarget);
}

std::optional<Section> EngineFile::find(SectionKind kind,
                                        StringRef name) const {
  for (const Section &section : sectionList)
    if (section.kind == kind && (name.empty() || section.name == name))
      return section;
  return std::nullopt;
}
