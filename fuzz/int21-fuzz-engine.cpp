//===- int21-fuzz-engine.cpp - engine bytes -> load -> run ----------------===//
//
// The bytes are an engine file as int21-run reads it; what loads runs once
// on random inputs. The checksum is an unkeyed hash, so an attacker edits
// metadata and recomputes it: the custom mutator does exactly that. It
// mutates the metadata and plan (JSON), the section table and the length of
// the code section, never the code's bytes (an engine's code is native code
// and may do anything: the loader's promise is about the metadata agreeing
// with itself and with the code, README "What an engine may do"), then
// writes the header's size and checksum anew.
//
//===----------------------------------------------------------------------===//

#include "int21/Runtime/Engine.h"
#include "int21/Runtime/EngineFile.h"
#include "int21/Runtime/Tensors.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace int21::runtime;
namespace endian = llvm::support::endian;

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace {

/// The engine file layout (lib/Runtime/EngineFile.cpp): a 32-byte header
/// (magic, version, section count, payload size, xxh3 of the payload), then
/// per section a 16-byte entry (kind, name size, data size), the name and
/// the data, each padded to a 64-byte file offset.
constexpr size_t kHeaderSize = 32;
constexpr size_t kSectionAlign = 64;

/// Inputs whose sum of sizes is larger are loaded but not run.
constexpr uint64_t kMaxRunBytes = uint64_t(64) << 20;

struct RawSection {
  uint32_t kind;
  std::string name;
  std::string data;
};

/// The sections of an engine file, without checking its checksum or
/// contents; false when the layout itself is broken.
bool split(llvm::StringRef bytes, std::string &head,
           std::vector<RawSection> &sections) {
  if (bytes.size() < kHeaderSize)
    return false;
  head = bytes.take_front(kHeaderSize).str();
  uint32_t count = endian::read32le(bytes.data() + 12);
  llvm::StringRef payload = bytes.drop_front(kHeaderSize);
  size_t offset = 0;
  auto align = [](size_t at) {
    return llvm::alignTo(kHeaderSize + at, kSectionAlign) - kHeaderSize;
  };
  for (uint32_t i = 0; i < count && i < 64; ++i) {
    if (payload.size() - offset < 16)
      return false;
    const char *p = payload.data() + offset;
    RawSection section;
    section.kind = endian::read32le(p);
    uint32_t nameSize = endian::read32le(p + 4);
    uint64_t dataSize = endian::read64le(p + 8);
    offset += 16;
    if (nameSize > payload.size() - offset)
      return false;
    section.name = payload.substr(offset, nameSize).str();
    offset = align(offset + nameSize);
    if (offset > payload.size() || dataSize > payload.size() - offset)
      return false;
    section.data = payload.substr(offset, dataSize).str();
    offset = align(offset + dataSize);
    sections.push_back(std::move(section));
  }
  return true;
}

std::string join(std::string head, const std::vector<RawSection> &sections) {
  std::string payload;
  auto pad = [&] {
    size_t at = kHeaderSize + payload.size();
    payload.append(llvm::alignTo(at, kSectionAlign) - at, '\0');
  };
  auto append32 = [&](uint32_t v) {
    char b[4];
    endian::write32le(b, v);
    payload.append(b, 4);
  };
  auto append64 = [&](uint64_t v) {
    char b[8];
    endian::write64le(b, v);
    payload.append(b, 8);
  };
  for (const RawSection &section : sections) {
    append32(section.kind);
    append32(section.name.size());
    append64(section.data.size());
    payload += section.name;
    pad();
    payload += section.data;
    pad();
  }
  endian::write32le(head.data() + 12, sections.size());
  endian::write64le(head.data() + 16, payload.size());
  endian::write64le(head.data() + 24, llvm::xxh3_64bits(payload));
  return head + payload;
}

/// LLVMFuzzerMutate on a string, within `limit` bytes.
void mutate(std::string &text, size_t limit) {
  size_t size = text.size();
  text.resize(std::max(limit, size));
  size = LLVMFuzzerMutate(reinterpret_cast<uint8_t *>(text.data()), size,
                          text.size());
  text.resize(size);
}

} // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  std::string head;
  std::vector<RawSection> sections;
  llvm::StringRef bytes(reinterpret_cast<char *>(data), size);
  std::mt19937 rng(seed);
  if (!split(bytes, head, sections) || sections.empty()) {
    // No layout to keep: one byte of the header changes. (Bytes mutated
    // anywhere would reach the code, and the next mutation would give the
    // changed code a valid checksum: native code, outside the promise.)
    if (size)
      data[rng() % std::min(size, kHeaderSize)] ^= 1u << (rng() % 8);
    return size;
  }
  size_t budget = maxSize > size ? maxSize - size : 0;
  RawSection &pick = sections[rng() % sections.size()];
  bool isCode = pick.kind == static_cast<uint32_t>(SectionKind::Code);
  switch (rng() % 8) {
  case 0: // The section table: kind or name.
    if (rng() % 2)
      pick.kind = rng() % 6;
    else
      mutate(pick.name, pick.name.size() + 8);
    break;
  case 1: // A section dropped or repeated.
    if (rng() % 2 || sections.size() < 2)
      sections.push_back(pick);
    else
      sections.erase(sections.begin() + rng() % sections.size());
    break;
  case 2: // The code cut short (its bytes are never changed).
    if (isCode && !pick.data.empty())
      pick.data.resize(rng() % pick.data.size());
    break;
  default: { // Text: the metadata and a GPU plan.
    // A section of code given another kind (case 0) stays code: its
    // bytes, which start with the ELF magic, are never mutated.
    RawSection *text = nullptr;
    for (RawSection &section : sections)
      if ((section.kind == static_cast<uint32_t>(SectionKind::Metadata) ||
           section.kind == static_cast<uint32_t>(SectionKind::Plan)) &&
          !llvm::StringRef(section.data).starts_with("\x7f" "ELF"))
        if (!text || rng() % 2)
          text = &section;
    if (!text)
      break; // The section table is all there is to change.
    mutate(text->data, text->data.size() + std::min<size_t>(budget, 256));
    break;
  }
  }
  std::string out = join(head, sections);
  if (out.size() > maxSize)
    return size;
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.int21");
  llvm::Expected<std::unique_ptr<Engine>> engine =
      Engine::load(std::move(buffer), "fuzz.int21");
  if (!engine) {
    llvm::consumeError(engine.takeError());
    return 0;
  }
  uint64_t bytes = 0;
  for (const TensorSpec &spec : (*engine)->inputs()) {
    uint64_t elements = 1;
    for (int64_t dim : spec.shape)
      elements *= static_cast<uint64_t>(dim);
    bytes += elements * dtypeSize(spec.dtype);
  }
  if (bytes > kMaxRunBytes || (*engine)->onGpu())
    return 0;
  std::mt19937_64 rng(size);
  std::vector<Tensor> inputs;
  for (const TensorSpec &spec : (*engine)->inputs())
    inputs.push_back(randomTensor(spec, rng));
  (*engine)->setThreads(1);
  llvm::Expected<std::vector<Tensor>> outputs = (*engine)->run(inputs);
  if (!outputs)
    llvm::consumeError(outputs.takeError());
  return 0;
}
