// RUN: int21-opt %s -int21-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Dynamic extents: the result of a broadcast takes each dynamic extent from
// an operand that has it (never from one that broadcasts it from 1); a
// product's rows come from the left operand, its columns from the right.

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME:  ([[X:%.+]]: tensor<1x?xf32>, [[Y:%.+]]: tensor<?x1xf32>)
// CHECK-DAG:   [[C0:%.+]] = arith.constant 0 : index
// CHECK-DAG:   [[C1:%.+]] = arith.constant 1 : index
// CHECK-DAG:   [[ROWS:%.+]] = tensor.dim [[Y]], [[C0]] : tensor<?x1xf32>
// CHECK-DAG:   [[COLS:%.+]] = tensor.dim [[X]], [[C1]] : tensor<1x?xf32>
// CHECK:       [[INIT:%.+]] = tensor.empty([[ROWS]], [[COLS]]) : tensor<?x?xf32>
// CHECK:       linalg.generic {{.*}} ins([[X]], [[Y]] : tensor<1x?xf32>, tensor<?x1xf32>) outs([[INIT]] : tensor<?x?xf32>)
func.func @broadcast(%x: tensor<1x?xf32>, %y: tensor<?x1xf32>) -> tensor<?x?xf32> {
  %0 = int21.add %x, %y : (tensor<1x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:  ([[A:%.+]]: tensor<?x4xf32>, [[B:%.+]]: tensor<4x?xf32>)
// CHECK-DAG:   [[ROWS:%.+]] = tensor.dim [[A]], %{{.+}} : tensor<?x4xf32>
// CHECK-DAG:   [[COLS:%.+]] = tensor.dim [[B]], %{{.+}} : tensor<4x?xf32>
// CHECK:       [[INIT:%.+]] = tensor.empty([[ROWS]], [[COLS]]) : tensor<?x?xf32>
// CHECK:       [[ZERO:%.+]] = linalg.fill ins(%{{.+}} : f32) outs([[INIT]] : tensor<?x?xf32>)
// CHECK:       linalg.matmul ins([[A]], [[B]] : tensor<?x4xf32>, tensor<4x?xf32>) outs([[ZERO]] : tensor<?x?xf32>)
func.func @matmul(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>) -> tensor<?x?xf32> {
  %0 = int21.matmul %a, %b : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Two dynamic extents along one dimension are read as one: checked.
// CHECK-LABEL: func.func @same_extent
// CHECK-SAME:  ([[X:%.+]]: tensor<?x4xf32>, [[Y:%.+]]: tensor<?x4xf32>)
// CHECK:       [[N:%.+]] = tensor.dim [[X]], %{{.+}} : tensor<?x4xf32>
// CHECK:       [[M:%.+]] = tensor.dim [[Y]], %{{.+}} : tensor<?x4xf32>
// CHECK:       [[SAME:%.+]] = arith.cmpi eq, [[M]], [[N]] : index
// CHECK:       cf.assert [[SAME]], "operand 1 dimension 0 must match the broadcast extent of dimension 0 (int21 broadcasts dynamic extents only against static ones of 1)"
// CHECK:       tensor.empty([[N]]) : tensor<?x4xf32>
func.func @same_extent(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = int21.add %x, %y : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME:  ([[X:%.+]]: tensor<?x4xf32>)
// CHECK:       [[N:%.+]] = tensor.dim [[X]], %{{.+}} : tensor<?x4xf32>
// CHECK:       [[INIT:%.+]] = tensor.empty([[N]]) : tensor<4x?xf32>
// CHECK:       linalg.transpose ins([[X]] : tensor<?x4xf32>) outs([[INIT]] : tensor<4x?xf32>) permutation = [1, 0]
func.func @transpose(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %0 = int21.transpose %x {perm = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// A convolution's output extents: N from the input, each spatial one
// (D + pads - kernel) / stride + 1 at run time.
// CHECK-LABEL: func.func @conv
// CHECK-SAME:  ([[X:%.+]]: tensor<?x3x?x?xf32>, [[W:%.+]]: tensor<8x3x3x3xf32>)
// CHECK:       [[P:%.+]] = tensor.pad [[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:       [[N:%.+]] = tensor.dim [[X]], %c0
// CHECK:       [[H:%.+]] = tensor.dim [[X]], %c2
// CHECK:       [[HS:%.+]] = arith.subi
// CHECK:       [[HD:%.+]] = arith.divsi [[HS]], %c2
// CHECK:       [[HO:%.+]] = arith.addi [[HD]], %c1
// CHECK:       tensor.dim [[X]], %c3
// CHECK:       arith.divsi
// CHECK:       [[WO:%.+]] = arith.addi
// CHECK:       tensor.empty([[N]], [[HO]], [[WO]]) : tensor<?x8x?x?xf32>
// CHECK:       linalg.conv_2d_nchw_fchw {{.*}} ins([[P]], {{.*}}) {{.*}} -> tensor<?x8x?x?xf32>
func.func @conv(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %0 = int21.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
      : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// -----

// A max pool in ceil_mode: the output extent rounds up (dropping a last
// window that would start in the padding), and the input is padded at the
// end by what the last window needs beyond it.
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK:       arith.ceildivsi
// CHECK:       arith.cmpi sge
// CHECK:       arith.select
// CHECK:       arith.maxsi
// CHECK:       tensor.pad {{.*}} low[0, 0, 0, 0] high[0, 0, %{{.+}}, %{{.+}}]
// CHECK:       linalg.generic {{.*}} outs({{.*}} : tensor<?x4x?x?xf32>)
func.func @max_pool_ceil(%x: tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32> {
  %0 = int21.max_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true}
      : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// An average over windows that reach padding divides by counts computed
// per output position: not on dynamic extents yet.
func.func @avg_pool_pads(%x: tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32> {
  // expected-error @+1 {{'int21.avg_pool' op on dynamic extents with pads or ceil_mode is not lowered yet: give the model's inputs static shapes with --input-shape}}
  %0 = int21.avg_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false}
      : (tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
  return %0 : tensor<?x4x8x8xf32>
}


// -----

// A concatenation reads the extents off its axis as its first input's.
// CHECK-LABEL: func.func @concat
// CHECK-SAME:  ([[X:%.+]]: tensor<?x2xf32>, [[Y:%.+]]: tensor<?x3xf32>)
// CHECK:       [[M:%.+]] = tensor.dim [[Y]], %c0
// CHECK:       [[N:%.+]] = tensor.dim [[X]], %c0
// CHECK:       [[SAME:%.+]] = arith.cmpi eq, [[M]], [[N]] : index
// CHECK:       cf.assert [[SAME]], "input 1 dimension 0 must match input 0's"
// CHECK:       tensor.concat dim(1) [[X]], [[Y]] : (tensor<?x2xf32>, tensor<?x3xf32>) -> tensor<?x5xf32>
func.func @concat(%x: tensor<?x2xf32>, %y: tensor<?x3xf32>) -> tensor<?x5xf32> {
  %0 = int21.concat %x, %y {axis = 1 : i64} : (tensor<?x2xf32>, tensor<?x3xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// A softmax over rows of any count.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME:  ([[X:%.+]]: tensor<?x8xf32>)
// CHECK:       [[N:%.+]] = tensor.dim [[X]], %c0
// CHECK:       [[INIT:%.+]] = tensor.empty([[N]]) : tensor<?x8xf32>
// CHECK:       linalg.softmax dimension(1) ins([[X]] : tensor<?x8xf32>) outs([[INIT]] : tensor<?x8xf32>)
func.func @softmax(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = int21.softmax %x {axis = 1 : i64} : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A layer norm divides by the count of the normalised elements: static.
func.func @layer_norm_dynamic_features(%x: tensor<4x?xf32>, %s: tensor<1xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'int21.layer_norm' op on dynamic extents in the normalised dimensions is not lowered yet: give the model's inputs static shapes with --input-shape}}
  %0 = int21.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f32} : (tensor<4x?xf32>, tensor<1xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Constant padding of dynamic extents: one tensor.pad.
// CHECK-LABEL: func.func @pad
// CHECK-SAME:  ([[X:%.+]]: tensor<?x4x?x?xf32>)
// CHECK:       tensor.pad [[X]] low[0, 0, 1, 0] high[0, 0, 1, 2]
// CHECK:       tensor.yield %{{.+}} : f32
// CHECK:       } : tensor<?x4x?x?xf32> to tensor<?x4x?x?xf32>
func.func @pad(%x: tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32> {
  %0 = int21.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 1, 2>, mode = #int21<pad_mode constant>, value = 0.0 : f64} : (tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

func.func @pad_reflect(%x: tensor<?x4xf32>) -> tensor<?x6xf32> {
  // expected-error @+1 {{'int21.pad' op on dynamic extents in mode 'reflect' or with negative pads is not lowered yet: give the model's inputs static shapes with --input-shape}}
  %0 = int21.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = #int21<pad_mode reflect>, value = 0.0 : f64} : (tensor<?x4xf32>) -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// A reshape to extents the program computes (batch * heads): the element
// counts are checked to agree, then the elements are viewed through 1-D
// (int21-dynamic-expand-views later views an expansion into several
// dynamic extents). Reshapes compose: the second reads the input.
// CHECK-LABEL: func.func @reshape_computed
// CHECK-SAME:  ([[X:%.+]]: tensor<?x?x8xf32>, [[N:%.+]]: index, [[S:%.+]]: index)
// CHECK:       cf.assert {{.*}} "Reshape: the shape computed at run time must hold as many elements as the input"
// CHECK:       [[FLAT:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0, 1, 2]] : tensor<?x?x8xf32> into tensor<?xf32>
// CHECK:       tensor.expand_shape [[FLAT]] {{\[}}[0, 1, 2]] output_shape {{\[}}[[N]], [[S]], 4] : tensor<?xf32> into tensor<?x?x4xf32>
// CHECK:       [[FLAT2:%.+]] = tensor.collapse_shape [[X]]
// CHECK:       tensor.expand_shape [[FLAT2]] {{\[}}[0, 1]] output_shape {{\[}}[[N]], 8] : tensor<?xf32> into tensor<?x8xf32>
func.func @reshape_computed(%x: tensor<?x?x8xf32>, %n: index, %s: index) -> tensor<?x8xf32> {
  %0 = int21.reshape %x[%n, %s] : tensor<?x?x8xf32> to tensor<?x?x4xf32>
  %1 = int21.reshape %0[%n] : tensor<?x?x4xf32> to tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// An expand to computed extents (ConstantOfShape of a computed shape), and
// positions along a dynamic dimension.
// CHECK-LABEL: func.func @expand_iota
// CHECK-SAME:  ([[N:%.+]]: index)
// CHECK:       [[INIT:%.+]] = tensor.empty([[N]], [[N]]) : tensor<?x?xf32>
// CHECK:       linalg.generic {{.*}} ins(%{{.+}} : tensor<f32>) outs([[INIT]] : tensor<?x?xf32>)
// CHECK:       [[PINIT:%.+]] = tensor.empty([[N]]) : tensor<1x?xi64>
// CHECK:       linalg.generic {{.*}} outs([[PINIT]] : tensor<1x?xi64>)
// CHECK:         [[I:%.+]] = linalg.index 1 : index
// CHECK:         arith.index_cast [[I]] : index to i64
func.func @expand_iota(%n: index) -> (tensor<?x?xf32>, tensor<1x?xi64>) {
  %c = int21.constant dense<1.0> : tensor<f32>
  %0 = int21.expand %c[%n, %n] : tensor<f32> to tensor<?x?xf32>
  %1 = int21.iota [%n] {dimension = 1 : i64} : tensor<1x?xi64>
  return %0, %1 : tensor<?x?xf32>, tensor<1x?xi64>
}

// -----

// A dynamic input extent read as the expand's: checked.
// CHECK-LABEL: func.func @expand_dynamic_input
// CHECK-SAME:  ([[X:%.+]]: tensor<?x1xf32>, [[N:%.+]]: index, [[M:%.+]]: index)
// CHECK:       [[D:%.+]] = tensor.dim [[X]], %{{.+}} : tensor<?x1xf32>
// CHECK:       [[SAME:%.+]] = arith.cmpi eq, [[D]], [[N]] : index
// CHECK:       cf.assert [[SAME]], "Expand: input dimension 0 must match the shape's extent
func.func @expand_dynamic_input(%x: tensor<?x1xf32>, %n: index, %m: index) -> tensor<?x?xf32> {
  %0 = int21.expand %x[%n, %m] : tensor<?x1xf32> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A slice keeps a dynamic extent whole, and reads another at static
// positions, checked to lie inside it.
// CHECK-LABEL: func.func @slice_dynamic
// CHECK-SAME:  ([[X:%.+]]: tensor<?x?x12xf32>)
// CHECK:       [[N:%.+]] = tensor.dim [[X]], %{{.+}} : tensor<?x?x12xf32>
// CHECK:       [[T:%.+]] = tensor.dim [[X]], %{{.+}} : tensor<?x?x12xf32>
// CHECK:       [[IN:%.+]] = arith.cmpi slt, %{{.+}}, [[T]] : index
// CHECK:       cf.assert [[IN]], "Slice: reads element 4 of input dimension 1, which is shorter at run time"
// CHECK:       tensor.extract_slice [[X]][0, 1, 4] {{\[}}[[N]], 2, 4] [1, 3, 1] : tensor<?x?x12xf32> to tensor<?x2x4xf32>
func.func @slice_dynamic(%x: tensor<?x?x12xf32>) -> tensor<?x2x4xf32> {
  %0 = int21.slice %x {starts = array<i64: 0, 1, 4>, sizes = array<i64: -9223372036854775808, 2, 4>, steps = array<i64: 1, 3, 1>} : (tensor<?x?x12xf32>) -> tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}

// -----

// A slice whose positions are computed at run time: a strided view where
// the steps are positive constants, else each element read at its position.
// CHECK-LABEL: func.func @dynamic_slice
// CHECK-SAME:  ([[X:%.+]]: tensor<8x?xf32>, [[S:%.+]]: index, [[N:%.+]]: index, [[T:%.+]]: index)
// CHECK:       tensor.extract_slice [[X]][2, [[S]]] [4, [[N]]] [1, 2] : tensor<8x?xf32> to tensor<4x?xf32>
// CHECK:       [[INIT:%.+]] = tensor.empty([[N]]) : tensor<4x?xf32>
// CHECK:       linalg.generic {{.*}} outs([[INIT]] : tensor<4x?xf32>)
// CHECK:         [[J:%.+]] = linalg.index 1 : index
// CHECK:         [[STEP:%.+]] = arith.muli [[J]], [[T]] : index
// CHECK:         [[AT:%.+]] = arith.addi [[S]], [[STEP]] : index
// CHECK:         tensor.extract [[X]][%{{.+}}, [[AT]]] : tensor<8x?xf32>
func.func @dynamic_slice(%x: tensor<8x?xf32>, %s: index, %n: index, %t: index) -> (tensor<4x?xf32>, tensor<4x?xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %0 = int21.dynamic_slice %x [%c2, %s] [%c4, %n] [%c1, %c2] : tensor<8x?xf32> to tensor<4x?xf32>
  %1 = int21.dynamic_slice %x [%c2, %s] [%c4, %n] [%c1, %t] : tensor<8x?xf32> to tensor<4x?xf32>
  return %0, %1 : tensor<4x?xf32>, tensor<4x?xf32>
}

// -----

// Resize on dynamic extents: a dimension of scale 1 is copied; the others
// sample at coordinates computed from the extents at run time. Scales read
// at run time are checked before the run, and so is an output extent given
// for an input extent that may be 0.
// CHECK-LABEL: func.func @resize_dynamic
// CHECK-SAME:  ([[X:%.+]]: tensor<1x3x?xf32>, [[W:%.+]]: index)
// CHECK:       [[IN:%.+]] = tensor.dim [[X]], %{{.+}} : tensor<1x3x?xf32>
// CHECK:       cf.assert %{{.+}}, "Resize: cannot resize the empty dimension 2 to a non-empty one"
// CHECK:       [[INIT:%.+]] = tensor.empty([[W]]) : tensor<1x3x?xf32>
// CHECK:       linalg.generic {{.*}} outs([[INIT]] : tensor<1x3x?xf32>)
// CHECK:         [[N:%.+]] = linalg.index 0 : index
// CHECK:         [[C:%.+]] = linalg.index 1 : index
// CHECK:         [[LAST:%.+]] = arith.subi [[IN]], %{{.+}} : index
// CHECK:         arith.minsi %{{.+}}, [[LAST]] : index
// CHECK:         tensor.extract [[X]][[[N]], [[C]], %{{.+}}] : tensor<1x3x?xf32>
// CHECK-LABEL: func.func @resize_scales
// CHECK-SAME:  ([[X:%.+]]: tensor<1x2x4xf32>, [[S0:%.+]]: f32, [[S1:%.+]]: f32, [[H:%.+]]: index)
// CHECK:       [[POS:%.+]] = arith.cmpf ogt, [[S1]], %{{.+}} : f32
// CHECK:       [[FIN:%.+]] = arith.cmpf olt, [[S1]], %{{.+}} : f32
// CHECK:       [[OK:%.+]] = arith.andi [[POS]], [[FIN]] : i1
// CHECK:       cf.assert [[OK]], "Resize: the scale of dimension 1 read at run time must be positive and finite"
// CHECK:       tensor.empty([[H]]) : tensor<1x?x4xf32>
// CHECK:         arith.divf %{{.+}}, [[S1]] : f32
func.func @resize_dynamic(%x: tensor<1x3x?xf32>, %w: index) -> tensor<1x3x?xf32> {
  %y = int21.resize %x [%w] {coordinate_transform = #int21<coordinate_transform half_pixel>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = #int21<resize_mode linear>, nearest_mode = #int21<nearest_mode floor>, roi = array<f32>, scales = array<f32: 1.0, 1.0, 2.0>} : tensor<1x3x?xf32> to tensor<1x3x?xf32>
  return %y : tensor<1x3x?xf32>
}
func.func @resize_scales(%x: tensor<1x2x4xf32>, %s0: f32, %s1: f32, %h: index) -> tensor<1x?x4xf32> {
  %c1 = arith.constant 1.0 : f32
  %y = int21.resize %x scales(%s0, %s1, %c1) [%h] {coordinate_transform = #int21<coordinate_transform asymmetric>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, mode = #int21<resize_mode nearest>, nearest_mode = #int21<nearest_mode floor>, roi = array<f32>, scales = array<f32>} : tensor<1x2x4xf32> to tensor<1x?x4xf32>
  return %y : tensor<1x?x4xf32>
}
