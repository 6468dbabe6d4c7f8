//===- Passes.td - int21 transformation passes ---------------*- tablegen -*-===//

#ifndef INT21_TRANSFORMS_PASSES_TD
#define INT21_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def Int21FormFusionGroups : Pass<"int21-form-fusion-groups", "func::FuncOp"> {
  let summary = "Group int21 ops into fusion groups, one per future kernel";
  let description = [{
    Forms `int21.fusion_group` regions with the default policy: every compute
    op starts a group, and an elementwise op joins the group of its producer
    when it is that producer's only user (conv + bias + relu, matmul + add +
    gelu, ...). Data movement ops (reshape, transpose, slice, ...) and
    constants stay outside groups. Ops already in a group are left alone.
  }];
  let options = [
    Option<"fuseElementwise", "fuse-elementwise", "bool", /*default=*/"true",
           "Fuse elementwise consumers into the group of their producer">,
    Option<"maxGroupSize", "max-group-size", "unsigned", /*default=*/"16",
           "The most ops one group may hold">,
  ];
  let dependentDialects = ["::mlir::int21::Int21Dialect"];
}

def Int21InlineFusionGroups : Pass<"int21-inline-fusion-groups", "func::FuncOp"> {
  let summary = "Dissolve fusion groups, moving their bodies into the parent";
  let description = [{
    The inverse of `int21-form-fusion-groups`: every `int21.fusion_group` is
    replaced by the ops of its body, and its results by the yielded values.
    Used to regroup a function under another fusion policy.
  }];
}

def Int21LowerToLinalg : Pass<"int21-lower-to-linalg", "func::FuncOp"> {
  let summary = "Lower int21 ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every int21 op (inside fusion groups or not) into upstream ops
    on tensors: named linalg ops where they exist (matmul, batch_matmul,
    transpose, reduce, softmax, the convolution and pooling families), and
    `linalg.generic` otherwise. Elementwise ops share one table-driven
    lowering whose broadcasting becomes indexing maps. Fusion groups stay, so
    that schedules can be applied per group afterwards. An op that cannot be
    lowered (for instance an unsupported element type) is an error at its
    location.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

#endif // INT21_TRANSFORMS_PASSES_TD
