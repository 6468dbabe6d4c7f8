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

TEST(ParserGuardTest, FindsMalformedLinalgDimensionLists) {
  // The custom forms of linalg.reduce, broadcast and transpose: a list that
  // DenseI64ArrayAttr::parse does not read whole crashes MLIR 22's parser.
  for (const char *bad :
       {"outs(%i : tensor<f32>) dimensions = [0\n  (%a: f32) {",
        "outs(%i : tensor<f32>) dimensions = [0 1]",
        "outs(%i : tensor<f32>) dimensions = array<i64: 0>",
        "outs(%i : tensor<f32>) dimensions = [99999999999999999999]",
        "outs(%i : tensor<f32>) dimensions = [0, ]",
        "outs(%o : tensor<2x3xf32>)\n    permutation = [1, x]"}) {
    std::optional<int21::ParserCrash> crash = int21::findKnownParserCrash(bad);
    ASSERT_TRUE(crash) << bad;
    EXPECT_NE(crash->what.find("list of int64"), std::string::npos);
  }
  std::optional<int21::ParserCrash> crash = int21::findKnownParserCrash(
      "linalg.transpose ins(%x : t) outs(%o : t)\n    permutation = [1 0]");
  ASSERT_TRUE(crash);
  EXPECT_EQ(crash->line, 2u);
  EXPECT_EQ(crash->column, 5u);
}

TEST(ParserGuardTest, LeavesWellFormedDimensionLists) {
  for (const char *good :
       {"outs(%i : tensor<f32>) dimensions = [0]",
        "outs(%i : tensor<f32>) dimensions = [ 0 , -1, 0x2 // two\n ]",
        "outs(%i : tensor<f32>) dimensions = []",
        "outs(%o : t) permutation = [2, 0, 1]",
        // An attribute dictionary's entry, or a name: not the custom form.
        "\"linalg.reduce\"() <{dimensions = array<i64: 0>}>",
        "{a = 1, permutation = array<i64: 1, 0>}",
        "%dimensions = arith.constant 0 : index",
        "outs(%o : t) dimensions\n"}) {
    EXPECT_FALSE(int21::findKnownParserCrash(good)) << good;
  }
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
