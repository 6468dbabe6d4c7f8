// Runs the convolution, pooling, normalisation and data movement lowerings:
// int21 -> linalg -> loops -> LLVM, executed by mlir-runner, results checked
// against numpy references (PyTorch semantics for ceil_mode averages).
// RUN: int21-opt %s -int21-lower-to-linalg -one-shot-bufferize="bufferize-function-boundaries" -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata -lower-affine -finalize-memref-to-llvm -convert-math-to-llvm -convert-arith-to-llvm -convert-cf-to-llvm -convert-func-to-llvm -reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @print(%t: tensor<*xf32>) {
  call @printMemrefF32(%t) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // x = arange(32) as [1, 2, 4, 4]; w = arange(36) % 5 - 2 as [2, 2, 3, 3].
  %x = int21.constant dense<[[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]], [[16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0], [28.0, 29.0, 30.0, 31.0]]]]> : tensor<1x2x4x4xf32>
  %w = int21.constant dense<[[[[-2.0, -1.0, 0.0], [1.0, 2.0, -2.0], [-1.0, 0.0, 1.0]], [[2.0, -2.0, -1.0], [0.0, 1.0, 2.0], [-2.0, -1.0, 0.0]]], [[[1.0, 2.0, -2.0], [-1.0, 0.0, 1.0], [2.0, -2.0, -1.0]], [[0.0, 1.0, 2.0], [-2.0, -1.0, 0.0], [1.0, 2.0, -2.0]]]]> : tensor<2x2x3x3xf32>
  %b = int21.constant dense<[1.0, -1.0]> : tensor<2xf32>

  // Convolution with pads 1, stride 2 and a bias.
  // CHECK: sizes = [1, 2, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}34,    -6],
  // CHECK-NEXT: [-7,    -39]],
  // CHECK-NEXT: {{\[\[}}-31,    -41],
  // CHECK-NEXT: [5,    6]]]]
  %0 = int21.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %p0 = tensor.cast %0 : tensor<1x2x2x2xf32> to tensor<*xf32>
  call @print(%p0) : (tensor<*xf32>) -> ()

  // Depthwise (group = C = F): the weight is w reshaped to [4, 1, 3, 3];
  // its first two filters here, with pads 1, stride 2 and a bias.
  // CHECK: sizes = [1, 2, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}3.5,    1.5],
  // CHECK-NEXT: [7.5,    -6.5]],
  // CHECK-NEXT: {{\[\[}}29.5,    -8.5],
  // CHECK-NEXT: [-15.5,    -33.5]]]]
  %wg = int21.reshape %w : tensor<2x2x3x3xf32> to tensor<4x1x3x3xf32>
  %wd = int21.slice %wg {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 2, 1, 3, 3>, steps = array<i64: 1, 1, 1, 1>} : (tensor<4x1x3x3xf32>) -> tensor<2x1x3x3xf32>
  %bd = int21.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %1 = int21.conv %x, %wd, %bd {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %p1 = tensor.cast %1 : tensor<1x2x2x2xf32> to tensor<*xf32>
  call @print(%p1) : (tensor<*xf32>) -> ()

  // Grouped (group 2, two filters per group), no pads.
  // CHECK: sizes = [1, 4, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}3,    1],
  // CHECK-NEXT: [-5,    -7]],
  // CHECK-NEXT: {{\[\[}}-12,    -13],
  // CHECK-NEXT: [-16,    -17]],
  // CHECK-NEXT: {{\[\[}}-12,    -12],
  // CHECK-NEXT: [-12,    -12]],
  // CHECK-NEXT: {{\[\[}}14,    15],
  // CHECK-NEXT: [18,    19]]]]
  %2 = int21.conv %x, %wg {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x2x2xf32>
  %p2 = tensor.cast %2 : tensor<1x4x2x2xf32> to tensor<*xf32>
  call @print(%p2) : (tensor<*xf32>) -> ()

  // Transposed convolution: stride 2, pads 1, output_padding 1.
  // CHECK: sizes = [1, 1, 4, 4]
  // CHECK-NEXT: {{\[\[\[}}-1,    3,    -2,    6],
  // CHECK-NEXT: [4,    26,    6,    18],
  // CHECK-NEXT: [-3,    7,    -4,    8],
  // CHECK-NEXT: [-1,    17,    0,    -4]]]]
  %xt = int21.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]]> : tensor<1x2x2x2xf32>
  %wt = int21.constant dense<[[[[-1.0, 0.0, 1.0], [2.0, -1.0, 0.0], [1.0, 2.0, -1.0]]], [[[0.0, 1.0, 2.0], [-1.0, 0.0, 1.0], [2.0, -1.0, 0.0]]]]> : tensor<2x1x3x3xf32>
  %3 = int21.conv_transpose %xt, %wt {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x2x2xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  %p3 = tensor.cast %3 : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @print(%p3) : (tensor<*xf32>) -> ()

  // Max pool with pads 1 over negative numbers: the padding never wins.
  // CHECK: sizes = [1, 1, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}-2,    -1],
  // CHECK-NEXT: [-1,    -1]]]]
  %xn = int21.constant dense<[[[[-5.0, -3.0, -8.0, -1.0], [-2.0, -9.0, -4.0, -6.0], [-7.0, -1.0, -3.0, -2.0], [-4.0, -6.0, -5.0, -8.0]]]]> : tensor<1x1x4x4xf32>
  %4 = int21.max_pool %xn {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %p4 = tensor.cast %4 : tensor<1x1x2x2xf32> to tensor<*xf32>
  call @print(%p4) : (tensor<*xf32>) -> ()

  // Average pool with pads 1, count_include_pad = false: corner windows
  // hold 4 input elements, edge windows 6, the inner one 9.
  // CHECK: sizes = [1, 1, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}2.5,    4],
  // CHECK-NEXT: [8.5,    10]]]]
  %x16 = int21.reshape %x : tensor<1x2x4x4xf32> to tensor<2x1x4x4xf32>
  %x0 = int21.slice %x16 {starts = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, 4, 4>, steps = array<i64: 1, 1, 1, 1>} : (tensor<2x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %5 = int21.avg_pool %x0 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %p5 = tensor.cast %5 : tensor<1x1x2x2xf32> to tensor<*xf32>
  call @print(%p5) : (tensor<*xf32>) -> ()

  // ceil_mode on arange(25) as 5x5, 2x2 windows, stride 2: the last window
  // of each row and column runs past the input.
  // CHECK: sizes = [1, 1, 3, 3]
  // CHECK-NEXT: {{\[\[\[}}6,    8,    9],
  // CHECK-NEXT: [16,    18,    19],
  // CHECK-NEXT: [21,    23,    24]]]]
  // CHECK: sizes = [1, 1, 3, 3]
  // CHECK-NEXT: {{\[\[\[}}3,    5,    6.5],
  // CHECK-NEXT: [13,    15,    16.5],
  // CHECK-NEXT: [20.5,    22.5,    24]]]]
  %x25 = int21.constant dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0], [10.0, 11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0, 24.0]]]]> : tensor<1x1x5x5xf32>
  %6 = int21.max_pool %x25 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %p6 = tensor.cast %6 : tensor<1x1x3x3xf32> to tensor<*xf32>
  call @print(%p6) : (tensor<*xf32>) -> ()
  %7 = int21.avg_pool %x25 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  %p7 = tensor.cast %7 : tensor<1x1x3x3xf32> to tensor<*xf32>
  call @print(%p7) : (tensor<*xf32>) -> ()

  // count_include_pad with ceil_mode on arange(36) as 6x6, 3x3 windows,
  // stride 2, pads 1: explicit pads count, the extra ceil padding does not
  // (the last window covers 2 rows: 35 / 4 = 8.75 in the corner).
  // CHECK: sizes = [1, 1, 4, 4]
  // CHECK-NEXT: {{\[\[\[}}1.55556,    3.33333,    4.66667,    2.66667],
  // CHECK-NEXT: [8.33333,    14,    16,    8.5],
  // CHECK-NEXT: [16.3333,    26,    28,    14.5],
  // CHECK-NEXT: [10.1667,    16,    17,    8.75]]]]
  %x36 = int21.constant dense<[[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [18.0, 19.0, 20.0, 21.0, 22.0, 23.0], [24.0, 25.0, 26.0, 27.0, 28.0, 29.0], [30.0, 31.0, 32.0, 33.0, 34.0, 35.0]]]]> : tensor<1x1x6x6xf32>
  %8 = int21.avg_pool %x36 {kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32>
  %p8 = tensor.cast %8 : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @print(%p8) : (tensor<*xf32>) -> ()

  // Layer norm over the last axis (epsilon 0 keeps the numbers exact for
  // the first two rows).
  // CHECK: sizes = [3, 4]
  // CHECK-NEXT: {{\[\[}}-0.5,   -2,   3,   3],
  // CHECK-NEXT: [-0.5,   2,   -3,   3],
  // CHECK-NEXT: [-0.84164{{[0-9]*}},   -0.894427,   1.34164,   4.36656]]
  %xl = int21.constant dense<[[0.0, 0.0, 2.0, 2.0], [1.0, 5.0, 1.0, 5.0], [1.0, 2.0, 3.0, 4.0]]> : tensor<3x4xf32>
  %sl = int21.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %bl = int21.constant dense<[0.5, 0.0, 0.0, -1.0]> : tensor<4xf32>
  %9 = int21.layer_norm %xl, %sl, %bl {axis = 1 : i64, epsilon = 0.0 : f32} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %p9 = tensor.cast %9 : tensor<3x4xf32> to tensor<*xf32>
  call @print(%p9) : (tensor<*xf32>) -> ()

  // Slice with negative steps: rows 2, 1, 0 and columns 3, 1.
  // CHECK: sizes = [3, 2]
  // CHECK-NEXT: {{\[\[}}11,   9],
  // CHECK-NEXT: [7,   5],
  // CHECK-NEXT: [3,   1]]
  %xs = int21.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]> : tensor<3x4xf32>
  %10 = int21.slice %xs {starts = array<i64: 2, 3>, sizes = array<i64: 3, 2>, steps = array<i64: -1, -2>} : (tensor<3x4xf32>) -> tensor<3x2xf32>
  %p10 = tensor.cast %10 : tensor<3x2xf32> to tensor<*xf32>
  call @print(%p10) : (tensor<*xf32>) -> ()

  // Gather along axis 0 with a negative index: -1 is row 2.
  // CHECK: sizes = [3, 2]
  // CHECK-NEXT: {{\[\[}}5,   6],
  // CHECK-NEXT: [1,   2],
  // CHECK-NEXT: [5,   6]]
  %data = int21.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %idx = int21.constant dense<[-1, 0, 2]> : tensor<3xi64>
  %11 = int21.gather %data, %idx {axis = 0 : i64} : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %p11 = tensor.cast %11 : tensor<3x2xf32> to tensor<*xf32>
  call @print(%p11) : (tensor<*xf32>) -> ()

  // Reflect, edge and wrap pads of [[0, 1, 2], [3, 4, 5]].
  // CHECK: sizes = [2, 7]
  // CHECK-NEXT: {{\[\[}}2,   1,   0,   1,   2,   1,   0],
  // CHECK-NEXT: [5,   4,   3,   4,   5,   4,   3]]
  // CHECK: sizes = [3, 5]
  // CHECK-NEXT: {{\[\[}}0,   0,   1,   2,   2],
  // CHECK-NEXT: [0,   0,   1,   2,   2],
  // CHECK-NEXT: [3,   3,   4,   5,   5]]
  // CHECK: sizes = [2, 6]
  // CHECK-NEXT: {{\[\[}}1,   2,   0,   1,   2,   0],
  // CHECK-NEXT: [4,   5,   3,   4,   5,   3]]
  %xp = int21.constant dense<[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]> : tensor<2x3xf32>
  %12 = int21.pad %xp {pads = array<i64: 0, 2, 0, 2>, mode = #int21<pad_mode reflect>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x7xf32>
  %p12 = tensor.cast %12 : tensor<2x7xf32> to tensor<*xf32>
  call @print(%p12) : (tensor<*xf32>) -> ()
  %13 = int21.pad %xp {pads = array<i64: 1, 1, 0, 1>, mode = #int21<pad_mode edge>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<3x5xf32>
  %p13 = tensor.cast %13 : tensor<3x5xf32> to tensor<*xf32>
  call @print(%p13) : (tensor<*xf32>) -> ()
  %14 = int21.pad %xp {pads = array<i64: 0, 2, 0, 1>, mode = #int21<pad_mode wrap>, value = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  %p14 = tensor.cast %14 : tensor<2x6xf32> to tensor<*xf32>
  call @print(%p14) : (tensor<*xf32>) -> ()

  // Constant pad that also crops (a negative begin pad on the rows).
  // CHECK: sizes = [2, 4]
  // CHECK-NEXT: {{\[\[}}3,   4,   5,   9],
  // CHECK-NEXT: [9,   9,   9,   9]]
  %15 = int21.pad %xp {pads = array<i64: -1, 0, 1, 1>, mode = #int21<pad_mode constant>, value = 9.0 : f64} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  %p15 = tensor.cast %15 : tensor<2x4xf32> to tensor<*xf32>
  call @print(%p15) : (tensor<*xf32>) -> ()

  // Concatenation along the columns.
  // CHECK: sizes = [2, 5]
  // CHECK-NEXT: {{\[\[}}0,   1,   2,   1,   2],
  // CHECK-NEXT: [3,   4,   5,   4,   5]]
  %c1 = int21.slice %xp {starts = array<i64: 0, 1>, sizes = array<i64: 2, 2>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %16 = int21.concat %xp, %c1 {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %p16 = tensor.cast %16 : tensor<2x5xf32> to tensor<*xf32>
  call @print(%p16) : (tensor<*xf32>) -> ()

  // Argmax along the rows, ties to the last index; argmin to the first.
  // CHECK: sizes = [2]
  // CHECK-NEXT: [2,  1]
  // CHECK: sizes = [2, 1]
  // CHECK-NEXT: {{\[\[}}0],
  // CHECK-NEXT: [2]]
  %xa = int21.constant dense<[[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]]> : tensor<2x3xf32>
  %17 = int21.argmax %xa {axis = 1 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xf32>) -> tensor<2xi64>
  %p17 = tensor.cast %17 : tensor<2xi64> to tensor<*xi64>
  call @printMemrefI64(%p17) : (tensor<*xi64>) -> ()
  %18 = int21.argmin %xa {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  %p18 = tensor.cast %18 : tensor<2x1xi64> to tensor<*xi64>
  call @printMemrefI64(%p18) : (tensor<*xi64>) -> ()

  // Integer convolution (as ConvInteger imports it, in i32), pads 1.
  // CHECK: sizes = [1, 1, 3, 3]
  // CHECK-NEXT: {{\[\[\[}}0,   2,   4],
  // CHECK-NEXT: [-1,   5,   10],
  // CHECK-NEXT: [-3,   -1,   4]]]]
  %xi = int21.constant dense<[[[[1, 2], [3, 4]]]]> : tensor<1x1x2x2xi32>
  %wi = int21.constant dense<[[[[1, -1], [2, 0]]]]> : tensor<1x1x2x2xi32>
  %19 = int21.conv %xi, %wi {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x2x2xi32>, tensor<1x1x2x2xi32>) -> tensor<1x1x3x3xi32>
  %c19 = int21.cast %19 : tensor<1x1x3x3xi32> to tensor<1x1x3x3xi64>
  %p19 = tensor.cast %c19 : tensor<1x1x3x3xi64> to tensor<*xi64>
  call @printMemrefI64(%p19) : (tensor<*xi64>) -> ()

  // Right shifts of signless integers are arithmetic; a shift by the width
  // or more leaves the sign.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [-4,  4,  -1,  2]
  %sv = int21.constant dense<[-16, 16, -1, 5]> : tensor<4xi64>
  %sa = int21.constant dense<[2, 2, 70, 1]> : tensor<4xi64>
  %20 = int21.shift_right %sv, %sa : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %p20 = tensor.cast %20 : tensor<4xi64> to tensor<*xi64>
  call @printMemrefI64(%p20) : (tensor<*xi64>) -> ()
  return
}
