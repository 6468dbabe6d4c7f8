// RUN: int21-opt %s -int21-lower-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Elementwise ops share one lowering: a linalg.generic whose indexing maps
// broadcast the operands (a size-1 dimension that broadcasts reads index 0).

// CHECK-DAG: [[ID:#.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: [[ROW:#.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: [[COL:#.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @broadcast_add
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xf32>, [[B:%.+]]: tensor<3xf32>, [[C:%.+]]: tensor<2x1xf32>)
// CHECK: [[E:%.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: [[R:%.+]] = linalg.generic {indexing_maps = [[[ID]], [[ROW]], [[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins([[X]], [[B]] : tensor<2x3xf32>, tensor<3xf32>) outs([[E]] : tensor<2x3xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [[[ID]], [[COL]], [[ID]]]
// CHECK-SAME: ins([[R]], [[C]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK: arith.mulf
func.func @broadcast_add(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> tensor<2x3xf32> {
  %0 = int21.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = int21.mul %0, %c : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Scalar bodies: integer ops use the signed arith ops; comparisons produce i1.
// CHECK-LABEL: func.func @integer_and_compare
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: arith.select
// CHECK: arith.cmpi slt
// CHECK: arith.cmpf oge
// CHECK: arith.select
func.func @integer_and_compare(%a: tensor<4xi64>, %b: tensor<4xi64>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xf32>) {
  %0 = int21.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = int21.mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = int21.less %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  %3 = int21.greater_equal %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %4 = int21.where %3, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %4 : tensor<4xi64>, tensor<4xi64>, tensor<4xi1>, tensor<4xf32>
}

// -----

// Unary ops with attributes and compositions.
// CHECK-LABEL: func.func @unary
// CHECK: math.erf
// CHECK: math.exp
// CHECK: arith.divf
// Clip's bounds (constants, no NaN) compared and selected, NaN kept: one
// max and one min instruction on x86.
// CHECK: arith.cmpf olt
// CHECK-NEXT: arith.select
// CHECK: arith.cmpf ogt
// CHECK-NEXT: arith.select
// CHECK: arith.constant 1.000000e-01 : f32
// CHECK: arith.select
func.func @unary(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = int21.erf %x : tensor<8xf32>
  %1 = int21.sigmoid %x : tensor<8xf32>
  %2 = int21.clip %x {min = 0.0, max = 6.0} : tensor<8xf32>
  %3 = int21.leaky_relu %x {alpha = 0.1 : f32} : tensor<8xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Trigonometric and hyperbolic functions map one to one onto math ops.
// CHECK-LABEL: func.func @trigonometry
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
func.func @trigonometry(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = int21.tan %x : tensor<8xf32>
  %1 = int21.asin %0 : tensor<8xf32>
  %2 = int21.acos %1 : tensor<8xf32>
  %3 = int21.atan %2 : tensor<8xf32>
  %4 = int21.sinh %3 : tensor<8xf32>
  %5 = int21.cosh %4 : tensor<8xf32>
  %6 = int21.asinh %5 : tensor<8xf32>
  %7 = int21.acosh %6 : tensor<8xf32>
  %8 = int21.atanh %7 : tensor<8xf32>
  return %8 : tensor<8xf32>
}

// -----

// Shifts: logical on unsigned integers, 0 when the amount (read unsigned)
// is the bit width or more; arithmetic right shifts on signless integers
// clamp the amount to width - 1.
// CHECK-LABEL: func.func @shifts
// CHECK: linalg.generic
// CHECK: ^bb0([[X:%.+]]: i8, [[Y:%.+]]: i8, %{{.+}}: i8):
// CHECK-DAG: [[SHL:%.+]] = arith.shli [[X]], [[Y]] : i8
// CHECK-DAG: [[W:%.+]] = arith.constant 8 : i8
// CHECK-DAG: [[IN:%.+]] = arith.cmpi ult, [[Y]], [[W]] : i8
// CHECK-DAG: [[ZERO:%.+]] = arith.constant 0 : i8
// CHECK: arith.select [[IN]], [[SHL]], [[ZERO]] : i8
// CHECK: linalg.generic
// CHECK: arith.shrui
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK: linalg.generic
// CHECK: ^bb0([[A:%.+]]: i32, [[B:%.+]]: i32, %{{.+}}: i32):
// CHECK-DAG: [[LAST:%.+]] = arith.constant 31 : i32
// CHECK-DAG: [[INB:%.+]] = arith.cmpi ult, [[B]], %{{.+}} : i32
// CHECK: [[AMOUNT:%.+]] = arith.select [[INB]], [[B]], [[LAST]] : i32
// CHECK: arith.shrsi [[A]], [[AMOUNT]] : i32
func.func @shifts(%x: tensor<4xui8>, %y: tensor<4xui8>, %a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xi32>) {
  %0 = int21.shift_left %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = int21.shift_right %x, %y : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = int21.shift_right %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2 : tensor<4xui8>, tensor<4xui8>, tensor<4xi32>
}

// -----

// Casts follow ONNX: float to int truncates, bool converts as 0/1, anything
// to bool is "not zero".
// CHECK-LABEL: func.func @casts
// CHECK: arith.fptosi
// CHECK: arith.uitofp
// CHECK: arith.cmpf une
func.func @casts(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xi1>) {
  %0 = int21.cast %x : tensor<4xf32> to tensor<4xi32>
  %1 = int21.cast %b : tensor<4xi1> to tensor<4xf32>
  %2 = int21.cast %x : tensor<4xf32> to tensor<4xi1>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Constants keep their attribute, weight blobs included.
// CHECK-LABEL: func.func @constants
// CHECK: arith.constant dense<[1, 2]> : tensor<2xi64>
// CHECK: arith.constant dense_resource<blob> : tensor<4xf32>
func.func @constants() -> (tensor<2xi64>, tensor<4xf32>) {
  %0 = int21.constant dense<[1, 2]> : tensor<2xi64>
  %1 = int21.constant dense_resource<blob> : tensor<4xf32>
  return %0, %1 : tensor<2xi64>, tensor<4xf32>
}

// -----

// Matmul: 2-D is linalg.matmul, equal batches linalg.batch_matmul, both into
// a zero-filled init.
// CHECK-LABEL: func.func @matmuls
// CHECK: [[Z:%.+]] = arith.constant 0.000000e+00 : f32
// CHECK: [[F:%.+]] = linalg.fill ins([[Z]] : f32) outs({{.*}} : tensor<4x2xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x2xf32>) outs([[F]] : tensor<4x2xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<3x4x8xf32>, tensor<3x8x2xf32>)
func.func @matmuls(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<3x4x8xf32>, %d: tensor<3x8x2xf32>) -> (tensor<4x2xf32>, tensor<3x4x2xf32>) {
  %0 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %1 = int21.matmul %c, %d : (tensor<3x4x8xf32>, tensor<3x8x2xf32>) -> tensor<3x4x2xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<3x4x2xf32>
}

// -----

// A constant right operand whose columns fill whole vectors, with more than
// 16 rows on the left: laid out in panels of 16 columns, [N/16, K, 16] (a
// transpose of its [K, N/16, 16] view, folded into the constant by
// int21-outline-weights); a generic over (m, nb, ni, k) writes the result's
// [M, N/16, 16] view, collapsed back. Left batch dimensions flatten into the
// rows as for linalg.matmul. 16 rows or fewer (a decoder step), 10 columns,
// or a weight that is no constant: linalg.matmul.
// CHECK-DAG: [[PA:#.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
// CHECK-DAG: [[PB:#.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>
// CHECK-DAG: [[PC:#.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_panels
// CHECK-SAME: ([[A:%.+]]: tensor<32x8xf32>, [[X:%.+]]: tensor<1x24x8xf32>, [[S:%.+]]: tensor<16x8xf32>, [[V:%.+]]: tensor<8x32xf32>)
// CHECK: [[W:%.+]] = arith.constant dense<5.000000e-01> : tensor<8x32xf32>
// CHECK: [[SPLIT:%.+]] = tensor.expand_shape [[W]] {{\[}}[0], [1, 2]] output_shape [8, 2, 16]
// CHECK: [[PANELS:%.+]] = linalg.transpose ins([[SPLIT]] : tensor<8x2x16xf32>) outs({{.*}} : tensor<2x8x16xf32>) permutation = [1, 0, 2]
// CHECK: [[ZEROS:%.+]] = linalg.fill {{.*}} -> tensor<32x2x16xf32>
// CHECK: [[P:%.+]] = linalg.generic {indexing_maps = [[[PA]], [[PB]], [[PC]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins([[A]], [[PANELS]] : tensor<32x8xf32>, tensor<2x8x16xf32>) outs([[ZEROS]] : tensor<32x2x16xf32>)
// CHECK: tensor.collapse_shape [[P]] {{\[}}[0], [1, 2]] : tensor<32x2x16xf32> into tensor<32x32xf32>
// CHECK: [[ROWS:%.+]] = tensor.collapse_shape [[X]] {{\[}}[0, 1], [2]] : tensor<1x24x8xf32> into tensor<24x8xf32>
// CHECK: linalg.generic {indexing_maps = [[[PA]], [[PB]], [[PC]]], {{.*}} ins([[ROWS]], {{.*}} : tensor<24x8xf32>, tensor<2x8x16xf32>) outs({{.*}} : tensor<24x2x16xf32>)
// CHECK: linalg.matmul ins([[S]], {{.*}} : tensor<16x8xf32>, tensor<8x32xf32>)
// CHECK: linalg.matmul ins([[A]], {{.*}} : tensor<32x8xf32>, tensor<8x10xf32>)
// CHECK: linalg.matmul ins([[A]], [[V]] : tensor<32x8xf32>, tensor<8x32xf32>)
func.func @matmul_panels(%a: tensor<32x8xf32>, %x: tensor<1x24x8xf32>, %s: tensor<16x8xf32>, %v: tensor<8x32xf32>) -> (tensor<32x32xf32>, tensor<1x24x32xf32>, tensor<16x32xf32>, tensor<32x10xf32>, tensor<32x32xf32>) {
  %w = int21.constant dense<0.5> : tensor<8x32xf32>
  %n = int21.constant dense<0.5> : tensor<8x10xf32>
  %0 = int21.matmul %a, %w : (tensor<32x8xf32>, tensor<8x32xf32>) -> tensor<32x32xf32>
  %1 = int21.matmul %x, %w : (tensor<1x24x8xf32>, tensor<8x32xf32>) -> tensor<1x24x32xf32>
  %2 = int21.matmul %s, %w : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
  %3 = int21.matmul %a, %n : (tensor<32x8xf32>, tensor<8x10xf32>) -> tensor<32x10xf32>
  %4 = int21.matmul %a, %v : (tensor<32x8xf32>, tensor<8x32xf32>) -> tensor<32x32xf32>
  return %0, %1, %2, %3, %4 : tensor<32x32xf32>, tensor<1x24x32xf32>, tensor<16x32xf32>, tensor<32x10xf32>, tensor<32x32xf32>
}

// -----

// Broadcast batch dimensions: a generic over (batch, m, n, k).
// CHECK-DAG: [[LHS:#.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: [[RHS:#.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: [[OUT:#.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_broadcast
// CHECK: linalg.generic {indexing_maps = [[[LHS]], [[RHS]], [[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul_broadcast(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = int21.matmul %a, %b : (tensor<2x1x4x8xf32>, tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// Data movement: transpose, reshapes through collapse/expand, expand as a
// broadcasting generic.
// CHECK-LABEL: func.func @movement
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 3, 4] : tensor<2x12xf32> into tensor<2x3x4xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
func.func @movement(%x: tensor<2x3x4xf32>, %y: tensor<2x12xf32>, %z: tensor<3x1xf32>) -> (tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>) {
  %0 = int21.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = int21.reshape %x : tensor<2x3x4xf32> to tensor<6x4xf32>
  %2 = int21.reshape %y : tensor<2x12xf32> to tensor<2x3x4xf32>
  %3 = int21.reshape %x : tensor<2x3x4xf32> to tensor<4x6xf32>
  %4 = int21.expand %z : tensor<3x1xf32> to tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4 : tensor<4x2x3xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<2x3x4xf32>
}

// -----

// Reductions: linalg.reduce from the reduction's identity; the mean divides
// by the reduced element count; keepdims expands the result back.
// CHECK-LABEL: func.func @reductions
// CHECK: [[NEG_INF:%.+]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins([[NEG_INF]] : f32)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [1, 2]
// CHECK: arith.maximumf
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x4xf32>) dimensions = [1]
// CHECK: arith.addf
// CHECK: arith.constant 3.000000e+00 : f32
// CHECK: arith.divf
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2xf32>, tensor<2x1x4xf32>) {
  %0 = int21.reduce_max %x {axes = array<i64: 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<2xf32>
  %1 = int21.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0, %1 : tensor<2xf32>, tensor<2x1x4xf32>
}

// -----

// A float reduction over trailing dimensions of rows of at least 256
// elements, a multiple of 16 (a global pooling): the row viewed as
// [P/16, 16], reduced over its first dimension (16 independent lanes a step)
// and then over the lanes; the mean divides after. Rows of another length,
// or dimensions that are not trailing, reduce in one step.
// CHECK-LABEL: func.func @reductions_in_lanes
// CHECK: [[ROWS:%.+]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x8x16x16xf32> into tensor<1x8x256xf32>
// CHECK: [[LANES:%.+]] = tensor.expand_shape [[ROWS]] {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 16, 16] : tensor<1x8x256xf32> into tensor<1x8x16x16xf32>
// CHECK: [[PARTIAL:%.+]] = linalg.reduce ins([[LANES]] : tensor<1x8x16x16xf32>) outs(%{{.*}} : tensor<1x8x16xf32>) dimensions = [2]
// CHECK: linalg.reduce ins([[PARTIAL]] : tensor<1x8x16xf32>) outs(%{{.*}} : tensor<1x8xf32>) dimensions = [2]
// CHECK: arith.constant 2.560000e+02 : f32
// CHECK: arith.divf
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x300xf32>) outs(%{{.*}} : tensor<2xf32>) dimensions = [1]
// CHECK: linalg.reduce ins(%{{.*}} : tensor<4x512x2xf32>) outs(%{{.*}} : tensor<4x2xf32>) dimensions = [1]
func.func @reductions_in_lanes(%x: tensor<1x8x16x16xf32>, %y: tensor<2x300xf32>, %z: tensor<4x512x2xf32>) -> (tensor<1x8x1x1xf32>, tensor<2xf32>, tensor<4x2xf32>) {
  %0 = int21.reduce_mean %x {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x8x16x16xf32>) -> tensor<1x8x1x1xf32>
  %1 = int21.reduce_max %y {axes = array<i64: 1>, keepdims = false} : (tensor<2x300xf32>) -> tensor<2xf32>
  %2 = int21.reduce_sum %z {axes = array<i64: 1>, keepdims = false} : (tensor<4x512x2xf32>) -> tensor<4x2xf32>
  return %0, %1, %2 : tensor<1x8x1x1xf32>, tensor<2xf32>, tensor<4x2xf32>
}

// -----

// Softmax is linalg.softmax; log-softmax is max, shift, exp, sum, log.
// CHECK-LABEL: func.func @softmaxes
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : tensor<4x10xf32>) outs(%{{.*}} : tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: linalg.reduce
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: linalg.reduce
// CHECK: math.log
func.func @softmaxes(%x: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %0 = int21.softmax %x {axis = 1 : i64} : tensor<4x10xf32>
  %1 = int21.log_softmax %x {axis = 1 : i64} : tensor<4x10xf32>
  return %0, %1 : tensor<4x10xf32>, tensor<4x10xf32>
}

// -----

// Fusion groups stay; their bodies are lowered.
// CHECK-LABEL: func.func @in_group
// CHECK: int21.fusion_group {
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: int21.yield
func.func @in_group(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %0 = int21.fusion_group {
    %1 = int21.matmul %a, %b : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    %2 = int21.relu %1 : tensor<4x2xf32>
    int21.yield %2 : tensor<4x2xf32>
  } : tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

// Unsigned element types compute on signless integers: operands are bitcast
// in, the result out, and the scalar body uses the unsigned arith ops.
// CHECK-LABEL: func.func @unsigned_elementwise
// CHECK-SAME: ([[A:%.+]]: tensor<4xui8>, [[B:%.+]]: tensor<4xui8>)
// CHECK-DAG: [[AS:%.+]] = tensor.bitcast [[A]] : tensor<4xui8> to tensor<4xi8>
// CHECK-DAG: [[BS:%.+]] = tensor.bitcast [[B]] : tensor<4xui8> to tensor<4xi8>
// CHECK: [[DIV:%.+]] = linalg.generic
// CHECK-SAME: ins([[AS]], [[BS]] : tensor<4xi8>, tensor<4xi8>) outs(%{{.*}} : tensor<4xi8>)
// CHECK: arith.divui
// CHECK: [[OUT:%.+]] = tensor.bitcast [[DIV]] : tensor<4xi8> to tensor<4xui8>
// CHECK: arith.remui
// CHECK-NOT: arith.select
// CHECK: arith.maxui
// CHECK: arith.minui
// CHECK: ^bb0([[IN:%.+]]: i8, %{{.*}}: i8):
// CHECK-NEXT: linalg.yield [[IN]] : i8
// CHECK: ^bb0([[IN2:%.+]]: i8, %{{.*}}: i8):
// CHECK-NEXT: linalg.yield [[IN2]] : i8
// CHECK: arith.cmpi ult
// CHECK: arith.cmpi uge
// CHECK: return [[OUT]],
func.func @unsigned_elementwise(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>) {
  %0 = int21.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = int21.mod %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = int21.max %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %3 = int21.min %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %4 = int21.abs %a : tensor<4xui8>
  %5 = int21.relu %a : tensor<4xui8>
  %6 = int21.less %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %7 = int21.greater_equal %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Ops on unsigned values feed each other signless: no bitcasts in between.
// CHECK-LABEL: func.func @unsigned_chain
// CHECK: tensor.bitcast %{{.*}} : tensor<4xui16> to tensor<4xi16>
// CHECK-NOT: tensor.bitcast
// CHECK: arith.muli
// CHECK-NOT: tensor.bitcast
// CHECK: arith.addi
// CHECK: tensor.bitcast %{{.*}} : tensor<4xi16> to tensor<4xui16>
// CHECK-NOT: tensor.bitcast
func.func @unsigned_chain(%a: tensor<4xui16>) -> tensor<4xui16> {
  %0 = int21.mul %a, %a : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  %1 = int21.add %0, %a : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xui16>
  return %1 : tensor<4xui16>
}

// -----

// Casts: unsigned sources zero-extend and convert with uitofp, unsigned
// targets take fptoui; a signed source sign-extends into an unsigned target.
// CHECK-LABEL: func.func @unsigned_casts
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.extsi %{{.*}} : i8 to i16
// CHECK: arith.trunci %{{.*}} : i16 to i8
func.func @unsigned_casts(%u: tensor<4xui8>, %f: tensor<4xf32>, %s: tensor<4xi8>, %w: tensor<4xui16>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xui8>, tensor<4xui16>, tensor<4xui8>) {
  %0 = int21.cast %u : tensor<4xui8> to tensor<4xi32>
  %1 = int21.cast %u : tensor<4xui8> to tensor<4xf32>
  %2 = int21.cast %f : tensor<4xf32> to tensor<4xui8>
  %3 = int21.cast %s : tensor<4xi8> to tensor<4xui16>
  %4 = int21.cast %w : tensor<4xui16> to tensor<4xui8>
  return %0, %1, %2, %3, %4 : tensor<4xi32>, tensor<4xf32>, tensor<4xui8>, tensor<4xui16>, tensor<4xui8>
}

// -----

// math.ipowi reads its exponent as signed: unsigned operands are widened
// first.
// CHECK-LABEL: func.func @unsigned_pow
// CHECK: arith.extui %{{.*}} : i8 to i16
// CHECK: arith.extui %{{.*}} : i8 to i16
// CHECK: math.ipowi %{{.*}}, %{{.*}} : i16
// CHECK: arith.trunci %{{.*}} : i16 to i8
func.func @unsigned_pow(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = int21.pow %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Unsigned constants keep their bits in a signless attribute, blobs included.
// CHECK-LABEL: func.func @unsigned_constants
// CHECK-DAG: [[C:%.+]] = arith.constant dense<[-56, 1]> : tensor<2xi8>
// CHECK-DAG: [[R:%.+]] = arith.constant dense_resource<blob> : tensor<4xi8>
// CHECK-DAG: [[CU:%.+]] = tensor.bitcast [[C]] : tensor<2xi8> to tensor<2xui8>
// CHECK-DAG: [[RU:%.+]] = tensor.bitcast [[R]] : tensor<4xi8> to tensor<4xui8>
// CHECK: return [[CU]], [[RU]]
func.func @unsigned_constants() -> (tensor<2xui8>, tensor<4xui8>) {
  %0 = int21.constant dense<[200, 1]> : tensor<2xui8>
  %1 = int21.constant dense_resource<blob> : tensor<4xui8>
  return %0, %1 : tensor<2xui8>, tensor<4xui8>
}

// -----

// Unsigned reductions start from 0 (max) and all ones (min); the mean
// divides unsigned.
// CHECK-LABEL: func.func @unsigned_reductions
// CHECK: [[ZERO:%.+]] = arith.constant 0 : i8
// CHECK: linalg.fill ins([[ZERO]] : i8)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<2x3xi8>)
// CHECK: arith.maxui
// CHECK: [[ONES:%.+]] = arith.constant -1 : i8
// CHECK: linalg.fill ins([[ONES]] : i8)
// CHECK: arith.minui
// CHECK: arith.addi
// CHECK: arith.divui
func.func @unsigned_reductions(%x: tensor<2x3xui8>) -> (tensor<2xui8>, tensor<2xui8>, tensor<2xui8>) {
  %0 = int21.reduce_max %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  %1 = int21.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  %2 = int21.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  return %0, %1, %2 : tensor<2xui8>, tensor<2xui8>, tensor<2xui8>
}

// -----

// Matmul and data movement need nothing unsigned: the same bits move, and
// wrapping multiply-add is the same on signless integers.
// CHECK-LABEL: func.func @unsigned_matmul_and_movement
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xi8>, tensor<8x2xi8>) outs(%{{.*}} : tensor<4x2xi8>)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x2xi8>) outs(%{{.*}} : tensor<2x4xi8>)
// CHECK: tensor.collapse_shape %{{.*}} : tensor<2x4xi8> into tensor<8xi8>
// CHECK: tensor.bitcast %{{.*}} : tensor<8xi8> to tensor<8xui8>
func.func @unsigned_matmul_and_movement(%a: tensor<4x8xui8>, %b: tensor<8x2xui8>) -> tensor<8xui8> {
  %0 = int21.matmul %a, %b : (tensor<4x8xui8>, tensor<8x2xui8>) -> tensor<4x2xui8>
  %1 = int21.transpose %0 {perm = array<i64: 1, 0>} : (tensor<4x2xui8>) -> tensor<2x4xui8>
  %2 = int21.reshape %1 : tensor<2x4xui8> to tensor<8xui8>
  return %2 : tensor<8xui8>
}

// -----

// Other element types (explicitly signed integers here) are still reported.
func.func @signed(%a: tensor<4xsi8>) -> tensor<4xf32> {
  // expected-error @+1 {{failed to legalize operation 'int21.cast' that was explicitly marked illegal}}
  %0 = int21.cast %a : tensor<4xsi8> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Einsum: the result's letters are the parallel loops, the others reduce; a
// repeated letter reads the diagonal and '1' reads index 0.
// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d0, d2)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2) -> (0, d2, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @einsum
// CHECK:         %[[ZERO:.+]] = linalg.fill
// CHECK:         linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      outs(%[[ZERO]] : tensor<3x5xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @einsum(%a: tensor<3x3x4xf32>, %b: tensor<1x4x5xf32>) -> tensor<3x5xf32> {
  %0 = int21.einsum %a, %b {equation = "iij,1jk->ik"} : (tensor<3x3x4xf32>, tensor<1x4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
