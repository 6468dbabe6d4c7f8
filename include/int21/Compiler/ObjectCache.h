//===- ObjectCache.h - object code cached by a hash of its input -----------===//
//
// The compiler caches the object code of every part of an engine (one kernel,
// or the entry function) in a directory, under a key that hashes the part's
// LLVM IR, the target and the options, so that a recompile of an unchanged
// model, or of one sharing kernels with a model compiled before, skips their
// LLVM optimisation and code generation.
//
// Entries are written atomically (a temporary file renamed over the entry),
// so several processes may share one directory; each starts with a header
// holding its key, size and checksum, and an entry that does not match it
// (truncated, corrupt) is a miss, never trusted. llvm::pruneCache keeps the
// directory within bounds.
//
//===----------------------------------------------------------------------===//

#ifndef INT21_COMPILER_OBJECTCACHE_H
#define INT21_COMPILER_OBJECTCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace int21 {

class ObjectCache {
public:
  /// The default cache directory: $INT21_OBJECT_CACHE when set (the value
  /// "off" turns the cache off: std::nullopt), else `objects` beside the
  /// knowledge base's default location ($XDG_CACHE_HOME/int21/, else
  /// $HOME/.cache/int21/, else /tmp/int21/).
  static std::optional<std::string> defaultDirectory();

  /// The key of an object: a hash of the part's LLVM IR (bitcode) and of
  /// what else decides its code (target triple, CPU, features, optimisation
  /// level, compiler version), as 32 hexadecimal digits.
  static std::string key(llvm::ArrayRef<char> bitcode,
                         llvm::ArrayRef<llvm::StringRef> context);

  /// A cache in `directory`, created on the first store.
  explicit ObjectCache(std::string directory)
      : directory(std::move(directory)) {}

  /// The object stored under `key`, or std::nullopt when there is none or
  /// the entry does not check out. Safe to call from several threads.
  std::optional<std::string> lookup(llvm::StringRef key) const;

  /// Stores `object` under `key`; false (and `error`) when it cannot be
  /// written, which costs only a later recompile. Safe to call from
  /// several threads and processes.
  bool store(llvm::StringRef key, llvm::StringRef object,
             std::string &error) const;

  /// The file an entry lives in (`llvmcache-<key>`, the names
  /// llvm::pruneCache considers).
  std::string entryPath(llvm::StringRef key) const;

  /// Keeps the cache within bounds, at most every 20 minutes (a timestamp
  /// file says when it last ran): entries not used for four weeks are
  /// removed, then the least recently used ones while the cache holds more
  /// than 1 GiB or 75% of the free disk space. A lookup that finds an entry
  /// marks it used.
  void prune() const;

  llvm::StringRef path() const { return directory; }

private:
  std::string directory;
};

} // namespace int21

#endif // INT21_COMPILER_OBJECTCACHE_H
