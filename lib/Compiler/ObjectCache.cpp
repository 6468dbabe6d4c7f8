//===- ObjectCache.cpp - object code cached by a hash of its input ---------===//

#include "int21/Compiler/ObjectCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstring>

using namespace int21;
using llvm::StringRef;

namespace {
// An entry: magic, the key (32 hex digits), the object's size (little
// endian), an xxh3 checksum of the object, then the object.
constexpr char kMagic[8] = {'I', 'N', 'T', '2', '1', 'O', 'B', '1'};
constexpr size_t kKeySize = 32;
constexpr size_t kHeaderSize = sizeof(kMagic) + kKeySize + 8 + 8;

std::optional<std::string> getEnv(const char *name) {
  std::optional<std::string> value = llvm::sys::Process::GetEnv(name);
  if (value && value->empty())
    return std::nullopt;
  return value;
}
} // namespace

std::optional<std::string> ObjectCache::defaultDirectory() {
  if (std::optional<std::string> dir = getEnv("INT21_OBJECT_CACHE"))
    return *dir == "off" ? std::nullopt : dir;
  llvm::SmallString<256> path;
  if (std::optional<std::string> cache = getEnv("XDG_CACHE_HOME")) {
    path = *cache;
  } else if (std::optional<std::string> home = getEnv("HOME")) {
    path = *home;
    llvm::sys::path::append(path, ".cache");
  } else {
    path = "/tmp";
  }
  llvm::sys::path::append(path, "int21", "objects");
  return path.str().str();
}

std::string ObjectCache::key(llvm::ArrayRef<char> bitcode,
                             llvm::ArrayRef<StringRef> context) {
  std::string input(bitcode.begin(), bitcode.end());
  for (StringRef item : context) {
    // Lengths first: no two lists of strings give the same input.
    input += '\0';
    input += std::to_string(item.size());
    input += ':';
    input += item;
  }
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(llvm::arrayRefFromStringRef(input));
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format_hex_no_prefix(hash.high64, 16)
      << llvm::format_hex_no_prefix(hash.low64, 16);
  return text;
}

std::string ObjectCache::entryPath(StringRef key) const {
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, "llvmcache-" + key);
  return path.str().str();
}

void ObjectCache::prune() const {
  llvm::CachePruningPolicy policy;
  policy.Interval = std::chrono::minutes(20);
  policy.Expiration = std::chrono::hours(4 * 7 * 24);
  policy.MaxSizeBytes = uint64_t(1) << 30;
  policy.MaxSizePercentageOfAvailableSpace = 75;
  llvm::pruneCache(directory, policy);
}

std::optional<std::string> ObjectCache::lookup(StringRef key) const {
  if (key.size() != kKeySize)
    return std::nullopt;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(entryPath(key), /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  StringRef data = (*buffer)->getBuffer();
  if (data.size() < kHeaderSize ||
      !data.starts_with(StringRef(kMagic, sizeof(kMagic))) ||
      data.substr(sizeof(kMagic), kKeySize) != key)
    return std::nullopt;
  const char *sizes = data.data() + sizeof(kMagic) + kKeySize;
  uint64_t size = llvm::support::endian::read64le(sizes);
  uint64_t checksum = llvm::support::endian::read64le(sizes + 8);
  StringRef object = data.substr(kHeaderSize);
  if (object.size() != size ||
      llvm::xxh3_64bits(llvm::arrayRefFromStringRef(object)) != checksum)
    return std::nullopt;
  // Used now: the pruner removes the least recently used entries first
  // (atime alone is not kept up to date on every file system).
  int fd;
  if (!llvm::sys::fs::openFileForWrite(entryPath(key), fd,
                                       llvm::sys::fs::CD_OpenExisting,
                                       llvm::sys::fs::OF_Append)) {
    auto now = std::chrono::system_clock::now();
    (void)llvm::sys::fs::setLastAccessAndModificationTime(fd, now, now);
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  }
  return object.str();
}

bool ObjectCache::store(StringRef key, StringRef object,
                        std::string &error) const {
  if (key.size() != kKeySize) {
    error = "malformed key '" + key.str() + "'";
    return false;
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(directory)) {
    error = "cannot create '" + directory + "': " + ec.message();
    return false;
  }
  std::string path = entryPath(key);
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(path + "-tmp-%%%%%%");
  if (!temp) {
    error = "cannot write '" + path + "': " + llvm::toString(temp.takeError());
    return false;
  }
  char sizes[16];
  llvm::support::endian::write64le(sizes, object.size());
  llvm::support::endian::write64le(
      sizes + 8, llvm::xxh3_64bits(llvm::arrayRefFromStringRef(object)));
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    os.write(kMagic, sizeof(kMagic));
    os << key;
    os.write(sizes, sizeof(sizes));
    os << object;
    os.flush();
    ec = os.error();
    os.clear_error();
  }
  if (ec) {
    llvm::consumeError(temp->discard());
    error = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  // The rename makes the whole entry appear at once; a process storing the
  // same key meanwhile stores the same bytes.
  if (llvm::Error failed = temp->keep(path)) {
    error = "cannot write '" + path + "': " + llvm::toString(std::move(failed));
    return false;
  }
  return true;
}
