//===- Int21Ops.td - the ops of the int21 dialect -------------*- tablegen -*-===//

#ifndef INT21_DIALECT_INT21_INT21OPS_TD
#define INT21_DIALECT_INT21_INT21OPS_TD

include "int21/Dialect/Int21/Int21Dialect.td"
include "int21/Dialect/Int21/Int21Attrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Int21_ConstantOp : Int21_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "a tensor constant (weights, folded shapes)";
  let description = [{
    A constant tensor. Weights imported from ONNX initializers are
    `dense_resource` blobs, so printing a large model does not print its
    weights; small constants (folded shape arithmetic) are `dense`.

    ```mlir
    %0 = int21.constant dense<[1, 2]> : tensor<2xi64>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class Int21_UnaryOp<string mnemonic, Type tensorType, string doc,
                    list<Trait> traits = []>
    : Int21_DynamicOp<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                      Int21_ElementwiseBroadcastable], traits)> {
  let summary = "elementwise " # doc;
  let description = "Computes " # doc # " of every element; the result has "
                    # "the type of the operand.";
  let arguments = (ins tensorType:$input);
  let results = (outs tensorType:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
}

let hasFolder = 1 in {
def Int21_AbsOp : Int21_UnaryOp<"abs", Int21_NumericTensor, "the absolute value">;
def Int21_NegOp : Int21_UnaryOp<"neg", Int21_NumericTensor, "the negation">;
}
def Int21_SignOp : Int21_UnaryOp<"sign", Int21_NumericTensor, "the sign (-1, 0 or 1)">;
def Int21_ReluOp : Int21_UnaryOp<"relu", Int21_NumericTensor, "max(x, 0)">;
def Int21_ExpOp : Int21_UnaryOp<"exp", Int21_FloatTensor, "e^x">;
def Int21_LogOp : Int21_UnaryOp<"log", Int21_FloatTensor, "the natural logarithm">;
def Int21_SqrtOp : Int21_UnaryOp<"sqrt", Int21_FloatTensor, "the square root">;
def Int21_RsqrtOp : Int21_UnaryOp<"rsqrt", Int21_FloatTensor, "1 / sqrt(x)">;
def Int21_ReciprocalOp : Int21_UnaryOp<"reciprocal", Int21_FloatTensor, "1 / x">;
def Int21_ErfOp : Int21_UnaryOp<"erf", Int21_FloatTensor, "the error function">;
def Int21_TanhOp : Int21_UnaryOp<"tanh", Int21_FloatTensor, "the hyperbolic tangent">;
def Int21_SigmoidOp : Int21_UnaryOp<"sigmoid", Int21_FloatTensor, "1 / (1 + e^-x)">;
def Int21_SinOp : Int21_UnaryOp<"sin", Int21_FloatTensor, "the sine">;
def Int21_CosOp : Int21_UnaryOp<"cos", Int21_FloatTensor, "the cosine">;
def Int21_TanOp : Int21_UnaryOp<"tan", Int21_FloatTensor, "the tangent">;
def Int21_AsinOp : Int21_UnaryOp<"asin", Int21_FloatTensor, "the arcsine">;
def Int21_AcosOp : Int21_UnaryOp<"acos", Int21_FloatTensor, "the arccosine">;
def Int21_AtanOp : Int21_UnaryOp<"atan", Int21_FloatTensor, "the arctangent">;
def Int21_SinhOp : Int21_UnaryOp<"sinh", Int21_FloatTensor, "the hyperbolic sine">;
def Int21_CoshOp : Int21_UnaryOp<"cosh", Int21_FloatTensor, "the hyperbolic cosine">;
def Int21_AsinhOp : Int21_UnaryOp<"asinh", Int21_FloatTensor,
                                  "the inverse hyperbolic sine">;
def Int21_AcoshOp : Int21_UnaryOp<"acosh", Int21_FloatTensor,
                                  "the inverse hyperbolic cosine">;
def Int21_AtanhOp : Int21_UnaryOp<"atanh", Int21_FloatTensor,
                                  "the inverse hyperbolic tangent">;
def Int21_CeilOp : Int21_UnaryOp<"ceil", Int21_FloatTensor, "the ceiling">;
def Int21_FloorOp : Int21_UnaryOp<"floor", Int21_FloatTensor, "the floor">;
def Int21_RoundOp : Int21_UnaryOp<"round", Int21_FloatTensor,
                                  "rounding to the nearest integer, halves to even">;
def Int21_SoftplusOp : Int21_UnaryOp<"softplus", Int21_FloatTensor, "log(1 + e^x)">;
def Int21_HardSwishOp : Int21_UnaryOp<"hard_swish", Int21_FloatTensor,
                                      "x * max(0, min(1, x / 6 + 1 / 2))">;
def Int21_NotOp : Int21_UnaryOp<"not", Int21_BoolTensor, "the logical negation"> {
  let hasFolder = 1;
}

def Int21_LeakyReluOp : Int21_UnaryOp<"leaky_relu", Int21_FloatTensor,
                                      "x if x >= 0 else alpha * x"> {
  let arguments = (ins Int21_FloatTensor:$input, F32Attr:$alpha);
}
def Int21_EluOp : Int21_UnaryOp<"elu", Int21_FloatTensor,
                                "x if x >= 0 else alpha * (e^x - 1)"> {
  let arguments = (ins Int21_FloatTensor:$input, F32Attr:$alpha);
}
def Int21_HardSigmoidOp : Int21_UnaryOp<"hard_sigmoid", Int21_FloatTensor,
                                        "max(0, min(1, alpha * x + beta))"> {
  let arguments = (ins Int21_FloatTensor:$input, F32Attr:$alpha, F32Attr:$beta);
}
def Int21_ClipOp : Int21_UnaryOp<"clip", Int21_NumericTensor,
    "min(max(x, min), max), with either bound optional (all max when min > max)"> {
  let arguments = (ins Int21_NumericTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
}

def Int21_CastOp : Int21_DynamicOp<"cast", [Pure, Int21_ElementwiseBroadcastable]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts every element to the element type of the result, with ONNX Cast
    semantics: float to integer truncates toward zero; unsigned element types
    (`ui8`, ...) are zero-extended, signless integers are signed; `i1` is bool.

    ```mlir
    %0 = int21.cast %x : tensor<4xf32> to tensor<4xi64>
    ```
  }];
  let arguments = (ins Int21_Tensor:$input);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($output)";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Type":$elementType)>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary and ternary ops, with ONNX broadcasting
//===----------------------------------------------------------------------===//

class Int21_BroadcastOp<string mnemonic, list<Trait> traits = []>
    : Int21_DynamicOp<mnemonic, !listconcat([Pure, Int21_ElementwiseBroadcastable,
                                      InferTypeOpAdaptor], traits)> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

class Int21_BinaryOp<string mnemonic, Type tensorType, string doc,
                     list<Trait> traits = []>
    : Int21_BroadcastOp<mnemonic, !listconcat(
          [AllElementTypesMatch<["lhs", "rhs", "result"]>], traits)> {
  let summary = "elementwise " # doc # ", with broadcasting";
  let description = "Computes " # doc # " element by element. The operands "
      # "are broadcast to a common shape with ONNX (numpy) rules.";
  let arguments = (ins tensorType:$lhs, tensorType:$rhs);
  let results = (outs tensorType:$result);
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::int21::inferBroadcastReturnType(
          location, getOperationName(), adaptor.getOperands(),
          ::mlir::getElementTypeOrSelf(adaptor.getLhs().getType()), inferred);
    }
  }];
}

class Int21_CompareOp<string mnemonic, string doc>
    : Int21_BroadcastOp<mnemonic, [AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise " # doc # " comparison, with broadcasting";
  let description = "Compares element by element; the result is `i1`. The "
      # "operands are broadcast to a common shape with ONNX (numpy) rules.";
  let arguments = (ins Int21_Tensor:$lhs, Int21_Tensor:$rhs);
  let results = (outs Int21_BoolTensor:$result);
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return ::int21::inferBroadcastReturnType(
          location, getOperationName(), adaptor.getOperands(),
          ::mlir::IntegerType::get(context, 1), inferred);
    }
  }];
}

let hasFolder = 1 in {
def Int21_AddOp : Int21_BinaryOp<"add", Int21_NumericTensor, "addition", [Commutative]>;
def Int21_SubOp : Int21_BinaryOp<"sub", Int21_NumericTensor, "subtraction">;
def Int21_MulOp : Int21_BinaryOp<"mul", Int21_NumericTensor, "multiplication", [Commutative]>;
def Int21_DivOp : Int21_BinaryOp<"div", Int21_NumericTensor,
                                 "division (integer division truncates toward zero)">;
}
def Int21_PowOp : Int21_BinaryOp<"pow", Int21_NumericTensor, "lhs raised to the power rhs">;
let hasFolder = 1 in {
def Int21_MaxOp : Int21_BinaryOp<"max", Int21_NumericTensor, "maximum", [Commutative]>;
def Int21_MinOp : Int21_BinaryOp<"min", Int21_NumericTensor, "minimum", [Commutative]>;
}
def Int21_ModOp : Int21_BinaryOp<"mod", Int21_NumericTensor,
    "remainder (sign of the divisor for integers, as C fmod for floats)">;
def Int21_ShiftLeftOp : Int21_BinaryOp<"shift_left", Int21_IntegerTensor,
    "left shift of lhs by rhs bits (0 when rhs is the bit width or more)">;
def Int21_ShiftRightOp : Int21_BinaryOp<"shift_right", Int21_IntegerTensor,
    "right shift of lhs by rhs bits, logical for unsigned and arithmetic for "
    "signless integers (shifts of the bit width or more shift everything out)">;
let hasFolder = 1 in {
def Int21_AndOp : Int21_BinaryOp<"and", Int21_BoolTensor, "logical and", [Commutative]>;
def Int21_OrOp : Int21_BinaryOp<"or", Int21_BoolTensor, "logical or", [Commutative]>;
def Int21_XorOp : Int21_BinaryOp<"xor", Int21_BoolTensor, "logical xor", [Commutative]>;
}

def Int21_EqualOp : Int21_CompareOp<"equal", "equality">;
def Int21_LessOp : Int21_CompareOp<"less", "less-than">;
def Int21_LessEqualOp : Int21_CompareOp<"less_equal", "less-or-equal">;
def Int21_GreaterOp : Int21_CompareOp<"greater", "greater-than">;
def Int21_GreaterEqualOp : Int21_CompareOp<"greater_equal", "greater-or-equal">;

def Int21_WhereOp : Int21_BroadcastOp<"where",
    [AllElementTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "elementwise selection, with broadcasting";
  let description = [{
    Selects `on_true` where `condition` holds and `on_false` elsewhere. All
    three operands are broadcast to a common shape with ONNX (numpy) rules.
  }];
  let arguments = (ins Int21_BoolTensor:$condition, Int21_Tensor:$on_true,
                       Int21_Tensor:$on_false);
  let results = (outs Int21_Tensor:$result);
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions, convolution, pooling
//===----------------------------------------------------------------------===//

def Int21_MatMulOp : Int21_DynamicOp<"matmul",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["lhs", "rhs", "result"]>]> {
  let summary = "batched matrix product with broadcast batch dimensions";
  let description = [{
    `lhs` is `[B..., M, K]`, `rhs` is `[B'..., K, N]`, both of rank 2 or more
    (the importer promotes ONNX's 1-D operands by reshaping). The batch
    dimensions broadcast with ONNX rules; the result is `[broadcast(B, B'), M, N]`.
    ONNX Gemm is imported as transposes, a matmul and epilogue ops.
  }];
  let arguments = (ins Int21_NumericTensor:$lhs, Int21_NumericTensor:$rhs);
  let results = (outs Int21_NumericTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Int21_EinsumOp : Int21_Op<"einsum",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["inputs"]>]> {
  let summary = "sum of products over named dimensions (Einstein summation)";
  let description = [{
    `equation` names every dimension of every input and of the result with
    one letter, in the explicit form `ab,bc->ac`: letters shared between
    operands are the same dimension, a letter repeated within one input
    takes its diagonal, and letters absent from the result are summed over.
    A `1` stands for a dimension of size 1 that broadcasts (always read at
    index 0). The importer resolves ONNX's implicit outputs and ellipses
    into this form.

    ```mlir
    %0 = int21.einsum %a, %b {equation = "bij,bjk->bik"}
        : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    ```
  }];
  let arguments = (ins Variadic<Int21_NumericTensor>:$inputs, StrAttr:$equation);
  let results = (outs Int21_NumericTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The letters of each input and of the result ('1' for a broadcast
    /// dimension), or failure with a message when the equation is malformed.
    static FailureOr<std::pair<SmallVector<std::string>, std::string>>
    parseEquation(StringRef equation, std::string &error);
  }];
}

def Int21_ConvOp : Int21_DynamicOp<"conv", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D grouped convolution (ONNX Conv), NC... layout";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`, `weight` is `[F, C / group, K1, ..., Kk]`,
    the optional `bias` is `[F]`. `strides` and `dilations` have k entries,
    `pads` has 2k: the begin pads of every spatial dimension, then the end pads.
    Output dimension i is
    `floor((Di + pad_begin_i + pad_end_i - dilation_i * (Ki - 1) - 1) / stride_i) + 1`.
    Depthwise convolution is `group == C == F`. Integer convolutions
    (ONNX ConvInteger, imported with operands widened to `i32`) accumulate
    in the element type, wrapping on overflow.

    Canonical form: a convolution whose kernel is all ones and unpadded
    has unit strides; a strided one is the convolution of the input's
    strided slice (the pixels it reads).
  }];
  let arguments = (ins Int21_NumericTensor:$input, Int21_NumericTensor:$weight,
                       Optional<Int21_NumericTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group);
  let results = (outs Int21_NumericTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasCanonicalizer = 1;
}

def Int21_ConvTransposeOp : Int21_Op<"conv_transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "N-D grouped transposed convolution (ONNX ConvTranspose)";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`, `weight` is `[C, F / group, K1, ..., Kk]`,
    the optional `bias` is `[F]`. `pads` has 2k entries (begins, then ends);
    the importer resolves `auto_pad` and `output_shape` into `pads` and
    `output_padding`. Output dimension i is
    `stride_i * (Di - 1) + output_padding_i + dilation_i * (Ki - 1) + 1 - pad_begin_i - pad_end_i`.
  }];
  let arguments = (ins Int21_FloatTensor:$input, Int21_FloatTensor:$weight,
                       Optional<Int21_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding, I64Attr:$group);
  let results = (outs Int21_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

class Int21_PoolOp<string mnemonic, string doc>
    : Int21_DynamicOp<mnemonic, [Pure, InferTypeOpAdaptor,
                          AllElementTypesMatch<["input", "output"]>]> {
  let summary = doc # " pooling over the spatial dimensions, NC... layout";
  let description = [{
    `input` is `[N, C, D1, ..., Dk]`; `kernel_shape`, `strides` and `dilations`
    have k entries, `pads` has 2k (begins, then ends). Output dimension i is
    `floor_or_ceil((Di + pad_begin_i + pad_end_i - dilation_i * (Ki - 1) - 1) / stride_i) + 1`,
    rounding up when `ceil_mode` is set, except that a window starting in the
    end padding is dropped (ONNX semantics). Padded elements never win a max;
    whether they count in an average is `count_include_pad`.
  }];
  let arguments = (ins Int21_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode);
  let results = (outs Int21_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Int21_MaxPoolOp : Int21_PoolOp<"max_pool", "max"> {
  let arguments = (ins Int21_NumericTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode);
  let results = (outs Int21_NumericTensor:$output);
}
def Int21_MaxPoolIndicesOp : Int21_Op<"max_pool_indices",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "where each window of a max pooling has its maximum";
  let description = [{
    The windows of `int21.max_pool` with the same attributes; each result
    element is the position of its window's first maximum in `input`,
    flattened (ONNX MaxPool's Indices): row-major over `[N, C, D1, ...]`,
    or with the spatial dimensions column-major (`storage_order` 1). Padding
    never wins.
  }];
  let arguments = (ins Int21_NumericTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                       BoolAttr:$storage_order);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Int21_AvgPoolOp : Int21_PoolOp<"avg_pool", "average"> {
  let arguments = (ins Int21_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                       BoolAttr:$count_include_pad);
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

class Int21_SoftmaxBase<string mnemonic, string doc>
    : Int21_DynamicOp<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = doc # " along one axis";
  let description = "Computes " # doc # " of `input` along `axis` "
      # "(non-negative), with the maximum subtracted first for stability.";
  let arguments = (ins Int21_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Int21_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}
def Int21_SoftmaxOp : Int21_SoftmaxBase<"softmax", "softmax">;
def Int21_LogSoftmaxOp : Int21_SoftmaxBase<"log_softmax", "log-softmax">;

def Int21_LayerNormOp : Int21_DynamicOp<"layer_norm",
    [Pure, AllTypesMatch<["input", "output"]>]> {
  let summary = "layer normalisation over the trailing dimensions from `axis`";
  let description = [{
    Normalises `input` over dimensions `axis..rank-1` to zero mean and unit
    variance (`epsilon` added to the variance), then multiplies by `scale`
    and adds the optional `bias`; both broadcast to those dimensions.
  }];
  let arguments = (ins Int21_FloatTensor:$input, Int21_FloatTensor:$scale,
                       Optional<Int21_FloatTensor>:$bias, I64Attr:$axis,
                       F32Attr:$epsilon);
  let results = (outs Int21_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Int21_BatchNormOp : Int21_DynamicOp<"batch_norm",
    [Pure, AllTypesMatch<["input", "output"]>]> {
  let summary = "batch normalisation with running statistics (inference)";
  let description = [{
    `(input - mean) / sqrt(variance + epsilon) * scale + bias` per channel
    (dimension 1); `scale`, `bias`, `mean` and `variance` are `[C]`.
  }];
  let arguments = (ins Int21_FloatTensor:$input, Int21_FloatTensor:$scale,
                       Int21_FloatTensor:$bias, Int21_FloatTensor:$mean,
                       Int21_FloatTensor:$variance, F32Attr:$epsilon);
  let results = (outs Int21_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Int21_ReduceOp<string mnemonic, string doc>
    : Int21_DynamicOp<mnemonic, [Pure, InferTypeOpAdaptor,
                          AllElementTypesMatch<["input", "output"]>]> {
  let summary = "reduction by " # doc # " over a set of axes";
  let description = "Reduces `input` by " # doc # " over `axes` (non-negative, "
      # "strictly increasing; empty reduces nothing). Reduced dimensions are "
      # "kept as 1 when `keepdims` is set and dropped otherwise.";
  let arguments = (ins Int21_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keepdims);
  let results = (outs Int21_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Int21_ReduceSumOp : Int21_ReduceOp<"reduce_sum", "sum">;
def Int21_ReduceMeanOp : Int21_ReduceOp<"reduce_mean", "mean">;
def Int21_ReduceMaxOp : Int21_ReduceOp<"reduce_max", "maximum">;
def Int21_ReduceMinOp : Int21_ReduceOp<"reduce_min", "minimum">;
def Int21_ReduceProdOp : Int21_ReduceOp<"reduce_prod", "product">;

class Int21_ArgReduceOp<string mnemonic, string doc>
    : Int21_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = "index of the " # doc # " along one axis";
  let description = "The `i64` index of the " # doc # " of `input` along "
      # "`axis`; ties go to the first index, or the last with "
      # "`select_last_index`. The axis is kept as 1 with `keepdims`.";
  let arguments = (ins Int21_NumericTensor:$input, I64Attr:$axis,
                       BoolAttr:$keepdims, BoolAttr:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}
def Int21_ArgMaxOp : Int21_ArgReduceOp<"argmax", "maximum">;
def Int21_ArgMinOp : Int21_ArgReduceOp<"argmin", "minimum">;

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Int21_TransposeOp : Int21_DynamicOp<"transpose",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "permutation of dimensions";
  let description = "Result dimension i is input dimension `perm[i]`.";
  let arguments = (ins Int21_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Int21_ReshapeOp : Int21_DynamicOp<"reshape",
    [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "reinterpretation of the elements in a new shape";
  let description = [{
    Keeps the elements in row-major order and gives them the result's shape;
    both have the same number of elements. ONNX Reshape (0 and -1 resolved),
    Flatten, Squeeze and Unsqueeze all import as this op.

    The result's dynamic extents are `sizes` (one `index` per dynamic
    dimension, in order) when given, extents computed at run time (shape
    arithmetic on other extents). Without `sizes` they are the input's
    dynamic extents, in the same order: the reshape only joins or splits the
    static extents around them. The element counts agree at run time; the
    engine checks it before the run.

    ```mlir
    %r = int21.reshape %x [%n4] : tensor<?x256xf32> to tensor<?x64xf32>
    ```
  }];
  let arguments = (ins Int21_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = [{
    $input (`[` $sizes^ `]`)? attr-dict `:` type($input) `to` type($output)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$shape)>,
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input), [{
      build($_builder, $_state, output, input, ::mlir::ValueRange());
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Int21_ExpandOp : Int21_DynamicOp<"expand",
    [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "broadcast to a larger shape";
  let description = [{
    Broadcasts `input` to the result's shape with ONNX rules (ONNX Expand with
    its shape resolved, ConstantOfShape of a computed shape). The result
    shape is the broadcast of the input shape and the requested one. The
    result's dynamic extents are `sizes`, one `index` per dynamic dimension in
    order. A dynamic extent of the input is read as the result's extent at
    its place, which the engine checks before the run (int21 broadcasts
    dynamic extents against static 1s only).
  }];
  let arguments = (ins Int21_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = [{
    $input (`[` $sizes^ `]`)? attr-dict `:` type($input) `to` type($output)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input), [{
      build($_builder, $_state, output, input, ::mlir::ValueRange());
    }]>
  ];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Int21_IotaOp : Int21_DynamicOp<"iota", [Pure]> {
  let summary = "positions along one dimension";
  let description = [{
    Every element is its own index along `dimension` (as i64): the positions
    ONNX Range, Trilu and the windows compute with, for extents known at run
    time only (static ones are constants). `sizes` gives the result's dynamic
    extents, one `index` per dynamic dimension in order.

    ```mlir
    %p = int21.iota [%n] {dimension = 1 : i64} : tensor<1x?xi64>
    ```
  }];
  let arguments = (ins Variadic<Index>:$sizes, I64Attr:$dimension);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "(`[` $sizes^ `]`)? attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Int21_RandomOp : Int21_DynamicOp<"random",
    [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "random numbers of one distribution";
  let description = [{
    Standard uniform numbers in [0, 1) or, with `normal`, standard normal
    ones, as f64: the Mersenne Twister (MT19937) numpy's legacy RandomState
    uses, so that a `seed` gives the numbers `numpy.random.seed(seed)` then
    `rand` or `randn` gives. With a seed every run gives the same numbers;
    without one each run draws fresh ones. `sizes` gives the result's dynamic
    extents, one `index` per dynamic dimension in order. The op writes
    memory (the generator's state), so it is neither merged with another nor
    moved.

    ```mlir
    %u = int21.random {seed = 0 : i64} : tensor<3x4xf64>
    %g = int21.random [%n] {normal} : tensor<?xf64>
    ```
  }];
  let arguments = (ins Variadic<Index>:$sizes, UnitAttr:$normal,
                   OptionalAttr<I64Attr>:$seed);
  let results = (outs RankedTensorOf<[F64]>:$output);
  let assemblyFormat = "(`[` $sizes^ `]`)? attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Int21_ConcatOp : Int21_DynamicOp<"concat",
    [Pure, InferTypeOpAdaptor, SameOperandsElementType]> {
  let summary = "concatenation along one axis";
  let description = "Joins `inputs` along `axis`; every other dimension must agree.";
  let arguments = (ins Variadic<Int21_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Int21_SliceOp : Int21_DynamicOp<"slice",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "strided slice, with negative steps";
  let description = [{
    Element `j` along dimension `d` of the result is element
    `starts[d] + j * steps[d]` of `input`, for `j` in `[0, sizes[d])`. Every
    dimension has an entry; `steps` may be negative, never 0. The importer
    resolves ONNX's negative and clamped indices into this form. (ONNX Split
    imports as slices.) A dynamic dimension of `input` is either kept whole
    (start 0, step 1, size `?`: the result's extent is the input's) or read
    at static positions that the engine checks lie inside it.
  }];
  let arguments = (ins Int21_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$steps);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Int21_DynamicSliceOp : Int21_DynamicOp<"dynamic_slice",
    [Pure, AttrSizedOperandSegments,
     AllElementTypesMatch<["input", "output"]>]> {
  let summary = "strided slice whose positions are computed at run time";
  let description = [{
    Element `j` along dimension `d` of the result is element
    `starts[d] + j * steps[d]` of `input`, for `j` in `[0, sizes[d])`: like
    int21.slice, with `starts`, `sizes` and `steps` given as `index` values,
    one of each per dimension (ONNX Slice and Split whose parameters are
    inputs of the model or extents computed at run time, resolved and clamped
    by the importer so that the positions lie inside `input`). A step may be
    negative, never 0. A static extent of the result is that dimension's size.

    ```mlir
    %r = int21.dynamic_slice %x [%c0, %s] [%n, %c4] [%c1, %c1]
        : tensor<?x8xf32> to tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Int21_Tensor:$input, Variadic<Index>:$starts,
                       Variadic<Index>:$sizes, Variadic<Index>:$steps);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = [{
    $input `[` $starts `]` `[` $sizes `]` `[` $steps `]` attr-dict `:`
    type($input) `to` type($output)
  }];
  let hasVerifier = 1;
}

def Int21_GatherOp : Int21_DynamicOp<"gather",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "gather of slices along one axis by integer indices";
  let description = [{
    The result is `data.shape[:axis] + indices.shape + data.shape[axis+1:]`;
    each index selects a slice of `data` along `axis`. Negative indices count
    from the end (ONNX semantics); embedding lookups are gathers with axis 0.
  }];
  let arguments = (ins Int21_Tensor:$data, Int21_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Int21_PadOp : Int21_DynamicOp<"pad",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "padding (or cropping, with negative pads) of every dimension";
  let description = [{
    `pads` has 2 * rank entries: the begin pads of every dimension, then the
    end pads. New elements are `value` in `constant` mode, mirrored in
    `reflect` mode, copies of the border in `edge` mode and wrapped around in
    `wrap` mode.
  }];
  let arguments = (ins Int21_Tensor:$input, DenseI64ArrayAttr:$pads,
                       Int21_PadModeAttr:$mode, F64Attr:$value);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Int21_GatherElementsOp : Int21_Op<"gather_elements",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "gather of single elements along one axis (ONNX GatherElements)";
  let description = [{
    The result has the shape of `indices`; element `p` is `data[p']`, where
    `p'` is `p` with its `axis` coordinate replaced by `indices[p]`. Every
    other dimension of `indices` is at most that of `data`. Negative indices
    count from the end; indices out of range are clamped into the axis, so
    the op never reads out of bounds.
  }];
  let arguments = (ins Int21_Tensor:$data, Int21_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Int21_ScatterElementsOp : Int21_Op<"scatter_elements",
    [Pure, InferTypeOpAdaptor,
     AllElementTypesMatch<["data", "updates", "output"]>]> {
  let summary = "scatter of single elements along one axis (ONNX ScatterElements)";
  let description = [{
    The result is `data` with `updates[p]` combined into element `p'`, where
    `p'` is `p` with its `axis` coordinate replaced by `indices[p]`; `indices`
    and `updates` have one shape. Updates apply in row-major order of `p`:
    with `reduction = none` a later update to the same element wins, otherwise
    they accumulate. Negative indices count from the end; indices out of range
    are clamped into the axis, so the op never writes out of bounds.
  }];
  let arguments = (ins Int21_Tensor:$data, Int21_IndexTensor:$indices,
                       Int21_Tensor:$updates, I64Attr:$axis,
                       Int21_ScatterReductionAttr:$reduction);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Int21_GatherNDOp : Int21_DynamicOp<"gather_nd",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "gather of slices by index tuples (ONNX GatherND)";
  let description = [{
    With `b = batch_dims` and `indices` of shape `[B..., M..., k]` (the first
    `b` dimensions shared with `data`), every tuple of `k` indices selects the
    slice `data[B..., i1, ..., ik, :]`; the result is
    `indices.shape[:-1] + data.shape[b + k:]`. Negative indices count from the
    end; indices out of range are clamped, so the op never reads out of bounds.
  }];
  let arguments = (ins Int21_Tensor:$data, Int21_IndexTensor:$indices,
                       I64Attr:$batch_dims);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Int21_ScatterNDOp : Int21_Op<"scatter_nd",
    [Pure, InferTypeOpAdaptor,
     AllElementTypesMatch<["data", "updates", "output"]>]> {
  let summary = "scatter of slices by index tuples (ONNX ScatterND)";
  let description = [{
    `indices` is `[M..., k]`; every tuple of `k` indices names the slice
    `data[i1, ..., ik, :]`, and `updates` is `[M..., data.shape[k:]...]`. The
    slices are combined into a copy of `data` in row-major order of the
    tuples (a later one wins with `reduction = none`). Negative indices count
    from the end; indices out of range are clamped, so the op never writes
    out of bounds.
  }];
  let arguments = (ins Int21_Tensor:$data, Int21_IndexTensor:$indices,
                       Int21_Tensor:$updates,
                       Int21_ScatterReductionAttr:$reduction);
  let results = (outs Int21_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Int21_ResizeOp : Int21_DynamicOp<"resize",
    [Pure, AttrSizedOperandSegments,
     AllElementTypesMatch<["input", "output"]>]> {
  let summary = "resampling of every dimension by interpolation (ONNX Resize)";
  let description = [{
    Output coordinate `x` of dimension `d` maps to an input coordinate by
    `coordinate_transform`, with the scale of the dimension (the output
    size over the input size, unless ONNX gave scales; the resized length in
    the formulas is the input size times the scale, as in ONNX's reference)
    and, for `tf_crop_and_resize`, the region of interest (starts, then
    ends, normalised to [0, 1]); a sample outside the input is then
    `extrapolation_value`. The input is interpolated there: `nearest`
    (rounded by `nearest_mode`), `linear` (2 taps per resized dimension) or
    `cubic` (4 taps, Keys' kernel with `cubic_coeff_a`; with
    `exclude_outside` the weights of taps outside the input are dropped and
    the rest renormalised). Linear and cubic clamp taps to the border. A
    dimension with scale 1 and the identity transform is copied.

    The scales are `scales` (one per dimension, known when compiling), or
    `scale_values` (one f32 per dimension, read at run time), or neither:
    then each is the output extent over the input extent, at run time where
    either is dynamic. The region is `roi` (`2 * rank` entries) or
    `roi_values` (as many f32 values). The output shape is the result
    type's; its dynamic extents are `sizes`, one `index` per dynamic
    dimension in order.

    ```mlir
    %y = int21.resize %x scales(%c1, %c1, %s, %s) [%h, %w] {...}
        : tensor<1x3x?x?xf32> to tensor<1x3x?x?xf32>
    ```
  }];
  let arguments = (ins Int21_NumericTensor:$input,
                       Variadic<F32>:$scale_values, Variadic<F32>:$roi_values,
                       Variadic<Index>:$sizes,
                       Int21_ResizeModeAttr:$mode,
                       Int21_CoordinateTransformAttr:$coordinate_transform,
                       Int21_NearestModeAttr:$nearest_mode,
                       F32Attr:$cubic_coeff_a, BoolAttr:$exclude_outside,
                       F32Attr:$extrapolation_value,
                       DenseF32ArrayAttr:$scales, DenseF32ArrayAttr:$roi);
  let results = (outs Int21_NumericTensor:$output);
  let assemblyFormat = [{
    $input (`scales` `(` $scale_values^ `)`)? (`roi` `(` $roi_values^ `)`)?
    (`[` $sizes^ `]`)? attr-dict `:` type($input) `to` type($output)
  }];
  let hasVerifier = 1;
}

def Int21_GridSampleOp : Int21_Op<"grid_sample",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["input", "grid", "output"]>]> {
  let summary = "sampling of an image at given points (ONNX GridSample)";
  let description = [{
    `input` is `[N, C, H, W]`, `grid` is `[N, Ho, Wo, 2]`: (x, y) points
    normalised to [-1, 1] (-1 and 1 are the centres of the corner pixels
    with `align_corners`, their outer edges otherwise). The result
    `[N, C, Ho, Wo]` samples every channel there by `mode`; `padding` says
    what lies outside the input (zeros, the border pixels, or the input
    reflected at its edges).
  }];
  let arguments = (ins Int21_FloatTensor:$input, Int21_FloatTensor:$grid,
                       Int21_GridSampleModeAttr:$mode,
                       Int21_GridPaddingAttr:$padding, BoolAttr:$align_corners);
  let results = (outs Int21_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Int21_RoiAlignOp : Int21_Op<"roi_align",
    [Pure, InferTypeOpAdaptor, AllElementTypesMatch<["input", "rois", "output"]>]> {
  let summary = "pooling of regions of interest by bilinear samples (ONNX RoiAlign)";
  let description = [{
    `input` is `[N, C, H, W]`, `rois` is `[R, 4]` (x1, y1, x2, y2, scaled by
    `spatial_scale`, shifted by half a pixel with `half_pixel`), and
    `batch_indices` `[R]` says which image each region is in. Every region
    is divided into `output_height x output_width` bins; a bin is the
    average (or the maximum, with `max`) of `sampling_ratio` x
    `sampling_ratio` bilinear samples (ceil(bin size) per dimension when 0).
    The result is `[R, C, output_height, output_width]`.
  }];
  let arguments = (ins Int21_FloatTensor:$input, Int21_FloatTensor:$rois,
                       Int21_IndexTensor:$batch_indices, I64Attr:$output_height,
                       I64Attr:$output_width, I64Attr:$sampling_ratio,
                       F32Attr:$spatial_scale, BoolAttr:$half_pixel,
                       BoolAttr:$max);
  let results = (outs Int21_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Int21_CumSumOp : Int21_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "cumulative sum along one axis (ONNX CumSum)";
  let description = [{
    Element `i` along `axis` is the sum of elements `0..i` of `input`
    (`0..i-1` when `exclusive`; counted from the end when `reverse`).
  }];
  let arguments = (ins Int21_NumericTensor:$input, I64Attr:$axis,
                       BoolAttr:$exclusive, BoolAttr:$reverse);
  let results = (outs Int21_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Int21_TopKOp : Int21_Op<"topk", [Pure, InferTypeOpAdaptor,
                                     AllElementTypesMatch<["input", "values"]>]> {
  let summary = "the k largest (or smallest) elements along one axis";
  let description = [{
    `values` and `indices` (`i64`) have the input's shape with `k` elements
    along `axis`, in order from the largest (the smallest when not `largest`);
    equal elements come in the order of their indices. NaN orders above every
    number. (ONNX TopK with `sorted = 0` may return any order; int21 always
    sorts.)
  }];
  let arguments = (ins Int21_NumericTensor:$input, I64Attr:$k, I64Attr:$axis,
                       BoolAttr:$largest);
  let results = (outs Int21_NumericTensor:$values,
                      RankedTensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Extents computed from data
//===----------------------------------------------------------------------===//

def Int21_BoundedExtentOp : Int21_DynamicOp<"bounded_extent", [Pure]> {
  let summary = "an extent computed from the values of a tensor";
  let description = [{
    `extent`, an extent the run computes from data (the number of nonzero
    elements, of unique ones, of selected boxes), which is at most `bound`,
    computed from extents alone. A model output sized by it is allocated at
    the bound before the run (the engine's shape query answers the bound)
    and reports `extent` after it. int21-dynamic-signature resolves the op:
    the bound in `@int21_shapes`, the extent in `@main`.

    ```mlir
    %e = int21.bounded_extent %count, %numel
    ```
  }];
  let arguments = (ins Index:$extent, Index:$bound);
  let results = (outs Index:$result);
  let assemblyFormat = "$extent `,` $bound attr-dict";
}

def Int21_NonZeroOp : Int21_DynamicOp<"nonzero", [Pure]> {
  let summary = "the positions of the nonzero elements (ONNX NonZero)";
  let description = [{
    A `rank x n` tensor of `i64`: column `j` holds the indices of the `j`-th
    nonzero element of `input` in row-major order. `n`, the number of
    nonzero elements, is known during the run only (at most the number of
    elements).

    ```mlir
    %p = int21.nonzero %x : tensor<2x3xf32> -> tensor<2x?xi64>
    ```
  }];
  let arguments = (ins Int21_Tensor:$input);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Int21_UniqueOp : Int21_DynamicOp<"unique", [Pure, InferTypeOpAdaptor]> {
  let summary = "the distinct rows of a matrix (ONNX Unique)";
  let description = [{
    The distinct rows of `input` (`n x s`): `values` holds them (`u x s`),
    in increasing lexicographic order when `sorted`, else in the order they
    first occur; `indices` the row where each first occurs, `inverse` the
    position in `values` of every row of `input` and `counts` how often each
    occurs. `u` is known during the run only (at most `n`). The importer
    views ONNX Unique's input as rows along its axis (each element a row of
    one without one).

    ```mlir
    %v, %i, %r, %c = int21.unique %x {sorted = true}
        : tensor<6x2xf32> -> tensor<?x2xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>
    ```
  }];
  let arguments = (ins Int21_Tensor:$input, BoolAttr:$sorted);
  let results = (outs Int21_Tensor:$values, RankedTensorOf<[I64]>:$indices,
                      RankedTensorOf<[I64]>:$inverse,
                      RankedTensorOf<[I64]>:$counts);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($values) `,` type($indices)
    `,` type($inverse) `,` type($counts)
  }];
  let hasVerifier = 1;
}

def Int21_NonMaxSuppressionOp : Int21_DynamicOp<"non_max_suppression",
    [Pure]> {
  let summary = "greedy selection of boxes by score and overlap (ONNX NMS)";
  let description = [{
    For every batch `b` and class `c`: among the boxes whose score is above
    `score_threshold`, repeatedly selects the highest-scoring one not yet
    suppressed (the lower index on ties) and suppresses those whose
    intersection over union with it is above `iou_threshold` (boxes of no
    area never are), at most `max_output` times. `selected` holds one row
    `(b, c, box)` per selection, by batch, class and order of selection; the
    count is known during the run only (at most batches x classes x boxes).
    `boxes` are `[y1, x1, y2, x2]` corners, or `[x, y, width, height]`
    around a center with `center_point_box`. The thresholds and
    `max_output` are scalars read during the run.

    ```mlir
    %s = int21.non_max_suppression %boxes, %scores, %max, %iou, %score
        {center_point_box = false} : (tensor<1x6x4xf32>, tensor<1x2x6xf32>,
        tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<?x3xi64>
    ```
  }];
  let arguments = (ins Int21_FloatTensor:$boxes, Int21_FloatTensor:$scores,
                       RankedTensorOf<[I64]>:$max_output,
                       Int21_FloatTensor:$iou_threshold,
                       Int21_FloatTensor:$score_threshold,
                       BoolAttr:$center_point_box);
  let results = (outs RankedTensorOf<[I64]>:$selected);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

def Int21_FusionGroupOp : Int21_DynamicOp<"fusion_group",
    [SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
     RecursivelySpeculatable]> {
  let summary = "the body of one future kernel";
  let description = [{
    The ops in the body are compiled into one kernel; the results are what
    the body yields. The body may use values defined above it. The optional
    `schedule` is the resolved schedule chosen for the kernel.

    ```mlir
    %r = int21.fusion_group schedule(#int21.schedule<@cpu.matmul, {}>) {
      %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
      %1 = int21.relu %0 : tensor<4x2xf32>
      int21.yield %1 : tensor<4x2xf32>
    } : tensor<4x2xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<Int21_ScheduleAttr>:$schedule);
  let results = (outs Variadic<Int21_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`schedule` `(` $schedule^ `)`)? $body attr-dict (`:` type($results)^)?
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
  }];
}

def Int21_YieldOp : Int21_DynamicOp<"yield",
    [Pure, Terminator, ReturnLike, HasParent<"FusionGroupOp">]> {
  let summary = "the results of a fusion group";
  let arguments = (ins Variadic<Int21_Tensor>:$values);
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // INT21_DIALECT_INT21_INT21OPS_TD
