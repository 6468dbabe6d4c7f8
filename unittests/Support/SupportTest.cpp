//===- SupportTest.cpp - bounded JSON parsing, the IR parser's guard ------===//

#include "int21/Support/JSON.h"
#include "int21/Support/ParserGuard.h"

#include "gtest/gtest.h"

#include <string>

namespace {

std::string nested(unsigned depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JSONTest, ParsesWhatNestsWithinTheBound) {
  llvm::Expected<llvm::json::Value> value =
      int21::parseJSON("{\"a\": " + nested(10) + "}", 11);
  ASSERT_TRUE(bool(value)) << llvm::toString(value.takeError());
  EXPECT_TRUE(value->getAsObject());
}

TEST(JSONTest, RefusesDeepNestingBeforeParsing) {
  // 100k levels overflowed llvm::json::parse's stack.
  llvm::Expected<llvm::json::Value> value = int21::parseJSON(nested(100000));
  ASSERT_FALSE(bool(value));
  EXPECT_EQ(llvm::toString(value.takeError()),
            "nests arrays and objects deeper than 64 levels");
  EXPECT_FALSE(bool(int21::parseJSON(nested(12), 11)));
  llvm::consumeError(int21::parseJSON(nested(12), 11).takeError());
}

TEST(JSONTest, BracketsInStringsDoNotCount) {
  std::string text = "[\"" + std::string(100, '[') + "\\\"\"]";
  EXPECT_FALSE(int21::jsonNestsDeeperThan(text, 1));
  llvm::Expected<llvm::json::Value> value = int21::parseJSON(text, 1);
  ASSERT_TRUE(bool(value)) << llvm::toString(value.takeError());
}

TEST(ParserGuardTest, FindsDenseArraysOfIndex) {
  std::optional<int21::ParserCrash> crash = int21::findKnownParserCrash(
      "module {\n  func.func @f() attributes {x = array< index : 1>}\n}\n");
  ASSERT_TRUE(crash);
  EXPECT_EQ(crash->line, 2u);
  EXPECT_EQ(crash->column, 34u);
  EXPECT_NE(crash->what.find("array<index"), std::string::npos);
}

TEST(ParserGuardTest, LeavesEverythingElse) {
  EXPECT_FALSE(int21::findKnownParserCrash(
      "module attributes {a = array<i64: 1, 2>, b = array<f32: 1.0>} {}"));
  // In a string, a comment, or part of another name it is no dense array.
  EXPECT_FALSE(int21::findKnownParserCrash(
      "module attributes {s = \"array<index: 1> \\\" array<index\"} {}\n"
      "// array<index: 1>\n"));
  EXPECT_FALSE(int21::findKnownParserCrash("%my_array<index"));
  EXPECT_FALSE(int21::findKnownParserCrash("array<indexed: 1>"));
}

} // namespace
