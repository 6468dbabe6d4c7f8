//===- BuildersTest.cpp - the int21 dialect's C++ builders and inference --===//

#include "int21/Dialect/Int21/Int21Ops.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace int21;

namespace {

class Int21BuildersTest : public ::testing::Test {
protected:
  Int21BuildersTest() : builder(&context) {
    context.loadDialect<Int21Dialect, func::FuncDialect>();
    loc = builder.getUnknownLoc();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// Starts a function with arguments of the given types; builders then
  /// insert into its body.
  func::FuncOp startFunc(TypeRange args) {
    auto func = func::FuncOp::create(builder, loc, "f",
                                     builder.getFunctionType(args, {}));
    builder.setInsertionPointToStart(func.addEntryBlock());
    return func;
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc = UnknownLoc();
  OwningOpRef<ModuleOp> module;
};

TEST_F(Int21BuildersTest, BinaryOpsInferBroadcastShapes) {
  func::FuncOp func = startFunc({f32({2, 1, 4}), f32({3, 1})});
  auto add =
      AddOp::create(builder, loc, func.getArgument(0), func.getArgument(1));
  EXPECT_EQ(add.getType(), f32({2, 3, 4}));
  auto less =
      LessOp::create(builder, loc, func.getArgument(0), func.getArgument(1));
  EXPECT_EQ(less.getType(),
            RankedTensorType::get({2, 3, 4}, builder.getI1Type()));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(Int21BuildersTest, MatMulBroadcastsBatchDims) {
  func::FuncOp func = startFunc({f32({4, 1, 8, 16}), f32({3, 16, 32})});
  auto mm =
      MatMulOp::create(builder, loc, func.getArgument(0), func.getArgument(1));
  EXPECT_EQ(mm.getType(), f32({4, 3, 8, 32}));
}

TEST_F(Int21BuildersTest, ConvAndPoolInferSpatialShapes) {
  func::FuncOp func =
      startFunc({f32({1, 3, 224, 224}), f32({64, 3, 7, 7}), f32({64})});
  auto conv = ConvOp::create(
      builder, loc, func.getArgument(0), func.getArgument(1),
      func.getArgument(2), builder.getDenseI64ArrayAttr({2, 2}),
      builder.getDenseI64ArrayAttr({3, 3, 3, 3}),
      builder.getDenseI64ArrayAttr({1, 1}), builder.getI64IntegerAttr(1));
  EXPECT_EQ(conv.getType(), f32({1, 64, 112, 112}));
  auto pool = MaxPoolOp::create(
      builder, loc, conv, builder.getDenseI64ArrayAttr({3, 3}),
      builder.getDenseI64ArrayAttr({2, 2}),
      builder.getDenseI64ArrayAttr({1, 1, 1, 1}),
      builder.getDenseI64ArrayAttr({1, 1}), builder.getBoolAttr(false));
  EXPECT_EQ(pool.getType(), f32({1, 64, 56, 56}));
}

TEST_F(Int21BuildersTest, ReduceTransposeReshapeCast) {
  func::FuncOp func = startFunc({f32({2, 3, 4})});
  Value x = func.getArgument(0);
  auto sum =
      ReduceSumOp::create(builder, loc, x, builder.getDenseI64ArrayAttr({1}),
                          builder.getBoolAttr(true));
  EXPECT_EQ(sum.getType(), f32({2, 1, 4}));
  auto t = TransposeOp::create(builder, loc, x,
                               builder.getDenseI64ArrayAttr({2, 0, 1}));
  EXPECT_EQ(t.getType(), f32({4, 2, 3}));
  auto r = ReshapeOp::create(builder, loc, x, ArrayRef<int64_t>{6, 4});
  EXPECT_EQ(r.getType(), f32({6, 4}));
  auto c = CastOp::create(builder, loc, x, builder.getI64Type());
  EXPECT_EQ(c.getType(),
            RankedTensorType::get({2, 3, 4}, builder.getI64Type()));
  auto relu = ReluOp::create(builder, loc, x);
  EXPECT_EQ(relu.getType(), x.getType());
}

TEST_F(Int21BuildersTest, ShapeArithmeticFolds) {
  startFunc({});
  auto i64 = RankedTensorType::get({3}, builder.getI64Type());
  Value a = ConstantOp::create(
      builder, loc, DenseElementsAttr::get(i64, ArrayRef<int64_t>{1, 2, 3}));
  Value b = ConstantOp::create(
      builder, loc, DenseElementsAttr::get(i64, ArrayRef<int64_t>{4, 5, 6}));
  Value product = builder.createOrFold<MulOp>(loc, a, b);
  auto folded = product.getDefiningOp<ConstantOp>();
  ASSERT_TRUE(folded);
  auto values = cast<DenseElementsAttr>(folded.getValue()).getValues<int64_t>();
  EXPECT_EQ(SmallVector<int64_t>(values.begin(), values.end()),
            (SmallVector<int64_t>{4, 10, 18}));
}

TEST_F(Int21BuildersTest, BadShapesAreDiagnosedNotAsserted) {
  func::FuncOp func = startFunc({f32({2, 3}), f32({4, 5})});
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  OperationState state(loc, MatMulOp::getOperationName());
  state.addOperands({func.getArgument(0), func.getArgument(1)});
  SmallVector<Type> inferred;
  EXPECT_TRUE(failed(MatMulOp::inferReturnTypes(
      &context, loc, state.operands, state.attributes.getDictionary(&context),
      state.getRawProperties(), state.regions, inferred)));
  EXPECT_NE(message.find("agree on K, got 3 and 4"), std::string::npos)
      << message;
}

// Type inference runs inside builders, before any verifier: operands the
// op constraints would reject (unranked, none at all) fail cleanly there.
TEST_F(Int21BuildersTest, InferenceRejectsWhatVerifiersWouldCatchLater) {
  auto unranked = UnrankedTensorType::get(builder.getF32Type());
  func::FuncOp func = startFunc({unranked, f32({2, 3})});
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages.push_back(diag.str());
    return success();
  });
  SmallVector<Type> inferred;
  ValueRange operands = func.getArguments();
  OperationState add(loc, AddOp::getOperationName());
  add.addOperands(operands);
  EXPECT_TRUE(failed(AddOp::inferReturnTypes(
      &context, loc, add.operands, add.attributes.getDictionary(&context),
      add.getRawProperties(), add.regions, inferred)));
  OperationState matmul(loc, MatMulOp::getOperationName());
  matmul.addOperands(operands);
  EXPECT_TRUE(failed(MatMulOp::inferReturnTypes(
      &context, loc, matmul.operands, matmul.attributes.getDictionary(&context),
      matmul.getRawProperties(), matmul.regions, inferred)));
  OperationState concat(loc, ConcatOp::getOperationName());
  concat.getOrAddProperties<ConcatOp::Properties>().axis =
      builder.getI64IntegerAttr(0);
  EXPECT_TRUE(failed(ConcatOp::inferReturnTypes(
      &context, loc, ValueRange(), concat.attributes.getDictionary(&context),
      concat.getRawProperties(), concat.regions, inferred)));
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0], "'int21.add' op expects ranked tensor operands");
  EXPECT_EQ(messages[1], "'int21.matmul' op expects ranked operands");
  EXPECT_EQ(messages[2], "'int21.concat' op expects at least one input");
  EXPECT_TRUE(inferred.empty());
}

TEST_F(Int21BuildersTest, ScheduleAttrRejectsBadKnobs) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto knobs = builder.getDictionaryAttr(
      {builder.getNamedAttr("tile", builder.getF32FloatAttr(1.5))});
  auto attr =
      ScheduleAttr::getChecked([&] { return emitError(loc); }, &context,
                               FlatSymbolRefAttr::get(&context, "cpu.matmul"), knobs);
  EXPECT_FALSE(attr);
  EXPECT_NE(message.find("knob 'tile'"), std::string::npos) << message;
  auto good = ScheduleAttr::get(&context,
                                FlatSymbolRefAttr::get(&context, "cpu.matmul"),
                                builder.getDictionaryAttr({builder.getNamedAttr(
                                    "tile_m", builder.getI64IntegerAttr(64))}));
  EXPECT_EQ(good.getIntKnob("tile_m"), 64);
  EXPECT_EQ(good.getIntKnob("tile_n"), std::nullopt);
}

} // namespace
