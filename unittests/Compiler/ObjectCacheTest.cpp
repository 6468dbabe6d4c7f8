//===- ObjectCacheTest.cpp - the object cache's entries and keys ----------===//

#include "int21/Compiler/ObjectCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <unistd.h>

using int21::ObjectCache;

namespace {
/// Every compile in this binary (EngineTest, FusionTest, ...) caches its
/// objects in a fresh directory, never in the user's cache.
class CacheEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("int21-unittests", dir));
    path = dir.str().str();
    ::setenv("XDG_CACHE_HOME", path.c_str(), 1);
    ::unsetenv("INT21_OBJECT_CACHE");
  }
  void TearDown() override { llvm::sys::fs::remove_directories(path); }

private:
  std::string path;
};
const ::testing::Environment *const cacheEnvironment =
    ::testing::AddGlobalTestEnvironment(new CacheEnvironment);

class ObjectCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("int21-cache", path));
    dir = path.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }
  std::string dir;
};

std::string keyOf(llvm::StringRef ir, llvm::StringRef cpu) {
  return ObjectCache::key(llvm::ArrayRef<char>(ir.data(), ir.size()),
                          {"x86_64-unknown-linux-gnu", cpu, "O3"});
}
} // namespace

TEST_F(ObjectCacheTest, StoresAndFindsAnObject) {
  ObjectCache cache(dir + "/objects");
  std::string key = keyOf("define void @f() { ret void }", "znver4");
  EXPECT_FALSE(cache.lookup(key));
  std::string error;
  ASSERT_TRUE(cache.store(key, std::string("\x7f" "ELF\0object", 11), error))
      << error;
  std::optional<std::string> object = cache.lookup(key);
  ASSERT_TRUE(object);
  EXPECT_EQ(*object, std::string("\x7f" "ELF\0object", 11));
  // No temporary file is left beside the entry.
  std::error_code ec;
  unsigned files = 0;
  for (llvm::sys::fs::directory_iterator it(dir + "/objects", ec), end;
       it != end && !ec; it.increment(ec))
    ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(ObjectCacheTest, KeysDependOnEverything) {
  std::string key = keyOf("ir", "znver4");
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key, keyOf("ir", "znver4"));
  EXPECT_NE(key, keyOf("ir2", "znver4"));
  EXPECT_NE(key, keyOf("ir", "skylake"));
  // The context is length-prefixed: moving a character between two strings
  // changes the key.
  EXPECT_NE(ObjectCache::key({}, {"ab", "c"}), ObjectCache::key({}, {"a", "bc"}));
}

TEST_F(ObjectCacheTest, DamagedEntriesAreMisses) {
  ObjectCache cache(dir);
  std::string key = keyOf("ir", "znver4"), error;
  std::string object(1000, 'x');
  ASSERT_TRUE(cache.store(key, object, error)) << error;
  auto rewrite = [&](llvm::function_ref<void(std::string &)> damage) {
    auto buffer = llvm::MemoryBuffer::getFile(cache.entryPath(key));
    ASSERT_TRUE(bool(buffer));
    std::string data = (*buffer)->getBuffer().str();
    damage(data);
    std::error_code ec;
    llvm::raw_fd_ostream os(cache.entryPath(key), ec);
    os << data;
  };
  rewrite([](std::string &data) { data.back() ^= 1; });
  EXPECT_FALSE(cache.lookup(key));
  ASSERT_TRUE(cache.store(key, object, error)) << error;
  EXPECT_TRUE(cache.lookup(key));
  rewrite([](std::string &data) { data.resize(data.size() - 10); });
  EXPECT_FALSE(cache.lookup(key));
  rewrite([](std::string &data) { data = "short"; });
  EXPECT_FALSE(cache.lookup(key));
  // An entry stored under another key (a renamed file) is not this one.
  std::string other = keyOf("other ir", "znver4");
  ASSERT_TRUE(cache.store(other, object, error)) << error;
  ASSERT_FALSE(llvm::sys::fs::rename(cache.entryPath(other),
                                     cache.entryPath(key)));
  EXPECT_FALSE(cache.lookup(key));
}

TEST_F(ObjectCacheTest, DefaultDirectory) {
  std::optional<std::string> xdg = ObjectCache::defaultDirectory();
  ASSERT_TRUE(xdg);
  EXPECT_EQ(*xdg, std::string(std::getenv("XDG_CACHE_HOME")) + "/int21/objects");
  ::setenv("INT21_OBJECT_CACHE", "/somewhere/else", 1);
  EXPECT_EQ(ObjectCache::defaultDirectory(), "/somewhere/else");
  ::setenv("INT21_OBJECT_CACHE", "off", 1);
  EXPECT_FALSE(ObjectCache::defaultDirectory());
  ::unsetenv("INT21_OBJECT_CACHE");
}

TEST_F(ObjectCacheTest, PruneRemovesEntriesNotUsedForWeeks) {
  ObjectCache cache(dir);
  std::string used = keyOf("used", "znver4"), unused = keyOf("unused", "znver4");
  std::string error;
  ASSERT_TRUE(cache.store(used, "object", error)) << error;
  ASSERT_TRUE(cache.store(unused, "object", error)) << error;
  auto age = [&](llvm::StringRef key) {
    int fd;
    ASSERT_FALSE(llvm::sys::fs::openFileForWrite(
        cache.entryPath(key), fd, llvm::sys::fs::CD_OpenExisting,
        llvm::sys::fs::OF_Append));
    auto then = std::chrono::system_clock::now() - std::chrono::hours(24 * 60);
    ASSERT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(fd, then, then));
    ::close(fd);
  };
  age(used);
  age(unused);
  // A hit marks the entry used.
  ASSERT_TRUE(cache.lookup(used));
  cache.prune();
  EXPECT_TRUE(cache.lookup(used));
  EXPECT_FALSE(cache.lookup(unused));
  EXPECT_FALSE(llvm::sys::fs::exists(cache.entryPath(unused)));
}
