// Runs the indexing, resampling and scan lowerings (gathers, scatters,
// resize, grid_sample, roi_align, cumsum, topk): int21 -> linalg and scf ->
// loops -> LLVM, executed by mlir-runner, results checked against the ONNX
// reference implementation (PyTorch's grid_sample and ONNX Runtime's
// RoiAlign, transcribed to numpy, for those two).
// RUN: int21-opt %s -int21-lower-to-linalg -one-shot-bufferize="bufferize-function-boundaries" -convert-linalg-to-loops -convert-scf-to-cf -expand-strided-metadata -lower-affine -finalize-memref-to-llvm -convert-math-to-llvm -convert-arith-to-llvm -convert-cf-to-llvm -convert-func-to-llvm -reconcile-unrealized-casts | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_libs | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI64(tensor<*xi64>)

func.func @main() {
  // GatherElements along axis 1; -1 is the last element, 5 is clamped to it.
  // CHECK: sizes = [2, 2]
  // CHECK-NEXT: {{\[\[}}2,   2],
  // CHECK-NEXT: [4,   3]]
  %d = int21.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %gi = int21.constant dense<[[-1, 5], [1, 0]]> : tensor<2x2xi64>
  %0 = int21.gather_elements %d, %gi {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  %p0 = tensor.cast %0 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p0) : (tensor<*xf32>) -> ()

  // ScatterElements along axis 0 (ONNX's example), no reduction.
  // CHECK: sizes = [3, 3]
  // CHECK-NEXT: {{\[\[}}2,   1.1,   0],
  // CHECK-NEXT: [1,   0,   2.2],
  // CHECK-NEXT: [0,   2.1,   1.2]]
  %z = int21.constant dense<0.0> : tensor<3x3xf32>
  %si = int21.constant dense<[[1, 0, 2], [0, 2, 1]]> : tensor<2x3xi32>
  %su = int21.constant dense<[[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]]> : tensor<2x3xf32>
  %1 = int21.scatter_elements %z, %si, %su {axis = 0 : i64, reduction = #int21<scatter_reduction none>} : (tensor<3x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<3x3xf32>
  %p1 = tensor.cast %1 : tensor<3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%p1) : (tensor<*xf32>) -> ()

  // ScatterElements with add: duplicate (and negative) indices accumulate.
  // CHECK: sizes = [1, 5]
  // CHECK-NEXT: {{\[\[}}1,   5.2,   3,   4,   10]]
  %row = int21.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0]]> : tensor<1x5xf32>
  %ai = int21.constant dense<[[1, 1, -1]]> : tensor<1x3xi64>
  %au = int21.constant dense<[[1.1, 2.1, 5.0]]> : tensor<1x3xf32>
  %2 = int21.scatter_elements %row, %ai, %au {axis = 1 : i64, reduction = #int21<scatter_reduction add>} : (tensor<1x5xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<1x5xf32>
  %p2 = tensor.cast %2 : tensor<1x5xf32> to tensor<*xf32>
  call @printMemrefF32(%p2) : (tensor<*xf32>) -> ()

  // GatherND with batch_dims = 1: one row of each batch entry.
  // CHECK: sizes = [2, 2]
  // CHECK-NEXT: {{\[\[}}2,   3],
  // CHECK-NEXT: [4,   5]]
  %nd = int21.constant dense<[[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]> : tensor<2x2x2xf32>
  %ndi = int21.constant dense<[[1], [0]]> : tensor<2x1xi64>
  %3 = int21.gather_nd %nd, %ndi {batch_dims = 1 : i64} : (tensor<2x2x2xf32>, tensor<2x1xi64>) -> tensor<2x2xf32>
  %p3 = tensor.cast %3 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p3) : (tensor<*xf32>) -> ()

  // ScatterND with mul (ONNX's example data).
  // CHECK: sizes = [8]
  // CHECK-NEXT: [1,  22,  3,  40,  45,  6,  7,  96]
  %v = int21.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %vi = int21.constant dense<[[4], [3], [1], [7]]> : tensor<4x1xi64>
  %vu = int21.constant dense<[9.0, 10.0, 11.0, 12.0]> : tensor<4xf32>
  %4 = int21.scatter_nd %v, %vi, %vu {reduction = #int21<scatter_reduction mul>} : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
  %p4 = tensor.cast %4 : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%p4) : (tensor<*xf32>) -> ()

  // Resize, linear, half_pixel, scales 2.
  // CHECK: sizes = [1, 1, 4, 4]
  // CHECK-NEXT: {{\[\[\[\[}}1,   1.25,   1.75,   2],
  // CHECK-NEXT: [1.5,   1.75,   2.25,   2.5],
  // CHECK-NEXT: [2.5,   2.75,   3.25,   3.5],
  // CHECK-NEXT: [3,   3.25,   3.75,   4]]]]
  %small = int21.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %5 = int21.resize %small {mode = #int21<resize_mode linear>, coordinate_transform = #int21<coordinate_transform half_pixel>, nearest_mode = #int21<nearest_mode round_prefer_floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 1.0, 1.0, 2.0, 2.0>, roi = array<f32>} : tensor<1x1x2x2xf32> to tensor<1x1x4x4xf32>
  %p5 = tensor.cast %5 : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%p5) : (tensor<*xf32>) -> ()

  // Resize, cubic (a = -0.75), half_pixel, scales 0.5; taps clamp to the border.
  // CHECK: sizes = [1, 1, 2, 2]
  // CHECK-NEXT: {{\[\[\[\[}}3.03125,   5.21875],
  // CHECK-NEXT: [11.7812,   13.9688]]]]
  %big = int21.constant dense<[[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0], [13.0, 14.0, 15.0, 16.0]]]]> : tensor<1x1x4x4xf32>
  %6 = int21.resize %big {mode = #int21<resize_mode cubic>, coordinate_transform = #int21<coordinate_transform half_pixel>, nearest_mode = #int21<nearest_mode round_prefer_floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 1.0, 1.0, 0.5, 0.5>, roi = array<f32>} : tensor<1x1x4x4xf32> to tensor<1x1x2x2xf32>
  %p6 = tensor.cast %6 : tensor<1x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p6) : (tensor<*xf32>) -> ()

  // Resize, tf_crop_and_resize, linear: samples outside the input are the
  // extrapolation value 10.
  // CHECK: sizes = [1, 1, 3, 3]
  // CHECK-NEXT: {{\[\[\[\[}}7.6,   10,   10],
  // CHECK-NEXT: [12.4,   10,   10],
  // CHECK-NEXT: [10,   10,   10]]]]
  %7 = int21.resize %big {mode = #int21<resize_mode linear>, coordinate_transform = #int21<coordinate_transform tf_crop_and_resize>, nearest_mode = #int21<nearest_mode round_prefer_floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 1.000000e+01 : f32, scales = array<f32: 1.0, 1.0, 0.75, 0.75>, roi = array<f32: 0.0, 0.0, 0.4, 0.6, 1.0, 1.0, 1.2, 1.7>} : tensor<1x1x4x4xf32> to tensor<1x1x3x3xf32>
  %p7 = tensor.cast %7 : tensor<1x1x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%p7) : (tensor<*xf32>) -> ()

  // Resize, nearest, asymmetric, round_prefer_ceil: x / 2 = 0.5 rounds up.
  // CHECK: sizes = [1, 4]
  // CHECK-NEXT: {{\[\[}}1,   2,   2,   2]]
  %line = int21.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %8 = int21.resize %line {mode = #int21<resize_mode nearest>, coordinate_transform = #int21<coordinate_transform asymmetric>, nearest_mode = #int21<nearest_mode round_prefer_ceil>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 1.0, 2.0>, roi = array<f32>} : tensor<1x2xf32> to tensor<1x4xf32>
  %p8 = tensor.cast %8 : tensor<1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%p8) : (tensor<*xf32>) -> ()

  // GridSample of a 2x3 image at (-1, -1), (0, 0), (0.5, -0.2), (1.2, 0.9):
  // bilinear with zeros, bicubic with border, nearest with zeros (halves to
  // even).
  // CHECK: sizes = [1, 1, 1, 4]
  // CHECK-NEXT: {{\[\[\[\[}}0.25,   3.5,   3.65,   {{0\.72|0\.719999}}]]]]
  // CHECK: sizes = [1, 1, 1, 4]
  // CHECK-NEXT: {{\[\[\[\[}}0.625,   3.5,   3.64559,   6.348]]]]
  // CHECK: sizes = [1, 1, 1, 4]
  // CHECK-NEXT: {{\[\[\[\[}}1,   2,   3,   0]]]]
  %img = int21.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]]> : tensor<1x1x2x3xf32>
  %grid = int21.constant dense<[[[[-1.0, -1.0], [0.0, 0.0], [0.5, -0.2], [1.2, 0.9]]]]> : tensor<1x1x4x2xf32>
  %gs0 = int21.grid_sample %img, %grid {mode = #int21<grid_sample_mode bilinear>, padding = #int21<grid_padding zeros>, align_corners = false} : (tensor<1x1x2x3xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x1x4xf32>
  %pg0 = tensor.cast %gs0 : tensor<1x1x1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%pg0) : (tensor<*xf32>) -> ()
  %gs1 = int21.grid_sample %img, %grid {mode = #int21<grid_sample_mode bicubic>, padding = #int21<grid_padding border>, align_corners = false} : (tensor<1x1x2x3xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x1x4xf32>
  %pg1 = tensor.cast %gs1 : tensor<1x1x1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%pg1) : (tensor<*xf32>) -> ()
  %gs2 = int21.grid_sample %img, %grid {mode = #int21<grid_sample_mode nearest>, padding = #int21<grid_padding zeros>, align_corners = false} : (tensor<1x1x2x3xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x1x4xf32>
  %pg2 = tensor.cast %gs2 : tensor<1x1x1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%pg2) : (tensor<*xf32>) -> ()

  // RoiAlign of arange(16) as 4x4, two regions, 2x2 bins: 2x2 samples per
  // bin with half_pixel, then adaptive samples without.
  // CHECK: sizes = [2, 1, 2, 2]
  // CHECK-NEXT: {{\[\[\[\[}}1.5625,   3],
  // CHECK-NEXT: [7.3125,   8.75]]],
  // CHECK-NEXT: {{\[\[\[}}3.875,   4.625],
  // CHECK-NEXT: [9.875,   10.625]]]]
  // CHECK: sizes = [2, 1, 2, 2]
  // CHECK-NEXT: {{\[\[\[\[}}3.75,   5.25],
  // CHECK-NEXT: [9.75,   11.25]]],
  // CHECK-NEXT: {{\[\[\[}}6.375,   7.125],
  // CHECK-NEXT: [12.125,   12.875]]]]
  %sq = int21.constant dense<[[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]]]> : tensor<1x1x4x4xf32>
  %rois = int21.constant dense<[[0.0, 0.0, 3.0, 3.0], [1.0, 0.5, 2.5, 3.5]]> : tensor<2x4xf32>
  %bi = int21.constant dense<0> : tensor<2xi64>
  %ra0 = int21.roi_align %sq, %rois, %bi {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64, spatial_scale = 1.000000e+00 : f32, half_pixel = true, max = false} : (tensor<1x1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x2x2xf32>
  %pr0 = tensor.cast %ra0 : tensor<2x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pr0) : (tensor<*xf32>) -> ()
  %ra1 = int21.roi_align %sq, %rois, %bi {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 1.000000e+00 : f32, half_pixel = false, max = false} : (tensor<1x1x4x4xf32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x1x2x2xf32>
  %pr1 = tensor.cast %ra1 : tensor<2x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pr1) : (tensor<*xf32>) -> ()

  // CumSum, inclusive, then exclusive and reversed.
  // CHECK: sizes = [5]
  // CHECK-NEXT: [1,  3,  6,  10,  15]
  // CHECK: sizes = [5]
  // CHECK-NEXT: [14,  12,  9,  5,  0]
  %c = int21.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %9 = int21.cumsum %c {axis = 0 : i64, exclusive = false, reverse = false} : tensor<5xf32>
  %p9 = tensor.cast %9 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%p9) : (tensor<*xf32>) -> ()
  %10 = int21.cumsum %c {axis = 0 : i64, exclusive = true, reverse = true} : tensor<5xf32>
  %p10 = tensor.cast %10 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%p10) : (tensor<*xf32>) -> ()

  // TopK, k = 3 of every row, largest first; equal values by index.
  // CHECK: sizes = [3, 3]
  // CHECK-NEXT: {{\[\[}}3,   3,   1],
  // CHECK-NEXT: [7,   6,   5],
  // CHECK-NEXT: [11,   10,   9]]
  // CHECK: sizes = [3, 3]
  // CHECK-NEXT: {{\[\[}}1,   3,   0],
  // CHECK-NEXT: [0,   1,   2],
  // CHECK-NEXT: [1,   2,   3]]
  %t = int21.constant dense<[[1.0, 3.0, 0.0, 3.0], [7.0, 6.0, 5.0, 4.0], [8.0, 11.0, 10.0, 9.0]]> : tensor<3x4xf32>
  %values, %indices = int21.topk %t {k = 3 : i64, axis = 1 : i64, largest = true} : (tensor<3x4xf32>) -> (tensor<3x3xf32>, tensor<3x3xi64>)
  %p11 = tensor.cast %values : tensor<3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%p11) : (tensor<*xf32>) -> ()
  %p12 = tensor.cast %indices : tensor<3x3xi64> to tensor<*xi64>
  call @printMemrefI64(%p12) : (tensor<*xi64>) -> ()

  // TopK, the 2 smallest along axis 0.
  // CHECK: sizes = [2, 4]
  // CHECK-NEXT: {{\[\[}}1,   3,   0,   3],
  // CHECK-NEXT: [7,   6,   5,   4]]
  %sv, %si2 = int21.topk %t {k = 2 : i64, axis = 0 : i64, largest = false} : (tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  %p13 = tensor.cast %sv : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%p13) : (tensor<*xf32>) -> ()
  return
}
