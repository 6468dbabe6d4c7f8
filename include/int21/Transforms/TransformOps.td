//===- TransformOps.td - int21's transform dialect extension -*- tablegen -*-===//
//
// The ops a schedule exported from the knowledge base needs beyond upstream
// ones: a template finds its payload ops by the tags int21-cpu-schedule puts
// on them, so an exported schedule puts them on itself (and takes them off).
//
//===----------------------------------------------------------------------===//

#ifndef INT21_TRANSFORMS_TRANSFORMOPS
#define INT21_TRANSFORMS_TRANSFORMOPS

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpBase.td"

def Int21_PrepareGroupOp : Op<Transform_Dialect, "int21.prepare_group", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Tags a fusion group's ops for a CPU schedule template";
  let description = [{
    Puts on the ops of every `int21.fusion_group` that `group` holds the tags
    the CPU schedule template `template_name` finds them by (`int21.root`,
    `int21.anchor`, `int21.fuse`, `int21.ew`), as `int21-cpu-schedule` does
    before it applies a template. Fails (silenceably) when the payload is not
    a fusion group or the template does not fit it.

    ```mlir
    transform.int21.prepare_group %group for "cpu.matmul" : !transform.any_op
    transform.include @cpu.matmul failures(propagate) (%group) : (!transform.any_op) -> ()
    transform.int21.clear_tags %group : !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$group,
                       StrAttr:$template_name);
  let assemblyFormat = "$group `for` $template_name attr-dict `:` type($group)";
}

def Int21_ClearTagsOp : Op<Transform_Dialect, "int21.clear_tags", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Removes the schedule templates' tags";
  let description = [{
    Removes the tags `int21.prepare_group` puts from the ops nested in the
    payload of `scope`.
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$scope);
  let assemblyFormat = "$scope attr-dict `:` type($scope)";
}

def Int21_MatchAnchorOp : Op<Transform_Dialect, "int21.match.anchor", [
    SingleOpMatcher, MatchOpInterface, MemoryEffectsOpInterface]> {
  let summary = "Matches a fusion group and yields its main op";
  let description = [{
    Succeeds when the payload of `group` is one `int21.fusion_group` with a
    main op: its only reduction (a matmul, a convolution), or, without a
    reduction, the op whose result it yields; `anchor` is then that op.
    Produces a silenceable failure otherwise. With the upstream matchers
    (`transform.match.structured` on the anchor), a schedule library tells
    which groups its schedules were measured on.

    ```mlir
    %anchor = transform.int21.match.anchor %group
        : (!transform.any_op) -> !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$group);
  let results = (outs TransformHandleTypeInterface:$anchor);
  let assemblyFormat = "$group attr-dict `:` functional-type($group, $anchor)";
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration # [{
    ::mlir::Value getOperandHandle() { return getGroup(); }
  }];
}

def Int21_MatchLoopSizesOp : Op<Transform_Dialect, "int21.match.loop_sizes", [
    SingleOpMatcher, MatchOpInterface, MemoryEffectsOpInterface]> {
  let summary = "Matches a structured op whose loop sizes are given";
  let description = [{
    Succeeds when the payload of `op` is one structured (linalg) op with as
    many loops as `sizes` has entries, each of the static size given: the
    one shape a schedule was measured on. Produces a silenceable failure
    otherwise. (Upstream's `transform.match.structured.rank` and `.dim`
    say the same in two ops per loop.)

    ```mlir
    transform.int21.match.loop_sizes %anchor [16, 64, 48] : !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$op,
                       DenseI64ArrayAttr:$sizes);
  let assemblyFormat = "$op $sizes attr-dict `:` type($op)";
  let hasVerifier = 1;
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration # [{
    ::mlir::Value getOperandHandle() { return getOp(); }
  }];
}

def Int21_MatchShapeClassOp : Op<Transform_Dialect, "int21.match.shape_class", [
    SingleOpMatcher, MatchOpInterface, MemoryEffectsOpInterface]> {
  let summary = "Matches a structured op whose loop sizes lie in a class";
  let description = [{
    Succeeds when the payload of `op` is one structured (linalg) op with as
    many loops as `multiple_of` has entries, and each loop size `s_i` has
    `s_i % multiple_of[i] == 0` and `min[i] <= s_i <= max[i]`: a shape class
    that a schedule was verified on. Produces a silenceable failure
    otherwise.

    ```mlir
    transform.int21.match.shape_class %anchor multiple_of [16, 64, 16]
        min [16, 64, 32] max [64, 256, 48] : !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$op,
                       DenseI64ArrayAttr:$multiple_of,
                       DenseI64ArrayAttr:$min,
                       DenseI64ArrayAttr:$max);
  let assemblyFormat = "$op `multiple_of` $multiple_of `min` $min `max` $max "
                       "attr-dict `:` type($op)";
  let hasVerifier = 1;
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration # [{
    ::mlir::Value getOperandHandle() { return getOp(); }
  }];
}

def Int21_PromoteCopyOp : Op<Transform_Dialect, "int21.promote_copy", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Copies a tensor value into a new tensor in a memory space";
  let description = [{
    Like `transform.structured.promote_tensor`, but the copy is a
    `linalg.copy` into a `bufferization.alloc_tensor` in `memory_space`
    rather than a `bufferization.materialize_in_destination`: a structured
    op that a schedule can tile over threads and vectorize. Every other use
    of the value then reads the copy. `copy` holds the new `linalg.copy`
    ops. Produces a silenceable failure for a value that is not a ranked
    tensor.

    ```mlir
    %copy = transform.int21.promote_copy to #gpu.address_space<workgroup> %a
        : (!transform.any_value) -> !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformValueHandleTypeInterface:$tensor,
                       OptionalAttr<AnyAttr>:$memory_space);
  let results = (outs TransformHandleTypeInterface:$copy);
  let assemblyFormat = "(`to` $memory_space^)? $tensor attr-dict `:` "
                       "functional-type($tensor, $copy)";
}

def Int21_LoopFullUnrollOp : Op<Transform_Dialect, "int21.loop.full_unroll", [
    FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
    TransformOpInterface, TransformEachOpTrait]> {
  let summary = "Unrolls each scf.for of a constant trip count completely";
  let description = [{
    Replaces each `scf.for` that `target` holds, whose bounds and step are
    constants, by as many copies of its body as it has iterations (none, for
    an empty loop). Unlike `transform.loop.unroll`, whose factor is an
    attribute and which leaves a loop over the remainder when the factor does
    not divide the trip count (all of it when the factor exceeds it), the
    number of copies is the loop's own: a template unrolls a loop tiled by a
    knob it only knows as a parameter. Produces a silenceable failure for a
    loop whose trip count is not a constant, and ignores other ops.

    ```mlir
    transform.int21.loop.full_unroll %loop : !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def Int21_HoistSubsetsOp : Op<Transform_Dialect, "int21.loop.hoist_subsets", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformOpInterface, TransformEachOpTrait]> {
  let summary = "Hoists loop-invariant subsets, of static loops in dynamic groups";
  let description = [{
    `transform.loop.hoist_loop_invariant_subsets` on each loop `target`
    holds (an accumulator read before and written after the loop instead of
    at every iteration), except a loop over a dynamic extent in a fusion
    group of dynamic shapes: there the analysis compares slices of symbolic
    sizes (Presburger sets, seconds a loop) to find that the subsets a loop
    over the extent reads and writes differ anyway. Loops of a constant trip
    count (the reduction loops of a register tile) are hoisted from in any
    group, every loop in a group of static shapes, as upstream's op does.
    Ignores ops that are not loops.

    ```mlir
    transform.int21.loop.hoist_subsets %loop : !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def Int21_TileDynamicByOneOp : Op<Transform_Dialect, "int21.tile_dynamic_by_one", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    TransformOpInterface, TransformEachOpTrait]> {
  let summary = "Tiles the dynamic loops of structured ops by one";
  let description = [{
    In a fusion group of dynamic shapes, tiles each loop of dynamic size of
    every structured op on tensors that `target` holds or contains by 1
    (an `scf.for`), so that the op has static sizes and vectorizes: the
    remainder a peeled loop leaves over a dynamic extent (fewer columns than
    a register tile has, whose number only a run knows) runs one column at
    a time, vectorized along its static dimensions (the filters of a
    convolution), rather than as scalar loops. An op with no static
    dimension longer than 1 (nothing to vectorize along) is left as it is;
    so is every op in a group of static shapes, whose remainders have static
    sizes once canonicalized.

    ```mlir
    transform.int21.tile_dynamic_by_one %rest : !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let assemblyFormat = "$target attr-dict `:` type($target)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def Int21_OverlapRemainderOp : Op<Transform_Dialect, "int21.loop.overlap_remainder", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "Runs a peeled remainder over a dynamic extent as one whole tile overlapping the last";
  let description = [{
    `rest` is the remainder loop that `transform.loop.peel` split off
    `main`, over a dynamic extent (in a fusion group of dynamic shapes): the
    tile past the last whole one, of fewer elements than a tile has. Where
    the extent holds a whole tile (`main` ran at least once), the remainder
    runs instead as one whole tile ending at the extent's end, which
    overlaps the last tile of `main`: its sizes are static once
    canonicalized, and it vectorizes as a whole tile does (where a tile
    partial along the vectors ran one column at a time). The columns the
    two tiles share are computed twice, alike, and written twice. Otherwise
    `rest` runs as it is: it is moved into the `else` of an `scf.if`, and
    the handle keeps it.

    Applies only where a second computation of a column is the first one
    again: every use of the loop's region iter_args in its body is a
    `tensor.dim`, the destination of a `tensor.insert_slice`, or a
    `tensor.extract_slice` whose uses are all inits of structured ops that
    do not read their init (a fill, an elementwise op, the bias a product
    starts from). Anything else (an accumulation into the loop's tensor)
    leaves the loop alone, as does a loop of static bounds.

    ```mlir
    %main, %rest = transform.loop.peel %for : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
    transform.int21.loop.overlap_remainder %rest after %main : !transform.any_op, !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$rest,
                       TransformHandleTypeInterface:$main);
  let assemblyFormat = "$rest `after` $main attr-dict `:` type($rest) `,` type($main)";
}

def Int21_PadDynamicTileOp : Op<Transform_Dialect, "int21.pad_dynamic_tile", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<TransformOpInterface>]> {
  let summary = "Pads a partial register tile of dynamic size to a whole one";
  let description = [{
    In a fusion group of dynamic shapes, rewrites each structured op on
    tensors that `target` holds whose loops `dims` are not all of static
    size (the register tile a peeled loop leaves past the last full one of
    a dynamic extent) as the same op on its operands padded with zeros to
    the static bounds of those loops, rounded up to the matching
    `multiples` (the register tile's sizes): the op then has the shapes of
    a full tile and vectorizes as one does, its inputs' windows and its
    accumulators copied into the padded tiles, the valid part of its result
    extracted after. Ops whose loops `dims` are static, ops in groups of
    static shapes and ops whose sizes have no static bound are left as they
    are. Consumes the handle.

    ```mlir
    transform.int21.pad_dynamic_tile %tile dims [2, 3] to [%reg_h, %reg_w]
      : !transform.any_op, !transform.param<i64>, !transform.param<i64>
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$target,
                       DenseI64ArrayAttr:$dims,
                       Variadic<TransformParamTypeInterface>:$multiples);
  let assemblyFormat = [{
    $target `dims` $dims `to` `[` $multiples `]` attr-dict `:` type($target)
    `,` type($multiples)
  }];
  let hasVerifier = 1;
}

def Int21_GeneralizeOp : Op<Transform_Dialect, "int21.generalize", [
    FunctionalStyleTransformOpTrait, MemoryEffectsOpInterface,
    TransformOpInterface, TransformEachOpTrait]> {
  let summary = "Generalizes named structured ops, keeping their tags";
  let description = [{
    Replaces each named structured op that `target` holds by the
    `linalg.generic` of the same indexing maps and body, like
    `transform.structured.generalize`, and gives it the named op's
    discardable attributes: the tags (int21.anchor, int21.root, int21.fuse,
    ...) that the templates match ops by, which upstream's generalization
    drops. A generic is returned as it is. Produces a silenceable failure
    for an op that is not a structured op.

    ```mlir
    %generic = transform.int21.generalize %conv
        : (!transform.any_op) -> !transform.any_op
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$target);
  let results = (outs TransformHandleTypeInterface:$transformed);
  let assemblyFormat = "$target attr-dict `:` functional-type($target, results)";
  let extraClassDeclaration = [{
    ::mlir::DiagnosedSilenceableFailure applyToOne(
        ::mlir::transform::TransformRewriter &rewriter,
        ::mlir::Operation *target,
        ::mlir::transform::ApplyToEachResultList &results,
        ::mlir::transform::TransformState &state);
  }];
}

def Int21_GPUCopyThreadsOp : Op<Transform_Dialect, "int21.gpu.copy_threads", [
    DeclareOpInterfaceMethods<TransformOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Thread counts that copy a tile in vectors of a given width";
  let description = [{
    For the static-shaped structured op `copy` (a tile copy, rows x columns
    in its last two dimensions), picks how a block of `threads_y` x
    `threads_x` threads copies it in pieces of `width` contiguous elements:
    `width` is the largest power of two up to `vector_width` that divides
    the columns, `num_x` the largest divisor of columns / `width` up to
    `threads_x`, `num_y` the largest divisor of the rows up to `threads_y`,
    `step` = `num_x` * `width`. Tiling the copy's columns by `step`, then
    with `num_threads [num_y, num_x]`, gives every thread one vector of
    `width` elements per row and step, neighbouring threads neighbouring
    vectors (coalesced loads), and no thread two adjacent vectors (which
    LLVM would merge into a wider load). All payload ops must have one
    shape; a dynamic shape is a silenceable failure.

    ```mlir
    %ny, %nx, %w, %step = transform.int21.gpu.copy_threads %copy vector %vec
        threads %thr_y, %thr_x : (!transform.any_op, !transform.param<i64>,
        !transform.param<i64>, !transform.param<i64>) -> (!transform.param<i64>,
        !transform.param<i64>, !transform.param<i64>, !transform.param<i64>)
    ```
  }];
  let cppNamespace = "::int21";
  let arguments = (ins TransformHandleTypeInterface:$copy,
                       TransformParamTypeInterface:$vector_width,
                       TransformParamTypeInterface:$threads_y,
                       TransformParamTypeInterface:$threads_x);
  let results = (outs TransformParamTypeInterface:$num_y,
                      TransformParamTypeInterface:$num_x,
                      TransformParamTypeInterface:$width,
                      TransformParamTypeInterface:$step);
  let assemblyFormat = "$copy `vector` $vector_width `threads` $threads_y `,` "
                       "$threads_x attr-dict `:` functional-type(operands, "
                       "results)";
}

def Int21_ApplyMultiplyAddToFMAPatternsOp : Op<Transform_Dialect,
    "apply_patterns.int21.multiply_add_to_fma",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Fuse vector multiply-adds into vector.fma";
  let description = [{
    Rewrites `arith.addf %acc, (arith.mulf %a, %b)` on vectors, where the
    product has no other use, into `vector.fma %a, %b, %acc`: one fused
    instruction instead of two (LLVM does not contract them itself). The
    schedules of elementwise multiply-accumulate kernels (depthwise
    convolutions) use it; the matmul templates get theirs from contractions.
    One rounding instead of two, as the contractions give.
  }];
  let cppNamespace = "::int21";
  let assemblyFormat = "attr-dict";
}

def Int21_ApplyStridedWindowsPatternsOp : Op<Transform_Dialect,
    "apply_patterns.int21.strided_windows",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Give strided windows (convolutions of stride s) vector reads";
  let description = [{
    Two rewrites for a convolution tiled until its window dimensions are
    unit and folded away, where an input's indexing map is left with
    `d * s` (s > 1, the stride), which the vectorizer refuses:
    - a `linalg.generic` reading such an input from a `tensor.extract_slice`
      of unit strides reads it instead from a slice of stride `s` along
      those dimensions, and indexes it with `d`: the generic becomes
      elementwise and vectorizes;
    - a `vector.transfer_read` (in bounds, at zero) of such a strided slice
      reads the contiguous span the strided one lies in, then keeps every
      s-th element with `vector.extract_strided_slice` (shuffles), so that
      no element is loaded on its own.
  }];
  let cppNamespace = "::int21";
  let assemblyFormat = "attr-dict";
}

def Int21_ApplyScalarReadsPatternsOp : Op<Transform_Dialect,
    "apply_patterns.int21.scalar_reads",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Read the elements of 0-d vectors as scalars, in dynamic groups";
  let description = [{
    A `vector.transfer_read` of a tensor into a 0-d vector, in a fusion
    group of dynamic shapes, becomes a `tensor.extract` of the element
    broadcast into the vector. The register tiles of a remainder tiled by one
    (transform.int21.tile_dynamic_by_one) read single input elements that
    way; once bufferized, their source has a layout of dynamic strides, which
    the transfers' lowering to LLVM does not take, while a scalar load takes
    any layout. Reads in groups of static shapes are left as they are.
  }];
  let cppNamespace = "::int21";
  let assemblyFormat = "attr-dict";
}

def Int21_ApplyBoxAffineMapsPatternsOp : Op<Transform_Dialect,
    "apply_patterns.int21.box_affine_maps",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Give generics whose maps are affine over their box strided slices";
  let description = [{
    A `linalg.generic` of static loop ranges (at most 4096 points) reading
    an input through an indexing map that is no projected permutation (the
    im2col copy of a convolution: `d floordiv OW`, `d mod OW`, `(d mod 9)
    floordiv 3`, ...), where over the generic's own box every result of the
    map equals `c + b * d` for one loop dimension `d` (or a constant `c`),
    each dimension in one result at most and `b` >= 1: the input becomes
    the slice of offsets `c` and strides `b` (the results that are
    constants dropped), read with the projected permutation of those
    dimensions, so that the generic vectorizes (a contiguous read at `b` =
    1; see strided_windows for `b` > 1). The map is checked at every point
    of the box, not simplified: a tile of the im2col copy within one output
    row qualifies, one across rows does not.
  }];
  let cppNamespace = "::int21";
  let assemblyFormat = "attr-dict";
}

def Int21_ApplyPadBordersPatternsOp : Op<Transform_Dialect,
    "apply_patterns.int21.pad_borders",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Write a padding's border once instead of filling the whole result";
  let description = [{
    A `tensor.pad` of a constant becomes a `tensor.empty`, one `linalg.fill`
    for each side of each padded dimension (the border that side adds, over
    the source's extent in the dimensions before it and the whole result in
    those after: every border element once), and the source inserted with
    `tensor.insert_slice`. The pad's own bufferization fills the whole
    result and then copies the interior over it: a window schedule's input
    tile written twice. Pads of a value computed per element stay.
  }];
  let cppNamespace = "::int21";
  let assemblyFormat = "attr-dict";
}

def Int21_ApplyRankExpandingInsertsPatternsOp : Op<Transform_Dialect,
    "apply_patterns.int21.rank_expanding_inserts",
    [DeclareOpInterfaceMethods<PatternDescriptorOpInterface>]> {
  let summary = "Turn whole inserts into a tensor.empty that only add unit "
                "dimensions into tensor.expand_shape";
  let description = [{
    `tensor.insert_slice %src into %empty` (a `tensor.empty`), at offsets 0
    with unit strides, whose sizes are the whole of the destination and
    whose source is the destination with some unit dimensions dropped, is
    `tensor.expand_shape %src`: a view of the source once bufferized, where
    the insert is a copy of it. Dropping unit dimensions by slices
    (`linalg.fold_unit_extent_dims_via_slices`) writes a rank-reduced
    `tensor.pad` back this way; the copy it costs is as large as the padded
    input of each thread tile.
  }];
  let cppNamespace = "::int21";
  let assemblyFormat = "attr-dict";
}

#endif // INT21_TRANSFORMS_TRANSFORMOPS
