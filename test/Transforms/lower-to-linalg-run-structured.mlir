// Runs the elementwise, contraction and reduction lowerings: int21 ->
// linalg -> loops -> LLVM, executed by mlir-runner, results checked.
// RUN: int21-opt %s -int21-lower-to-linalg --transform-preload-library=transform-library-paths=%S/Inputs/decompose-aggregates.mlir --transform-interpreter -one-shot-bufferize="bufferize-function-boundaries" -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata -lower-affine -finalize-memref-to-llvm -convert-math-to-llvm -convert-arith-to-llvm -convert-cf-to-llvm -convert-func-to-llvm -reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print(%t: tensor<*xf32>) {
  call @printMemrefF32(%t) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %x = int21.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = int21.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>

  // Broadcast add, then log-softmax along the rows: [11, 22, 33] and
  // [14, 25, 36] both give [-22, -11, -1.67e-5].
  // CHECK: sizes = [2, 3]
  // CHECK-NEXT: {{\[}}[-22, -11, -1.66{{[0-9]*}}e-05],
  // CHECK-NEXT: [-22, -11, -1.66{{[0-9]*}}e-05]]
  %0 = int21.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = int21.log_softmax %0 {axis = 1 : i64} : tensor<2x3xf32>
  %p1 = tensor.cast %1 : tensor<2x3xf32> to tensor<*xf32>
  call @print(%p1) : (tensor<*xf32>) -> ()

  // Softmax along the columns: each column is [e^1, e^4] / (e^1 + e^4).
  // CHECK: sizes = [2, 3]
  // CHECK-NEXT: {{\[}}[0.0474259, 0.0474259, 0.0474259],
  // CHECK-NEXT: [0.952574, 0.952574, 0.952574]]
  %2 = int21.softmax %x {axis = 0 : i64} : tensor<2x3xf32>
  %p2 = tensor.cast %2 : tensor<2x3xf32> to tensor<*xf32>
  call @print(%p2) : (tensor<*xf32>) -> ()

  // Matmul with a broadcast batch: x (batch 1) against two 3x2 matrices.
  // CHECK: sizes = [2, 2, 2]
  // CHECK-NEXT: {{\[}}{{\[}}[4, 5],
  // CHECK-NEXT: [10, 11]],
  // CHECK-NEXT: {{\[}}[2, 4],
  // CHECK-NEXT: [8, 10]]]
  %x3 = int21.reshape %x : tensor<2x3xf32> to tensor<1x2x3xf32>
  %w = int21.constant dense<[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 2.0], [0.0, 0.0]]]> : tensor<2x3x2xf32>
  %3 = int21.matmul %x3, %w : (tensor<1x2x3xf32>, tensor<2x3x2xf32>) -> tensor<2x2x2xf32>
  %p3 = tensor.cast %3 : tensor<2x2x2xf32> to tensor<*xf32>
  call @print(%p3) : (tensor<*xf32>) -> ()

  // Mean over the rows, kept as a dimension of 1; max over everything.
  // CHECK: sizes = [2, 1]
  // CHECK-NEXT: {{\[}}[2],
  // CHECK-NEXT: [5]]
  // CHECK: sizes = []
  // CHECK-NEXT: [6]
  %4 = int21.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %p4 = tensor.cast %4 : tensor<2x1xf32> to tensor<*xf32>
  call @print(%p4) : (tensor<*xf32>) -> ()
  %5 = int21.reduce_max %x {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  %p5 = tensor.cast %5 : tensor<f32> to tensor<*xf32>
  call @print(%p5) : (tensor<*xf32>) -> ()

  // Integer remainder takes the divisor's sign; float to int truncates.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [2, -2, 1, -1]
  %a = int21.constant dense<[-7, 7, 7, -7]> : tensor<4xi64>
  %d = int21.constant dense<[3, -3, 3, -3]> : tensor<4xi64>
  %6 = int21.mod %a, %d : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %f6 = int21.cast %6 : tensor<4xi64> to tensor<4xf32>
  %p6 = tensor.cast %f6 : tensor<4xf32> to tensor<*xf32>
  call @print(%p6) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [4]
  // CHECK-NEXT: [-1, 2, 0, 1]
  %g = int21.constant dense<[-1.7, 2.9, -0.2, 1.0]> : tensor<4xf32>
  %7 = int21.cast %g : tensor<4xf32> to tensor<4xi32>
  %f7 = int21.cast %7 : tensor<4xi32> to tensor<4xf32>
  %p7 = tensor.cast %f7 : tensor<4xf32> to tensor<*xf32>
  call @print(%p7) : (tensor<*xf32>) -> ()

  // Clip with min > max gives max everywhere; sigmoid(0) = 0.5; where
  // picks by a broadcast condition.
  // CHECK: sizes = [4]
  // CHECK-NEXT: [1, 1, 1, 1]
  %8 = int21.clip %g {min = 3.0, max = 1.0} : tensor<4xf32>
  %p8 = tensor.cast %8 : tensor<4xf32> to tensor<*xf32>
  call @print(%p8) : (tensor<*xf32>) -> ()
  // CHECK: sizes = [2, 3]
  // CHECK-NEXT: {{\[}}[0.5, 2, 0.5],
  // CHECK-NEXT: [0.5, 5, 0.5]]
  %zero = int21.constant dense<0.0> : tensor<2x3xf32>
  %9 = int21.sigmoid %zero : tensor<2x3xf32>
  %c = int21.constant dense<[false, true, false]> : tensor<3xi1>
  %10 = int21.where %c, %x, %9 : (tensor<3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %p10 = tensor.cast %10 : tensor<2x3xf32> to tensor<*xf32>
  call @print(%p10) : (tensor<*xf32>) -> ()
  return
}
