//===- Int21Dialect.td - the int21 dialect and its base classes -*- tablegen -*-===//

#ifndef INT21_DIALECT_INT21_INT21DIALECT_TD
#define INT21_DIALECT_INT21_INT21DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Int21_Dialect : Dialect {
  let name = "int21";
  let cppNamespace = "::int21";
  let summary = "Tensor-level ops for ML models, close to ONNX semantics, normalised";
  let description = [{
    The int21 dialect is what ONNX models are imported into. Its ops keep ONNX
    semantics but in a normalised, regular form:

    * every tensor has a static shape;
    * every attribute is explicit and canonical: axes are non-negative and
      sorted, pads are given per spatial dimension as `[begins..., ends...]`,
      defaults are materialised by the importer;
    * broadcasting follows ONNX (numpy) multidirectional rules: shapes are
      aligned on their trailing dimensions, and each pair of dimensions must be
      equal or one of them must be 1; the result takes the larger;
    * ONNX ops that are compositions of others (Gemm, Flatten, Split, ...) are
      decomposed at import onto the small set of ops here.

    `int21.fusion_group` marks the body of one future kernel and carries the
    schedule that was chosen for it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

// Marks ops computed independently per element of the (broadcast) result, so
// that lowering and fusion treat them uniformly. Unlike upstream's
// `Elementwise`, operands may be broadcast to the result shape.
def Int21_ElementwiseBroadcastable
    : NativeOpTrait<"ElementwiseBroadcastable"> {
  let cppNamespace = "::int21::OpTrait";
}

// Most ops take static shapes only (their verifier says so); the ops whose
// inference, folders and lowering handle dynamic extents derive from
// Int21_DynamicOp instead.
def Int21_StaticShapes : NativeOpTrait<"StaticShapes"> {
  let cppNamespace = "::int21::OpTrait";
}

class Int21_DynamicOp<string mnemonic, list<Trait> traits = []>
    : Op<Int21_Dialect, mnemonic, traits>;
class Int21_Op<string mnemonic, list<Trait> traits = []>
    : Int21_DynamicOp<mnemonic, !listconcat(traits, [Int21_StaticShapes])>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Int21_FloatLike : AnyTypeOf<[F16, BF16, F32, F64]>;
def Int21_NumericLike : AnyTypeOf<[Int21_FloatLike, I8, I16, I32, I64,
                                   UI8, UI16, UI32, UI64]>;

def Int21_Tensor : RankedTensorOf<[AnyType]>;
def Int21_FloatTensor : RankedTensorOf<[Int21_FloatLike]>;
def Int21_NumericTensor : RankedTensorOf<[Int21_NumericLike]>;
def Int21_IntegerTensor : RankedTensorOf<[I8, I16, I32, I64,
                                                UI8, UI16, UI32, UI64]>;
def Int21_BoolTensor : RankedTensorOf<[I1]>;
def Int21_IndexTensor : RankedTensorOf<[I32, I64]>;

#endif // INT21_DIALECT_INT21_INT21DIALECT_TD
