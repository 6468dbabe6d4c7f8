// int21's transform pattern ops, each on the IR it rewrites and on IR it
// must leave alone.
// RUN: int21-opt %s --split-input-file --transform-interpreter | FileCheck %s

// apply_patterns.int21.rank_expanding_inserts: a whole insert into a
// tensor.empty that only adds unit dimensions is an expand_shape (a view);
// one at an offset, one that covers part of its destination and one into a
// tensor that is not empty stay inserts.

// CHECK-LABEL: func.func @whole_insert_into_empty
// CHECK-NEXT: %[[E:.*]] = tensor.expand_shape %arg0 {{\[}}[0, 1], [2], [3]] output_shape [1, 18, 57, 57] : tensor<18x57x57xf32> into tensor<1x18x57x57xf32>
// CHECK-NEXT: %[[F:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1, 2]] output_shape [1, 8, 1] : tensor<8xf32> into tensor<1x8x1xf32>
// CHECK-NEXT: return %[[E]], %[[F]]
func.func @whole_insert_into_empty(%x: tensor<18x57x57xf32>, %y: tensor<8xf32>)
    -> (tensor<1x18x57x57xf32>, tensor<1x8x1xf32>) {
  %e = tensor.empty() : tensor<1x18x57x57xf32>
  %0 = tensor.insert_slice %x into %e[0, 0, 0, 0] [1, 18, 57, 57] [1, 1, 1, 1]
      : tensor<18x57x57xf32> into tensor<1x18x57x57xf32>
  %f = tensor.empty() : tensor<1x8x1xf32>
  %1 = tensor.insert_slice %y into %f[0, 0, 0] [1, 8, 1] [1, 1, 1]
      : tensor<8xf32> into tensor<1x8x1xf32>
  return %0, %1 : tensor<1x18x57x57xf32>, tensor<1x8x1xf32>
}

// CHECK-LABEL: func.func @other_inserts
// CHECK-NOT: tensor.expand_shape
// CHECK-COUNT-3: tensor.insert_slice
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @other_inserts(%x: tensor<18x57xf32>, %d: tensor<2x18x57xf32>)
    -> (tensor<2x18x57xf32>, tensor<2x18x57xf32>, tensor<1x18x60xf32>) {
  %e = tensor.empty() : tensor<2x18x57xf32>
  %0 = tensor.insert_slice %x into %e[1, 0, 0] [1, 18, 57] [1, 1, 1]
      : tensor<18x57xf32> into tensor<2x18x57xf32>
  %1 = tensor.insert_slice %x into %d[0, 0, 0] [1, 18, 57] [1, 1, 1]
      : tensor<18x57xf32> into tensor<2x18x57xf32>
  %w = tensor.empty() : tensor<1x18x60xf32>
  %2 = tensor.insert_slice %x into %w[0, 0, 0] [1, 18, 57] [1, 1, 1]
      : tensor<18x57xf32> into tensor<1x18x60xf32>
  return %0, %1, %2 : tensor<2x18x57xf32>, tensor<2x18x57xf32>, tensor<1x18x60xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.int21.rank_expanding_inserts
    } : !transform.any_op
    transform.yield
  }
}

// -----

// apply_patterns.int21.multiply_add_to_fma: a vector multiply whose only
// use is an add becomes one vector.fma; a shared product and scalars stay.

// CHECK-LABEL: func.func @fma
// CHECK-NEXT: %[[A:.*]] = vector.fma %arg0, %arg1, %arg2 : vector<16xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %arg0, %arg2
// CHECK-NEXT: %[[B:.*]] = arith.addf %[[M]], %arg1
// CHECK-NEXT: %[[S:.*]] = arith.mulf %arg3, %arg3 : f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[S]], %arg3 : f32
// CHECK-NEXT: return %[[A]], %[[B]], %[[M]], %[[T]]
func.func @fma(%a: vector<16xf32>, %b: vector<16xf32>, %c: vector<16xf32>, %s: f32)
    -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, f32) {
  %0 = arith.mulf %a, %b : vector<16xf32>
  %1 = arith.addf %c, %0 : vector<16xf32>
  %2 = arith.mulf %a, %c : vector<16xf32>
  %3 = arith.addf %2, %b : vector<16xf32>
  %4 = arith.mulf %s, %s : f32
  %5 = arith.addf %4, %s : f32
  return %1, %3, %2, %5 : vector<16xf32>, vector<16xf32>, vector<16xf32>, f32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.int21.multiply_add_to_fma
    } : !transform.any_op
    transform.yield
  }
}

// -----

// int21.loop.full_unroll: a loop of a constant trip count becomes that many
// copies of its body (3 here, whatever factor would not divide it); an
// empty one disappears.

// CHECK-LABEL: func.func @full_unroll
// CHECK-NOT: scf.for
// CHECK: %[[A:.*]] = arith.addi %arg0, %arg1
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[A]], %arg1
// CHECK-NEXT: %[[C:.*]] = arith.addi %[[B]], %arg1
// CHECK-NOT: scf.for
// CHECK: return %[[C]], %arg0
func.func @full_unroll(%x: i32, %y: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %0 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (i32) {
    %s = arith.addi %acc, %y : i32
    scf.yield %s : i32
  }
  %1 = scf.for %i = %c3 to %c0 step %c1 iter_args(%acc = %x) -> (i32) {
    %s = arith.addi %acc, %y : i32
    scf.yield %s : i32
  }
  return %0, %1 : i32, i32
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.int21.loop.full_unroll %loops : !transform.any_op
    transform.yield
  }
}


// -----

// int21.generalize: a named op becomes its linalg.generic, keeping the tags
// the templates match ops by (upstream's generalization drops them); a
// generic is returned as it is, with its tags.

// CHECK-LABEL: func.func @generalize_keeps_tags
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// CHECK-SAME: attrs = {int21.anchor, int21.fuse, int21.seen}
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: linalg.generic
// CHECK-SAME: attrs = {int21.root}
// CHECK: return
func.func @generalize_keeps_tags(%x: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>,
                                 %init: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, int21.anchor, int21.fuse}
         ins(%x, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
         ins(%0 : tensor<1x8x8x8xf32>) outs(%init : tensor<1x8x8x8xf32>) attrs = {int21.root} {
  ^bb0(%in: f32, %out: f32):
    %c0 = arith.constant 0.0 : f32
    %m = arith.maximumf %in, %c0 : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  return %1 : tensor<1x8x8x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %conv = transform.structured.match attributes{int21.anchor} in %root : (!transform.any_op) -> !transform.any_op
    %generic = transform.int21.generalize %conv : (!transform.any_op) -> !transform.any_op
    %again = transform.structured.match attributes{int21.fuse} in %root : (!transform.any_op) -> !transform.any_op
    %tail = transform.structured.match attributes{int21.root} in %root : (!transform.any_op) -> !transform.any_op
    %same = transform.int21.generalize %tail : (!transform.any_op) -> !transform.any_op
    transform.annotate %again "int21.seen" : !transform.any_op
    transform.yield
  }
}

// -----

// int21.box_affine_maps: the im2col copy of a 3x3 convolution of stride 2
// (output rows of 8), tiled to 8 pixels of one row, reads its input
// through a slice of stride 2 with a projected permutation; a tile of 16
// pixels spans two rows (its map is no strided slice over its box) and
// stays as it is, as does a generic whose maps are projected permutations.

// CHECK-DAG: #[[IDENT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @box_affine_maps
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[0, 0, 2, 1] [1, 1, 1, 8] [1, 1, 1, 2] : tensor<1x4x17x17xf32> to tensor<8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[IDENT]]]
// CHECK-SAME: ins(%[[S]] : tensor<8xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[IDENT]]]
// CHECK-SAME: ins(%arg0 : tensor<1x4x17x17xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[IDENT]], #[[IDENT]]]
// CHECK-SAME: ins(%arg2 : tensor<1x1x8xf32>)
#im2col = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 9, (d2 floordiv 8) * 2 + (d1 mod 9) floordiv 3 + 2, (d2 mod 8) * 2 + d1 mod 3 + 1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @box_affine_maps(%x: tensor<1x4x17x17xf32>, %out: tensor<1x1x8xf32>, %y: tensor<1x1x8xf32>,
                           %out16: tensor<1x1x16xf32>) -> (tensor<1x1x8xf32>, tensor<1x1x16xf32>, tensor<1x1x8xf32>) {
  %0 = linalg.generic {indexing_maps = [#im2col, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%x : tensor<1x4x17x17xf32>) outs(%out : tensor<1x1x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x8xf32>
  %1 = linalg.generic {indexing_maps = [#im2col, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%x : tensor<1x4x17x17xf32>) outs(%out16 : tensor<1x1x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x16xf32>
  %2 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
         ins(%y : tensor<1x1x8xf32>) outs(%out : tensor<1x1x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x1x8xf32>
  return %0, %1, %2 : tensor<1x1x8xf32>, tensor<1x1x16xf32>, tensor<1x1x8xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.int21.box_affine_maps
    } : !transform.any_op
    transform.yield
  }
}

// -----

// int21.pad_borders: a pad of a constant fills each side of each padded
// dimension (the rows above and below over the whole width, then the
// columns either side over the source's rows) and inserts the source; a
// dynamic side gets a slab of its dynamic size; a pad whose value is
// computed per element stays.

// CHECK-LABEL: func.func @pad_borders
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x10x12xf32>
// CHECK: %[[TOP:.*]] = tensor.extract_slice %[[E]][0, 0, 0] [3, 1, 12] [1, 1, 1]
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[V:.*]] : f32) outs(%[[TOP]] : tensor<3x1x12xf32>)
// CHECK: %[[D1:.*]] = tensor.insert_slice %[[F1]] into %[[E]][0, 0, 0] [3, 1, 12]
// CHECK: tensor.extract_slice %[[D1]][0, 9, 0] [3, 1, 12]
// CHECK: linalg.fill ins(%[[V]] : f32)
// CHECK: %[[D2:.*]] = tensor.insert_slice {{.*}}[0, 9, 0] [3, 1, 12]
// CHECK: tensor.extract_slice %[[D2]][0, 1, 0] [3, 8, 2]
// CHECK: linalg.fill ins(%[[V]] : f32)
// CHECK: %[[D3:.*]] = tensor.insert_slice {{.*}}[0, 1, 0] [3, 8, 2]
// CHECK: tensor.extract_slice %[[D3]][0, 1, 10] [3, 8, 2]
// CHECK: linalg.fill ins(%[[V]] : f32)
// CHECK: %[[D4:.*]] = tensor.insert_slice {{.*}}[0, 1, 10] [3, 8, 2]
// CHECK: %[[R:.*]] = tensor.insert_slice %arg0 into %[[D4]][0, 1, 2] [3, 8, 8] [1, 1, 1] : tensor<3x8x8xf32> into tensor<3x10x12xf32>
// CHECK: %[[DYN:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK: tensor.extract_slice %[[DYN]][0, 0] [%arg2, 6] [1, 1] : tensor<4x6xf32> to tensor<?x6xf32>
// CHECK: linalg.fill
// CHECK: tensor.insert_slice %arg1 into %{{.*}}[%arg2, 0] [%{{.*}}, 6] [1, 1] : tensor<?x6xf32> into tensor<4x6xf32>
// CHECK: tensor.pad %arg0 low[0, 1, 2] high[0, 1, 2]
// CHECK: tensor.yield %{{.*}} : f32
func.func @pad_borders(%x: tensor<3x8x8xf32>, %rows: tensor<?x6xf32>, %low: index)
    -> (tensor<3x10x12xf32>, tensor<4x6xf32>, tensor<3x10x12xf32>) {
  %cst = arith.constant -3.0 : f32
  %0 = tensor.pad %x low[0, 1, 2] high[0, 1, 2] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %cst : f32
  } : tensor<3x8x8xf32> to tensor<3x10x12xf32>
  %1 = tensor.pad %rows low[%low, 0] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<?x6xf32> to tensor<4x6xf32>
  %2 = tensor.pad %x low[0, 1, 2] high[0, 1, 2] {
  ^bb0(%i: index, %j: index, %k: index):
    %v = arith.index_cast %k : index to i32
    %f = arith.sitofp %v : i32 to f32
    tensor.yield %f : f32
  } : tensor<3x8x8xf32> to tensor<3x10x12xf32>
  return %0, %1, %2 : tensor<3x10x12xf32>, tensor<4x6xf32>, tensor<3x10x12xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.int21.pad_borders
    } : !transform.any_op
    transform.yield
  }
}
