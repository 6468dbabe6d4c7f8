// RUN: int21-opt %s -int21-lower-to-linalg -split-input-file | FileCheck %s

// Tests the lowering of gathers, scatters, resize, grid_sample, roi_align,
// cumsum and topk (lib/Transforms/LowerToLinalg/{Indexing,Resampling,Scans}.cpp).

// GatherElements reads data at the output coordinates with the axis one
// replaced by the normalised, clamped index.
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: ([[D:%.+]]: tensor<3x4xf32>, [[I:%.+]]: tensor<2x4xi32>)
// CHECK: linalg.generic
// CHECK-SAME: ins([[I]] : tensor<2x4xi32>) outs({{.*}} : tensor<2x4xf32>)
// CHECK: ^bb0([[IN:%.+]]: i32, {{.*}}):
// CHECK: [[ROW:%.+]] = linalg.index 0
// CHECK: [[CAST:%.+]] = arith.index_cast [[IN]] : i32 to index
// CHECK: [[LOW:%.+]] = arith.minsi
// CHECK: [[SAFE:%.+]] = arith.maxsi [[LOW]]
// CHECK: [[V:%.+]] = tensor.extract [[D]]{{\[}}[[ROW]], [[SAFE]]]
// CHECK: linalg.yield [[V]]
func.func @gather_elements(%d: tensor<3x4xf32>, %i: tensor<2x4xi32>) -> tensor<2x4xf32> {
  %0 = int21.gather_elements %d, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<2x4xi32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// ScatterElements with add: a loop nest over the updates carries the result
// (starting as the data) and adds one update per iteration in place.
// CHECK-LABEL: func.func @scatter_elements_add
// CHECK-SAME: ([[D:%.+]]: tensor<3x4xf32>, [[I:%.+]]: tensor<2x4xi64>, [[U:%.+]]: tensor<2x4xf32>)
// CHECK: [[R:%.+]] = scf.for [[A:%.+]] = {{.*}} iter_args([[ACC:%.+]] = [[D]]) -> (tensor<3x4xf32>)
// CHECK: scf.for [[B:%.+]] = {{.*}} iter_args([[ACC2:%.+]] = [[ACC]]) -> (tensor<3x4xf32>)
// CHECK: [[UPD:%.+]] = tensor.extract [[U]]{{\[}}[[A]], [[B]]]
// CHECK: [[IDX:%.+]] = tensor.extract [[I]]{{\[}}[[A]], [[B]]]
// CHECK: [[SAFE:%.+]] = arith.maxsi
// CHECK: [[OLD:%.+]] = tensor.extract [[ACC2]]{{\[}}[[SAFE]], [[B]]]
// CHECK: [[NEW:%.+]] = arith.addf [[OLD]], [[UPD]]
// CHECK: [[INS:%.+]] = tensor.insert [[NEW]] into [[ACC2]]{{\[}}[[SAFE]], [[B]]]
// CHECK: scf.yield [[INS]]
// CHECK: return [[R]]
func.func @scatter_elements_add(%d: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %0 = int21.scatter_elements %d, %i, %u {axis = 0 : i64, reduction = #int21<scatter_reduction add>} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// GatherND reads the index tuple from the indices, entry by entry.
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: ([[D:%.+]]: tensor<2x3x4xf32>, [[I:%.+]]: tensor<5x2xi64>)
// CHECK: linalg.generic
// CHECK-SAME: outs({{.*}} : tensor<5x4xf32>)
// CHECK: [[M:%.+]] = linalg.index 0
// CHECK: [[E0:%.+]] = tensor.extract [[I]]{{\[}}[[M]], %{{.+}}]
// CHECK: [[E1:%.+]] = tensor.extract [[I]]{{\[}}[[M]], %{{.+}}]
// CHECK: [[S:%.+]] = linalg.index 1
// CHECK: tensor.extract [[D]]{{\[}}%{{.+}}, %{{.+}}, [[S]]]
func.func @gather_nd(%d: tensor<2x3x4xf32>, %i: tensor<5x2xi64>) -> tensor<5x4xf32> {
  %0 = int21.gather_nd %d, %i {batch_dims = 0 : i64} : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// Nearest resize of the last dimension: floor(x / 2) (asymmetric, floor);
// the copied dimension reads at the output coordinate.
// CHECK-LABEL: func.func @resize_nearest
// CHECK-SAME: ([[X:%.+]]: tensor<2x3xi8>)
// CHECK: linalg.generic
// CHECK-SAME: outs({{.*}} : tensor<2x6xi8>)
// CHECK: [[ROW:%.+]] = linalg.index 0
// CHECK: [[COL:%.+]] = linalg.index 1
// CHECK: [[F:%.+]] = arith.sitofp {{.*}} : i64 to f32
// CHECK: [[Q:%.+]] = arith.divf [[F]], {{.*}} : f32
// CHECK: math.floor [[Q]]
// CHECK: [[SAFE:%.+]] = arith.maxsi
// CHECK: [[V:%.+]] = tensor.extract [[X]]{{\[}}[[ROW]], [[SAFE]]]
// CHECK: linalg.yield [[V]] : i8
func.func @resize_nearest(%x: tensor<2x3xi8>) -> tensor<2x6xi8> {
  %0 = int21.resize %x {mode = #int21<resize_mode nearest>, coordinate_transform = #int21<coordinate_transform asymmetric>, nearest_mode = #int21<nearest_mode floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 1.0, 2.0>, roi = array<f32>} : tensor<2x3xi8> to tensor<2x6xi8>
  return %0 : tensor<2x6xi8>
}

// -----

// Linear resize of f16: two taps, weights and sum in f32.
// CHECK-LABEL: func.func @resize_linear_f16
// CHECK: linalg.generic
// CHECK: math.floor
// CHECK-COUNT-2: tensor.extract
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @resize_linear_f16(%x: tensor<4xf16>) -> tensor<8xf16> {
  %0 = int21.resize %x {mode = #int21<resize_mode linear>, coordinate_transform = #int21<coordinate_transform half_pixel>, nearest_mode = #int21<nearest_mode round_prefer_floor>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = false, extrapolation_value = 0.000000e+00 : f32, scales = array<f32: 2.0>, roi = array<f32>} : tensor<4xf16> to tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// CumSum walks the axis with the running sum as an iteration argument.
// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: ([[X:%.+]]: tensor<3x5xi32>)
// CHECK: [[R:%.+]]:2 = scf.for [[K:%.+]] = {{.*}} iter_args([[OUT:%.+]] = {{.*}}, [[SUM:%.+]] = {{.*}}) -> (tensor<3x5xi32>, tensor<3xi32>)
// CHECK: [[S:%.+]] = tensor.extract_slice [[X]][0, [[K]]] [3, 1] [1, 1] : tensor<3x5xi32> to tensor<3xi32>
// CHECK: [[NEW:%.+]] = linalg.generic
// CHECK-SAME: ins([[S]] : tensor<3xi32>) outs([[SUM]] : tensor<3xi32>)
// CHECK: arith.addi
// CHECK: [[INS:%.+]] = tensor.insert_slice [[NEW]] into [[OUT]][0, [[K]]] [3, 1] [1, 1]
// CHECK: scf.yield [[INS]], [[NEW]]
// CHECK: return [[R]]#0
func.func @cumsum(%x: tensor<3x5xi32>) -> tensor<3x5xi32> {
  %0 = int21.cumsum %x {axis = 1 : i64, exclusive = false, reverse = false} : tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}

// -----

// TopK selects one rank per iteration with a reduction generic that keeps
// the best value and its index.
// CHECK-LABEL: func.func @topk
// CHECK: [[R:%.+]]:4 = scf.for
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: linalg.yield
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
// CHECK: return [[R]]#0, [[R]]#1
func.func @topk(%x: tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %v, %i = int21.topk %x {k = 3 : i64, axis = 1 : i64, largest = true} : (tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// GridSample reads its point from the grid and, bilinear, four taps of the
// input, each zero outside it.
// CHECK-LABEL: func.func @grid_sample
// CHECK-SAME: ([[X:%.+]]: tensor<1x2x3x4xf32>, [[G:%.+]]: tensor<1x5x6x2xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs({{.*}} : tensor<1x2x5x6xf32>)
// CHECK: tensor.extract [[G]]
// CHECK: tensor.extract [[G]]
// CHECK: math.floor
// CHECK-COUNT-4: tensor.extract [[X]]
// CHECK: linalg.yield
func.func @grid_sample(%x: tensor<1x2x3x4xf32>, %g: tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32> {
  %0 = int21.grid_sample %x, %g {mode = #int21<grid_sample_mode bilinear>, padding = #int21<grid_padding zeros>, align_corners = false} : (tensor<1x2x3x4xf32>, tensor<1x5x6x2xf32>) -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}

// -----

// RoiAlign loops over the samples of a bin inside the generic's body; with
// sampling_ratio 0 their number depends on the region.
// CHECK-LABEL: func.func @roi_align
// CHECK: linalg.generic
// CHECK-SAME: outs({{.*}} : tensor<3x2x2x2xf32>)
// CHECK: math.ceil
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: tensor.extract %arg0
// CHECK: arith.divf
// CHECK: linalg.yield
func.func @roi_align(%x: tensor<1x2x8x8xf32>, %rois: tensor<3x4xf32>, %b: tensor<3xi64>) -> tensor<3x2x2x2xf32> {
  %0 = int21.roi_align %x, %rois, %b {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 0 : i64, spatial_scale = 1.000000e+00 : f32, half_pixel = true, max = false} : (tensor<1x2x8x8xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x2x2x2xf32>
  return %0 : tensor<3x2x2x2xf32>
}
